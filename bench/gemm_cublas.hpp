// GPU contenders of the gemm bench: cuBLAS (the anchor; TF32 off, or on where asked) and
// Tessera's CUDA backend, both on device copies of the host operands, timed with CUDA events.
#pragma once

#include <memory>
#include <string>

#include "gemm_options.hpp"
#include "gemm_provider.hpp"

namespace tessera::bench {

// nullptr with *why_not filled when cuBLAS or a device is missing, or the bench was built
// without CUDA.
// host_operands: each call copies A and B (and C when beta != 0) in, runs cuBLAS and copies C
// out, all timed by the host's clock (the end-to-end anchor of host-pointer calls).
std::unique_ptr<GemmProvider> make_cublas_gemm(CublasMath math, std::string *why_not,
                                               bool host_operands = false);
// Tessera on the cuda backend with device pointers (what a GPU library is measured on).
std::unique_ptr<GemmProvider> make_tessera_cuda_gemm(std::string *why_not);

} // namespace tessera::bench
