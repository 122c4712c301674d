// The CPU gemv, y = alpha·op(A)·x + beta·y on a column-major A with any nonzero increments:
// the driver (gemv.cpp) that splits the work over threads and runs the ISA's kernels.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// A checked column-major call. incx and incy are nonzero; a negative one starts at the end
// (reference BLAS): element k of x is at x[k·incx] counted from x + (len - 1)·|incx|.
template <typename T> struct GemvArgs {
    bool trans;
    int64_t m, n;
    T alpha;
    const T *A;
    int64_t lda;
    const T *x;
    int64_t incx;
    T beta;
    T *y;
    int64_t incy;
};

// Runs a call with m, n > 0 that is not a quick return on at most max_threads threads and
// returns how many it used. alpha == 0 reads neither A nor x; beta == 0 does not read y.
// Buffers are taken before anything is written: std::bad_alloc leaves y untouched.
template <typename T> int gemv(const GemvArgs<T> &args, int max_threads);

// The name of the ISA whose gemv kernels run ("avx512", "avx2", "generic").
const char *gemv_isa();

} // namespace tessera::cpu
