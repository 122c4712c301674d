// The launch of one gemm kernel family member for the transposes asked: dynamic shared memory
// set up once per kernel (smem_opt_in.cuh), the grid from the tile, every launch checked. Each
// family's compilation unit (simt_sgemm_tile.cu.in, simt_dgemm.cu, dmma_kernels.cu,
// tf32_kernels.cu) instantiates its kernels through these.
#pragma once

#include <cuda_runtime.h>

#include "smem_opt_in.cuh"
#include "tile_load.cuh"

namespace tessera::cuda {

// Launches `kernel` on ceil(m/BM)·ceil(n/BN) blocks with `smem` bytes of dynamic shared memory.
template <typename T, auto kernel>
cudaError_t launch(int bm, int bn, int threads, int smem, cudaStream_t stream, GemmParams<T> p) {
    if (cudaError_t attr = opt_in_shared_memory<kernel>(smem); attr != cudaSuccess) return attr;
    p.tiles_m = (p.m + bm - 1) / bm;
    p.tiles_n = (p.n + bn - 1) / bn;
    // Every tile, the first p.blocks of them, or the stream-K launch's p.sk_blocks spans.
    const int64_t blocks = p.sk_blocks > 0 ? p.sk_blocks
                           : p.blocks > 0  ? p.blocks
                                           : p.tiles_m * p.tiles_n;
    if (blocks > 0x7fffffff || p.splits > 65535) return cudaErrorInvalidConfiguration;
    kernel<<<dim3(unsigned(blocks), unsigned(p.splits > 1 ? p.splits : 1)), threads, smem,
             stream>>>(p);
    return cudaGetLastError();
}

// Launches Ops<TA, TB>::kernel (with Ops<TA, TB>::smem bytes of shared memory) for the
// transposes asked: every kernel family is instantiated for all four.
template <typename T, template <bool, bool> class Ops>
cudaError_t launch_ops(int bm, int bn, int threads, cudaStream_t stream, bool ta, bool tb,
                       const GemmParams<T> &p) {
    if (!ta && !tb)
        return launch<T, Ops<false, false>::kernel>(bm, bn, threads, Ops<false, false>::smem,
                                                    stream, p);
    if (!ta && tb)
        return launch<T, Ops<false, true>::kernel>(bm, bn, threads, Ops<false, true>::smem, stream,
                                                   p);
    if (ta && !tb)
        return launch<T, Ops<true, false>::kernel>(bm, bn, threads, Ops<true, false>::smem, stream,
                                                   p);
    return launch<T, Ops<true, true>::kernel>(bm, bn, threads, Ops<true, true>::smem, stream, p);
}

} // namespace tessera::cuda
