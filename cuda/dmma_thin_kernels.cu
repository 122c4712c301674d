// The thin DGEMM products' tiles on the FP64 tensor cores (kernel_families.hpp:
// launch_dmma_thin; kernels.cu, dgemm_thin): 128×32 (n thin) and 32×128 (m thin), 8 warps (4×2
// of 32×16, 2×4 of 16×32), five 16-deep stages of 20 KiB (100 KiB, two blocks per SM); for
// thin sides of 33 to 64, 128×64 and 64×128, 8 warps of 32×32, four stages of 24 KiB (96 KiB,
// two blocks per SM). Such a
// product streams its long operand: 16 KiB of it per stage, four stages in flight per block and
// two blocks per SM keep those reads going. Eight warps, not four: a 128-row tile's
// swizzled 16-byte copies need four rows per pass of the threads (TileCopier). m16n8k4, not
// k8: two blocks per SM leave 128 registers a thread, and k8's larger fragments spilled.
#include "dmma_gemm.cuh"
#include "kernel_families.hpp"

namespace tessera::cuda {

cudaError_t launch_dmma_thin(int bm, int bn, cudaStream_t stream, bool ta, bool tb,
                             const GemmParams<double> &p) {
    if (bm == 128 && bn == 32)
        return DmmaLaunch<128, 32, 16, 4, 2, 5, 4, DmmaGrid::tiles, 2>::run(stream, ta, tb, p);
    if (bm == 32 && bn == 128)
        return DmmaLaunch<32, 128, 16, 2, 4, 5, 4, DmmaGrid::tiles, 2>::run(stream, ta, tb, p);
    if (bm == 128 && bn == 64)
        return DmmaLaunch<128, 64, 16, 4, 2, 4, 4, DmmaGrid::tiles, 2>::run(stream, ta, tb, p);
    return DmmaLaunch<64, 128, 16, 2, 4, 4, 4, DmmaGrid::tiles, 2>::run(stream, ta, tb, p);
}

} // namespace tessera::cuda
