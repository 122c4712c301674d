// The work split of the CUDA backend's balanced kernels (cuda/spmv_split.*), without a GPU:
// the kernels' block algorithm (merge path for CSR, entry blocks for COO, each thread's walk,
// the segmented scan, head and tail carries, the crossing-rows fix-up) replayed on the host
// step by step must write every row exactly once with the right sum, whatever the rows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../support/seed.hpp"
#include "spmv_generators.hpp"
#include "spmv_split.hpp"

namespace {

using tessera::bench::CsrMatrix;
using tessera::cuda::CooSplit;
using tessera::cuda::kBalancedItems;
using tessera::cuda::kBalancedItemsPerThread;
using tessera::cuda::kBalancedThreads;
using tessera::cuda::MergeSplit;

struct Result {
    std::vector<double> y;
    std::vector<int> writes; // per row
};

struct Carry {
    int flag = 0;
    double value = 0;
};
Carry combine(Carry a, Carry b) { return b.flag ? b : Carry{a.flag, a.value + b.value}; }

// One block's threads: their first ended row (local item or row), its sum before the carry,
// and their (flag, value) for the scan; `store` writes y for the rows ended after the first.
struct ThreadWalk {
    int first = -1;
    double first_sum = 0, sum = 0;
};

// The block epilogue both kernels share: the scan over threads, the first ended row of each
// thread (head[b] when it is the block's first and began in an earlier block), the tail.
template <typename FirstRow, typename Store>
void finish_block(const std::vector<ThreadWalk> &t, bool continued, FirstRow first_row, Store store,
                  double &head, double &tail) {
    Carry running;
    for (const ThreadWalk &w : t) {
        const Carry ex = running;
        if (w.first >= 0) {
            const double full = ex.value + w.first_sum;
            if (!ex.flag && continued) head = full;
            else store(first_row(w.first), full);
        }
        running = combine(running, Carry{w.first >= 0, w.sum});
    }
    tail = running.value;
}

template <typename I>
Result merge_product(const CsrMatrix &m, const std::vector<I> &rp, const MergeSplit<I> &s,
                     const std::vector<double> &x) {
    Result r{std::vector<double>(size_t(m.rows), NAN), std::vector<int>(size_t(m.rows), 0)};
    auto store = [&](int64_t row, double v) {
        r.y[size_t(row)] = v;
        ++r.writes[size_t(row)];
    };
    const int64_t blocks = s.blocks();
    std::vector<double> tail(size_t(blocks), NAN), head(size_t(blocks), NAN);
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t r0 = s.start_row[size_t(b)], n0 = s.start_nz[size_t(b)];
        const int nrows = int(s.start_row[size_t(b) + 1] - r0),
                  nnzb = int(s.start_nz[size_t(b) + 1] - n0);
        if (nrows < 0 || nnzb < 0 || nrows + nnzb > kBalancedItems) {
            ADD_FAILURE() << "block " << b << " has " << nrows << " row ends and " << nnzb
                          << " nonzeros";
            return r;
        }
        std::vector<double> prod(static_cast<size_t>(nnzb));
        std::vector<int> ends(static_cast<size_t>(nrows));
        for (int k = 0; k < nnzb; ++k)
            prod[size_t(k)] = m.val[size_t(n0 + k)] * x[size_t(m.col[size_t(n0 + k)])];
        for (int k = 0; k < nrows; ++k) ends[size_t(k)] = int(int64_t(rp[size_t(r0 + k + 1)]) - n0);
        std::vector<ThreadWalk> walks(kBalancedThreads);
        const int total = nrows + nnzb;
        for (int tid = 0; tid < kBalancedThreads; ++tid) {
            const int d0 = std::min(tid * kBalancedItemsPerThread, total);
            const int d1 = std::min(d0 + kBalancedItemsPerThread, total);
            int lo = std::max(0, d0 - nnzb), hi = std::min(d0, nrows);
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (ends[size_t(mid)] <= d0 - mid - 1) lo = mid + 1;
                else hi = mid;
            }
            int i = lo, j = d0 - lo;
            ThreadWalk &w = walks[size_t(tid)];
            for (int u = 0; u < kBalancedItemsPerThread; ++u) {
                if (d0 + u >= d1) continue;
                if (i < nrows && ends[size_t(i)] <= j) {
                    if (w.first < 0) w.first = i, w.first_sum = w.sum;
                    else store(r0 + i, w.sum);
                    w.sum = 0;
                    ++i;
                } else {
                    if (j >= nnzb) {
                        ADD_FAILURE()
                            << "block " << b << " thread " << tid << " walks past its nonzeros";
                        return r;
                    }
                    w.sum += prod[size_t(j)];
                    ++j;
                }
            }
        }
        const bool continued = int64_t(rp[size_t(r0)]) < n0;
        finish_block(
            walks, continued, [&](int first) { return r0 + first; }, store, head[size_t(b)],
            tail[size_t(b)]);
    }
    for (const auto &c : s.crossing) {
        double sum = 0;
        for (int64_t b = c.first; b < c.last; ++b) sum += tail[size_t(b)];
        store(c.row, sum + head[size_t(c.last)]);
    }
    return r;
}

