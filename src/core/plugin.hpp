// Loader for the CUDA backend plugin (libtessera_cuda.so), looked for by absolute path in the
// directory libtessera.so itself was loaded from, on first need, with the reason kept on failure.
#pragma once

#include "core/backend.hpp"

namespace tessera::core {

// The name of the one versioned symbol the plugin exports (TESSERA_CUDA_ENTRY, a CudaEntry of
// core/backend.hpp), returning nullptr (and a reason in *why) when no usable device is present.
inline constexpr const char *kCudaEntryPoint = TESSERA_CUDA_ENTRY_NAME;

// The CUDA backend table, or nullptr with `*why` set to a sentence saying why it cannot run.
// Loads at most once per process; later calls return the cached answer.
const BackendTable *cuda_backend(const char **why);

// Whether the CUDA driver (libcuda.so) is loaded in this process — only then can a pointer be
// device memory. Cheap enough for every call: the loader is asked at most once per tick of the
// coarse clock (4 ms or less) while the driver is absent, and the loaded objects are scanned
// again only when the loader's count of loaded objects has changed since the last look.
bool cuda_driver_loaded();

// The CUDA table when the driver is already loaded (so that a pointer may be device memory),
// else nullptr; never starts CUDA in a process that does not use it.
const BackendTable *cuda_backend_if_driver_loaded();

// Whether any of the pointers is CUDA device memory (false when CUDA is not in use here).
bool any_device_pointer(const void *a, const void *b, const void *c);
// The same with the table cuda_backend_if_driver_loaded() gave (nullptr: none is device
// memory), for callers that already asked the loader in this call.
bool any_device_pointer(const BackendTable *cuda, const void *a, const void *b, const void *c);

} // namespace tessera::core
