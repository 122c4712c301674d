// Copies user arrays into canonical CSR. Rows already strictly sorted (the common case) are
// copied as they are; others are sorted (stably) and their duplicates summed.
#include "sparse/assemble.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace tessera::sparse {

namespace {

template <typename I> bool row_strictly_sorted(const I *col, int64_t begin, int64_t end) {
    for (int64_t j = begin + 1; j < end; ++j)
        if (col[j] <= col[j - 1]) return false;
    return true;
}

} // namespace

template <typename V, typename I> void canonicalize(Csr<V, I> &a) {
    const int64_t rows = a.rows;
    bool all_sorted = true;
    for (int64_t i = 0; i < rows && all_sorted; ++i)
        all_sorted = row_strictly_sorted(a.col.data(), a.row_ptr[i], a.row_ptr[i + 1]);
    if (all_sorted) return;

    // Sort each unsorted row by column (stable: duplicates keep their order), then compact.
    std::vector<int64_t> order;
    std::vector<I> col_tmp;
    std::vector<V> val_tmp;
    int64_t out = 0;
    for (int64_t i = 0; i < rows; ++i) {
        const int64_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
        a.row_ptr[i] = I(out);
        if (row_strictly_sorted(a.col.data(), begin, end)) {
            for (int64_t j = begin; j < end; ++j, ++out) {
                a.col[out] = a.col[j];
                a.val[out] = a.val[j];
            }
            continue;
        }
        order.resize(size_t(end - begin));
        std::iota(order.begin(), order.end(), begin);
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t p, int64_t q) { return a.col[p] < a.col[q]; });
        col_tmp.resize(order.size());
        val_tmp.resize(order.size());
        for (size_t p = 0; p < order.size(); ++p) {
            col_tmp[p] = a.col[order[p]];
            val_tmp[p] = a.val[order[p]];
        }
        // out <= begin, so writing at out never overwrites entries of later rows.
        for (size_t p = 0; p < order.size(); ++p) {
            if (p > 0 && col_tmp[p] == col_tmp[p - 1]) {
                a.val[out - 1] += val_tmp[p];
                continue;
            }
            a.col[out] = col_tmp[p];
            a.val[out] = val_tmp[p];
            ++out;
        }
    }
    a.row_ptr[rows] = I(out);
    // Shrinking the arrays is not worth a copy: nnz() reads row_ptr[rows].
}

template <typename V, typename I>
Csr<V, I> assemble_from_csr(int64_t rows, int64_t cols, int64_t nnz, const I *row_ptr,
                            const I *col_idx, const V *values) {
    Csr<V, I> a;
    a.rows = rows;
    a.cols = cols;
    a.row_ptr = Array<I>(rows + 1);
    a.col = Array<I>(nnz);
    a.val = Array<V>(nnz);
    if (row_ptr) std::memcpy(a.row_ptr.data(), row_ptr, size_t(rows + 1) * sizeof(I));
    else std::fill_n(a.row_ptr.data(), rows + 1, I(0));
    if (nnz > 0) {
        std::memcpy(a.col.data(), col_idx, size_t(nnz) * sizeof(I));
        std::memcpy(a.val.data(), values, size_t(nnz) * sizeof(V));
    }
    canonicalize(a);
    return a;
}

template <typename V, typename I>
Csr<V, I> assemble_from_coo(int64_t rows, int64_t cols, int64_t nnz, const I *row_idx,
                            const I *col_idx, const V *values) {
    Csr<V, I> a;
    a.rows = rows;
    a.cols = cols;
    a.row_ptr = Array<I>(rows + 1, I(0));
    a.col = Array<I>(nnz);
    a.val = Array<V>(nnz);
    // Counting sort by row (stable), then the rows are made canonical.
    for (int64_t j = 0; j < nnz; ++j) ++a.row_ptr[int64_t(row_idx[j]) + 1];
    for (int64_t i = 0; i < rows; ++i) a.row_ptr[i + 1] += a.row_ptr[i];
    std::vector<I> next(a.row_ptr.data(), a.row_ptr.data() + rows);
    for (int64_t j = 0; j < nnz; ++j) {
        int64_t p = next[size_t(row_idx[j])]++;
        a.col[p] = col_idx[j];
        a.val[p] = values[j];
    }
    canonicalize(a);
    return a;
}

template <typename V, typename I>
Csr<V, I> wrap_csr(int64_t rows, int64_t cols, int64_t nnz, const I *row_ptr, const I *col_idx,
                   const V *values) {
    Csr<V, I> a;
    a.rows = rows;
    a.cols = cols;
    if (row_ptr) a.row_ptr = Array<I>::borrow(row_ptr, rows + 1);
    else a.row_ptr = Array<I>(rows + 1, I(0)); // a matrix of zeros: the library's own zeros
    if (nnz > 0) {
        a.col = Array<I>::borrow(col_idx, nnz);
        a.val = Array<V>::borrow(values, nnz);
    }
    return a;
}

template <typename I> int64_t first_unsorted_row(int64_t rows, const I *row_ptr, const I *col) {
    if (!row_ptr) return -1;
    for (int64_t i = 0; i < rows; ++i)
        if (!row_strictly_sorted(col, row_ptr[i], row_ptr[i + 1])) return i;
    return -1;
}

#define TSR_ASSEMBLE(V, I)                                                                         \
    template Csr<V, I> assemble_from_csr<V, I>(int64_t, int64_t, int64_t, const I *, const I *,    \
                                               const V *);                                         \
    template Csr<V, I> assemble_from_coo<V, I>(int64_t, int64_t, int64_t, const I *, const I *,    \
                                               const V *);                                         \
    template void canonicalize<V, I>(Csr<V, I> &);                                                 \
    template Csr<V, I> wrap_csr<V, I>(int64_t, int64_t, int64_t, const I *, const I *, const V *);
TSR_ASSEMBLE(float, int32_t)
TSR_ASSEMBLE(float, int64_t)
TSR_ASSEMBLE(double, int32_t)
TSR_ASSEMBLE(double, int64_t)
#undef TSR_ASSEMBLE
template int64_t first_unsorted_row<int32_t>(int64_t, const int32_t *, const int32_t *);
template int64_t first_unsorted_row<int64_t>(int64_t, const int64_t *, const int64_t *);

} // namespace tessera::sparse
