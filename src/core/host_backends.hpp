// The backends that live in libtessera.so, as the core reaches them: by the public enum, not
// by name, so that the core depends on no backend. Defined where the library is put together
// (api/backends.cpp).
#pragma once

#include "core/backend.hpp"

namespace tessera::core {

// TSR_BACKEND_CPU or TSR_BACKEND_REFERENCE (any other value: the CPU's).
const BackendTable &host_backend(tsr_backend which);

// The CPU backend's product y = alpha·A·x + beta·y (alpha != 0) straight on the matrix's view,
// nothing checked, routed or logged: for the matrices whose product it runs on one thread in
// their plan's format, so that small products pay for no layer between the call and the rows.
template <typename T>
using SpmvDirectFn = void (*)(const SparseView &A, T alpha, const T *x, T beta, T *y);

// That product for `view` in its current plan (cpu::spmv_direct), or nullptr where the CPU
// runs it otherwise (several threads, a format other than CSR by rows or ELL, other values).
template <typename T> SpmvDirectFn<T> host_spmv_direct(const SparseView &view);

} // namespace tessera::core
