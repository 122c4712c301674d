// Sparse products on generated matrices (empty rows, one dense row, banded, tridiagonal,
// Laplacian, random, power-law, degenerate shapes) in every format × value type × index type
// × op × alpha/beta, on the CPU (1 to 3 threads) and reference backends, against the oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "sparse_support.hpp"

namespace {

using tessera::test::check_product;
using tessera::test::create_matrix;
using tessera::test::Door;
using tessera::test::empty_matrix;
using tessera::test::Entries;
using tessera::test::ProductCase;

#ifdef TESSERA_SANITIZED
constexpr int64_t kScale = 4; // sanitizer builds run the large matrices smaller
#else
constexpr int64_t kScale = 1;
#endif

// The entries in random order, with a few of them split into two duplicates (v = v/4 + 3v/4),
// so both doors see unsorted rows and duplicates.
Entries scramble(Entries e, uint64_t seed) {
    std::mt19937_64 rng = tessera::test::test_rng("/scramble" + std::to_string(seed));
    const int64_t n = e.nnz();
    for (int64_t k = 0; k < n; k += 17) {
        const double v = e.val[size_t(k)];
        e.val[size_t(k)] = 0.25 * v;
        e.row.push_back(e.row[size_t(k)]);
        e.col.push_back(e.col[size_t(k)]);
        e.val.push_back(0.75 * v);
    }
    std::vector<size_t> order(e.val.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    Entries s = e;
    for (size_t k = 0; k < order.size(); ++k) {
        s.row[k] = e.row[order[k]];
        s.col[k] = e.col[order[k]];
        s.val[k] = e.val[order[k]];
    }
    return s;
}

struct Generated {
    std::string name;
    std::function<Entries()> make;
    bool large; // above the size where products use several threads
};

std::vector<Generated> generated() {
    using namespace tessera::bench;
    using tessera::test::from_csr;
    return {
        {"random", [] { return from_csr(random_k_per_row(300, 200, 7, 1)); }, false},
        {"empty_rows", [] { return from_csr(with_empty_rows(400, 400, 5, 0.3, 2)); }, false},
        {"dense_row", [] { return from_csr(one_dense_row(500, 700, 3, 123, 3)); }, false},
        {"banded", [] { return from_csr(banded(600, 4, 0.9, 4)); }, false},
        {"tridiagonal", [] { return from_csr(tridiagonal(1000, 5)); }, false},
        {"power_law", [] { return from_csr(power_law(800, 800, 8, 6)); }, false},
        {"laplacian", [] { return from_csr(laplacian_2d(20)); }, false},
        {"wide", [] { return from_csr(random_k_per_row(40, 3000, 30, 7)); }, false},
        {"tall", [] { return from_csr(random_k_per_row(3000, 40, 2, 8)); }, false},
        {"one_by_one", [] { return from_csr(random_k_per_row(1, 1, 1, 9)); }, false},
        {"zero_rows", [] { return empty_matrix(0, 5); }, false},
        {"zero_cols", [] { return empty_matrix(5, 0); }, false},
        {"zero_by_zero", [] { return empty_matrix(0, 0); }, false},
        {"no_entries", [] { return empty_matrix(7, 9); }, false},
        {"large_power_law",
         [] { return from_csr(power_law(6000 / kScale, 6000 / kScale, 12, 10)); }, true},
        {"large_dense_row",
         [] {
             return from_csr(one_dense_row(3000 / kScale, 60000 / kScale, 4, 1500 / kScale, 11));
         },
         true},
        {"large_laplacian", [] { return from_csr(laplacian_2d(160 / kScale)); }, true},
        {"large_empty_rows",
         [] { return from_csr(with_empty_rows(20000 / kScale, 20000 / kScale, 6, 0.5, 12)); },
         true},
        // Rows + entries of several CSR segments per thread (src/cpu/spmv_csr.cpp), one row
        // of 300 000 entries running through several of them.
        {"large_long_row",
         [] {
             return from_csr(one_dense_row(20000 / kScale, 300000 / kScale, 4, 10000 / kScale, 16));
         },
         true},
        // Columns scattered over more than 2^17: CSR runs on tiles (one and two blocks of rows).
        {"large_scattered",
         [] { return from_csr(random_k_per_row(3000 / kScale, 200000, 40, 13)); }, true},
        {"large_scattered_tall",
         [] { return from_csr(random_k_per_row(40000 / kScale, 150000, 3, 14)); }, true},
        // Aᵀ scattered: the transposed copy runs on tiles.
        {"large_scattered_transpose",
         [] { return from_csr(random_k_per_row(200000 / kScale, 3000, 1, 15)); }, true},
    };
}

class SparseGenerated : public ::testing::TestWithParam<size_t> {};

constexpr tsr_format kFormats[] = {TSR_FORMAT_AUTO, TSR_FORMAT_CSR, TSR_FORMAT_COO,
                                   TSR_FORMAT_ELL,  TSR_FORMAT_DIA, TSR_FORMAT_HYB};

template <typename T>
void run_all(tsr_handle h, const Entries &e, tsr_format format, tsr_index_type itype, Door door,
             bool large, uint64_t seed) {
    SCOPED_TRACE(std::string("dtype=") + (sizeof(T) == 4 ? "f32" : "f64") +
                 " itype=" + (itype == TSR_INDEX_I32 ? "i32" : "i64") + " door=" + door_name(door) +
                 " format=" + tessera::test::format_label(format));
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<T>(h, e, itype, door, &A), TSR_SUCCESS) << tsr_last_error();
    tsr_status s = tsr_sparse_optimize(h, A, format);
    if (s == TSR_ERR_NOT_SUPPORTED) { // padding limit: the matrix keeps CSR
        EXPECT_TRUE(format == TSR_FORMAT_ELL || format == TSR_FORMAT_DIA) << tsr_last_error();
        EXPECT_NE(std::string(tsr_last_error()).find("slots"), std::string::npos)
            << tsr_last_error();
        tsr_format kept = TSR_FORMAT_AUTO;
        EXPECT_EQ(tsr_sparse_get_format(A, &kept), TSR_SUCCESS);
        EXPECT_EQ(kept, TSR_FORMAT_CSR);
        tsr_sparse_destroy(A);
        return;
    }
    ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    tsr_format got = TSR_FORMAT_AUTO;
    ASSERT_EQ(tsr_sparse_get_format(A, &got), TSR_SUCCESS);
    if (format != TSR_FORMAT_AUTO) EXPECT_EQ(got, format);
    else EXPECT_NE(got, TSR_FORMAT_AUTO);
    std::vector<ProductCase> cases;
    for (tsr_op op : {TSR_OP_N, TSR_OP_T})
        for (const ProductCase &c : tessera::test::standard_cases(op))
            if (!large || c.alpha != 0) cases.push_back(c);
    cases.push_back({TSR_OP_C, 2.0, 0.0});
    for (const ProductCase &c : cases) EXPECT_TRUE(check_product<T>(h, A, e, c, seed++));
    EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
}

TEST_P(SparseGenerated, EveryFormatTypeOpAndScale) {
    const Generated g = generated()[GetParam()];
    const Entries e = scramble(g.make(), GetParam() + 100);
    SCOPED_TRACE(g.name + " " + std::to_string(e.rows) + "x" + std::to_string(e.cols) +
                 " entries " + std::to_string(e.nnz()));
    struct Run {
        tsr_backend backend;
        int threads;
    };
    std::vector<Run> runs = {{TSR_BACKEND_CPU, 3}, {TSR_BACKEND_REFERENCE, 1}};
    if (g.large) runs = {{TSR_BACKEND_CPU, 2}, {TSR_BACKEND_CPU, 3}, {TSR_BACKEND_CPU, 1}};
    if (g.large && kScale > 1) runs = {{TSR_BACKEND_CPU, 3}}; // sanitizers: the threaded paths only
    uint64_t seed = 1000 * GetParam();
    for (const Run &run : runs) {
        SCOPED_TRACE(std::string("backend=") +
                     (run.backend == TSR_BACKEND_CPU ? "cpu" : "reference") +
                     " threads=" + std::to_string(run.threads));
        tsr_handle h = nullptr;
        ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(h, run.backend), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_num_threads(h, run.threads), TSR_SUCCESS);
        int variant = 0;
        for (tsr_format format : kFormats)
            for (tsr_index_type itype : {TSR_INDEX_I32, TSR_INDEX_I64}) {
                const Door door = (variant++ % 2) ? Door::coo : Door::csr;
                run_all<float>(h, e, format, itype, door, g.large, seed += 50);
                run_all<double>(h, e, format, itype, door == Door::csr ? Door::coo : Door::csr,
                                g.large, seed += 50);
            }
        tsr_destroy(h);
    }
}

