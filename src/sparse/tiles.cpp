// CSR -> tiles: each block of 2^kTileRowShift rows is counted by column block, then its entries
// are placed tile by tile (a counting sort per row block, keeping CSR's order inside a tile).
#include <algorithm>
#include <vector>

#include "sparse/convert.hpp"

namespace tessera::sparse {

template <typename V, typename I> Tiled<V> csr_to_tiled(const Csr<V, I> &a) {
    Tiled<V> t;
    t.rows = a.rows;
    t.cols = a.cols;
    t.row_blocks = (a.rows + (int64_t(1) << kTileRowShift) - 1) >> kTileRowShift;
    const int64_t col_blocks = (a.cols + (int64_t(1) << kTileColShift) - 1) >> kTileColShift;
    const int64_t nnz = a.nnz();
    t.rc = Array<uint32_t>(nnz);
    t.val = Array<V>(nnz);
    t.block_first_tile = Array<int64_t>(t.row_blocks + 1);
    std::vector<int32_t> tile_col_block;
    std::vector<int64_t> tile_first{0};
    std::vector<int64_t> count(static_cast<size_t>(col_blocks)),
        next(static_cast<size_t>(col_blocks));
    for (int64_t rb = 0; rb < t.row_blocks; ++rb) {
        t.block_first_tile[rb] = int64_t(tile_col_block.size());
        const int64_t r0 = rb << kTileRowShift, r1 = std::min(a.rows, (rb + 1) << kTileRowShift);
        const int64_t base = a.row_ptr[r0];
        std::fill(count.begin(), count.end(), 0);
        for (int64_t p = base; p < int64_t(a.row_ptr[r1]); ++p)
            ++count[size_t(int64_t(a.col[p]) >> kTileColShift)];
        int64_t at = base;
        for (int64_t cb = 0; cb < col_blocks; ++cb) {
            next[size_t(cb)] = at;
            if (count[size_t(cb)] == 0) continue;
            at += count[size_t(cb)];
            tile_col_block.push_back(int32_t(cb));
            tile_first.push_back(at);
        }
        for (int64_t i = r0; i < r1; ++i)
            for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p) {
                const int64_t j = a.col[p], q = next[size_t(j >> kTileColShift)]++;
                t.rc[q] = uint32_t(((i - r0) << kTileColShift) |
                                   (j & ((int64_t(1) << kTileColShift) - 1)));
                t.val[q] = a.val[p];
            }
    }
    t.block_first_tile[t.row_blocks] = int64_t(tile_col_block.size());
    t.tile_col_block = Array<int32_t>(int64_t(tile_col_block.size()));
    std::copy(tile_col_block.begin(), tile_col_block.end(), t.tile_col_block.data());
    t.tile_first = Array<int64_t>(int64_t(tile_first.size()));
    std::copy(tile_first.begin(), tile_first.end(), t.tile_first.data());
    return t;
}

template Tiled<float> csr_to_tiled<float, int32_t>(const Csr<float, int32_t> &);
template Tiled<float> csr_to_tiled<float, int64_t>(const Csr<float, int64_t> &);
template Tiled<double> csr_to_tiled<double, int32_t>(const Csr<double, int32_t> &);
template Tiled<double> csr_to_tiled<double, int64_t>(const Csr<double, int64_t> &);

} // namespace tessera::sparse
