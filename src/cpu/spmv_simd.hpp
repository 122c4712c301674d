// The AVX-512 pieces of the CPU sparse kernels (spmv_avx512.cpp, compiled for AVX-512F only):
// CSR row segments with gathers, ELL row blocks with masked gathers, DIA rows;
// and CSR row segments and DIA rows with AVX2 and FMA (spmv_avx2.cpp). Callers use each only
// where cpu::active_isa() is its ISA.
#pragma once

#include <cstdint>

#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"

namespace tessera::cpu {

// Rows [row_begin, row_end) of a CSR segment complete, starting at nonzero nz_begin (the first
// row may have begun in the previous segment); the entries [.., nz_end) of row row_end are
// returned in *carry. Each row's sum as csr_row_sum works it out. Forced inline into each
// ISA's wrapper (csr_segment_scalar, csr_segment_avx2), which then runs its own ISA's code.
template <BetaMode B, typename V, typename I>
[[gnu::always_inline]] inline void csr_segment_rows(const sparse::Csr<V, I> &a, const CsrSegment &s,
                                                    const SpmvVectors<V> &v, V *carry) {
    const I *rp = a.row_ptr.data();
    const I *col = a.col.data();
    const V *val = a.val.data();
    const V *x = v.x;
    const int64_t nnz = a.nnz();
    int64_t j = s.nz_begin;
    for (int64_t i = s.row_begin; i < s.row_end; ++i) {
        const int64_t end = rp[i + 1];
        store<B>(v.y, i, v.alpha, csr_row_sum(val, col, x, j, end, nnz), v.beta);
    }
    V c = 0;
    for (; j < s.nz_end; ++j) c += val[j] * x[col[j]];
    *carry = c;
}

#if defined(__x86_64__)
// csr_segment_rows compiled for AVX2 and FMA (the scalar loop with fused multiply-adds).
template <BetaMode B, typename V, typename I>
void csr_segment_avx2(const sparse::Csr<V, I> &a, const CsrSegment &s, const SpmvVectors<V> &v,
                      V *carry);

// As csr_segment_scalar; with VectorRows, rows of 8 or more entries use gathers.
template <BetaMode B, bool VectorRows, typename V, typename I>
void csr_segment_avx512(const sparse::Csr<V, I> &a, const CsrSegment &s, const SpmvVectors<V> &v,
                        V *carry);

// Row blocks [block_begin, block_end) of 16 rows: y = alpha·(A·x) + beta·y for their rows.
template <BetaMode B, typename V, typename I>
void ell_blocks_avx512(const sparse::Ell<V, I> &a, int64_t block_begin, int64_t block_end,
                       const SpmvVectors<V> &v);

// DIA outputs [o0, o1): y[o] = alpha·Σ_d val[vofs[d] + o] · x[xofs[d] + o] + beta·y[o], over
// the diagonals whose x index o + xofs[d] lies in [0, in_len), summed in registers four vectors
// of outputs at a time (then one); lanes outside a diagonal's range are neither loaded nor added.
template <BetaMode B, typename V>
void dia_rows_avx512(const V *val, const int64_t *vofs, const V *x, const int64_t *xofs,
                     int64_t ndiag, int64_t in_len, int64_t o0, int64_t o1, V alpha, V beta, V *y);

// With AVX2 (spmv_avx2.cpp): outputs [o0, o1), every diagonal in range there, four vectors of
// outputs at a time; and multiply_add's run.
template <typename V> void multiply_add_avx2(V *acc, const V *val, const V *x, int64_t n);
template <BetaMode B, typename V>
void dia_rows_avx2(const V *val, const int64_t *vofs, const V *x, const int64_t *xofs,
                   int64_t ndiag, int64_t o0, int64_t o1, V alpha, V beta, V *y);
#endif

} // namespace tessera::cpu
