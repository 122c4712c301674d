// Checks of the arrays a user hands to the create functions, before anything is copied: sizes,
// NULL pointers, row_ptr's shape and every index. The message names the fault and its place.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::sparse {

// The result of a check: empty when the input is valid, else a sentence naming the fault
// (without the function name, which the caller adds).
using Fault = std::string;

// The largest number of rows or columns accepted: 2^60 keeps rows + cols, rows + 1 and every
// rounding of them inside int64_t; the memory such a matrix needs is refused when allocated.
inline constexpr int64_t kMaxDimension = int64_t(1) << 60;

// CSR: rows+1 row pointers, nnz column indices and values. With nnz == 0 every array may be
// NULL (a matrix of zeros); a non-NULL row_ptr is still checked. I is int32_t or int64_t.
template <typename I>
Fault check_csr(int64_t rows, int64_t cols, int64_t nnz, const I *row_ptr, const I *col_idx,
                const void *values);

// COO: nnz row indices, column indices and values, in any order, duplicates allowed.
template <typename I>
Fault check_coo(int64_t rows, int64_t cols, int64_t nnz, const I *row_idx, const I *col_idx,
                const void *values);

// Sizes shared by both: non-negative, at most kMaxDimension, representable in the index type.
Fault check_sizes(int64_t rows, int64_t cols, int64_t nnz, int index_bits);

} // namespace tessera::sparse
