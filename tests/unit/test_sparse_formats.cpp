// The backend-free sparse code of src/sparse on its own: canonical assembly, conversions
// between the formats and back, structure statistics and the padding limit; and the CPU
// backend's AUTO rules (src/cpu/spmv_rules.*) applied through it.
#include <algorithm>
#include <gtest/gtest.h>

#include <random>

#include "sparse/assemble.hpp"
#include "cpu/spmv_rules.hpp"
#include "sparse/convert.hpp"
#include "sparse/entries.hpp"
#include "sparse/optimize.hpp"
#include "sparse/structure.hpp"
#include "spmv_generators.hpp"

namespace {

using namespace tessera::sparse;

template <typename V, typename I> Csr<V, I> from(const tessera::bench::CsrMatrix &m) {
    std::vector<I> rp(m.row_ptr.begin(), m.row_ptr.end()), col(m.col.begin(), m.col.end());
    std::vector<V> val(m.val.begin(), m.val.end());
    return assemble_from_csr<V, I>(m.rows, m.cols, m.nnz(), rp.data(), col.data(), val.data());
}

template <typename V, typename I> void expect_equal(const Csr<V, I> &a, const Csr<V, I> &b) {
    ASSERT_EQ(a.rows, b.rows);
    ASSERT_EQ(a.cols, b.cols);
    ASSERT_EQ(a.nnz(), b.nnz());
    for (int64_t i = 0; i <= a.rows; ++i) ASSERT_EQ(a.row_ptr[i], b.row_ptr[i]) << "row_ptr " << i;
    for (int64_t p = 0; p < a.nnz(); ++p) {
        ASSERT_EQ(a.col[p], b.col[p]) << "entry " << p;
        ASSERT_EQ(a.val[p], b.val[p]) << "entry " << p;
    }
}

std::vector<tessera::bench::CsrMatrix> shapes() {
    using namespace tessera::bench;
    return {random_k_per_row(300, 200, 7, 1),
            with_empty_rows(400, 300, 5, 0.3, 2),
            one_dense_row(50, 700, 3, 12, 3),
            banded(600, 4, 0.9, 4),
            tridiagonal(100, 5),
            power_law(800, 800, 8, 6),
            laplacian_2d(12),
            random_k_per_row(1, 1, 1, 7),
            random_k_per_row(37, 5, 2, 8)};
}

template <typename V, typename I> void round_trips() {
    for (const auto &m : shapes()) {
        SCOPED_TRACE(m.name);
        const Csr<V, I> a = from<V, I>(m);
        const Structure s = analyze(a, row_stats(a.rows, a.cols, a.row_ptr.data()));
        expect_equal(a, coo_to_csr(csr_to_coo(a)));
        expect_equal(a, ell_to_csr(csr_to_ell(a, s.row.max_len)));
        for (int64_t w : {int64_t(0), int64_t(1), s.hyb_width, s.row.max_len})
            expect_equal(a, hyb_to_csr(csr_to_hyb(a, w)));
        expect_equal(a, dia_to_csr<V, I>(csr_to_dia(a, s))); // the generators never store zeros
        expect_equal(a, transpose(transpose(a)));
    }
}

// ELL's visited slots (the row kernels' work, their thread count's measure): each block of
// kEllRowAlign rows up to its own longest row, where slots() pads every row to the longest.
TEST(SparseFormats, EllCountsTheSlotsItsBlocksVisit) {
    for (const auto &m : shapes()) {
        SCOPED_TRACE(m.name);
        const Csr<double, int32_t> a = from<double, int32_t>(m);
        const Structure s = analyze(a, row_stats(a.rows, a.cols, a.row_ptr.data()));
        for (int64_t w : {int64_t(1), s.hyb_width, s.row.max_len}) {
            const Ell<double, int32_t> e = csr_to_ell(a, w);
            int64_t visited = 0;
            for (int64_t b = 0; b < a.rows; b += kEllRowAlign) {
                int64_t longest = 0;
                for (int64_t i = b; i < std::min(a.rows, b + kEllRowAlign); ++i)
                    longest = std::max<int64_t>(
                        longest, std::min<int64_t>(w, a.row_ptr[i + 1] - a.row_ptr[i]));
                visited += longest * kEllRowAlign;
            }
            EXPECT_EQ(e.visited, visited) << "width " << w;
            EXPECT_LE(e.visited, e.slots());
        }
    }
    // One dense row among short ones: every block but the dense row's visits few slots.
    const auto a = from<double, int32_t>(tessera::bench::one_dense_row(480, 700, 3, 400, 9));
    const Ell<double, int32_t> e =
        csr_to_ell(a, analyze(a, row_stats(a.rows, a.cols, a.row_ptr.data())).row.max_len);
    EXPECT_LT(e.visited * 4, e.slots());
}

TEST(SparseFormats, RoundTripsThroughEveryFormat) {
    round_trips<float, int32_t>();
    round_trips<double, int64_t>();
}

// Large enough for the bucketed, threaded transpose (several buckets of columns).
TEST(SparseFormats, BucketedTransposeMatchesTheDefinition) {
    const auto m = tessera::bench::power_law(30000, 100000, 12, 3);
    const Csr<double, int32_t> a = from<double, int32_t>(m);
    ASSERT_GT(a.nnz(), int64_t(1) << 18);
    const Csr<double, int32_t> t = transpose(a, 3);
    ASSERT_EQ(t.rows, a.cols);
    ASSERT_EQ(t.cols, a.rows);
    // Every entry of A appears once in Aᵀ, rows sorted.
    for (int64_t j = 0; j < t.rows; ++j)
        for (int64_t p = t.row_ptr[j] + 1; p < int64_t(t.row_ptr[j + 1]); ++p)
            ASSERT_LT(t.col[p - 1], t.col[p]);
    expect_equal(a, transpose(t, 2));
    expect_equal(t, transpose(a, 1));
}

TEST(SparseFormats, AssemblySortsAndSumsDuplicates) {
    const int32_t row[] = {2, 0, 2, 2, 0, 2};
    const int32_t col[] = {3, 1, 0, 3, 1, 1};
    const double val[] = {1, 2, 3, 4, 5, 0};
    Csr<double, int32_t> a = assemble_from_coo<double, int32_t>(3, 4, 6, row, col, val);
    ASSERT_EQ(a.nnz(), 4);
    EXPECT_EQ(a.row_ptr[1], 1);
    EXPECT_EQ(a.row_ptr[2], 1);
    EXPECT_EQ(a.val[0], 7); // (0,1): 2 + 5
    EXPECT_EQ(a.col[1], 0);
    EXPECT_EQ(a.col[2], 1);
    EXPECT_EQ(a.val[2], 0); // an explicit zero is kept
    EXPECT_EQ(a.col[3], 3);
    EXPECT_EQ(a.val[3], 5); // (2,3): 1 + 4
}

TEST(SparseFormats, StructureOfKnownMatrices) {
    auto stats = [](const tessera::bench::CsrMatrix &m) {
        const Csr<double, int32_t> a = from<double, int32_t>(m);
        return analyze(a, row_stats(a.rows, a.cols, a.row_ptr.data()));
    };
    const Structure tri = stats(tessera::bench::tridiagonal(1000, 1));
    EXPECT_EQ(tri.ndiag, 3);
    EXPECT_EQ(tri.dia_cover, 1000 + 2 * 999);
    EXPECT_DOUBLE_EQ(tri.dia_fill(), 1.0);
    EXPECT_EQ(tri.row.max_len, 3);
    EXPECT_EQ(tri.row.min_len, 2);
    const Structure lap = stats(tessera::bench::laplacian_2d(30));
    EXPECT_EQ(lap.ndiag, 5);
    EXPECT_EQ(lap.hyb_width, 5);
    EXPECT_GT(lap.dia_fill(), 0.95);
    const Structure dense = stats(tessera::bench::one_dense_row(2000, 2000, 2, 7, 1));
    EXPECT_EQ(dense.row.max_len, 2000);
    EXPECT_EQ(dense.hyb_width, 2);
    EXPECT_EQ(dense.hyb_tail, 1998);
    EXPECT_FALSE(padding_fault("ELL", dense.ell_slots, dense.row.nnz, "").empty());
}

TEST(SparseFormats, PaddingLimit) {
    EXPECT_TRUE(padding_fault("ELL", 8000, 1000, "").empty());
    EXPECT_FALSE(padding_fault("ELL", 8001, 1000, "").empty());
    EXPECT_TRUE(padding_fault("DIA", kPaddingFloor, 1, "").empty())
        << "tiny matrices are never refused";
}

TEST(SparseFormats, AutoRules) {
    enum class Target { cpu, cpu_simd }; // without and with fast SIMD gathers
    auto plan = [](const tessera::bench::CsrMatrix &m, Target target = Target::cpu) {
        const Planner rules = [target](const Structure &st, tsr_format requested, size_t vb,
                                       size_t ib) {
            return tessera::cpu::plan_format(st, target == Target::cpu_simd, requested, vb, ib);
        };
        Storage s{Typed<double, int32_t>{}};
        auto &t = std::get<Typed<double, int32_t>>(s.typed);
        t.csr = from<double, int32_t>(m);
        t.rows = row_stats(t.csr.rows, t.csr.cols, t.csr.row_ptr.data());
        EXPECT_TRUE(apply_format(s, TSR_FORMAT_AUTO, rules).fault.empty());
        EXPECT_FALSE(t.plan.reason.empty());
        return t.plan;
    };
    EXPECT_EQ(plan(tessera::bench::tridiagonal(100000, 1)).format, TSR_FORMAT_DIA);
    EXPECT_EQ(plan(tessera::bench::laplacian_2d(300)).format, TSR_FORMAT_DIA);
    EXPECT_EQ(plan(tessera::bench::power_law(20000, 20000, 10, 1)).format, TSR_FORMAT_CSR);
    EXPECT_EQ(plan(tessera::bench::one_dense_row(20000, 20000, 4, 5, 1)).format, TSR_FORMAT_CSR);
    EXPECT_EQ(plan(tessera::bench::random_k_per_row(100, 100, 3, 1)).format, TSR_FORMAT_CSR);
    // With SIMD gathers, short rows go to ELL (regular) or HYB (a few long rows).
    EXPECT_EQ(plan(tessera::bench::random_k_per_row(5000, 5000, 7, 1), Target::cpu_simd).format,
              TSR_FORMAT_ELL);
    EXPECT_EQ(plan(tessera::bench::one_dense_row(5000, 5000, 4, 9, 1), Target::cpu_simd).format,
              TSR_FORMAT_HYB);
    EXPECT_EQ(plan(tessera::bench::random_k_per_row(5000, 5000, 40, 1), Target::cpu_simd).format,
              TSR_FORMAT_CSR)
        << "long rows";
    // Columns scattered over an x beyond L2: CSR on tiles, whatever the rows.
    const Plan scattered =
        plan(tessera::bench::random_k_per_row(4000, 300000, 40, 1), Target::cpu_simd);
    EXPECT_EQ(scattered.format, TSR_FORMAT_CSR);
    EXPECT_EQ(tessera::cpu::SpmvKernel(scattered.kernel), tessera::cpu::SpmvKernel::tiles);
    EXPECT_TRUE(scattered.tiled);
    EXPECT_EQ(plan(tessera::bench::tridiagonal(1000, 1), Target::cpu_simd).format, TSR_FORMAT_DIA);
    // Rows of length `len_long` every `every` rows and 3 elsewhere.
    auto mixed = [](int64_t n, int64_t every, int64_t len_long) {
        tessera::bench::CsrMatrix m{"mixed", n, n};
        for (int64_t i = 0; i < n; ++i) {
            const int64_t len = i % every == 0 ? len_long : 3;
            for (int64_t j = 0; j < len; ++j) m.col.push_back((i * 7 + j * 5) % n);
            std::sort(m.col.end() - len, m.col.end());
            m.val.resize(m.col.size(), 1.0);
            m.row_ptr.push_back(int64_t(m.col.size()));
        }
        return m;
    };
    // Small enough for L1 (1344 slots): ELL although its blocks are 39% full; no HYB tail pass.
    const Plan small = plan(mixed(100, 4, 12), Target::cpu_simd);
    EXPECT_EQ(small.format, TSR_FORMAT_ELL) << small.reason;
    // A COO tail of 37% of the entries spread over a quarter of the rows: CSR, not HYB.
    const tessera::bench::CsrMatrix spread = mixed(6000, 4, 10);
    const Plan spread_plan = plan(spread, Target::cpu_simd);
    EXPECT_EQ(spread_plan.format, TSR_FORMAT_CSR) << spread_plan.reason;
    // A tail of 27% over an eighth of the rows: CSR (HYB ran 1.1–1.6x slower than CSR on the
    // shared matrices with tails of 21% and 29%); of 9% over a sixteenth: HYB.
    const Plan tail27 = plan(mixed(6000, 8, 12), Target::cpu_simd);
    EXPECT_EQ(tail27.format, TSR_FORMAT_CSR) << tail27.reason;
    const Plan tail9 = plan(mixed(6000, 16, 8), Target::cpu_simd);
    EXPECT_EQ(tail9.format, TSR_FORMAT_HYB) << tail9.reason;
}

} // namespace
