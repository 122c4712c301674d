// The host side of gpu_tiles (spmv_tiles.hpp): long rows taken out, slab cuts at equal counts
// of the remaining entries, each row block's entries sorted by column (stable) and cut into its
// slabs' tiles, the long rows gathered into groups whose entries, sorted by column, are cut
// into long tiles.
#include "spmv_tiles.hpp"

#include <algorithm>

namespace tessera::cuda {

namespace {

template <typename V, typename I> struct Entry {
    I col;
    uint16_t lrow;
    V val;
};

int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

} // namespace

template <typename V, typename I>
bool build_tiles(int64_t rows, int64_t cols, const I *row_ptr, const I *col, const V *val,
                 const TilesConfig &config, int threads, TileLayout<V, I> *out) {
    if (rows <= 0 || cols < 0) return false;
    int64_t R =
        config.tile_rows > 0 ? config.tile_rows : int64_t(kTileSharedBytes / int(sizeof(V)));
    if (R > kTileMaxRows) return false;
    R = std::min(R, rows);
    const int64_t blocks = (rows + R - 1) / R;
    auto len = [&](int64_t i) { return int64_t(row_ptr[i + 1]) - int64_t(row_ptr[i]); };

    TileLayout<V, I> t;
    t.rows = rows;
    t.cols = cols;
    t.tile_rows = R;
    t.row_blocks = blocks;

    // Long rows, judged within their row block.
    std::vector<char> is_long(size_t(rows), 0);
    int64_t long_entries = 0;
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t r0 = b * R, r1 = std::min(rows, r0 + R);
        const int64_t block_nnz = int64_t(row_ptr[r1]) - int64_t(row_ptr[r0]);
        const int64_t limit = config.long_row > 0
                                  ? config.long_row
                                  : std::max(kTilesLongMin, block_nnz / kTilesLongShare);
        for (int64_t i = r0; i < r1; ++i)
            if (len(i) > limit) {
                is_long[size_t(i)] = 1;
                long_entries += len(i);
            }
    }
    const int64_t nnz = int64_t(row_ptr[rows]);
    const int64_t tile_nnz = nnz - long_entries;

    // Long groups: the long rows in row order, at most R to a group; a group's entries cut
    // into S_g long tiles of nearly equal counts, each adding into y for every row of the group.
    struct Group {
        int64_t first_row, rows, entries, tiles,
            first_tile; // first_tile: from the long tiles' first
    };
    std::vector<int64_t> long_list;
    for (int64_t i = 0; i < rows; ++i)
        if (is_long[size_t(i)]) long_list.push_back(i);
    t.long_rows = long_list;
    std::vector<Group> groups;
    for (size_t q = 0; q < long_list.size(); q += size_t(R)) {
        Group g{int64_t(q), std::min<int64_t>(R, int64_t(long_list.size() - q)), 0, 0,
                int64_t(t.long_tiles.size())};
        for (int64_t j = 0; j < g.rows; ++j) g.entries += len(long_list[size_t(g.first_row + j)]);
        const int64_t per = std::max(kLongTileEntries, kLongTileRowShare * g.rows);
        g.tiles = std::max<int64_t>(1, g.entries / per);
        for (int64_t s = 0; s < g.tiles; ++s) t.long_tiles.push_back({g.first_row, g.rows});
        groups.push_back(g);
    }

    // Slabs, where the row blocks leave part of the device idle: S up to twice what fills it
    // once, each tile with at least kTileMinEntries entries, for the fullest last wave of blocks
    // (the fewer slabs on a tie: every slab adds its rows into y with atomics).
    int64_t S = config.slabs;
    if (S <= 0) {
        S = 1;
        const int64_t resident = config.min_tiles;
        if (resident > blocks) {
            const int64_t most =
                std::max<int64_t>(1, std::min((2 * resident + blocks - 1) / blocks,
                                              tile_nnz / (blocks * kTileMinEntries)));
            double best = 0;
            for (int64_t s = 1; s <= most; ++s) {
                const int64_t n = blocks * s + int64_t(t.long_tiles.size()),
                              waves = (n + resident - 1) / resident;
                const double fill = double(n) / double(waves * resident);
                if (fill > best + 1e-9) best = fill, S = s;
            }
        }
    }
    S = std::max<int64_t>(1, std::min(S, std::max<int64_t>(1, cols)));
    t.slabs = S;
    t.slab_start.assign(size_t(S) + 1, 0);
    t.slab_start[size_t(S)] = cols;
    if (S > 1) {
        if (tile_nnz == 0) {
            for (int64_t k = 1; k < S; ++k) t.slab_start[size_t(k)] = k * cols / S;
        } else {
            std::vector<int64_t> count(size_t(cols), 0);
            for (int64_t i = 0; i < rows; ++i)
                if (!is_long[size_t(i)])
                    for (int64_t p = int64_t(row_ptr[i]); p < int64_t(row_ptr[i + 1]); ++p)
                        ++count[size_t(col[p])];
            // Slab k starts at the first column with at least k·tile_nnz/S entries before it.
            int64_t before = 0, k = 1;
            for (int64_t c = 0; c < cols && k < S; ++c) {
                while (k < S && before * S >= k * tile_nnz) t.slab_start[size_t(k++)] = c;
                before += count[size_t(c)];
            }
            while (k < S) t.slab_start[size_t(k++)] = cols;
        }
    }
    auto slab_of = [&](int64_t c) {
        return int64_t(std::upper_bound(t.slab_start.begin() + 1, t.slab_start.end() - 1, c) -
                       (t.slab_start.begin() + 1));
    };

