// The gemm kernel families, each built in compilation units of its own, behind one launcher
// each; kernels.cu chooses among them. C = alpha·op(A)·op(B) + beta·C on the device, p as
// launch_sgemm / launch_dgemm describe it (kernels.hpp).
#pragma once

#include <cuda_runtime.h>

#include "tile_load.cuh"

namespace tessera::cuda {

// SGEMM SIMT, row I of kSgemmTiles (gemm_tiles.hpp); the stream-K launch where p.sk_blocks > 0
// and the row has that form. Defined in simt_sgemm_tile.cuh, instantiated once per row in a
// generated compilation unit (simt_sgemm_tile.cu.in).
template <int I>
cudaError_t launch_simt_sgemm_tile(cudaStream_t stream, bool ta, bool tb,
                                   const GemmParams<float> &p);

// DGEMM SIMT 64×64 (devices without FP64 tensor cores; simt_dgemm.cu).
cudaError_t launch_simt_dgemm(cudaStream_t stream, bool ta, bool tb, const GemmParams<double> &p);

// DGEMM on the FP64 tensor cores (dmma_kernels.cu): 128×128 tiles (with their stream-K form,
// p.sk_blocks > 0, and their persistent one, p.blocks blocks: DmmaGrid) or 64×64 (large ==
// false).
inline constexpr int kDmmaLargeBK = 16; // the 128×128 kernel's k step (stream-K plans count it)
cudaError_t launch_dmma(bool large, bool persistent, cudaStream_t stream, bool ta, bool tb,
                        const GemmParams<double> &p);
// Whether the persistent grid stores C through shared memory (DmmaGrid::persistent_staged): k at
// most kStagedDepth and C's columns not starting on 32-byte sectors (C or ldc not a multiple of
// them). Each fragment store writes 64 bytes per column, which then straddle three sectors, two
// of them in part; the staged epilogue writes 512 contiguous bytes per store. With a deeper k,
// or sector-aligned columns, its fewer stages and extra barriers cost more than it saves.
inline constexpr int64_t kStagedDepth = 64;
inline bool dmma_staged_epilogue(const GemmParams<double> &p) {
    return p.k <= kStagedDepth && ((reinterpret_cast<uintptr_t>(p.C) & 31u) != 0 || p.ldc % 4 != 0);
}
// The thin products' dmma tiles (dgemm_thin), bm×bn: 128×32 or 128×64 (tall, n thin), 32×128 or
// 64×128 (m thin).
cudaError_t launch_dmma_thin(int bm, int bn, cudaStream_t stream, bool ta, bool tb,
                             const GemmParams<double> &p);

// SGEMM on the TF32 tensor cores with mma.sync (tf32_kernels.cu): one term (TF32) or three
// (3xTF32).
cudaError_t launch_tf32_mma(int terms, cudaStream_t stream, bool ta, bool tb,
                            const GemmParams<float> &p);

} // namespace tessera::cuda
