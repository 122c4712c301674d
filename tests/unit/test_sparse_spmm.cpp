// Sparse × dense products (tsr_sspmm, tsr_dspmm) against the long double oracle: generated
// matrices × value and index type × layout × op × k (every width of the kernels' column
// blocks and their tails) × padded leading dimensions × alpha/beta, after each format's
// optimize, on the CPU (one to three threads) and reference backends; the argument checks
// (nothing written on a refusal); and matrices made in place (tsr_sparse_create_csr_view).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "../support/seed.hpp"
#include "spmm_support.hpp"

namespace {

using tessera::test::BlockCase;
using tessera::test::check_block_product;
using tessera::test::create_matrix;
using tessera::test::Door;
using tessera::test::empty_matrix;
using tessera::test::Entries;
using tessera::test::from_csr;

#ifdef TESSERA_SANITIZED
constexpr int64_t kScale = 4;
#else
constexpr int64_t kScale = 1;
#endif

struct Handle {
    tsr_handle h = nullptr;
    Handle(tsr_backend b, int threads) {
        EXPECT_EQ(tsr_create(&h), TSR_SUCCESS);
        EXPECT_EQ(tsr_set_backend(h, b), TSR_SUCCESS);
        EXPECT_EQ(tsr_set_num_threads(h, threads), TSR_SUCCESS);
    }
    ~Handle() { tsr_destroy(h); }
};

std::vector<Entries> matrices() {
    using namespace tessera::bench;
    return {from_csr(random_k_per_row(70, 50, 5, 1)),
            from_csr(with_empty_rows(90, 110, 4, 0.3, 2)),
            from_csr(one_dense_row(60, 80, 2, 17, 3)),
            from_csr(banded(75, 3, 0.8, 4)),
            from_csr(random_k_per_row(1, 1, 1, 5)),
            empty_matrix(0, 6),
            empty_matrix(6, 0),
            empty_matrix(7, 9)};
}

// Widths of the kernels' column blocks (64 down to 1) and their tails.
constexpr int64_t kColumns[] = {0, 1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 33, 64, 70, 100, 129};

template <typename T>
void sweep(tsr_handle h, const Entries &e, tsr_index_type itype, tsr_format format, bool thorough) {
    SCOPED_TRACE(e.name + (sizeof(T) == 4 ? " f32" : " f64") +
                 (itype == TSR_INDEX_I32 ? " i32 " : " i64 ") +
                 tessera::test::format_label(format));
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<T>(nullptr, e, itype, Door::csr, &A), TSR_SUCCESS) << tsr_last_error();
    const tsr_status s = tsr_sparse_optimize(h, A, format);
    if (s == TSR_ERR_NOT_SUPPORTED) { // ELL or DIA would be mostly padding
        tsr_sparse_destroy(A);
        return;
    }
    ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    uint64_t seed = 0;
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
        for (tsr_op op : {TSR_OP_N, TSR_OP_T})
            for (int64_t k : kColumns) {
                if (!thorough && k % 2 == 0 && k > 8) continue;
                const double ab[][2] = {{1, 0}, {-1, 1}, {0.5, -2}, {0, 0.5}, {0, 0}};
                for (const auto &c : ab) {
                    if (!thorough && c[0] == 0 && k > 2) continue;
                    const BlockCase bc{layout, op, k, int64_t(seed % 3), c[0], c[1]};
                    EXPECT_TRUE(check_block_product<T>(h, A, e, bc, seed++));
                }
            }
    tsr_sparse_destroy(A);
}

TEST(SparseSpmm, EveryShapeLayoutAndColumnCountOnTheCpu) {
    for (int threads : {1, 3}) {
        Handle cpu(TSR_BACKEND_CPU, threads);
        for (const Entries &e : matrices()) {
            sweep<float>(cpu.h, e, TSR_INDEX_I32, TSR_FORMAT_CSR, threads == 1);
            sweep<double>(cpu.h, e, TSR_INDEX_I64, TSR_FORMAT_CSR, threads == 1);
        }
    }
}

TEST(SparseSpmm, EveryFormatsPlanStillMultipliesOnCsr) {
    Handle cpu(TSR_BACKEND_CPU, 2);
    const Entries e = from_csr(tessera::bench::banded(120, 2, 1.0, 7));
    for (tsr_format f :
         {TSR_FORMAT_AUTO, TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_DIA, TSR_FORMAT_HYB}) {
        sweep<double>(cpu.h, e, TSR_INDEX_I32, f, false);
        sweep<float>(cpu.h, e, TSR_INDEX_I64, f, false);
    }
}

