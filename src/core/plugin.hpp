// Loader for the CUDA backend plugin (libtessera_cuda.so), looked for by absolute path in the
// directory libtessera.so itself was loaded from, on first need, with the reason kept on failure.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

#include "core/backend.hpp"

namespace tessera::core {

// The name of the one versioned symbol the plugin exports (TESSERA_CUDA_ENTRY, a CudaEntry of
// core/backend.hpp), returning nullptr (and a reason in *why) when no usable device is present.
inline constexpr const char *kCudaEntryPoint = TESSERA_CUDA_ENTRY_NAME;

// The CUDA backend table, or nullptr with `*why` set to a sentence saying why it cannot run.
// Loads at most once per process; later calls return the cached answer.
const BackendTable *cuda_backend(const char **why);

// What the looks for the CUDA driver found (plugin.cpp): whether it is loaded (it is never
// unloaded), and the tick of the coarse clock in which a look last found it absent (-1: none,
// or that clock unusable).
struct DriverLooks {
    std::atomic<bool> loaded{false};
    std::atomic<int64_t> absent_in_tick{-1};
};
extern DriverLooks driver_looks;

// Asks the loader (plugin.cpp): cuda_driver_loaded's answer outside a tick already answered.
bool look_for_cuda_driver(int64_t tick);

// Whether the CUDA driver (libcuda.so) is loaded in this process — only then can a pointer be
// device memory. Cheap enough for every call, tiny products included: inline, one read of the
// coarse clock (no system call) while the driver is absent; within the tick of a look that
// found it absent the answer stands (a device pointer needs the driver loaded, then
// initialised and a context made, tens of milliseconds at the very least, before memory can
// be allocated), and the loaded objects are scanned again only when the loader's count of
// them has changed since the last look.
inline bool cuda_driver_loaded() {
    if (driver_looks.loaded.load(std::memory_order_relaxed)) return true;
    timespec t{};
    const int64_t tick = clock_gettime(CLOCK_MONOTONIC_COARSE, &t) == 0
                             ? int64_t(t.tv_sec) * 1000000000 + t.tv_nsec
                             : -1;
    if (tick >= 0 && tick == driver_looks.absent_in_tick.load(std::memory_order_relaxed))
        return false;
    return look_for_cuda_driver(tick);
}

// The CUDA table when the driver is already loaded (so that a pointer may be device memory),
// else nullptr; never starts CUDA in a process that does not use it.
const BackendTable *cuda_backend_if_driver_loaded();

// Whether any of the pointers is CUDA device memory (false when CUDA is not in use here).
bool any_device_pointer(const void *a, const void *b, const void *c);
// The same with the table cuda_backend_if_driver_loaded() gave (nullptr: none is device
// memory), for callers that already asked the loader in this call.
bool any_device_pointer(const BackendTable *cuda, const void *a, const void *b, const void *c);

} // namespace tessera::core
