// A kernel above 48 KB of dynamic shared memory must opt in, and the opt-in belongs to the
// kernel on one device: it is made once per kernel and device, on first launch there.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

namespace tessera::cuda {

template <auto kernel> cudaError_t opt_in_shared_memory(int bytes) {
    constexpr int kDevices = 64;                 // beyond this, the opt-in is made every time
    static std::atomic<int> made[kDevices] = {}; // 0: not yet; 1: done; else the error + 2
    int device = 0;
    if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (device < kDevices) {
        const int state = made[device].load(std::memory_order_acquire);
        if (state == 1) return cudaSuccess;
        if (state > 1) return cudaError_t(state - 2);
    }
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (device < kDevices)
        made[device].store(e == cudaSuccess ? 1 : int(e) + 2, std::memory_order_release);
    return e;
}

} // namespace tessera::cuda
