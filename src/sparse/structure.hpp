// Structure analysis of a canonical CSR matrix: the row-length statistics, the diagonals and
// the storage each format would need. What the automatic format choice and the padding
// limits are decided from.
#pragma once

#include <cstdint>

#include "sparse/formats.hpp"

namespace tessera::sparse {

// Row lengths: cheap (one pass over row_ptr), computed when a matrix is created.
struct RowStats {
    int64_t rows = 0, cols = 0, nnz = 0;
    int64_t min_len = 0, max_len = 0, empty_rows = 0;
    double mean = 0;                                               // nnz / rows
    double stddev = 0;                                             // of the row lengths
    double spread() const { return mean > 0 ? stddev / mean : 0; } // coefficient of variation
};

// Diagonals and format sizes: one pass over the column indices, computed on optimize.
struct Structure {
    RowStats row;
    int64_t ndiag = 0;     // occupied diagonals
    int64_t dia_cover = 0; // positions of the occupied diagonals inside the matrix
    int64_t dia_slots = 0; // what DIA stores: ndiag x rows (rounded up)
    int64_t ell_slots = 0; // what ELL stores: max_len x rows (rounded up)
    int64_t ell_blocked =
        0;                 // what an ELL product reads: per block of 16 rows, its longest row x 16
    int64_t hyb_width = 0; // ELL width of HYB
    int64_t hyb_tail = 0;  // entries HYB keeps in its COO tail
    int64_t hyb_tail_rows = 0; // rows with entries in that tail
    int64_t hyb_blocked = 0;   // what the ELL part of a HYB product reads, as ell_blocked
    int64_t far = 0;           // entries more than a tile (2^kTileShift) away from the row's place
                               // on the diagonal (column j against i·cols/rows)
    int64_t tiles = 0;         // non-empty tiles of 2^kTileShift rows x columns
    int64_t stored_zeros = 0;  // entries whose value is zero (DIA cannot tell them from its fill)
    double far_fraction() const { return row.nnz ? double(far) / double(row.nnz) : 0; }
    double dia_fill() const { return dia_cover ? double(row.nnz) / double(dia_cover) : 0; }
    double ell_fill() const { return ell_blocked ? double(row.nnz) / double(ell_blocked) : 0; }
};

template <typename I> RowStats row_stats(int64_t rows, int64_t cols, const I *row_ptr);

template <typename V, typename I> Structure analyze(const Csr<V, I> &a, const RowStats &row);

// The HYB width for these row lengths: the largest k such that at least half of the rows have
// k entries or more (each ELL slot then holds an entry at least half the time).
template <typename I> int64_t hyb_width(int64_t rows, const I *row_ptr, int64_t max_len);

inline int64_t round_up(int64_t n, int64_t multiple) {
    return (n + multiple - 1) / multiple * multiple;
}

} // namespace tessera::sparse
