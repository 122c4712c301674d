// Conversions between the formats, all through the canonical CSR, and the padding limit that
// refuses an ELL or DIA layout that would be mostly padding.
#pragma once

#include <cstdint>

#include "sparse/formats.hpp"
#include "sparse/structure.hpp"
#include "sparse/validate.hpp"

namespace tessera::sparse {

// ELL and DIA may store at most kPaddingFactor x nnz slots (values plus padding), or
// kPaddingFloor slots for very small matrices; beyond that they are refused.
inline constexpr int64_t kPaddingFactor = 8;
inline constexpr int64_t kPaddingFloor = 4096;

// Empty when `slots` is within the limit for `nnz`, else a sentence saying why not.
Fault padding_fault(const char *format, int64_t slots, int64_t nnz, const char *detail);

// CSR -> other formats. `width` for ELL must be >= the longest row; for HYB any width >= 0.
// `s` must come from analyze() on the same matrix.
template <typename V, typename I> Coo<V, I> csr_to_coo(const Csr<V, I> &a);
template <typename V, typename I> Ell<V, I> csr_to_ell(const Csr<V, I> &a, int64_t width);
template <typename V, typename I> Dia<V> csr_to_dia(const Csr<V, I> &a, const Structure &s);
template <typename V, typename I> Hyb<V, I> csr_to_hyb(const Csr<V, I> &a, int64_t width);

// CSR -> tiles (the `tiles` kernel of CSR; tiles.cpp).
template <typename V, typename I> Tiled<V> csr_to_tiled(const Csr<V, I> &a);

// Other formats -> CSR (canonical). DIA cannot tell an explicit zero from its fill, so
// dia_to_csr keeps only the nonzero values.
template <typename V, typename I> Csr<V, I> coo_to_csr(const Coo<V, I> &a);
template <typename V, typename I> Csr<V, I> ell_to_csr(const Ell<V, I> &a);
template <typename V, typename I> Csr<V, I> dia_to_csr(const Dia<V> &a);
template <typename V, typename I> Csr<V, I> hyb_to_csr(const Hyb<V, I> &a);

// The CSR of the transpose (cols x rows), canonical, built with up to `threads` threads
// (transpose.cpp).
template <typename V, typename I> Csr<V, I> transpose(const CsrRef<V, I> &a, int threads = 1);
template <typename V, typename I> Csr<V, I> transpose(const Csr<V, I> &a, int threads = 1) {
    return transpose(ref(a), threads);
}

} // namespace tessera::sparse