template <typename I>
Result coo_product(const CsrMatrix &m, const std::vector<I> &row, const CooSplit<I> &s,
                   const std::vector<double> &x) {
    Result r{std::vector<double>(size_t(m.rows), NAN), std::vector<int>(size_t(m.rows), 0)};
    auto store = [&](int64_t i, double v) {
        r.y[size_t(i)] = v;
        ++r.writes[size_t(i)];
    };
    const int64_t nnz = m.nnz();
    std::vector<double> tail(size_t(s.blocks), NAN), head(size_t(s.blocks), NAN);
    for (int64_t b = 0; b < s.blocks; ++b) {
        const int64_t n0 = b * kBalancedItems;
        const int n = int(std::min<int64_t>(kBalancedItems, nnz - n0));
        std::vector<double> prod(static_cast<size_t>(n));
        std::vector<int64_t> rows_of(static_cast<size_t>(n) + 1);
        for (int k = 0; k < n; ++k) {
            prod[size_t(k)] = m.val[size_t(n0 + k)] * x[size_t(m.col[size_t(n0 + k)])];
            rows_of[size_t(k)] = row[size_t(n0 + k)];
        }
        rows_of[size_t(n)] = n0 + n < nnz ? int64_t(row[size_t(n0 + n)]) : -1;
        std::vector<ThreadWalk> walks(kBalancedThreads);
        for (int tid = 0; tid < kBalancedThreads; ++tid) {
            const int k0 = std::min(tid * kBalancedItemsPerThread, n),
                      k1 = std::min(k0 + kBalancedItemsPerThread, n);
            ThreadWalk &w = walks[size_t(tid)];
            for (int k = k0; k < k1; ++k) {
                w.sum += prod[size_t(k)];
                if (rows_of[size_t(k) + 1] != rows_of[size_t(k)]) {
                    if (w.first < 0) w.first = k, w.first_sum = w.sum;
                    else store(rows_of[size_t(k)], w.sum);
                    w.sum = 0;
                }
            }
        }
        const bool continued = b > 0 && int64_t(row[size_t(n0 - 1)]) == rows_of[0];
        finish_block(
            walks, continued, [&](int first) { return rows_of[size_t(first)]; }, store,
            head[size_t(b)], tail[size_t(b)]);
    }
    for (const auto &c : s.crossing) {
        double sum = 0;
        for (int64_t b = c.first; b < c.last; ++b) sum += tail[size_t(b)];
        store(c.row, sum + head[size_t(c.last)]);
    }
    for (I i : s.empty_rows) store(int64_t(i), 0.0);
    return r;
}

// Rows of the given lengths, random columns and values.
CsrMatrix with_lengths(const std::vector<int64_t> &lengths, int64_t cols, uint64_t seed) {
    std::mt19937_64 rng(seed);
    CsrMatrix m;
    m.rows = int64_t(lengths.size());
    m.cols = cols;
    for (int64_t len : lengths) {
        for (int64_t k = 0; k < len; ++k) {
            m.col.push_back(int64_t(rng() % uint64_t(cols)));
            m.val.push_back(double(rng() % 1000) / 500.0 - 1.0);
        }
        m.row_ptr.push_back(int64_t(m.col.size()));
    }
    m.name = "lengths";
    return m;
}

