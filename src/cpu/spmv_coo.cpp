// COO y = alpha·A·x + beta·y: the entries (sorted by row) are split evenly over the threads;
// each thread sums its rows, a row cut by a split is finished after the join. Rows without
// entries are written too (y = beta·y), by the thread whose entries surround them.
#include <omp.h>

#include <vector>

#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"

namespace tessera::cpu {

namespace {

// A row sum that a split cut: the part one thread saw.
template <typename V> struct Partial {
    int64_t row = -1; // -1: none
    V sum = 0;
};

// Entries [p0, p1). Rows wholly inside are stored; a first row that began before p0 and a
// last row that goes on after p1 are returned as partials. With `gaps`, rows without
// entries between row_before (the row of entry p0 - 1, or -1) and the last row are stored
// as beta·y, and so are the rows after the last entry when p1 == nnz.
template <BetaMode B, bool Gaps, typename V, typename I>
void coo_range(const sparse::Coo<V, I> &a, int64_t p0, int64_t p1, const SpmvVectors<V> &v,
               Partial<V> *first, Partial<V> *last) {
    const I *row = a.row.data();
    const I *col = a.col.data();
    const V *val = a.val.data();
    const int64_t before = p0 > 0 ? int64_t(row[p0 - 1]) : -1;
    const int64_t after = p1 < a.nnz ? int64_t(row[p1]) : -1;
    auto blank = [&](int64_t from, int64_t to) {
        if constexpr (Gaps)
            for (int64_t i = from; i < to; ++i) store<B>(v.y, i, v.alpha, V(0), v.beta);
    };
    int64_t p = p0;
    int64_t previous = before;
    while (p < p1) {
        const int64_t i = row[p];
        blank(previous + 1, i);
        // The row's entries, then their sum with four accumulators: one chain of dependent
        // additions cost a full add latency per entry on long rows (HYB's tails).
        int64_t e = p;
        while (e < p1 && int64_t(row[e]) == i) ++e;
        V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (; p + 4 <= e; p += 4) {
            s0 += val[p] * v.x[col[p]];
            s1 += val[p + 1] * v.x[col[p + 1]];
            s2 += val[p + 2] * v.x[col[p + 2]];
            s3 += val[p + 3] * v.x[col[p + 3]];
        }
        for (; p < e; ++p) s0 += val[p] * v.x[col[p]];
        const V sum = (s0 + s1) + (s2 + s3);
        if (i == before) *first = {i, sum};
        else if (i == after) *last = {i, sum};
        else store<B>(v.y, i, v.alpha, sum, v.beta);
        previous = i;
    }
    if (p1 == a.nnz) blank(previous + 1, a.rows);
}

} // namespace

template <typename V, typename I>
void coo_accumulate(const sparse::Coo<V, I> &a, int threads, const SpmvVectors<V> &v, bool gaps) {
    const int nt = int(std::min<int64_t>(spmv_threads(a.nnz, threads, kCooWorkPerThread),
                                         std::max<int64_t>(1, a.nnz)));
    with_beta(v.beta, [&]<BetaMode B>() {
        auto run = gaps ? coo_range<B, true, V, I> : coo_range<B, false, V, I>;
        std::vector<Partial<V>> partial(size_t(2 * nt));
        if (nt == 1) run(a, 0, a.nnz, v, &partial[0], &partial[1]);
        else {
#pragma omp parallel num_threads(nt)
            {
                const int t = omp_get_thread_num(), n = omp_get_num_threads();
                const int64_t p0 = a.nnz / n * t + a.nnz % n * t / n;
                const int64_t p1 = a.nnz / n * (t + 1) + a.nnz % n * (t + 1) / n;
                run(a, p0, p1, v, &partial[size_t(2 * t)], &partial[size_t(2 * t + 1)]);
            }
        }
        // The pieces of each cut row, in thread order, are consecutive in `partial`.
        int64_t row = -1;
        V sum = 0;
        for (const Partial<V> &q : partial) {
            if (q.row < 0) continue;
            if (q.row != row && row >= 0) store<B>(v.y, row, v.alpha, sum, v.beta);
            if (q.row != row) sum = 0;
            row = q.row;
            sum += q.sum;
        }
        if (row >= 0) store<B>(v.y, row, v.alpha, sum, v.beta);
    });
}

template <typename V, typename I>
void coo_n(const sparse::Coo<V, I> &a, int threads, const SpmvVectors<V> &v) {
    coo_accumulate(a, threads, v, true);
}

#define TSR_COO(V, I)                                                                              \
    template void coo_n<V, I>(const sparse::Coo<V, I> &, int, const SpmvVectors<V> &);             \
    template void coo_accumulate<V, I>(const sparse::Coo<V, I> &, int, const SpmvVectors<V> &,     \
                                       bool);
TSR_COO(float, int32_t)
TSR_COO(float, int64_t)
TSR_COO(double, int32_t)
TSR_COO(double, int64_t)
#undef TSR_COO

} // namespace tessera::cpu