INSTANTIATE_TEST_SUITE_P(Matrices, SparseGenerated, ::testing::Range<size_t>(0, generated().size()),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                             return generated()[info.param].name;
                         });

// Transposed products from the second on run on a copy of Aᵀ, in the format the CPU's rules
// choose for the copy (src/cpu/spmv_backend.cpp): Aᵀ with short rows (ELL), banded (DIA), with
// empty rows, a few long rows (HYB) or all long (CSR). A is held in CSR or as AUTO chose, so that
// DIA's own transposed product does not serve every case; each matrix takes six transposed
// products, fresh x and y.
TEST(SparseTransposedCopy, EveryFormatTheRulesChooseForTheCopy) {
    using namespace tessera::bench;
    using tessera::test::from_csr;
    const auto transposed = [](Entries e) {
        std::swap(e.rows, e.cols);
        std::swap(e.row, e.col);
        return e;
    };
    const std::vector<std::pair<std::string, Entries>> matrices = {
        {"short_rows", from_csr(random_k_per_row(27, 51, 4, 21))},
        {"banded", from_csr(banded(500, 3, 1.0, 22))},
        {"empty_rows", from_csr(with_empty_rows(300, 200, 4, 0.4, 23))},
        {"dense_row", from_csr(one_dense_row(200, 300, 3, 150, 24))},
        {"dense_column", transposed(from_csr(one_dense_row(3000, 400, 3, 1500, 25)))},
        {"long_rows", transposed(from_csr(random_k_per_row(60, 2000, 300, 26)))},
    };
    const ProductCase cases[] = {{TSR_OP_T, 1.0, 0.0},  {TSR_OP_T, 2.0, 0.0},
                                 {TSR_OP_T, -1.5, 1.0}, {TSR_OP_C, 0.5, 0.25},
                                 {TSR_OP_T, 1.0, 0.0},  {TSR_OP_T, 3.0, -2.0}};
    uint64_t seed = 7000;
    for (int threads : {1, 2}) {
        tsr_handle h = nullptr;
        ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_num_threads(h, threads), TSR_SUCCESS);
        for (const auto &[name, e] : matrices)
            for (tsr_format format : {TSR_FORMAT_CSR, TSR_FORMAT_AUTO})
                for (int dtype = 0; dtype < 2; ++dtype) {
                    SCOPED_TRACE(name + " threads=" + std::to_string(threads) + " format=" +
                                 tessera::test::format_label(format) + (dtype ? " f64" : " f32"));
                    tsr_sparse A = nullptr;
                    const tsr_status made =
                        dtype ? create_matrix<double>(h, e, TSR_INDEX_I32, Door::csr, &A)
                              : create_matrix<float>(h, e, TSR_INDEX_I32, Door::csr, &A);
                    ASSERT_EQ(made, TSR_SUCCESS) << tsr_last_error();
                    ASSERT_EQ(tsr_sparse_optimize(h, A, format), TSR_SUCCESS) << tsr_last_error();
                    for (const ProductCase &c : cases)
                        EXPECT_TRUE(dtype ? check_product<double>(h, A, e, c, seed++)
                                          : check_product<float>(h, A, e, c, seed++));
                    EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
                }
        tsr_destroy(h);
    }
}

