// Process-wide configuration read once from the environment (TESSERA_BACKEND, TESSERA_NUM_THREADS,
// TESSERA_VERBOSE, TESSERA_CUDA_DEVICE or a launcher's local rank, TESSERA_CPU_ISA,
// TESSERA_STRASSEN, TESSERA_SPARSE_TUNE), one warning per bad value.
#pragma once

#include "tessera/tessera.h"

namespace tessera::core {

// The most CPU threads one call may use, from the environment or tsr_set_num_threads: beyond
// it, thread creation itself becomes the failure (OpenMP runtimes abort when it fails).
inline constexpr int kMaxThreads = 4096;

// TESSERA_SPARSE_TUNE: whether tsr_sparse_optimize's AUTO times its candidates on the CPU
// (core/sparse_dispatch.cpp): automatic for matrices of 2^16 entries or more, never, always.
enum class SparseTune { automatic, off, on };

struct Config {
    tsr_backend backend = TSR_BACKEND_AUTO;
    int num_threads = 1;  // from TESSERA_NUM_THREADS, else OMP_NUM_THREADS, else all cores
    bool verbose = false; // TESSERA_VERBOSE=1
    int cuda_device = 0;  // TESSERA_CUDA_DEVICE, else the MPI/Slurm local rank
    bool cuda_device_from_rank = false; // cuda_device is a local rank (modulo the devices)
    const char *cpu_isa = "auto";       // TESSERA_CPU_ISA: auto, avx512, avx2 or generic
    int strassen_levels = 0;            // TESSERA_STRASSEN: 0 (off), 1 or 2 levels
    SparseTune sparse_tune = SparseTune::automatic; // TESSERA_SPARSE_TUNE
    // TESSERA_CPU_BLOCKS=MC,KC,NC: the gemm's block sizes instead of the kernel's own (for
    // measuring); 0 where unset.
    int64_t cpu_mc = 0, cpu_kc = 0, cpu_nc = 0;
};

// Read on first use (thread-safe); later changes to the environment are not seen.
const Config &config();

const char *backend_name(tsr_backend backend);

} // namespace tessera::core
