// Pieces every CPU sparse kernel shares: how many threads a product is worth, the final
// y = alpha·sum + beta·y that never reads y when beta == 0, and the merge-path split.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tessera::cpu {

// Entries (or rows) one thread should have before a second one pays for waking it: about 4
// us of work for the row kernels, so that products of ten-odd thousand entries already run on
// two threads (a higher threshold left CSR on one thread where COO, on two, beat it); COO,
// slower per entry, passes kCooWorkPerThread.
inline constexpr int64_t kSpmvWorkPerThread = 8192;
inline constexpr int64_t kCooWorkPerThread = 8192;

inline int spmv_threads(int64_t work, int requested, int64_t per_thread = kSpmvWorkPerThread) {
    int64_t useful = 1 + work / per_thread;
    return int(std::max<int64_t>(1, std::min<int64_t>(requested, useful)));
}

// How y's old value enters: not at all (beta == 0, y is never read), added (beta == 1),
// or scaled. Kernels are instantiated per mode so the inner loops carry no test.
enum class BetaMode { zero, one, scale };

template <typename V> BetaMode beta_mode(V beta) {
    return beta == V(0) ? BetaMode::zero : beta == V(1) ? BetaMode::one : BetaMode::scale;
}

template <BetaMode B, typename V> inline V finish(V alpha, V sum, V beta, V old_y_ref) {
    if constexpr (B == BetaMode::zero) return alpha * sum;
    else if constexpr (B == BetaMode::one) return alpha * sum + old_y_ref;
    else return alpha * sum + beta * old_y_ref;
}

// y[i] = alpha·sum + beta·y[i], reading y[i] only when beta != 0.
template <BetaMode B, typename V> inline void store(V *y, int64_t i, V alpha, V sum, V beta) {
    if constexpr (B == BetaMode::zero) y[i] = alpha * sum;
    else if constexpr (B == BetaMode::one) y[i] = alpha * sum + y[i];
    else y[i] = alpha * sum + beta * y[i];
}

// Calls f.template operator()<B>() with B the mode of beta.
template <typename V, typename F> inline void with_beta(V beta, F &&f) {
    switch (beta_mode(beta)) {
    case BetaMode::zero: f.template operator()<BetaMode::zero>(); break;
    case BetaMode::one: f.template operator()<BetaMode::one>(); break;
    case BetaMode::scale: f.template operator()<BetaMode::scale>(); break;
    }
}

// Software prefetch of the value and index streams a few KiB ahead: the hardware prefetcher
// stops at every 4 KiB page, and with two memory streams per row it falls behind. Never past
// the arrays' end: a prefetch of an unmapped address costs a page walk, which on a small
// matrix is as much as the product.
inline constexpr int64_t kPrefetchEntries = 256;
template <typename V, typename I>
inline void prefetch_ahead(const V *val, const I *col, int64_t at, int64_t limit) {
    if (at + kPrefetchEntries < limit) {
        __builtin_prefetch(val + at + kPrefetchEntries, 0, 3);
        __builtin_prefetch(col + at + kPrefetchEntries, 0, 3);
    }
}

// One CSR row's sum over the entries [j, end), j left at end. Rows of at most two entries
// directly; rows of fewer than kLongRowEntries in a plain loop with two accumulators (the
// setup, the tail and the final additions of more cost more than such a row); longer rows
// with four accumulators, so that they do not wait on one chain of additions, prefetching the
// value and index streams ahead. Forced inline: it runs once per row, and left to the
// compiler's choice the short rows of small matrices ran measurably slower.
inline constexpr int64_t kLongRowEntries = 16;
template <typename V, typename I>
[[gnu::always_inline]] inline V csr_row_sum(const V *val, const I *col, const V *x, int64_t &j,
                                            int64_t end, int64_t nnz) {
    if (end - j <= 2) {
        V sum = 0;
        if (j < end) sum = val[j] * x[col[j]];
        if (j + 1 < end) sum += val[j + 1] * x[col[j + 1]];
        j = end;
        return sum;
    }
    if (end - j < kLongRowEntries) {
        V s0 = 0, s1 = 0;
        for (; j + 2 <= end; j += 2) {
            s0 += val[j] * x[col[j]];
            s1 += val[j + 1] * x[col[j + 1]];
        }
        if (j < end) s0 += val[j] * x[col[j]], j = end;
        return s0 + s1;
    }
    V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    prefetch_ahead(val, col, j, nnz);
    for (; j + 4 <= end; j += 4) {
        prefetch_ahead(val, col, j, nnz);
        s0 += val[j] * x[col[j]];
        s1 += val[j + 1] * x[col[j + 1]];
        s2 += val[j + 2] * x[col[j + 2]];
        s3 += val[j + 3] * x[col[j + 3]];
    }
    for (; j < end; ++j) s0 += val[j] * x[col[j]];
    return (s0 + s1) + (s2 + s3);
}

// A thread's share of a CSR product: rows [row_begin, row_end) are completed (the first may
// have begun before nz_begin); the nonzeros [.., nz_end) of row row_end are a partial sum.
struct CsrSegment {
    int64_t row_begin, row_end, nz_begin, nz_end;
};

// The merge path of CSR: walking rows' ends and nonzeros in one sequence of rows + nnz
// steps, diagonal d is reached after `row` row ends and d - row nonzeros. Splitting the
// path evenly gives every thread the same rows + nonzeros, however the rows are shaped.
struct PathPoint {
    int64_t row, nz;
};
template <typename I> PathPoint merge_path(int64_t d, const I *row_ptr, int64_t rows, int64_t nnz) {
    int64_t lo = std::max<int64_t>(0, d - nnz), hi = std::min(d, rows);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (int64_t(row_ptr[mid + 1]) <= d - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    return {lo, d - lo};
}

// The row holding nonzero `nz` (the last row whose start is <= nz), by binary search.
template <typename I> int64_t row_of(int64_t nz, const I *row_ptr, int64_t rows) {
    int64_t lo = 0, hi = rows; // answer in [0, rows)
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (int64_t(row_ptr[mid]) <= nz) lo = mid;
        else hi = mid;
    }
    return lo;
}

} // namespace tessera::cpu
