// CSR on tiles (the `tiles` kernel): y = alpha·A·x + beta·y one block of rows at a time, tile by
// tile, so that the y block (2^17 entries) and the x segment a tile touches (2^13 entries) stay
// in L2 while its entries stream by; the next tile's x segment is prefetched meanwhile. Threads
// take runs of row blocks with equal numbers of entries.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"

namespace tessera::cpu {

namespace {

// The entries [e, end) of one tile: y block yb += alpha·(a_ij·x_j) (ALPHA1: alpha is 1). One
// line of the next tile's x segment (`next`, `next_lines` lines of 64 bytes) is prefetched per
// four entries: read in the random order of the entries, a segment's lines would each wait
// for memory in turn, and the gathers of x are the largest part of a tile's time.
template <bool ALPHA1, typename V>
void tile_entries(V *__restrict yb, const V *__restrict xb, const uint32_t *__restrict rc,
                  const V *__restrict val, int64_t e, int64_t end, V alpha, const V *next,
                  int64_t next_lines) {
    constexpr uint32_t col_mask = (uint32_t(1) << sparse::kTileColShift) - 1;
    constexpr int64_t line = 64 / sizeof(V);
    auto add = [&](int64_t i) {
        const V p = val[i] * xb[rc[i] & col_mask];
        if constexpr (ALPHA1) yb[rc[i] >> sparse::kTileColShift] += p;
        else yb[rc[i] >> sparse::kTileColShift] += alpha * p;
    };
    int64_t l = 0;
    for (; e + 4 <= end; e += 4) {
        if (l < next_lines) __builtin_prefetch(next + line * l++, 0, 2);
        add(e);
        add(e + 1);
        add(e + 2);
        add(e + 3);
    }
    for (; e < end; ++e) add(e);
    for (; l < next_lines; ++l) __builtin_prefetch(next + line * l, 0, 2);
}

template <BetaMode B, typename V>
void tile_blocks(const sparse::Tiled<V> &a, int64_t block_begin, int64_t block_end,
                 const SpmvVectors<V> &v) {
    const uint32_t *rc = a.rc.data();
    const V *val = a.val.data();
    const V alpha = v.alpha;
    const int64_t seg = int64_t(1) << sparse::kTileColShift;
    const int64_t last_tile = a.block_first_tile[block_end]; // this thread's tiles end here
    for (int64_t rb = block_begin; rb < block_end; ++rb) {
        const int64_t r0 = rb << sparse::kTileRowShift,
                      r1 = std::min(a.rows, (rb + 1) << sparse::kTileRowShift);
        V *yb = v.y + r0;
        if constexpr (B == BetaMode::zero) std::fill(yb, yb + (r1 - r0), V(0)); // y is not read
        if constexpr (B == BetaMode::scale)
            for (int64_t i = 0; i < r1 - r0; ++i) yb[i] *= v.beta;
        for (int64_t k = a.block_first_tile[rb]; k < a.block_first_tile[rb + 1]; ++k) {
            const V *xb = v.x + (int64_t(a.tile_col_block[k]) << sparse::kTileColShift);
            // The next tile's segment of x (within x: the last one may be short).
            const V *next = xb;
            int64_t next_lines = 0;
            if (k + 1 < last_tile) {
                const int64_t c0 = int64_t(a.tile_col_block[k + 1]) << sparse::kTileColShift;
                next = v.x + c0;
                next_lines = (std::min(seg, a.cols - c0) * int64_t(sizeof(V)) + 63) / 64;
            }
            if (alpha == V(1))
                tile_entries<true>(yb, xb, rc, val, a.tile_first[k], a.tile_first[k + 1], alpha,
                                   next, next_lines);
            else
                tile_entries<false>(yb, xb, rc, val, a.tile_first[k], a.tile_first[k + 1], alpha,
                                    next, next_lines);
        }
    }
}

} // namespace

template <typename V>
void tiles_n(const sparse::Tiled<V> &a, int threads, const SpmvVectors<V> &v) {
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
            tile_blocks<B>(a, cut[size_t(int64_t(t) * nt / n)],
                           cut[size_t(int64_t(t + 1) * nt / n)], v);
        }
    });
}

template void tiles_n<float>(const sparse::Tiled<float> &, int, const SpmvVectors<float> &);
template void tiles_n<double>(const sparse::Tiled<double> &, int, const SpmvVectors<double> &);

} // namespace tessera::cpu
