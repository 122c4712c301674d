// The sparse storage formats every backend reads: CSR, COO, ELL (column-major, padded),
// DIA, HYB (ELL part + COO tail) and CSR's tiles. Host memory, 0-based, values V, indices I.
#pragma once

#include <cstdint>

#include "sparse/array.hpp"

namespace tessera::sparse {

// Compressed sparse rows. The canonical form of a matrix: columns sorted inside each row,
// no duplicates (explicit zeros are kept).
template <typename V, typename I> struct Csr {
    int64_t rows = 0, cols = 0;
    Array<I> row_ptr; // rows + 1 entries, row_ptr[0] == 0
    Array<I> col;     // nnz
    Array<V> val;     // nnz
    int64_t nnz() const { return row_ptr.size() ? int64_t(row_ptr[rows]) : 0; }
};

// Read-only arrays held elsewhere, and a CSR matrix made of them: what code that reads a
// matrix it does not own takes (the CUDA plugin reads the library's arrays this way).
template <typename T> struct Span {
    const T *ptr = nullptr;
    int64_t count = 0;
    const T *data() const { return ptr; }
    int64_t size() const { return count; }
    const T &operator[](int64_t i) const { return ptr[i]; }
};
template <typename V, typename I> struct CsrRef {
    int64_t rows = 0, cols = 0;
    Span<I> row_ptr; // rows + 1 entries
    Span<I> col;     // nnz
    Span<V> val;     // nnz
    int64_t nnz() const { return row_ptr.size() ? int64_t(row_ptr[rows]) : 0; }
};
template <typename V, typename I> CsrRef<V, I> ref(const Csr<V, I> &a) {
    const int64_t nnz = a.nnz();
    return {a.rows,
            a.cols,
            {a.row_ptr.data(), a.row_ptr.size()},
            {a.col.data(), nnz},
            {a.val.data(), nnz}};
}

// Coordinates, sorted by row and then column.
template <typename V, typename I> struct Coo {
    int64_t rows = 0, cols = 0, nnz = 0;
    Array<I> row, col;
    Array<V> val;
};

// ELLPACK: every row padded to `width` slots, stored slot by slot (column-major), so that
// consecutive rows of one slot are contiguous. Slot k of row i is at k·stride + i. Padding
// slots hold column 0 and value 0 and are never used: kernels stop at len[i].
inline constexpr int64_t kEllRowAlign =
    16; // stride is a multiple of this (one AVX-512 block of floats)
template <typename V, typename I> struct Ell {
    int64_t rows = 0, cols = 0, width = 0, stride = 0;
    Array<I> len; // stride entries: the row lengths, 0 past `rows`
    Array<I> col; // width · stride
    Array<V> val; // width · stride
    // The slots the row kernels visit (each block of kEllRowAlign rows up to its longest row):
    // their work, which slots() overstates where one long row widens every block.
    int64_t visited = 0;
    int64_t slots() const { return width * stride; }
};

// Diagonals: diagonal d holds A(i, i + offset[d]) at val[d·stride + i]; positions outside the
// matrix or without an entry hold 0. Offsets ascend.
template <typename V> struct Dia {
    int64_t rows = 0, cols = 0, ndiag = 0, stride = 0;
    Array<int64_t> offset; // ndiag
    Array<V> val;          // ndiag · stride
    int64_t slots() const { return ndiag * stride; }
};

// CSR's entries regrouped into tiles of 2^kTileRowShift rows by 2^kTileColShift columns, with
// one packed 32-bit index local to the tile ((row << kTileColShift) | column): a product's y
// block (1 MiB in float64) stays in L2 for the whole block of rows, and each tile gathers from
// an x segment of 64 KiB that its entries reuse several times over (taller tiles mean fewer
// passes over x: x is fetched once per block of rows). Tiles of one block of rows are
// consecutive, in column order; entries inside a tile keep CSR's order. Empty tiles are not
// stored.
inline constexpr int kTileRowShift = 17;
inline constexpr int kTileColShift = 13;
// Distance from the diagonal beyond which the structure analysis calls an entry far.
inline constexpr int kTileShift = 15;
template <typename V> struct Tiled {
    int64_t rows = 0, cols = 0, row_blocks = 0;
    Array<int64_t> block_first_tile; // row_blocks + 1
    Array<int32_t> tile_col_block;   // per tile
    Array<int64_t> tile_first;       // per tile + 1: index of its first entry
    Array<uint32_t> rc;              // nnz: (row << kTileColShift) | column, local to the tile
    Array<V> val;                    // nnz
    int64_t tiles() const { return tile_col_block.size(); }
};

// Hybrid: the first `ell.width` entries of every row in ELL, the rest of long rows in COO.
template <typename V, typename I> struct Hyb {
    Ell<V, I> ell;
    Coo<V, I> tail;
};

} // namespace tessera::sparse
