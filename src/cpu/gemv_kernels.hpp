// The contract of the CPU gemv kernels, one set per ISA (gemv_<isa>.cpp): the two loops the
// driver (gemv.cpp) splits over threads, on contiguous x and y.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// y[0:m) += alpha·A[0:m, 0:n)·x[0:n), A column-major with leading dimension lda.
template <typename T>
using GemvNFn = void (*)(int64_t m, int64_t n, T alpha, const T *A, int64_t lda, const T *x, T *y);

// y[j] = alpha·(A[0:m, j] · x[0:m)) + beta·y[j] for j < n; beta == 0 does not read y.
template <typename T>
using GemvTFn = void (*)(int64_t m, int64_t n, T alpha, const T *A, int64_t lda, const T *x, T beta,
                         T *y);

template <typename T> struct GemvKernels {
    const char *name; // "generic", "avx2", "avx512"
    GemvNFn<T> n;
    GemvTFn<T> t;
};

const GemvKernels<float> &gemv_generic_f32();
const GemvKernels<double> &gemv_generic_f64();
// Intrinsics kernels, each in a file compiled for its ISA; call only where CPUID allows.
const GemvKernels<float> &gemv_avx2_f32();
const GemvKernels<double> &gemv_avx2_f64();
const GemvKernels<float> &gemv_avx512_f32();
const GemvKernels<double> &gemv_avx512_f64();

} // namespace tessera::cpu
