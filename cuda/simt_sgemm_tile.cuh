// launch_simt_sgemm_tile<I> (kernel_families.hpp): the SIMT kernel of row I of kSgemmTiles for
// the transposes asked, and its stream-K form where the row has one.
#pragma once

#include "gemm_tiles.hpp"
#include "kernel_families.hpp"
#include "launch.cuh"
#include "simt_gemm.cuh"

namespace tessera::cuda {

// Shared memory of the SIMT kernel: STAGES stages of the A and B tiles, rows padded by 16 bytes.
template <typename T, int BM, int BN, int BK, int STAGES> constexpr int simt_smem() {
    return STAGES * BK * (BM + BN + 2 * (16 / int(sizeof(T)))) * int(sizeof(T));
}

// STAGED: the kernel for a C whose columns are not 16-byte aligned (simt_gemm_kernel).
template <int I, bool SK, bool STAGED = false> struct SimtRow {
    static constexpr SimtTile t = kSgemmTiles[I];
    template <bool TA, bool TB> struct Ops {
        static constexpr auto kernel =
            simt_gemm_kernel<float, t.bm, t.bn, t.bk, t.warps_m, t.warps_n, t.gm, t.gn, t.stages,
                             t.min_blocks, TA, TB, SK, STAGED>;
        static constexpr int smem = simt_smem<float, t.bm, t.bn, t.bk, t.stages>();
    };
    static cudaError_t run(cudaStream_t stream, bool ta, bool tb, const GemmParams<float> &p) {
        return launch_ops<float, Ops>(t.bm, t.bn, t.warps_m * t.warps_n * 32, stream, ta, tb, p);
    }
};

template <int I>
cudaError_t launch_simt_sgemm_tile(cudaStream_t stream, bool ta, bool tb,
                                   const GemmParams<float> &p) {
    static_assert(I >= 0 && I < kSgemmTileCount, "a row of kSgemmTiles");
    if constexpr (kSgemmTiles[I].stream_k)
        if (p.sk_blocks > 0) return SimtRow<I, true>::run(stream, ta, tb, p);
    return p.vec_c ? SimtRow<I, false>::run(stream, ta, tb, p)
                   : SimtRow<I, false, true>::run(stream, ta, tb, p);
}

} // namespace tessera::cuda
