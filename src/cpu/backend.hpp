// The CPU backend as the rest of the library sees it: its table (backend.cpp).
#pragma once

#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "core/host_backends.hpp"

namespace tessera::cpu {

const core::BackendTable &backend();

// The kernel this backend runs a product of g's shape and transposes on, where that is the
// unpacked path on one thread whatever the handle's threads (a product too small to split, op(A)
// not transposed): a gemm plan calls it directly. nullptr for any other product.
template <typename T> core::HostDirectFn<T> planned_direct(const core::GemmArgs<T> &g);

// planned_direct for a product of m, n, k from 1 to 64 with op(A) not transposed (one that
// always runs unpacked on one thread), from the sizes alone.
template <typename T> core::HostDirectFn<T> tiny_direct(int64_t m, int64_t n, int64_t k);

// The sparse product y = alpha·A·x + beta·y of `view` in its plan, where this backend runs it
// on one thread whatever the handle's threads (CSR by rows with rows + entries, or ELL with
// visited slots, below kSpmvWorkPerThread) and the view holds T values:
// core::host_spmv_direct. nullptr otherwise.
template <typename T> core::SpmvDirectFn<T> spmv_direct(const core::SparseView &view);

// spmv_direct for the product with Aᵀ on this backend's copy of Aᵀ, where it has made one
// (from `prepared`, its sparse_prepare's state for the matrix of `view`): *storage is set to
// the copy's storage. core::host_spmv_direct_t.
template <typename T>
core::SpmvDirectFn<T> spmv_direct_t(const core::SparseView &view, void *prepared,
                                    const void **storage);

} // namespace tessera::cpu
