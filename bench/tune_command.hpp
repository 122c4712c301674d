// The "tune" subcommand of tessera-bench: times every candidate kernel setting of the CUDA gemm
// (tile, split-K slices, stream-K) on a training set of random shapes drawn as the sweep draws
// them, and writes the tuning table the plugin chooses kernels from (cuda/tuning.hpp). Each
// candidate runs in a child process of its own, forced through TESSERA_CUDA_SGEMM / _DGEMM,
// TESSERA_CUDA_SPLITK and TESSERA_CUDA_STREAMK (the plugin reads them once per process).
#pragma once

#include <string>
#include <vector>

#include "args.hpp"
#include "gemm_options.hpp"

namespace tessera::bench {

int run_tune_command(ArgCursor &args);

// The kernel each case runs, as the plugin's TESSERA_VERBOSE=1 log names it ("simt-f32-64x64,
// k in up to 4 slices (tuning table, nearest NT 777x1555x999)"), from one untimed call per case
// in a child process (so that the caller's timings run without the log). Empty strings where
// the child could not tell.
std::vector<std::string> cuda_kernel_names(const std::vector<GemmCase> &cases);

} // namespace tessera::bench
