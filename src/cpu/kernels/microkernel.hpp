// The micro-kernel contract of the CPU gemm driver: an MR×NR tile of C kept in registers for
// a whole KC loop over packed micro-panels of A (MR×kc) and B (kc×NR), plus block sizes.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// C[0:MR, 0:NR] (column-major, leading dimension ldc) = alpha·(a·b) + beta·C, where `a` holds
// kc columns of MR contiguous elements and `b` kc rows of NR contiguous elements.
// beta == 0 must not read C.
template <typename T>
using MicroKernelFn = void (*)(int64_t kc, const T *a, const T *b, T *c, int64_t ldc, T alpha,
                               T beta);

// Block sizes, as data: MR×NR register tile; KC (depth of a packed panel, sized for L1),
// MC (rows of a packed A block, for L2), NC (columns of a packed B panel, for L3); and
// direct_m, the rows of op(A) up to which the unpacked path beats packing B (measured);
// direct_n and direct_n_trans_b, the columns of C up to which it beats packing A (measured, with
// op(B) as stored and transposed; 0: never); KC and MC for the products of Strassen's method
// (strassen.cpp), which update C more often; and whether the macro-kernel asks for the next
// panel of packed B into L2 while the current one runs, where the packed B block is over twice
// the L2 (measured: it pays for the AVX2 tiles on Zen 3, and costs the AVX-512 tiles on a Xeon,
// whose own prefetchers already run ahead).
struct Blocking {
    int mr, nr;
    int64_t mc, kc, nc;
    int64_t direct_m, direct_n, direct_n_trans_b;
    int64_t strassen_mc, strassen_kc;
    bool ask_next_b;
};

// Whether `b`'s MR×NR is the register tile of a kernel that keeps `vectors` vectors of `lanes`
// elements by `columns` columns: each ISA's file checks its block sizes against its kernels
// with it (static_assert), and MC a whole number of MR.
constexpr bool tile_matches(const Blocking &b, int vectors, int lanes, int columns) {
    return b.mr == vectors * lanes && b.nr == columns && b.mc % b.mr == 0 &&
           b.strassen_mc % b.mr == 0;
}

// The unpacked path: C[0:m, 0:n] = alpha·op(A)·op(B) + beta·C for any m, n, k, with op(A)
// column-major and contiguous in i (element (i, l) at a[i + l*lda]) and op(B) at any strides
// (element (l, j) at b[l*b_rs + j*b_cs]). Reads nothing outside the matrices.
template <typename T>
using DirectGemmFn = void (*)(int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t lda,
                              const T *b, int64_t b_rs, int64_t b_cs, T beta, T *c, int64_t ldc);

// The unpacked kernel for exactly an m×n×k product: where one register tile holds all of C, that
// tile's own code (no choice of tiles left for the call), else the whole unpacked path. A gemm
// plan looks it up once; a tiny tsr_?gemm call once per call.
template <typename T> using DirectPickFn = DirectGemmFn<T> (*)(int64_t m, int64_t n, int64_t k);

// For Strassen's products: C_t[0:MR, 0:NR] += scale[t]·(a·b) for t < count (C_t read).
template <typename T>
using MultiKernelFn = void (*)(int64_t kc, const T *a, const T *b, int count, T *const *c,
                               const T *scale, int64_t ldc);

// Strassen's operand sums: d[i] = x[0][i] + Σ_{t<count} coef[t]·x[t][i] for i < n, coef = ±1
// (count <= 4), exactly as the portable loop in pack.hpp forms them.
template <typename T>
using BlockSumFn = void (*)(T *d, int count, const T *const *x, const T *coef, int64_t n);

// Packing of a transposed A block (op(A) = A^T: element (i, l) at a[i*lda + l]) into
// ceil(mc/mr) panels of kc columns × mr rows, rows past mc zero (pack.hpp's pack_a).
template <typename T>
using PackTransposedFn = void (*)(const T *a, int64_t lda, int64_t mc, int64_t kc, int mr, T *dst);

// Packing of one full panel of 6 columns of a column-major op(B) (element (l, j) at
// b[l + j*ldb]) into kc rows of 6 (pack.hpp's pack_b_panel with NR = 6).
template <typename T> using PackBPanel6Fn = void (*)(const T *b, int64_t ldb, int64_t kc, T *dst);

template <typename T> struct MicroKernel {
    const char *name; // "generic", "avx2", "avx512"
    MicroKernelFn<T> run;
    Blocking blocks;
    DirectGemmFn<T> direct;           // nullptr: this ISA always packs
    DirectPickFn<T> direct_for;       // with direct: the kernel for one shape
    MultiKernelFn<T> multi;           // nullptr: tiles go through a buffer
    BlockSumFn<T> sum;                // nullptr: the portable loop
    PackTransposedFn<T> pack_a_trans; // nullptr: the portable loop
    PackBPanel6Fn<T> pack_b6;         // nullptr: the portable loop; else NR is 6
};

// Kernels compiled for any x86-64 / any CPU: plain C++ the compiler vectorises.
const MicroKernel<float> &generic_kernel_f32();
const MicroKernel<double> &generic_kernel_f64();
// Intrinsics kernels, each in a file compiled for its ISA; call only where CPUID allows.
const MicroKernel<float> &avx2_kernel_f32();
const MicroKernel<double> &avx2_kernel_f64();
const MicroKernel<float> &avx512_kernel_f32();
const MicroKernel<double> &avx512_kernel_f64();

} // namespace tessera::cpu
