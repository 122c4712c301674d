// The library's own backends, handed to the core by the public enum (core/host_backends.hpp):
// the one place outside the backends that names them.
#include "core/host_backends.hpp"
#include "cpu/backend.hpp"
#include "reference/backend.hpp"

namespace tessera::core {

const BackendTable &host_backend(tsr_backend which) {
    return which == TSR_BACKEND_REFERENCE ? reference::backend() : cpu::backend();
}

template <typename T> SpmvDirectFn<T> host_spmv_direct(const SparseView &view) {
    return cpu::spmv_direct<T>(view);
}
template SpmvDirectFn<float> host_spmv_direct<float>(const SparseView &);
template SpmvDirectFn<double> host_spmv_direct<double>(const SparseView &);

template <typename T>
SpmvDirectFn<T> host_spmv_direct_t(const SparseView &view, void *prepared, const void **storage) {
    return cpu::spmv_direct_t<T>(view, prepared, storage);
}
template SpmvDirectFn<float> host_spmv_direct_t<float>(const SparseView &, void *, const void **);
template SpmvDirectFn<double> host_spmv_direct_t<double>(const SparseView &, void *, const void **);

} // namespace tessera::core
