// Launchers of the gemm kernels: tile configuration chosen by shape and device, dynamic
// shared memory set up once per kernel, every launch checked. Host-callable, device pointers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::cuda {

template <typename T> struct GemmParams;

struct DeviceInfo {
    int ordinal = 0;
    int sm_count = 1;
    int cc_major = 0, cc_minor = 0;
    char name[256] = {};
};

// C = alpha·op(A)·op(B) + beta·C with alpha != 0 and k > 0; all three on the device.
cudaError_t launch_sgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb, GemmParams<float> p);
// simt: the SIMT kernel even where the FP64 tensor cores exist.
cudaError_t launch_dgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb, GemmParams<double> p,
                         bool simt);
// C = beta·C (beta == 0: zeros, C not read), for alpha == 0 or k == 0.
template <typename T>
cudaError_t launch_scale(cudaStream_t stream, int64_t m, int64_t n, T beta, T *C, int64_t ldc);

// Which kernel launch_sgemm / launch_dgemm would run for this shape (for the call log, tests).
const char *gemm_kernel_name(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, bool simt);

} // namespace tessera::cuda
