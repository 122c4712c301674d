// DGEMM on the FP64 tensor cores (kernel_families.hpp: launch_dmma). Template arguments of
// dmma_gemm_kernel: BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS (the mma's k: m16n8k4, k8 or k16
// on sm_90, pairs of m8n8k4 on sm_80). 128×128 tiles: 2×4 warps of 64×32 with m16n8k4, four
// 16-deep stages (128 KiB of shared memory, one block per SM), with a stream-K form and a
// persistent one, which with the staged epilogue has three stages beside its tile of C (226 KiB:
// sm_90); 64×64: 2×2
// warps of 32×32 with m16n8k8, four stages (64 KiB, two blocks per SM). The thin products'
// tiles are in dmma_thin_kernels.cu.
#include "dmma_gemm.cuh"
#include "kernel_families.hpp"

namespace tessera::cuda {

cudaError_t launch_dmma(bool large, bool persistent, cudaStream_t stream, bool ta, bool tb,
                        const GemmParams<double> &p) {
    if (!large) return DmmaLaunch<64, 64, 16, 2, 2, 4, 8, DmmaGrid::tiles>::run(stream, ta, tb, p);
    if (p.sk_blocks > 0)
        return DmmaLaunch<128, 128, kDmmaLargeBK, 2, 4, 4, 4, DmmaGrid::stream_k>::run(stream, ta,
                                                                                       tb, p);
    if (persistent && dmma_staged_epilogue(p))
        return DmmaLaunch<128, 128, kDmmaLargeBK, 2, 4, 3, 4, DmmaGrid::persistent_staged>::run(
            stream, ta, tb, p);
    if (persistent)
        return DmmaLaunch<128, 128, kDmmaLargeBK, 2, 4, 4, 4, DmmaGrid::persistent>::run(stream, ta,
                                                                                         tb, p);
    return DmmaLaunch<128, 128, kDmmaLargeBK, 2, 4, 4, 4, DmmaGrid::tiles>::run(stream, ta, tb, p);
}

} // namespace tessera::cuda
