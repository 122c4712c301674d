// SGEMM on the TF32 tensor cores with mma.sync (kernel_families.hpp: launch_tf32_mma), the
// opt-in modes where wgmma does not run them: 128×128 tiles, 2×4 warps of 64×32, one block per
// multiprocessor; TF32 32-deep k steps in 3 stages, 3xTF32 16-deep (its sums restart from zero
// every k tile) in 4. Template arguments of tf32_gemm_kernel: BM, BN, BK, WARPS_M, WARPS_N,
// STAGES, TERMS, MIN_BLOCKS.
#include "kernel_families.hpp"
#include "launch.cuh"
#include "tf32_gemm.cuh"

namespace tessera::cuda {

namespace {
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int TERMS, int MIN_BLOCKS>
struct Tf32 {
    template <bool TA, bool TB> struct Ops {
        static constexpr auto kernel =
            tf32_gemm_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, TERMS, MIN_BLOCKS, TA, TB>;
        static constexpr int smem = frag_smem_bytes<float, BM, BN, BK, STAGES, TA, TB>();
    };
    static cudaError_t run(cudaStream_t stream, bool ta, bool tb, const GemmParams<float> &p) {
        return launch_ops<float, Ops>(BM, BN, WARPS_M * WARPS_N * 32, stream, ta, tb, p);
    }
};
} // namespace

cudaError_t launch_tf32_mma(int terms, cudaStream_t stream, bool ta, bool tb,
                            const GemmParams<float> &p) {
    if (terms == 3) return Tf32<128, 128, 16, 2, 4, 4, 3, 1>::run(stream, ta, tb, p);
    return Tf32<128, 128, 32, 2, 4, 3, 1, 1>::run(stream, ta, tb, p);
}

} // namespace tessera::cuda
