// The DGEMM SIMT kernel (kernel_families.hpp: launch_simt_dgemm), for devices without FP64
// tensor cores: 64×64 tiles, 2×2 warps of 32×32 (4×8 per thread), 16-deep k steps in 3 stages.
#include "kernel_families.hpp"
#include "launch.cuh"
#include "simt_gemm.cuh"
#include "simt_sgemm_tile.cuh"

namespace tessera::cuda {

namespace {
// STAGED: the kernel for a C whose columns are not 16-byte aligned (simt_gemm_kernel).
template <bool STAGED> struct Form {
    template <bool TA, bool TB> struct Ops {
        static constexpr auto kernel =
            simt_gemm_kernel<double, 64, 64, 16, 2, 2, 1, 2, 3, 1, TA, TB, false, STAGED>;
        static constexpr int smem = simt_smem<double, 64, 64, 16, 3>();
    };
};
} // namespace

cudaError_t launch_simt_dgemm(cudaStream_t stream, bool ta, bool tb, const GemmParams<double> &p) {
    return p.vec_c ? launch_ops<double, Form<false>::Ops>(64, 64, 4 * 32, stream, ta, tb, p)
                   : launch_ops<double, Form<true>::Ops>(64, 64, 4 * 32, stream, ta, tb, p);
}

} // namespace tessera::cuda
