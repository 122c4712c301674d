// From a user's (already validated) CSR or COO arrays to the canonical CSR the library keeps:
// its own copy, columns sorted inside each row, duplicates summed in the order given; or, for
// a matrix made in place, the user's arrays themselves.
#pragma once

#include <cstdint>

#include "sparse/formats.hpp"

namespace tessera::sparse {

// row_ptr may be NULL only when nnz == 0 (a matrix of zeros).
template <typename V, typename I>
Csr<V, I> assemble_from_csr(int64_t rows, int64_t cols, int64_t nnz, const I *row_ptr,
                            const I *col_idx, const V *values);

template <typename V, typename I>
Csr<V, I> assemble_from_coo(int64_t rows, int64_t cols, int64_t nnz, const I *row_idx,
                            const I *col_idx, const V *values);

// The user's (validated, canonical) CSR arrays used in place, without a copy: the arrays
// borrow them (Array::borrow); only a NULL row_ptr (nnz == 0) is replaced by the library's own.
template <typename V, typename I>
Csr<V, I> wrap_csr(int64_t rows, int64_t cols, int64_t nnz, const I *row_ptr, const I *col_idx,
                   const V *values);

// The first row whose columns are not strictly ascending (unsorted or repeated), or -1.
template <typename I> int64_t first_unsorted_row(int64_t rows, const I *row_ptr, const I *col);

// Sorts the columns of every row and sums duplicates, in place (row_ptr may shrink).
template <typename V, typename I> void canonicalize(Csr<V, I> &a);

} // namespace tessera::sparse
