// The contract of the CPU sparse × dense kernels (Y = alpha·A·X + beta·Y on CSR rows), one set
// per ISA (spmm_<isa>.cpp, all from the loops of spmm_rows.hpp): the driver (spmm.cpp) splits
// the rows over threads and hands each a range.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// One range of rows [r0, r1) of a CSR A times the dense block X (k columns), into Y; the
// layout of both is row- or column-major. beta == 0 never reads Y.
template <typename V, typename I> struct SpmmRows {
    const I *row_ptr;
    const I *col;
    const V *val;
    int64_t k;
    bool row_major;   // X's layout
    bool y_row_major; // Y's (the driver may hand the kernels a row-major copy of X)
    V alpha;
    const V *X;
    int64_t ldx;
    V beta;
    V *Y;
    int64_t ldy;
};

template <typename V, typename I>
using SpmmRowsFn = void (*)(const SpmmRows<V, I> &, int64_t r0, int64_t r1);

template <typename V, typename I> struct SpmmKernels {
    const char *name; // "generic", "avx2", "avx512"
    SpmmRowsFn<V, I> rows;
};

template <typename V, typename I> const SpmmKernels<V, I> &spmm_generic();
// Compiled for their ISA; call only where CPUID allows.
template <typename V, typename I> const SpmmKernels<V, I> &spmm_avx2();
template <typename V, typename I> const SpmmKernels<V, I> &spmm_avx512();

// Y = alpha·A·X + beta·Y for all rows of the CSR A (rows × cols), alpha != 0: rows split over
// up to `threads` threads in pieces of equal work, each run by the active ISA's kernel. A
// column-major X is first copied to row-major blocks (a row of X is then one run of memory
// for each entry that reads it, not k lines).
template <typename V, typename I>
void csr_mm(int64_t rows, int64_t cols, const SpmmRows<V, I> &a, int64_t nnz, int threads);

// The ISA the sparse × dense kernels run with (for the call log).
const char *spmm_isa();

} // namespace tessera::cpu