TEST(SparseSpmm, ReferenceBackend) {
    Handle ref(TSR_BACKEND_REFERENCE, 1);
    for (const Entries &e : matrices())
        sweep<double>(ref.h, e, TSR_INDEX_I32, TSR_FORMAT_CSR, false);
}

// Large enough for several threads and pieces of rows, with long and empty rows.
TEST(SparseSpmm, LargeMatricesOnSeveralThreads) {
    using namespace tessera::bench;
    Handle cpu(TSR_BACKEND_CPU, 2);
    const Entries big[] = {from_csr(power_law(20000 / kScale, 15000 / kScale, 10, 21)),
                           from_csr(with_empty_rows(30000 / kScale, 30000 / kScale, 5, 0.5, 22)),
                           from_csr(dense_rows(8000 / kScale, 9000 / kScale, 3, 4, 23))};
    uint64_t seed = 0;
    for (const Entries &e : big) {
        tsr_sparse A = nullptr;
        ASSERT_EQ(create_matrix<double>(nullptr, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
        for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
            for (tsr_op op : {TSR_OP_N, TSR_OP_T})
                for (int64_t k : {5, 40})
                    EXPECT_TRUE(check_block_product<double>(
                        cpu.h, A, e, BlockCase{layout, op, k, 1, 1.5, 0.5}, seed++));
        tsr_sparse_destroy(A);
    }
}

// Every refusal names its fault and writes nothing.
TEST(SparseSpmm, BadArgumentsAreRefusedAndNothingIsWritten) {
    const Entries e = from_csr(tessera::bench::random_k_per_row(6, 4, 2, 31));
    tsr_sparse A = nullptr, Af = nullptr;
    ASSERT_EQ(create_matrix<double>(nullptr, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
    ASSERT_EQ(create_matrix<float>(nullptr, e, TSR_INDEX_I32, Door::csr, &Af), TSR_SUCCESS);
    std::vector<double> X(64, 1.0), Y(64, 7.0);
    auto refused = [&](tsr_status s, const char *words) {
        EXPECT_EQ(s, TSR_ERR_INVALID_ARGUMENT) << words;
        EXPECT_NE(std::strstr(tsr_last_error(), words), nullptr) << tsr_last_error();
        for (double v : Y) ASSERT_EQ(v, 7.0) << words;
    };
    const auto C = TSR_COL_MAJOR, R = TSR_ROW_MAJOR;
    refused(tsr_dspmm(nullptr, tsr_layout(7), TSR_OP_N, 2, 1, A, X.data(), 4, 0, Y.data(), 6),
            "layout");
    refused(tsr_dspmm(nullptr, C, tsr_op(3), 2, 1, A, X.data(), 4, 0, Y.data(), 6), "op");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, nullptr, X.data(), 4, 0, Y.data(), 6),
            "A is NULL");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, Af, X.data(), 4, 0, Y.data(), 6), "tsr_sspmm");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, -1, 1, A, X.data(), 4, 0, Y.data(), 6), "negative");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, A, X.data(), 3, 0, Y.data(), 6), "ldx");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, A, X.data(), 4, 0, Y.data(), 5), "ldy");
    refused(tsr_dspmm(nullptr, C, TSR_OP_T, 2, 1, A, X.data(), 4, 0, Y.data(), 6), "ldx");
    refused(tsr_dspmm(nullptr, R, TSR_OP_N, 3, 1, A, X.data(), 2, 0, Y.data(), 3), "ldx");
    refused(tsr_dspmm(nullptr, R, TSR_OP_N, 3, 1, A, X.data(), 3, 0, Y.data(), 2), "ldy");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, A, nullptr, 4, 0, Y.data(), 6), "X is NULL");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, A, X.data(), 4, 0, nullptr, 6), "Y is NULL");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, A, X.data(), int64_t(1) << 62, 0, Y.data(), 6),
            "spans");
    refused(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 1, A, Y.data() + 4, 4, 0, Y.data(), 6), "overlap");
    // What is not read may be NULL: X when alpha == 0, both when k == 0.
    EXPECT_EQ(tsr_dspmm(nullptr, C, TSR_OP_N, 2, 0, A, nullptr, 4, 2, Y.data(), 6), TSR_SUCCESS);
    EXPECT_EQ(Y[0], 14.0);
    EXPECT_EQ(Y[12], 7.0); // past the 6 x 2 block
    EXPECT_EQ(tsr_dspmm(nullptr, C, TSR_OP_N, 0, 1, A, nullptr, 4, 0, nullptr, 6), TSR_SUCCESS);
    tsr_sparse_destroy(A);
    tsr_sparse_destroy(Af);
}

