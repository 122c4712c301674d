// Validation of user CSR and COO arrays: one pass over the pointers and the indices, stopping
// at the first fault and describing it with its position and value.
#include "sparse/validate.hpp"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace tessera::sparse {

namespace {

[[gnu::format(printf, 1, 2)]] Fault describe(const char *fmt, ...) {
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return text;
}

} // namespace

Fault check_sizes(int64_t rows, int64_t cols, int64_t nnz, int index_bits) {
    if (rows < 0) return describe("rows = %" PRId64 " is negative", rows);
    if (cols < 0) return describe("cols = %" PRId64 " is negative", cols);
    if (nnz < 0) return describe("nnz = %" PRId64 " is negative", nnz);
    if (rows > kMaxDimension)
        return describe("rows = %" PRId64 " exceeds 2^60, more than any memory can hold", rows);
    if (cols > kMaxDimension)
        return describe("cols = %" PRId64 " exceeds 2^60, more than any memory can hold", cols);
    if (index_bits == 32) {
        if (nnz > INT32_MAX)
            return describe("nnz = %" PRId64 " does not fit 32-bit indices; use TSR_INDEX_I64",
                            nnz);
        if (rows > INT32_MAX || cols > INT32_MAX)
            return describe("a %" PRId64 " x %" PRId64
                            " matrix does not fit 32-bit indices; use TSR_INDEX_I64",
                            rows, cols);
    }
    return {};
}

template <typename I>
Fault check_csr(int64_t rows, int64_t cols, int64_t nnz, const I *row_ptr, const I *col_idx,
                const void *values) {
    if (Fault f = check_sizes(rows, cols, nnz, sizeof(I) * 8); !f.empty()) return f;
    if (nnz > 0) {
        if (!row_ptr) return describe("row_ptr is NULL");
        if (!col_idx) return describe("col_idx is NULL but nnz = %" PRId64, nnz);
        if (!values) return describe("values is NULL but nnz = %" PRId64, nnz);
    }
    if (!row_ptr) return {}; // nnz == 0: a matrix of zeros
    if (row_ptr[0] != 0) return describe("row_ptr[0] = %" PRId64 " must be 0", int64_t(row_ptr[0]));
    for (int64_t i = 0; i < rows; ++i) {
        if (row_ptr[i + 1] < row_ptr[i])
            return describe("row_ptr is not monotone: row_ptr[%" PRId64 "] = %" PRId64
                            " > row_ptr[%" PRId64 "] = %" PRId64,
                            i, int64_t(row_ptr[i]), i + 1, int64_t(row_ptr[i + 1]));
        if (row_ptr[i + 1] > nnz)
            return describe("row_ptr[%" PRId64 "] = %" PRId64 " exceeds nnz = %" PRId64, i + 1,
                            int64_t(row_ptr[i + 1]), nnz);
    }
    if (row_ptr[rows] != nnz)
        return describe("row_ptr[rows] = row_ptr[%" PRId64 "] = %" PRId64
                        " differs from nnz = %" PRId64,
                        rows, int64_t(row_ptr[rows]), nnz);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = row_ptr[i]; j < int64_t(row_ptr[i + 1]); ++j)
            if (col_idx[j] < 0 || col_idx[j] >= cols)
                return describe("col_idx[%" PRId64 "] = %" PRId64 " (row %" PRId64
                                ") is outside the %" PRId64 " columns [0, %" PRId64 ")",
                                j, int64_t(col_idx[j]), i, cols, cols);
    return {};
}

template <typename I>
Fault check_coo(int64_t rows, int64_t cols, int64_t nnz, const I *row_idx, const I *col_idx,
                const void *values) {
    if (Fault f = check_sizes(rows, cols, nnz, sizeof(I) * 8); !f.empty()) return f;
    if (nnz == 0) return {};
    if (!row_idx) return describe("row_idx is NULL but nnz = %" PRId64, nnz);
    if (!col_idx) return describe("col_idx is NULL but nnz = %" PRId64, nnz);
    if (!values) return describe("values is NULL but nnz = %" PRId64, nnz);
    for (int64_t j = 0; j < nnz; ++j) {
        if (row_idx[j] < 0 || row_idx[j] >= rows)
            return describe("row_idx[%" PRId64 "] = %" PRId64 " is outside the %" PRId64
                            " rows [0, %" PRId64 ")",
                            j, int64_t(row_idx[j]), rows, rows);
        if (col_idx[j] < 0 || col_idx[j] >= cols)
            return describe("col_idx[%" PRId64 "] = %" PRId64 " is outside the %" PRId64
                            " columns [0, %" PRId64 ")",
                            j, int64_t(col_idx[j]), cols, cols);
    }
    return {};
}

template Fault check_csr<int32_t>(int64_t, int64_t, int64_t, const int32_t *, const int32_t *,
                                  const void *);
template Fault check_csr<int64_t>(int64_t, int64_t, int64_t, const int64_t *, const int64_t *,
                                  const void *);
template Fault check_coo<int32_t>(int64_t, int64_t, int64_t, const int32_t *, const int32_t *,
                                  const void *);
template Fault check_coo<int64_t>(int64_t, int64_t, int64_t, const int64_t *, const int64_t *,
                                  const void *);

} // namespace tessera::sparse
