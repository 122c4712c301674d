// The layout of the CUDA CSR kernel gpu_tiles (cuda/spmv_tiles.*), without a GPU: every entry
// of a short row lies in exactly one tile, that of its row block and column slab, with its
// local row, column and value; every entry of a long row in exactly one long tile of its
// group; a tile's entries are sorted by column (stable: in row order within a column) and
// start aligned; and the product replayed on the host the way the kernels run it (tiles into
// shared sums, then into y directly, or with several slabs each added into beta·y; the long
// tiles' partial sums added last) matches the plain CSR product, beta == 0 never reading y.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "spmv_generators.hpp"
#include "spmv_tiles.hpp"

namespace {

using tessera::bench::CsrMatrix;
using tessera::cuda::build_tiles;
using tessera::cuda::kLongTileEntries;
using tessera::cuda::kLongTileRowShare;
using tessera::cuda::kTileAlign;
using tessera::cuda::kTileMaxRows;
using tessera::cuda::kTileSharedBytes;
using tessera::cuda::kTilesLongMin;
using tessera::cuda::kTilesLongShare;
using tessera::cuda::TileLayout;
using tessera::cuda::TilesConfig;

template <typename V, typename I> struct Typed {
    std::vector<I> rp, col;
    std::vector<V> val;
};

template <typename V, typename I> Typed<V, I> typed(const CsrMatrix &m) {
    Typed<V, I> t;
    t.rp.assign(m.row_ptr.begin(), m.row_ptr.end());
    t.col.assign(m.col.begin(), m.col.end());
    for (double v : m.val) t.val.push_back(V(v));
    return t;
}

CsrMatrix empty_matrix(int64_t rows, int64_t cols) {
    CsrMatrix m;
    m.name = "empty-" + std::to_string(rows) + "x" + std::to_string(cols);
    m.rows = rows;
    m.cols = cols;
    m.row_ptr.assign(size_t(rows) + 1, 0);
    return m;
}

// The threshold a row is judged by (spmv_tiles.hpp).
int64_t long_limit(const CsrMatrix &m, int64_t R, const TilesConfig &config, int64_t row) {
    if (config.long_row > 0) return config.long_row;
    const int64_t r0 = row / R * R, r1 = std::min(m.rows, r0 + R);
    return std::max(kTilesLongMin,
                    (m.row_ptr[size_t(r1)] - m.row_ptr[size_t(r0)]) / kTilesLongShare);
}

// Checks the layout against the matrix; returns the number of long rows.
template <typename V, typename I>
int64_t check_layout(const CsrMatrix &m, const TilesConfig &config, const TileLayout<V, I> &t) {
    const int64_t R = t.tile_rows, S = t.slabs;
    EXPECT_GE(R, 1);
    EXPECT_LE(R, std::min<int64_t>(m.rows, kTileMaxRows));
    if (config.tile_rows > 0) EXPECT_EQ(R, std::min(config.tile_rows, m.rows));
    else EXPECT_EQ(R, std::min<int64_t>(kTileSharedBytes / int64_t(sizeof(V)), m.rows));
    EXPECT_EQ(t.row_blocks, (m.rows + R - 1) / R);
    if (config.slabs > 0) EXPECT_EQ(S, std::min(config.slabs, std::max<int64_t>(1, m.cols)));
    EXPECT_GE(S, 1);
    EXPECT_EQ(t.tiles(), t.row_blocks * S);
    EXPECT_EQ(t.slab_start.size(), size_t(S) + 1);
    EXPECT_EQ(t.slab_start.front(), 0);
    EXPECT_EQ(t.slab_start.back(), m.cols);
    EXPECT_TRUE(std::is_sorted(t.slab_start.begin(), t.slab_start.end()));
    const int64_t all_tiles = t.tiles() + int64_t(t.long_tiles.size());
    EXPECT_EQ(t.tile_start.size(), size_t(all_tiles) + 1);
    EXPECT_EQ(t.tile_end.size(), size_t(all_tiles));
    EXPECT_EQ(t.tile_start.front(), 0);
    EXPECT_EQ(t.col.size(), size_t(t.tile_start.back()));
    EXPECT_EQ(t.lrow.size(), t.col.size());
    EXPECT_EQ(t.val.size(), t.col.size());

    // Each long tile's local rows: long_rows[first_row + j]; its group's rows, all long rows
    // covered by consecutive groups of at most R rows.
    for (size_t q = 0; q < t.long_tiles.size(); ++q) {
        const auto &lt = t.long_tiles[q];
        EXPECT_GE(lt.rows, 1);
        EXPECT_LE(lt.rows, R);
        EXPECT_GE(lt.first_row, 0);
        if (lt.first_row < 0 || size_t(lt.first_row + lt.rows) > t.long_rows.size()) {
            ADD_FAILURE() << "long tile " << q << " names rows past the last long row";
            return 0;
        }
        if (q > 0 && lt.first_row != t.long_tiles[q - 1].first_row) // a new group follows the last
            EXPECT_EQ(lt.first_row, t.long_tiles[q - 1].first_row + t.long_tiles[q - 1].rows)
                << "long tile " << q;
    }
    if (!t.long_tiles.empty())
        EXPECT_EQ(size_t(t.long_tiles.back().first_row + t.long_tiles.back().rows),
                  t.long_rows.size());

    // Every tile entry, back to (row, column) -> value; each must be new.
    std::map<std::pair<int64_t, int64_t>, double> seen;
    for (int64_t k = 0; k < all_tiles; ++k) {
        const int64_t b = t.tile_start[size_t(k)], e = t.tile_end[size_t(k)],
                      next = t.tile_start[size_t(k) + 1];
        EXPECT_EQ(b % kTileAlign, 0) << "tile " << k;
        EXPECT_LE(b, e);
        EXPECT_LE(e, next);
        EXPECT_LT(next - e, kTileAlign) << "tile " << k << " padding";
        const bool is_long = k >= t.tiles();
        const int64_t q = k - t.tiles();
        const int64_t rb = k / S, s = k % S, r0 = rb * R;
        const int64_t nr = is_long ? t.long_tiles[size_t(q)].rows : std::min(R, m.rows - r0);
        if (is_long) EXPECT_GE(e - b, 1) << "long tile " << q << " is empty";
        for (int64_t p = b; p < e; ++p) {
            const int64_t c = int64_t(t.col[size_t(p)]), l = t.lrow[size_t(p)];
            if (!is_long) {
                EXPECT_GE(c, t.slab_start[size_t(s)]) << "tile " << k << " entry " << p;
                EXPECT_LT(c, t.slab_start[size_t(s) + 1]) << "tile " << k << " entry " << p;
            }
            EXPECT_LT(l, nr) << "tile " << k << " entry " << p;
            if (p > b) { // by column, then (stable) by row
                const int64_t pc = int64_t(t.col[size_t(p) - 1]), pl = t.lrow[size_t(p) - 1];
                EXPECT_TRUE(pc < c || (pc == c && pl < l))
                    << "tile " << k << " entry " << p << " out of order";
            }
            const int64_t row =
                is_long ? t.long_rows[size_t(t.long_tiles[size_t(q)].first_row + l)] : r0 + l;
            const bool fresh =
                seen.emplace(std::make_pair(row, c), double(t.val[size_t(p)])).second;
            EXPECT_TRUE(fresh) << "row " << row << " column " << c << " twice";
        }
        for (int64_t p = e; p < next; ++p)
            EXPECT_TRUE(t.col[size_t(p)] == I(0) && t.lrow[size_t(p)] == 0 &&
                        t.val[size_t(p)] == V(0));
    }

    // Long rows: in row order, over their threshold; the others under it. Every entry in a tile.
    size_t next_long = 0;
    for (int64_t i = 0; i < m.rows; ++i) {
        const int64_t len = m.row_ptr[size_t(i) + 1] - m.row_ptr[size_t(i)];
        const bool is_long = next_long < t.long_rows.size() && t.long_rows[next_long] == i;
        if (is_long) {
            ++next_long;
            EXPECT_GT(len, long_limit(m, R, config, i))
                << "row " << i << " of " << len << " left the tiles";
        } else {
            EXPECT_LE(len, long_limit(m, R, config, i))
                << "row " << i << " of " << len << " stayed in its tiles";
        }
        for (int64_t p = m.row_ptr[size_t(i)]; p < m.row_ptr[size_t(i) + 1]; ++p) {
            const auto it = seen.find({i, m.col[size_t(p)]});
            if (it == seen.end()) {
                ADD_FAILURE() << "row " << i << " column " << m.col[size_t(p)] << " is in no tile";
                continue;
            }
            EXPECT_EQ(it->second, double(V(m.val[size_t(p)])));
        }
    }
    EXPECT_EQ(next_long, t.long_rows.size()) << "long rows out of order";
    EXPECT_EQ(int64_t(seen.size()), m.nnz()) << "entries in the tiles that are not the matrix's";
    return int64_t(t.long_rows.size());
}

// The kernels' order of work on the host: y = alpha·A·x + beta·y.
template <typename V, typename I>
std::vector<double> replay(const TileLayout<V, I> &t, const std::vector<double> &x, double alpha,
                           double beta, std::vector<double> y) {
    const int64_t R = t.tile_rows, S = t.slabs, rows = t.rows;
    // One slab and no long tiles: y = alpha·sum + beta·y. Otherwise y = beta·y first (0 for
    // beta == 0, y not read), then every tile adds alpha·its sums.
    const bool add_into_y = S > 1 || !t.long_tiles.empty();
    if (add_into_y)
        for (double &v : y) v = beta == 0 ? 0.0 : beta * v;
    for (size_t q = 0; q < t.long_tiles.size(); ++q) { // a long tile: its group's rows
        const auto &lt = t.long_tiles[q];
        const int64_t k = t.tiles() + int64_t(q);
        std::vector<double> sum(size_t(lt.rows), 0.0);
        for (int64_t p = t.tile_start[size_t(k)]; p < t.tile_end[size_t(k)]; ++p)
            sum[t.lrow[size_t(p)]] += double(t.val[size_t(p)]) * x[size_t(t.col[size_t(p)])];
        for (int64_t j = 0; j < lt.rows; ++j)
            y[size_t(t.long_rows[size_t(lt.first_row + j)])] += alpha * sum[size_t(j)];
    }
    for (int64_t k = 0; k < t.tiles(); ++k) {
        const int64_t r0 = k / S * R, nr = std::min(R, rows - r0);
        std::vector<double> sum(size_t(nr), 0.0);
        for (int64_t p = t.tile_start[size_t(k)]; p < t.tile_end[size_t(k)]; ++p)
            sum[t.lrow[size_t(p)]] += double(t.val[size_t(p)]) * x[size_t(t.col[size_t(p)])];
        for (int64_t q = 0; q < nr; ++q) {
            double &out = y[size_t(r0 + q)];
            if (add_into_y) out += alpha * sum[size_t(q)];
            else out = beta == 0 ? alpha * sum[size_t(q)] : alpha * sum[size_t(q)] + beta * out;
        }
    }
    return y;
}

template <typename V, typename I>
void check_products(const CsrMatrix &m, const TileLayout<V, I> &t) {
    std::vector<double> x(size_t(m.cols));
    for (size_t j = 0; j < x.size(); ++j) x[j] = 1.0 + double(j % 7) * 0.25 - double(j % 3) * 0.5;
    for (double beta : {0.0, -2.0}) {
        const double alpha = 1.5;
        // beta == 0: y full of NaN, which must not survive.
        std::vector<double> y0(size_t(m.rows),
                               beta == 0 ? std::numeric_limits<double>::quiet_NaN() : 0.0);
        for (size_t i = 0; beta != 0 && i < y0.size(); ++i) y0[i] = double(i % 5) - 2.0;
        const std::vector<double> y = replay(t, x, alpha, beta, y0);
        for (int64_t i = 0; i < m.rows; ++i) {
            double s = 0, mag = 0;
            for (int64_t p = m.row_ptr[size_t(i)]; p < m.row_ptr[size_t(i) + 1]; ++p) {
                const double a = double(V(m.val[size_t(p)]));
                s += a * x[size_t(m.col[size_t(p)])];
                mag += std::fabs(a * x[size_t(m.col[size_t(p)])]);
            }
            const double old = beta == 0 ? 0.0 : beta * y0[size_t(i)];
            ASSERT_NEAR(y[size_t(i)], alpha * s + old,
                        1e-12 * (1 + std::fabs(alpha) * mag + std::fabs(old)))
                << "row " << i << " beta " << beta;
        }
    }
}

struct Case {
    CsrMatrix m;
    TilesConfig config;
    int64_t min_long = 0; // long rows at least
    int64_t min_slabs = 1;
};

std::vector<Case> cases() {
    using namespace tessera::bench;
    TilesConfig device; // as on a device of 132 multiprocessors
    device.min_tiles = 264;
    TilesConfig small_tiles;
    small_tiles.tile_rows = 64;
    small_tiles.slabs = 5;
    TilesConfig long_set;
    long_set.long_row = 40;
    long_set.min_tiles = 64;
    return {
        {random_k_per_row(300, 200, 7, 1), device, 0, 1},
        {power_law(40000, 40000, 10, 8), device, 1, 2},
        {power_law(60000, 50000, 10, 9, 5000), device, 1, 2},
        {one_dense_row(3000, 60000, 4, 1500, 4), device, 1, 1},
        {one_dense_row(2000, 300000, 2, 7, 5), device, 1, 1},
        {with_empty_rows(20000, 20000, 6, 0.5, 3), device, 0, 2},
        {random_k_per_row(3000, 200000, 40, 14), device, 0, 2},
        {tridiagonal(1000, 7), small_tiles, 0, 5},
        {power_law(20000, 3000, 10, 15), long_set, 1, 2},
        {random_k_per_row(70000, 1000, 3, 16), TilesConfig{70000, 0, 1, 0}, 0, 1}, // R = 65536
        {random_k_per_row(1, 1, 1, 17), device, 0, 1},
        {empty_matrix(7, 9), device, 0, 1},
        {empty_matrix(5, 0), device, 0, 1},
        {empty_matrix(9, 4), small_tiles, 0, 4}, // no entries, slabs of equal width
    };
}

template <typename V, typename I> void check_case(const Case &c) {
    SCOPED_TRACE(c.m.name + (sizeof(V) == 4 ? " float" : " double") +
                 (sizeof(I) == 4 ? " int32" : " int64"));
    const Typed<V, I> a = typed<V, I>(c.m);
    TileLayout<V, I> t;
    TilesConfig config = c.config;
    if (config.tile_rows > kTileMaxRows) config.tile_rows = kTileMaxRows;
    ASSERT_TRUE(
        build_tiles(c.m.rows, c.m.cols, a.rp.data(), a.col.data(), a.val.data(), config, 2, &t));
    const int64_t long_rows = check_layout(c.m, config, t);
    EXPECT_GE(long_rows, c.min_long);
    EXPECT_GE(t.slabs, c.min_slabs);
    check_products(c.m, t);
}

TEST(SpmvTiles, LayoutHoldsEveryEntryOnce) {
    for (const Case &c : cases()) {
        check_case<float, int32_t>(c);
        check_case<double, int32_t>(c);
        check_case<float, int64_t>(c);
        check_case<double, int64_t>(c);
    }
}

// A dense row leaves its tiles whatever its block, into one group of long tiles of at least
// kLongTileEntries entries; a row at the threshold stays.
TEST(SpmvTiles, LongRowsSplitOut) {
    const CsrMatrix m = tessera::bench::one_dense_row(3000, 60000, 4, 1500, 4);
    const Typed<double, int32_t> a = typed<double, int32_t>(m);
    TileLayout<double, int32_t> t;
    ASSERT_TRUE(
        build_tiles(m.rows, m.cols, a.rp.data(), a.col.data(), a.val.data(), TilesConfig{}, 1, &t));
    ASSERT_EQ(t.long_rows.size(), 1u);
    EXPECT_EQ(t.long_rows[0], 1500);
    const int64_t long_tiles = 60000 / kLongTileEntries; // 7 of 8571 or 8572 entries
    ASSERT_EQ(int64_t(t.long_tiles.size()), long_tiles);
    for (int64_t q = 0; q < long_tiles; ++q) {
        EXPECT_EQ(t.long_tiles[size_t(q)].first_row, 0);
        EXPECT_EQ(t.long_tiles[size_t(q)].rows, 1);
        const int64_t k = t.tiles() + q, n = t.tile_end[size_t(k)] - t.tile_start[size_t(k)];
        EXPECT_GE(n, kLongTileEntries);
        EXPECT_LE(n, 60000 / long_tiles + 1);
    }
    EXPECT_EQ(t.slabs, 1);
    TilesConfig at_limit;
    at_limit.long_row = 60000;
    ASSERT_TRUE(
        build_tiles(m.rows, m.cols, a.rp.data(), a.col.data(), a.val.data(), at_limit, 1, &t));
    EXPECT_TRUE(t.long_rows.empty());
    EXPECT_TRUE(t.long_tiles.empty());
}

// Long rows beyond R make several groups of at most R rows; a group of many short long rows
// takes kLongTileRowShare entries per row in each long tile, so its atomics into y stay few.
TEST(SpmvTiles, LongGroups) {
    const CsrMatrix m = tessera::bench::random_k_per_row(500, 4000, 300, 6);
    const Typed<float, int32_t> a = typed<float, int32_t>(m);
    TileLayout<float, int32_t> t;
    TilesConfig config;
    config.tile_rows = 64;
    config.long_row = 200; // every row is long: 8 groups (7 of 64 rows, one of 52)
    ASSERT_TRUE(
        build_tiles(m.rows, m.cols, a.rp.data(), a.col.data(), a.val.data(), config, 2, &t));
    check_layout(m, config, t);
    check_products(m, t);
    EXPECT_EQ(t.long_rows.size(), 500u);
    int64_t groups = 0, sums = 0; // sums: one atomic into y per row of a long tile's group
    for (size_t q = 0; q < t.long_tiles.size(); ++q) {
        if (q == 0 || t.long_tiles[q].first_row != t.long_tiles[q - 1].first_row) ++groups;
        sums += t.long_tiles[q].rows;
    }
    EXPECT_EQ(groups, 8);
    EXPECT_LE(sums, m.nnz() / kLongTileRowShare);
}

// No layout without rows, or with more rows per tile than uint16 holds.
TEST(SpmvTiles, Refusals) {
    const CsrMatrix none = empty_matrix(0, 5);
    const Typed<float, int32_t> a = typed<float, int32_t>(none);
    TileLayout<float, int32_t> t;
    EXPECT_FALSE(build_tiles(none.rows, none.cols, a.rp.data(), a.col.data(), a.val.data(),
                             TilesConfig{}, 1, &t));
    const CsrMatrix m = tessera::bench::random_k_per_row(100, 100, 3, 1);
    const Typed<float, int32_t> b = typed<float, int32_t>(m);
    TilesConfig too_many;
    too_many.tile_rows = kTileMaxRows + 1;
    EXPECT_FALSE(
        build_tiles(m.rows, m.cols, b.rp.data(), b.col.data(), b.val.data(), too_many, 1, &t));
}

} // namespace
