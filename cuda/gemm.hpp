// The CUDA backend's gemm entries: operands in host or device memory, device ones used in
// place on the handle's stream, host ones staged; and the auto-routing preference.
#pragma once

#include "core/backend.hpp"

namespace tessera::cuda {

tsr_status gemm_f32(const core::ExecContext *ctx, const core::GemmArgs<float> *args);
tsr_status gemm_f64(const core::ExecContext *ctx, const core::GemmArgs<double> *args);

int gemm_prefer(int num_threads, int elem_size, int64_t m, int64_t n, int64_t k, const void *A,
                const void *B, const void *C);

// The kernels from the environment, read once when the plugin is loaded: TESSERA_CUDA_SGEMM
// (SIMT tile), TESSERA_CUDA_DGEMM (simt, or a tensor-core tile), TESSERA_CUDA_MATH (fp32,
// tf32, tf32x3); and TESSERA_VERBOSE=1, which adds a line naming the kernel of each product.
void read_kernel_choice(const core::PluginHost &host);

} // namespace tessera::cuda