std::vector<CsrMatrix> cases() {
    using namespace tessera::bench;
    std::vector<CsrMatrix> out = {
        random_k_per_row(300, 200, 7, 1),     with_empty_rows(20000, 20000, 6, 0.5, 2),
        power_law(30000, 30000, 10, 3),       one_dense_row(3000, 60000, 4, 1500, 4),
        one_dense_row(2000, 300000, 2, 7, 5), tridiagonal(10000, 6),
        random_k_per_row(10, 10, 0, 7),       random_k_per_row(1, 1, 1, 8)};
    // Rows that fill a block exactly (2047 entries + the row end = one CSR block; 2048 one
    // COO block), one more and one fewer; the first row ending in a block's last item.
    for (int64_t len :
         {int64_t(kBalancedItems) - 1, int64_t(kBalancedItems), int64_t(kBalancedItems) + 1})
        out.push_back(with_lengths(std::vector<int64_t>(7, len), 50, 9));
    out.push_back(with_lengths({0, 0, 5000, 0, 0, 0, 1, 7000, 0}, 30, 10));
    out.push_back(with_lengths(std::vector<int64_t>(5000, 0), 30, 11)); // only empty rows
    out.push_back(with_lengths({100000}, 100000, 12));                  // one very long row
    return out;
}

template <typename I> void check(const CsrMatrix &m) {
    SCOPED_TRACE(m.name + " " + std::to_string(m.rows) + "x" + std::to_string(m.cols) + " nnz " +
                 std::to_string(m.nnz()) + (sizeof(I) == 4 ? " i32" : " i64"));
    std::mt19937_64 rng = tessera::test::test_rng("/" + m.name + std::to_string(m.rows));
    std::vector<double> x(size_t(std::max<int64_t>(1, m.cols)));
    for (double &v : x) v = double(rng() % 2000) / 1000.0 - 1.0;
    std::vector<double> ref(size_t(m.rows), 0.0), mag(size_t(m.rows), 0.0);
    std::vector<I> rp(m.row_ptr.begin(), m.row_ptr.end()), row;
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t p = m.row_ptr[size_t(i)]; p < m.row_ptr[size_t(i) + 1]; ++p) {
            ref[size_t(i)] += m.val[size_t(p)] * x[size_t(m.col[size_t(p)])];
            mag[size_t(i)] += std::fabs(m.val[size_t(p)] * x[size_t(m.col[size_t(p)])]);
            row.push_back(I(i));
        }
    auto compare = [&](const Result &r, const char *what) {
        for (int64_t i = 0; i < m.rows; ++i) {
            ASSERT_EQ(r.writes[size_t(i)], 1)
                << what << ": row " << i << " written " << r.writes[size_t(i)] << " times";
            ASSERT_NEAR(r.y[size_t(i)], ref[size_t(i)], 1e-12 * (1 + mag[size_t(i)]))
                << what << ": row " << i;
        }
    };
    const MergeSplit<I> ms = tessera::cuda::merge_split(m.rows, m.nnz(), rp.data());
    ASSERT_EQ(ms.blocks(), (m.rows + m.nnz() + kBalancedItems - 1) / kBalancedItems);
    compare(merge_product(m, rp, ms, x), "merge path");
    const CooSplit<I> cs = tessera::cuda::coo_split(m.rows, m.nnz(), row.data(), true);
    compare(coo_product(m, row, cs, x), "coo blocks");
}

TEST(SpmvSplit, EveryRowWrittenOnceWithItsSum) {
    for (const CsrMatrix &m : cases()) {
        check<int32_t>(m);
        check<int64_t>(m);
    }
}

TEST(SpmvSplit, CrossingRows) {
    // Rows of kBalancedItems entries: each COO block holds one row, none crosses; on the
    // merge path (one more item per row) every block boundary falls inside a row.
    const CsrMatrix m = with_lengths(std::vector<int64_t>(6, kBalancedItems), 10, 1);
    std::vector<int64_t> row;
    for (int64_t i = 0; i < m.rows; ++i) row.insert(row.end(), size_t(kBalancedItems), i);
    EXPECT_TRUE(tessera::cuda::coo_split(m.rows, m.nnz(), row.data(), true).crossing.empty());
    const auto ms = tessera::cuda::merge_split(m.rows, m.nnz(), m.row_ptr.data());
    EXPECT_EQ(ms.blocks(), 7);
    EXPECT_EQ(int64_t(ms.crossing.size()), ms.blocks() - 1);
    // One long row across many blocks: one crossing, from the first block to the last.
    const CsrMatrix one = with_lengths({100000}, 100000, 2);
    const auto s = tessera::cuda::merge_split(one.rows, one.nnz(), one.row_ptr.data());
    ASSERT_EQ(s.crossing.size(), 1u);
    EXPECT_EQ(s.crossing[0].first, 0);
    EXPECT_EQ(s.crossing[0].last, s.blocks() - 1);
}

} // namespace