// A matrix made in place reads the caller's arrays, never writes them, and multiplies as the
// copied one does; a row that is not strictly ascending is refused.
TEST(SparseView, UsesTheCallersArraysInPlace) {
    Handle cpu(TSR_BACKEND_CPU, 2);
    const auto m = tessera::bench::power_law(3000, 2500, 9, 41);
    const Entries e = from_csr(m);
    std::vector<int32_t> rp(m.row_ptr.begin(), m.row_ptr.end()), col(m.col.begin(), m.col.end());
    std::vector<double> val(m.val.begin(), m.val.end());
    const auto rp0 = rp;
    const auto col0 = col;
    const auto val0 = val;
    tsr_sparse A = nullptr;
    ASSERT_EQ(tsr_sparse_create_csr_view(nullptr, &A, TSR_F64, TSR_INDEX_I32, m.rows, m.cols,
                                         int64_t(val.size()), rp.data(), col.data(), val.data()),
              TSR_SUCCESS)
        << tsr_last_error();
    uint64_t seed = 0;
    for (tsr_format f : {TSR_FORMAT_CSR, TSR_FORMAT_AUTO, TSR_FORMAT_HYB, TSR_FORMAT_COO}) {
        ASSERT_EQ(tsr_sparse_optimize(cpu.h, A, f), TSR_SUCCESS) << tsr_last_error();
        for (const auto &c : tessera::test::standard_cases(TSR_OP_N))
            EXPECT_TRUE(tessera::test::check_product<double>(cpu.h, A, e, c, seed++));
        for (const auto &c : tessera::test::standard_cases(TSR_OP_T))
            EXPECT_TRUE(tessera::test::check_product<double>(cpu.h, A, e, c, seed++));
        EXPECT_TRUE(check_block_product<double>(
            cpu.h, A, e, BlockCase{TSR_ROW_MAJOR, TSR_OP_N, 12, 1, 1, 0.5}, seed++));
    }
    EXPECT_EQ(rp, rp0);
    EXPECT_EQ(col, col0);
    EXPECT_EQ(val, val0);
    tsr_sparse_destroy(A);
    // The arrays outlive the matrix and are untouched by its destruction.
    EXPECT_EQ(val, val0);

    // Column 1 twice in row 1, then out of order in row 2: both refused, *matrix untouched.
    const int64_t rp_bad[] = {0, 1, 3, 5};
    const int64_t dup[] = {0, 1, 1, 0, 2}, unsorted[] = {0, 0, 1, 2, 1};
    const float v[] = {1, 2, 3, 4, 5};
    tsr_sparse B = reinterpret_cast<tsr_sparse>(&seed);
    EXPECT_EQ(
        tsr_sparse_create_csr_view(nullptr, &B, TSR_F32, TSR_INDEX_I64, 3, 3, 5, rp_bad, dup, v),
        TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(tsr_last_error(), "row 1"), nullptr) << tsr_last_error();
    EXPECT_EQ(tsr_sparse_create_csr_view(nullptr, &B, TSR_F32, TSR_INDEX_I64, 3, 3, 5, rp_bad,
                                         unsorted, v),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(tsr_last_error(), "row 2"), nullptr) << tsr_last_error();
    EXPECT_EQ(B, reinterpret_cast<tsr_sparse>(&seed));
    // The checks of the copying door apply too.
    const int64_t rp_short[] = {0, 1, 3, 4};
    EXPECT_EQ(
        tsr_sparse_create_csr_view(nullptr, &B, TSR_F32, TSR_INDEX_I64, 3, 3, 5, rp_short, dup, v),
        TSR_ERR_INVALID_ARGUMENT);
    // No entries: every array may be NULL.
    ASSERT_EQ(tsr_sparse_create_csr_view(nullptr, &B, TSR_F32, TSR_INDEX_I32, 4, 5, 0, nullptr,
                                         nullptr, nullptr),
              TSR_SUCCESS);
    std::vector<float> x(5, 1.0f), y(4, std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(tsr_sspmv(cpu.h, TSR_OP_N, 1.0f, B, x.data(), 0.0f, y.data()), TSR_SUCCESS);
    for (float t : y) EXPECT_EQ(t, 0.0f);
    tsr_sparse_destroy(B);
}

} // namespace
