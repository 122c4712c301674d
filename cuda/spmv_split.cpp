// The host side of the balanced sparse kernels: merge-path block starts by binary search on
// the row pointers, COO blocks, and the rows that cross block boundaries, found in one pass.
#include "spmv_split.hpp"

#include <algorithm>

namespace tessera::cuda {

template <typename I> MergeSplit<I> merge_split(int64_t rows, int64_t nnz, const I *row_ptr) {
    MergeSplit<I> s;
    const int64_t path = rows + nnz;
    const int64_t blocks = (path + kBalancedItems - 1) / kBalancedItems;
    s.start_row.resize(size_t(blocks) + 1);
    s.start_nz.resize(size_t(blocks) + 1);
    for (int64_t b = 0; b <= blocks; ++b) {
        // Diagonal d: the last row `lo` not yet ended, i.e. the first whose end step
        // (lo + row_ptr[lo + 1]) is at or after d.
        const int64_t d = std::min(b * int64_t(kBalancedItems), path);
        int64_t lo = std::max<int64_t>(0, d - nnz), hi = std::min(d, rows);
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (int64_t(row_ptr[mid + 1]) <= d - mid - 1) lo = mid + 1;
            else hi = mid;
        }
        s.start_row[size_t(b)] = I(lo);
        s.start_nz[size_t(b)] = I(d - lo);
    }
    // Block b continues row r = start_row[b] when r has entries before the block; when b also
    // ends r, the row is a crossing one, with tails from the blocks before that ended inside it.
    for (int64_t b = 1; b < blocks; ++b) {
        const int64_t r = int64_t(s.start_row[size_t(b)]);
        if (r >= rows || int64_t(row_ptr[r]) >= int64_t(s.start_nz[size_t(b)])) continue;
        if (int64_t(s.start_row[size_t(b) + 1]) == r) continue; // r goes on past block b
        int64_t first = b - 1;
        while (first > 0 && int64_t(s.start_row[size_t(first)]) == r) --first;
        s.crossing.push_back({r, first, b});
    }
    return s;
}

template <typename I>
CooSplit<I> coo_split(int64_t rows, int64_t nnz, const I *row, bool list_empty_rows) {
    CooSplit<I> s;
    const int64_t items = kBalancedItems;
    s.blocks = (nnz + items - 1) / items;
    for (int64_t b = 1; b < s.blocks; ++b) {
        const int64_t n0 = b * items, n1 = std::min(nnz, n0 + items);
        const I r = row[n0];
        if (row[n0 - 1] != r) continue;         // block b starts a row
        if (n1 < nnz && row[n1] == r) continue; // r goes on past block b
        int64_t first = b - 1;
        while (first > 0 && row[first * items - 1] == r) --first;
        s.crossing.push_back({int64_t(r), first, b});
    }
    if (list_empty_rows) {
        int64_t p = 0;
        for (int64_t i = 0; i < rows; ++i) {
            if (p < nnz && int64_t(row[p]) == i)
                while (p < nnz && int64_t(row[p]) == i) ++p;
            else s.empty_rows.push_back(I(i));
        }
    }
    return s;
}

template MergeSplit<int32_t> merge_split<int32_t>(int64_t, int64_t, const int32_t *);
template MergeSplit<int64_t> merge_split<int64_t>(int64_t, int64_t, const int64_t *);
template CooSplit<int32_t> coo_split<int32_t>(int64_t, int64_t, const int32_t *, bool);
template CooSplit<int64_t> coo_split<int64_t>(int64_t, int64_t, const int64_t *, bool);

} // namespace tessera::cuda
