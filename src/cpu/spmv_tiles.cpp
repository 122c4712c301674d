// CSR on tiles (the `tiles` kernel): y = alpha·A·x + beta·y one block of rows at a time, tile by
// tile, so that the y block (2^17 entries) and the x segment a tile touches (2^13 entries) stay
// in L2 while its entries stream by. Threads take runs of row blocks with equal numbers of entries.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"

namespace tessera::cpu {

namespace {

template <BetaMode B, typename V>
void tile_blocks(const sparse::Tiled<V> &a, int64_t block_begin, int64_t block_end, const SpmvVectors<V> &v) {
    const uint32_t *rc = a.rc.data();
    constexpr uint32_t col_mask = (uint32_t(1) << sparse::kTileColShift) - 1;
    const V *val = a.val.data();
    const V alpha = v.alpha;
    for (int64_t rb = block_begin; rb < block_end; ++rb) {
        const int64_t r0 = rb << sparse::kTileRowShift, r1 = std::min(a.rows, (rb + 1) << sparse::kTileRowShift);
        V *yb = v.y + r0;
        if constexpr (B == BetaMode::zero) std::fill(yb, yb + (r1 - r0), V(0)); // y is not read
        if constexpr (B == BetaMode::scale)
            for (int64_t i = 0; i < r1 - r0; ++i) yb[i] *= v.beta;
        for (int64_t k = a.block_first_tile[rb]; k < a.block_first_tile[rb + 1]; ++k) {
            const V *xb = v.x + (int64_t(a.tile_col_block[k]) << sparse::kTileColShift);
            const int64_t end = a.tile_first[k + 1];
            if (alpha == V(1))
                for (int64_t e = a.tile_first[k]; e < end; ++e)
                    yb[rc[e] >> sparse::kTileColShift] += val[e] * xb[rc[e] & col_mask];
            else
                for (int64_t e = a.tile_first[k]; e < end; ++e)
                    yb[rc[e] >> sparse::kTileColShift] += alpha * (val[e] * xb[rc[e] & col_mask]);
        }
    }
}

} // namespace

template <typename V> void tiles_n(const sparse::Tiled<V> &a, int threads, const SpmvVectors<V> &v) {
    const int64_t entries = a.tile_first[a.tiles()];
    const int nt = int(std::min<int64_t>(spmv_threads(entries + a.rows, threads), a.row_blocks));
    with_beta(v.beta, [&]<BetaMode B>() {
        if (nt <= 1) {
            tile_blocks<B>(a, 0, a.row_blocks, v);
            return;
        }
        // Row blocks cut where the entries before them reach t/nt of all.
        std::vector<int64_t> cut(size_t(nt) + 1, a.row_blocks);
        cut[0] = 0;
        for (int t = 1, rb = 0; t < nt; ++t) {
            const int64_t goal = entries / nt * t;
            while (rb < a.row_blocks && a.tile_first[a.block_first_tile[rb + 1]] <= goal) ++rb;
            cut[size_t(t)] = rb;
        }
#pragma omp parallel num_threads(nt)
        {
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            tile_blocks<B>(a, cut[size_t(int64_t(t) * nt / n)], cut[size_t(int64_t(t + 1) * nt / n)], v);
        }
    });
}

template void tiles_n<float>(const sparse::Tiled<float> &, int, const SpmvVectors<float> &);
template void tiles_n<double>(const sparse::Tiled<double> &, int, const SpmvVectors<double> &);

} // namespace tessera::cpu
