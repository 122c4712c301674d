// Pieces every CPU sparse kernel shares: how many threads a product is worth, the final
// y = alpha·sum + beta·y that never reads y when beta == 0, and the merge-path split.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tessera::cpu {

// Entries (or rows) one thread should have before a second one pays for waking it: about 4
// us of work for the row kernels (on Zen 4 the shared matrices of 10-18 thousand entries ran
// 1.4-1.6x faster on two threads than on one, back to back; with 24576 here COO, on two
// threads, had beaten CSR on one); COO, slower per entry, passes kCooWorkPerThread.
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
// stops at every 4 KiB page, and with two memory streams per row it falls behind (measured on
// a 2D Laplacian of 21 M nonzeros: 10-15% faster). Never past the arrays' end: a prefetch of
// an unmapped address costs a page walk (small matrices ran at half speed).
inline constexpr int64_t kPrefetchEntries = 256;
template <typename V, typename I>
inline void prefetch_ahead(const V *val, const I *col, int64_t at, int64_t limit) {
    if (at + kPrefetchEntries < limit) {
        __builtin_prefetch(val + at + kPrefetchEntries, 0, 3);
        __builtin_prefetch(col + at + kPrefetchEntries, 0, 3);
    }
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