    // Tile sizes, then their aligned starts: the row blocks' tiles, then the long tiles.
    const int64_t tiles = blocks * S;
    const int64_t all_tiles = tiles + int64_t(t.long_tiles.size());
    std::vector<int64_t> count(size_t(all_tiles), 0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t r1 = std::min(rows, (b + 1) * R);
        for (int64_t i = b * R; i < r1; ++i)
            if (!is_long[size_t(i)])
                for (int64_t p = int64_t(row_ptr[i]); p < int64_t(row_ptr[i + 1]); ++p)
                    ++count[size_t(b * S + (S > 1 ? slab_of(int64_t(col[p])) : 0))];
    }
    for (const Group &g : groups)
        for (int64_t s = 0; s < g.tiles; ++s)
            count[size_t(tiles + g.first_tile + s)] =
                (s + 1) * g.entries / g.tiles - s * g.entries / g.tiles;
    t.tile_start.resize(size_t(all_tiles) + 1);
    t.tile_end.resize(size_t(all_tiles));
    t.tile_start[0] = 0;
    for (int64_t k = 0; k < all_tiles; ++k) {
        t.tile_end[size_t(k)] = t.tile_start[size_t(k)] + count[size_t(k)];
        t.tile_start[size_t(k) + 1] = round_up(t.tile_end[size_t(k)], kTileAlign);
    }
    const size_t stored = size_t(t.tile_start.back());
    t.col.assign(stored, I(0));
    t.lrow.assign(stored, 0);
    t.val.assign(stored, V(0));

    // Entries in row order, sorted by column (stable), laid into consecutive tiles from `tile`.
    auto lay = [&](std::vector<Entry<V, I>> &e, int64_t tile, int64_t n_tiles) {
        std::stable_sort(e.begin(), e.end(),
                         [](const Entry<V, I> &a, const Entry<V, I> &c) { return a.col < c.col; });
        size_t k = 0;
        for (int64_t s = tile; s < tile + n_tiles; ++s) {
            size_t at = size_t(t.tile_start[size_t(s)]);
            for (int64_t q = 0; q < count[size_t(s)]; ++q, ++k, ++at) {
                t.col[at] = e[k].col;
                t.lrow[at] = e[k].lrow;
                t.val[at] = e[k].val;
            }
        }
    };
    const int64_t n_groups = int64_t(groups.size());
#pragma omp parallel num_threads(threads)
    {
        std::vector<Entry<V, I>> e;
        // Each row block, then each long group.
#pragma omp for schedule(dynamic, 4)
        for (int64_t b = 0; b < blocks + n_groups; ++b) {
            e.clear();
            if (b < blocks) {
                const int64_t r0 = b * R, r1 = std::min(rows, r0 + R);
                for (int64_t i = r0; i < r1; ++i)
                    if (!is_long[size_t(i)])
                        for (int64_t p = int64_t(row_ptr[i]); p < int64_t(row_ptr[i + 1]); ++p)
                            e.push_back({col[p], uint16_t(i - r0), val[p]});
                lay(e, b * S, S);
            } else {
                const Group &g = groups[size_t(b - blocks)];
                for (int64_t j = 0; j < g.rows; ++j) {
                    const int64_t i = long_list[size_t(g.first_row + j)];
                    for (int64_t p = int64_t(row_ptr[i]); p < int64_t(row_ptr[i + 1]); ++p)
                        e.push_back({col[p], uint16_t(j), val[p]});
                }
                lay(e, tiles + g.first_tile, g.tiles);
            }
        }
    }
    *out = std::move(t);
    return true;
}

#define TSR_TILES(V, I)                                                                            \
    template bool build_tiles<V, I>(int64_t, int64_t, const I *, const I *, const V *,             \
                                    const TilesConfig &, int, TileLayout<V, I> *);
TSR_TILES(float, int32_t)
TSR_TILES(float, int64_t)
TSR_TILES(double, int32_t)
TSR_TILES(double, int64_t)
#undef TSR_TILES

} // namespace tessera::cuda