// Products the CPU runs on one thread in CSR by rows (rows + entries below 8192) or ELL (slots
// visited below 8192) go straight from the call to the kernel (src/cpu/spmv_csr.cpp,
// csr_direct; spmv_ell.cpp, ell_direct); from 8192 on through the whole dispatch. Transposed
// products likewise on the CPU's copy of Aᵀ once it is made (the second transposed product;
// src/core/sparse_dispatch.cpp, publish_direct_t), and not after the plan changes, which drop the
// copy. Both sides of that edge, on the default handle, on auto and on the CPU with three
// threads, before and after the plan changes (the direct products are made again: ELL, then CSR
// again), every op with every scale in turn.
TEST(SparseSmallProducts, BothSidesOfTheDirectPath) {
    using tessera::bench::random_k_per_row;
    using tessera::test::from_csr;
    struct Matrix {
        int64_t rows, cols, k; // rows · (k + 1) is the path of rows + entries
    };
    const Matrix matrices[] = {{1, 1, 1},       {27, 51, 4},    {1, 4000, 3000}, {8191, 50, 0},
                               {1170, 800, 6},  {1000, 900, 7}, {8192, 30, 0},   {1365, 700, 5},
                               {2048, 2048, 3}, {4000, 300, 1}, {1366, 700, 5}};
    uint64_t seed = 900000;
    for (const Matrix &mat : matrices) {
        const Entries e = from_csr(random_k_per_row(mat.rows, mat.cols, mat.k, seed));
        SCOPED_TRACE(std::to_string(e.rows) + "x" + std::to_string(e.cols) + " entries " +
                     std::to_string(e.nnz()) + " path " + std::to_string(e.rows + e.nnz()));
        for (int handle = 0; handle < 3; ++handle) {
            tsr_handle h = nullptr;
            if (handle > 0) {
                ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
                ASSERT_EQ(tsr_set_backend(h, handle == 1 ? TSR_BACKEND_AUTO : TSR_BACKEND_CPU),
                          TSR_SUCCESS);
                ASSERT_EQ(tsr_set_num_threads(h, 3), TSR_SUCCESS);
            }
            for (tsr_index_type itype : {TSR_INDEX_I32, TSR_INDEX_I64}) {
                tsr_sparse As = nullptr, Ad = nullptr;
                ASSERT_EQ(create_matrix<float>(h, e, itype, Door::csr, &As), TSR_SUCCESS);
                ASSERT_EQ(create_matrix<double>(h, e, itype, Door::coo, &Ad), TSR_SUCCESS);
                for (tsr_format format : {TSR_FORMAT_CSR, TSR_FORMAT_ELL, TSR_FORMAT_CSR}) {
                    for (tsr_sparse A : {As, Ad}) {
                        const tsr_status s = tsr_sparse_optimize(h, A, format);
                        ASSERT_TRUE(s == TSR_SUCCESS ||
                                    (format == TSR_FORMAT_ELL && s == TSR_ERR_NOT_SUPPORTED))
                            << tsr_last_error();
                    }
                    for (tsr_op op : {TSR_OP_N, TSR_OP_T, TSR_OP_C})
                        for (const ProductCase &c : tessera::test::standard_cases(op)) {
                            EXPECT_TRUE(check_product<float>(h, As, e, c, seed++));
                            EXPECT_TRUE(check_product<double>(h, Ad, e, c, seed++));
                        }
                }
                tsr_sparse_destroy(As);
                tsr_sparse_destroy(Ad);
            }
            tsr_destroy(h);
        }
        ++seed;
    }
}

} // namespace
