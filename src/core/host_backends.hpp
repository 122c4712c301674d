// The backends that live in libtessera.so, as the core reaches them: by the public enum, not
// by name, so that the core depends on no backend. Defined where the library is put together
// (api/backends.cpp).
#pragma once

#include "core/backend.hpp"

namespace tessera::core {

// TSR_BACKEND_CPU or TSR_BACKEND_REFERENCE (any other value: the CPU's).
const BackendTable &host_backend(tsr_backend which);

// The CPU backend's product y = alpha·A·x + beta·y (alpha != 0) straight on a matrix's storage
// (the sparse::Storage of src/sparse), nothing checked, routed or logged: for the matrices
// whose product it runs on one thread in their plan's format, so that small products pay for
// no layer between the call and the rows.
template <typename T>
using SpmvDirectFn = void (*)(const void *storage, T alpha, const T *x, T beta, T *y);

// That product for `view` in its current plan (cpu::spmv_direct), or nullptr where the CPU
// runs it otherwise (several threads, a format other than CSR by rows or ELL, other values).
template <typename T> SpmvDirectFn<T> host_spmv_direct(const SparseView &view);

// The product y = alpha·Aᵀ·x + beta·y the same way, where the CPU runs it on its copy of Aᵀ
// (made from the second transposed product on; `prepared` is what the CPU's sparse_prepare
// made for A): the function, with the copy's storage in *storage; nullptr while there is no
// copy, or where its product is not one of those above. The copy lives as long as `prepared`.
template <typename T>
SpmvDirectFn<T> host_spmv_direct_t(const SparseView &view, void *prepared, const void **storage);

} // namespace tessera::core
