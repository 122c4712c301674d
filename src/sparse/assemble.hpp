// From a user's (already validated) CSR or COO arrays to the canonical CSR the library keeps:
// its own copy, columns sorted inside each row, duplicates summed in the order given.
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

// Sorts the columns of every row and sums duplicates, in place (row_ptr may shrink).
template <typename V, typename I> void canonicalize(Csr<V, I> &a);

} // namespace tessera::sparse
