// The layout of the CUDA CSR kernel gpu_tiles ("column-sorted row tiles"), built on the host
// once per matrix (plain C++, tested without a GPU in tests/unit/test_spmv_tiles.cpp).
//
// Rows are cut into row blocks of R rows (R partial sums fit in a block's shared memory), and,
// where that makes fewer blocks than the device holds at once (min_tiles), the columns into S
// slabs (the same column cuts for every row block, at equal counts of entries), S chosen to
// fill the device's waves of blocks best (tiles of nearly equal work assumed). Each (row block,
// slab) pair is a tile, run by one thread block: its entries are stored sorted by column (stable:
// in row order within a column) as (column, local row as uint16, value), so that neighbouring
// threads gather neighbouring elements of x and share their sectors. Tiles are stored row block by
// row block, slab after slab, each starting at a multiple of kTileAlign entries (128-bit loads);
// the padding after a tile's last entry (column 0, row 0, value 0) is never read.
//
// Long rows (more than `long_row` entries, or by default more than 1/kTilesLongShare of their
// row block and more than kTilesLongMin) are left out of their row blocks' tiles and gathered,
// in row order, into long groups of at most R rows; each group's entries are sorted by column
// (stable) and cut into long tiles of nearly equal entry counts (at least kLongTileEntries, and
// kLongTileRowShare entries per row of the group, so that a tile's atomics stay few). A long
// tile's block sums into the group's R-row shared sums like any tile, so the long rows' gathers
// share sectors too (many long rows over one column range), and adds alpha·its sum for each
// row of its group into y with global atomics.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::cuda {

inline constexpr int kTileThreads = 512; // threads of a tile's block
inline constexpr int kTileAlign = 4; // entries per 128-bit load group; tile starts aligned to it
// Groups of kTileAlign entries a thread has in flight: 2 for float values with 32-bit indices,
// 1 otherwise (2 would spill at kTilesPerSm blocks' 64 registers).
template <typename V, typename I>
inline constexpr int kTileGroups = sizeof(V) + sizeof(I) == 8 ? 2 : 1;
inline constexpr int kTileSharedBytes = 65536; // partial sums per tile: 16384 floats, 8192 doubles
inline constexpr int64_t kTileMaxRows = 65536; // local rows are uint16
inline constexpr int kTilesPerSm = 2;          // tiles' blocks resident per SM (64 registers)
inline constexpr int64_t kTileMinEntries = 4096; // slabs keep at least this many entries per tile
inline constexpr int64_t kTilesLongMin = 128;    // a row up to this length always stays in its tile
inline constexpr int64_t kTilesLongShare = 64;   // longer rows with > 1/64 of their row block leave
inline constexpr int64_t kLongTileEntries = 8192; // a long tile's entries, at least
inline constexpr int64_t kLongTileRowShare = 8;   // ... and this many per row of its group

// A long tile's group: `rows` local rows, local row j being long_rows[first_row + j].
struct LongTile {
    int64_t first_row;
    int64_t rows;
};

struct TilesConfig {
    int64_t tile_rows = 0; // R; 0: kTileSharedBytes / sizeof(V). At most kTileMaxRows.
    int64_t long_row = 0;  // rows longer than this leave the tiles; 0: the automatic rule
    int64_t slabs = 0;     // S; 0: from min_tiles
    int64_t min_tiles = 0; // blocks resident on the device at once (kTilesPerSm × SMs); 0: no slabs
};

template <typename V, typename I> struct TileLayout {
    int64_t rows = 0, cols = 0;
    int64_t tile_rows = 0;           // R (at most rows, at least 1)
    int64_t row_blocks = 0;          // ceil(rows / R)
    int64_t slabs = 1;               // S
    std::vector<int64_t> slab_start; // S + 1 column cuts, slab_start[0] = 0, slab_start[S] = cols
    // Tile k < row_blocks·S = (row block k / S, slab k % S); the long tiles follow, tile
    // row_blocks·S + q being long_tiles[q]. Tile k holds entries [tile_start[k], tile_end[k]);
    // tile_start has one more entry than tile_end, multiples of kTileAlign, the last the size
    // stored.
    std::vector<int64_t> tile_start, tile_end;
    std::vector<I> col;         // the tiles' entries and their padding
    std::vector<uint16_t> lrow; // row within the row block, or within the long group
    std::vector<V> val;
    std::vector<LongTile> long_tiles;
    std::vector<int64_t> long_rows; // the long rows, in row order
    int64_t tiles() const { return row_blocks * slabs; }
};

// The layout of a CSR matrix (rows sorted by column, as the library keeps them); `threads`
// host threads sort the row blocks. Returns false (layout untouched) where it cannot be
// built: rows > 0 is needed, and R must hold in uint16 local rows.
template <typename V, typename I>
bool build_tiles(int64_t rows, int64_t cols, const I *row_ptr, const I *col, const V *val,
                 const TilesConfig &config, int threads, TileLayout<V, I> *out);

} // namespace tessera::cuda
