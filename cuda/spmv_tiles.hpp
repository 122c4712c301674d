// The layout of the CUDA CSR kernel gpu_tiles ("column-sorted row tiles"), built on the host
// once per matrix (plain C++, tested without a GPU in tests/unit/test_spmv_tiles.cpp).
//
// Rows are cut into row blocks of R rows (R partial sums fit in a block's shared memory), and,
// where that makes fewer blocks than the device holds at once (min_tiles), the columns into S
// slabs (the same column cuts for every row block, at equal counts of entries), S chosen to
// fill the device's waves of blocks best (tiles of nearly equal work assumed). Each (row block, slab) pair is
// a tile, run by one thread block: its entries are stored sorted by column (stable: in row
// order within a column) as (column, local row as uint16, value), so that neighbouring threads
// gather neighbouring elements of x and share their sectors. Tiles are stored row block by row
// block, slab after slab, each starting at a multiple of kTileAlign entries (128-bit loads);
// the padding after a tile's last entry (column 0, row 0, value 0) is never read.
//
// Long rows (more than `long_row` entries, or by default more than 1/kTilesLongShare of their
// row block and more than kTilesLongMin) are left out of the tiles: their entries are kept
// apart, in row order, cut into chunks of at most kLongChunk entries; one thread block sums a
// chunk and a second pass adds each long row's chunk sums in order.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::cuda {

inline constexpr int kTileThreads = 512;      // threads of a tile's block
inline constexpr int kTileAlign = 4;          // entries per 128-bit load group; tile starts aligned to it
// Groups of kTileAlign entries a thread has in flight: 2 for float values with 32-bit indices,
// 1 otherwise (2 would spill at kTilesPerSm blocks' 64 registers).
template <typename V, typename I> inline constexpr int kTileGroups = sizeof(V) + sizeof(I) == 8 ? 2 : 1;
inline constexpr int kTileSharedBytes = 32768; // partial sums per tile: 8192 floats, 4096 doubles
inline constexpr int64_t kTileMaxRows = 65536; // local rows are uint16
inline constexpr int kTilesPerSm = 2;         // tiles' blocks resident per SM (64 registers)
inline constexpr int64_t kTileMinEntries = 4096; // slabs keep at least this many entries per tile
inline constexpr int64_t kTilesLongMin = 128;    // a row up to this length always stays in its tile
inline constexpr int64_t kTilesLongShare = 64;   // longer rows with > 1/64 of their row block leave
inline constexpr int kLongItems = 4;          // entries per thread of a long-row chunk's block
inline constexpr int64_t kLongChunk = int64_t(kTileThreads) * kLongItems; // (it runs in the tiles' launch)

// A long row: its chunk sums are chunks [first, last); the pass after adds alpha·their sum
// (in chunk order) to y[row].
struct LongRow {
    int64_t row, first, last;
};

struct TilesConfig {
    int64_t tile_rows = 0; // R; 0: kTileSharedBytes / sizeof(V). At most kTileMaxRows.
    int64_t long_row = 0;  // rows longer than this leave the tiles; 0: the automatic rule
    int64_t slabs = 0;     // S; 0: from min_tiles
    int64_t min_tiles = 0; // blocks resident on the device at once (kTilesPerSm × SMs); 0: no slabs
};

template <typename V, typename I> struct TileLayout {
    int64_t rows = 0, cols = 0;
    int64_t tile_rows = 0;  // R (at most rows, at least 1)
    int64_t row_blocks = 0; // ceil(rows / R)
    int64_t slabs = 1;      // S
    std::vector<int64_t> slab_start;  // S + 1 column cuts, slab_start[0] = 0, slab_start[S] = cols
    // Tile k = (row block k / S, slab k % S) holds entries [tile_start[k], tile_end[k]);
    // tile_start has row_blocks·S + 1 entries, multiples of kTileAlign, the last the size stored.
    std::vector<int64_t> tile_start, tile_end;
    std::vector<I> col;               // the tiles' entries and their padding
    std::vector<uint16_t> lrow;
    std::vector<V> val;
    std::vector<LongRow> long_rows;   // in row order
    std::vector<int64_t> chunk_ptr;   // chunks + 1 offsets into long_col / long_val
    std::vector<I> long_col;
    std::vector<V> long_val;
    int64_t tiles() const { return int64_t(tile_end.size()); }
    int64_t chunks() const { return chunk_ptr.empty() ? 0 : int64_t(chunk_ptr.size()) - 1; }
    // Scratch values a product needs: the slabs' partial sums (S > 1), then the chunk sums.
    int64_t scratch() const { return (slabs > 1 ? slabs * rows : 0) + chunks(); }
};

// The layout of a CSR matrix (rows sorted by column, as the library keeps them); `threads`
// host threads sort the row blocks. Returns false (layout untouched) where it cannot be
// built: rows > 0 is needed, and R must hold in uint16 local rows.
template <typename V, typename I>
bool build_tiles(int64_t rows, int64_t cols, const I *row_ptr, const I *col, const V *val, const TilesConfig &config,
                 int threads, TileLayout<V, I> *out);

} // namespace tessera::cuda
