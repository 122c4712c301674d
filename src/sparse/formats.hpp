// The sparse storage formats every backend reads: CSR, COO, ELL (column-major, padded),
// DIA and HYB (ELL part + COO tail). Host memory, 0-based, values V and indices I.
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

// Coordinates, sorted by row and then column.
template <typename V, typename I> struct Coo {
    int64_t rows = 0, cols = 0, nnz = 0;
    Array<I> row, col;
    Array<V> val;
};

// ELLPACK: every row padded to `width` slots, stored slot by slot (column-major), so that
// consecutive rows of one slot are contiguous. Slot k of row i is at k·stride + i. Padding
// slots hold column 0 and value 0 and are never used: kernels stop at len[i].
inline constexpr int64_t kEllRowAlign = 16; // stride is a multiple of this (one AVX-512 block of floats)
template <typename V, typename I> struct Ell {
    int64_t rows = 0, cols = 0, width = 0, stride = 0;
    Array<I> len; // stride entries: the row lengths, 0 past `rows`
    Array<I> col; // width · stride
    Array<V> val; // width · stride
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

// Hybrid: the first `ell.width` entries of every row in ELL, the rest of long rows in COO.
template <typename V, typename I> struct Hyb {
    Ell<V, I> ell;
    Coo<V, I> tail;
};

} // namespace tessera::sparse
