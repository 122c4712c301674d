// Loader for the CUDA backend plugin (libtessera_cuda.so), looked for by absolute path in the
// directory libtessera.so itself was loaded from, on first need, with the reason kept on failure.
#pragma once

#include "core/backend.hpp"

namespace tessera::core {

// The name of the one versioned symbol the plugin exports. It has the C signature
//   const BackendTable *tessera_cuda_backend_v1(int device, const char **why);
// returning nullptr (and a reason in *why) when no usable device is present.
inline constexpr const char *kCudaEntryPoint = "tessera_cuda_backend_v1";
using CudaEntry = const BackendTable *(*)(int device, const char **why);

// The CUDA backend table, or nullptr with `*why` set to a sentence saying why it cannot run.
// Loads at most once per process; later calls return the cached answer.
const BackendTable *cuda_backend(const char **why);

} // namespace tessera::core
