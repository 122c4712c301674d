// The CPU sparse kernels, one per format and direction: y = alpha·A·x + beta·y (…_n) and
// y = alpha·Aᵀ·x + beta·y (…_t). alpha != 0 here (the backend handles alpha == 0).
#pragma once

#include <cstdint>

#include "core/host_backends.hpp"
#include "cpu/spmv_rules.hpp"
#include "sparse/formats.hpp"
#include "sparse/storage.hpp"

namespace tessera::cpu {

template <typename V> struct SpmvVectors {
    V alpha;
    const V *x;
    V beta;
    V *y;
};

struct TransposeWork; // per-matrix data of the transposed products (spmv_transpose.cpp)

template <typename V, typename I>
void csr_n(const sparse::Csr<V, I> &a, SpmvKernel kernel, int threads, const SpmvVectors<V> &v);
// csr_n's product on one thread, as a bare function of the view (whose owner is the
// matrix's sparse::Storage holding a Typed<V, I>): for a matrix of fewer rows + entries than
// kSpmvWorkPerThread, which csr_n runs on one thread whatever the handle's threads, the row
// kernel for `kernel` on this CPU; nullptr for a larger matrix.
template <typename V, typename I>
core::SpmvDirectFn<V> csr_direct(const sparse::Csr<V, I> &a, SpmvKernel kernel);
// ell_n's product on one thread as a bare function of the view, as csr_direct: for a matrix
// whose blocks visit fewer slots than kSpmvWorkPerThread; nullptr for a larger one.
template <typename V, typename I> core::SpmvDirectFn<V> ell_direct(const sparse::Ell<V, I> &a);
template <typename V, typename I>
void coo_n(const sparse::Coo<V, I> &a, int threads, const SpmvVectors<V> &v);
// COO with `gaps` false adds alpha·A·x into the rows that have entries and leaves the others
// (the COO tail of HYB, after its ELL part); coo_n is coo_accumulate with gaps.
template <typename V, typename I>
void coo_accumulate(const sparse::Coo<V, I> &a, int threads, const SpmvVectors<V> &v, bool gaps);
template <typename V, typename I>
void ell_n(const sparse::Ell<V, I> &a, int threads, const SpmvVectors<V> &v);
template <typename V> void tiles_n(const sparse::Tiled<V> &a, int threads, const SpmvVectors<V> &v);
template <typename V> void dia_n(const sparse::Dia<V> &a, int threads, const SpmvVectors<V> &v);
template <typename V> void dia_t(const sparse::Dia<V> &a, int threads, const SpmvVectors<V> &v);

// Transposed products of the scattering formats: each thread scatters its share of the
// entries, straight into y where no other thread writes and into a private buffer elsewhere.
template <typename V, typename I>
void scatter_t(const sparse::Typed<V, I> &t, TransposeWork &work, int threads,
               const SpmvVectors<V> &v);

// y = beta·y (alpha == 0: A and x are not read; beta == 0 writes zeros without reading y).
template <typename V> void scale_y(int64_t n, V beta, V *y, int threads);

} // namespace tessera::cpu
