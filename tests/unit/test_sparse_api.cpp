// The sparse API's contract: malformed input through both create doors (a message naming the
// fault, nothing written, no crash), bad arguments of optimize and the products, the padding
// limit, what alpha == 0 and beta == 0 must not read, and products from many threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "sparse_support.hpp"

namespace {

using tessera::test::Door;
using tessera::test::Entries;

// A pointer value no create may overwrite on failure.
tsr_sparse sentinel() { return reinterpret_cast<tsr_sparse>(uintptr_t(0x5EED)); }

template <typename I> struct CsrInput {
    int64_t rows = 3, cols = 4, nnz = 5;
    std::vector<I> row_ptr{0, 2, 2, 5};
    std::vector<I> col{0, 3, 1, 2, 3};
    std::vector<double> val{1, 2, 3, 4, 5};
    tsr_status create(tsr_sparse *A) const {
        return tsr_sparse_create_csr(
            nullptr, A, TSR_F64, sizeof(I) == 4 ? TSR_INDEX_I32 : TSR_INDEX_I64, rows, cols, nnz,
            row_ptr.empty() ? nullptr : row_ptr.data(), col.empty() ? nullptr : col.data(),
            val.empty() ? nullptr : val.data());
    }
};

template <typename I> struct CooInput {
    int64_t rows = 3, cols = 4, nnz = 5;
    std::vector<I> row{2, 0, 2, 0, 2};
    std::vector<I> col{3, 0, 1, 3, 2};
    std::vector<double> val{5, 1, 3, 2, 4};
    tsr_status create(tsr_sparse *A) const {
        return tsr_sparse_create_coo(
            nullptr, A, TSR_F64, sizeof(I) == 4 ? TSR_INDEX_I32 : TSR_INDEX_I64, rows, cols, nnz,
            row.empty() ? nullptr : row.data(), col.empty() ? nullptr : col.data(),
            val.empty() ? nullptr : val.data());
    }
};

// Expects a failure with TSR_ERR_INVALID_ARGUMENT, `*A` untouched and `words` in the message.
template <typename Input> void expect_fault(const Input &in, const char *door, const char *words) {
    tsr_sparse A = sentinel();
    EXPECT_EQ(in.create(&A), TSR_ERR_INVALID_ARGUMENT) << words;
    EXPECT_EQ(A, sentinel()) << "the matrix was written on failure";
    const std::string message = tsr_last_error();
    EXPECT_NE(message.find(door), std::string::npos) << message;
    EXPECT_NE(message.find(words), std::string::npos)
        << "expected '" << words << "' in: " << message;
}

template <typename I> void csr_faults() {
    const char *door = "tsr_sparse_create_csr";
    {
        CsrInput<I> in;
        tsr_sparse A = nullptr;
        ASSERT_EQ(in.create(&A), TSR_SUCCESS) << tsr_last_error();
        tsr_sparse_destroy(A);
    }
    {
        CsrInput<I> in;
        in.rows = -1;
        expect_fault(in, door, "rows = -1 is negative");
    }
    {
        CsrInput<I> in;
        in.cols = -2;
        expect_fault(in, door, "cols = -2 is negative");
    }
    {
        CsrInput<I> in;
        in.nnz = -3;
        expect_fault(in, door, "nnz = -3 is negative");
    }
    {
        CsrInput<I> in;
        in.row_ptr.clear();
        expect_fault(in, door, "row_ptr is NULL");
    }
    {
        CsrInput<I> in;
        in.col.clear();
        expect_fault(in, door, "col_idx is NULL");
    }
    {
        CsrInput<I> in;
        in.val.clear();
        expect_fault(in, door, "values is NULL");
    }
    {
        CsrInput<I> in;
        in.row_ptr[0] = 1;
        expect_fault(in, door, "row_ptr[0] = 1 must be 0");
    }
    {
        CsrInput<I> in;
        in.row_ptr = {0, 3, 2, 5};
        expect_fault(in, door, "row_ptr is not monotone: row_ptr[1] = 3 > row_ptr[2] = 2");
    }
    {
        CsrInput<I> in;
        in.row_ptr = {0, 2, 2, 4};
        expect_fault(in, door, "row_ptr[rows] = row_ptr[3] = 4 differs from nnz = 5");
    }
    {
        CsrInput<I> in;
        in.row_ptr = {0, 2, 7, 5};
        expect_fault(in, door, "row_ptr[2] = 7 exceeds nnz = 5");
    }
    {
        CsrInput<I> in;
        in.col[3] = 4;
        expect_fault(in, door, "col_idx[3] = 4 (row 2) is outside the 4 columns");
    }
    {
        CsrInput<I> in;
        in.col[0] = -1;
        expect_fault(in, door, "col_idx[0] = -1 (row 0) is outside");
    }
}

template <typename I> void coo_faults() {
    const char *door = "tsr_sparse_create_coo";
    {
        CooInput<I> in;
        in.rows = -1;
        expect_fault(in, door, "rows = -1 is negative");
    }
    {
        CooInput<I> in;
        in.nnz = -1;
        expect_fault(in, door, "nnz = -1 is negative");
    }
    {
        CooInput<I> in;
        in.row.clear();
        expect_fault(in, door, "row_idx is NULL");
    }
    {
        CooInput<I> in;
        in.col.clear();
        expect_fault(in, door, "col_idx is NULL");
    }
    {
        CooInput<I> in;
        in.val.clear();
        expect_fault(in, door, "values is NULL");
    }
    {
        CooInput<I> in;
        in.row[4] = 3;
        expect_fault(in, door, "row_idx[4] = 3 is outside the 3 rows [0, 3)");
    }
    {
        CooInput<I> in;
        in.row[1] = -7;
        expect_fault(in, door, "row_idx[1] = -7 is outside");
    }
    {
        CooInput<I> in;
        in.col[2] = 9;
        expect_fault(in, door, "col_idx[2] = 9 is outside the 4 columns");
    }
}

TEST(SparseCreate, CsrFaultsAreNamed32) { csr_faults<int32_t>(); }
TEST(SparseCreate, CsrFaultsAreNamed64) { csr_faults<int64_t>(); }
TEST(SparseCreate, CooFaultsAreNamed32) { coo_faults<int32_t>(); }
TEST(SparseCreate, CooFaultsAreNamed64) { coo_faults<int64_t>(); }

TEST(SparseCreate, BadEnumsAndOutputPointer) {
    int32_t row_ptr[2] = {0, 1}, col[1] = {0};
    double val[1] = {1};
    tsr_sparse A = sentinel();
    EXPECT_EQ(
        tsr_sparse_create_csr(nullptr, &A, tsr_dtype(7), TSR_INDEX_I32, 1, 1, 1, row_ptr, col, val),
        TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("dtype = 7"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(
        tsr_sparse_create_coo(nullptr, &A, TSR_F64, tsr_index_type(-1), 1, 1, 1, row_ptr, col, val),
        TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("itype = -1"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(A, sentinel());
    EXPECT_EQ(
        tsr_sparse_create_csr(nullptr, nullptr, TSR_F64, TSR_INDEX_I32, 1, 1, 1, row_ptr, col, val),
        TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("matrix is NULL"), std::string::npos)
        << tsr_last_error();
}

TEST(SparseCreate, SizesBeyond32BitIndices) {
    tsr_sparse A = sentinel();
    EXPECT_EQ(tsr_sparse_create_coo(nullptr, &A, TSR_F32, TSR_INDEX_I32, 10, 10, int64_t(1) << 32,
                                    nullptr, nullptr, nullptr),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("use TSR_INDEX_I64"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(tsr_sparse_create_csr(nullptr, &A, TSR_F32, TSR_INDEX_I32, int64_t(1) << 31, 4, 0,
                                    nullptr, nullptr, nullptr),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(A, sentinel());
}

// y = A·e_j reads column j back; duplicates in COO must have been summed, and unsorted CSR
// rows are fine.
TEST(SparseCreate, CooDuplicatesAreSummedAndCsrRowsMayBeUnsorted) {
    const int32_t row[] = {1, 0, 1, 1, 0};
    const int32_t col[] = {2, 1, 2, 0, 1};
    const double val[] = {1.5, 2, 2.5, 7, -1};
    tsr_sparse A = nullptr;
    ASSERT_EQ(tsr_sparse_create_coo(nullptr, &A, TSR_F64, TSR_INDEX_I32, 2, 3, 5, row, col, val),
              TSR_SUCCESS);
    const int64_t row_ptr[] = {0, 1, 4};
    const int64_t ccol[] = {1, 2, 0, 2};
    const double cval[] = {1, 1.5, 7, 2.5};
    tsr_sparse B = nullptr;
    ASSERT_EQ(
        tsr_sparse_create_csr(nullptr, &B, TSR_F64, TSR_INDEX_I64, 2, 3, 4, row_ptr, ccol, cval),
        TSR_SUCCESS);
    const double expect[3][2] = {{0, 7}, {1, 0}, {0, 4}}; // column j of A (and of B)
    for (tsr_sparse M : {A, B})
        for (tsr_format f :
             {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_DIA, TSR_FORMAT_HYB}) {
            ASSERT_EQ(tsr_sparse_optimize(nullptr, M, f), TSR_SUCCESS) << tsr_last_error();
            for (int j = 0; j < 3; ++j) {
                double x[3] = {0, 0, 0}, y[2] = {-9, -9};
                x[j] = 1;
                ASSERT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 1.0, M, x, 0.0, y), TSR_SUCCESS);
                EXPECT_EQ(y[0], expect[j][0])
                    << "format " << tessera::test::format_label(f) << " column " << j;
                EXPECT_EQ(y[1], expect[j][1])
                    << "format " << tessera::test::format_label(f) << " column " << j;
            }
        }
    tsr_sparse_destroy(A);
    tsr_sparse_destroy(B);
}

TEST(SparseCreate, EmptyShapesAndNoEntries) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{0, 6}, {6, 0}, {0, 0}, {6, 4}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
        for (Door door : {Door::csr, Door::coo}) {
            tsr_sparse A = nullptr;
            tsr_status s = door == Door::csr
                               ? tsr_sparse_create_csr(nullptr, &A, TSR_F32, TSR_INDEX_I32, rows,
                                                       cols, 0, nullptr, nullptr, nullptr)
                               : tsr_sparse_create_coo(nullptr, &A, TSR_F32, TSR_INDEX_I64, rows,
                                                       cols, 0, nullptr, nullptr, nullptr);
            ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
            for (tsr_format f : {TSR_FORMAT_AUTO, TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL,
                                 TSR_FORMAT_DIA, TSR_FORMAT_HYB}) {
                ASSERT_EQ(tsr_sparse_optimize(nullptr, A, f), TSR_SUCCESS) << tsr_last_error();
                for (tsr_op op : {TSR_OP_N, TSR_OP_T}) {
                    const int64_t out = op == TSR_OP_N ? rows : cols;
                    std::vector<float> y(size_t(out) + 1, std::numeric_limits<float>::quiet_NaN());
                    // x may be NULL: it has no entries, or nothing multiplies it.
                    ASSERT_EQ(
                        tsr_sspmv(nullptr, op, 1.0f, A, nullptr, 0.0f, out ? y.data() : nullptr),
                        TSR_SUCCESS)
                        << tsr_last_error();
                    for (int64_t i = 0; i < out; ++i) EXPECT_EQ(y[size_t(i)], 0.0f);
                    EXPECT_TRUE(std::isnan(y[size_t(out)])) << "wrote past the end of y";
                    std::fill(y.begin(), y.end(), 2.0f);
                    ASSERT_EQ(
                        tsr_sspmv(nullptr, op, 1.0f, A, nullptr, 3.0f, out ? y.data() : nullptr),
                        TSR_SUCCESS);
                    for (int64_t i = 0; i < out; ++i) EXPECT_EQ(y[size_t(i)], 6.0f);
                }
            }
            tsr_sparse_destroy(A);
        }
    }
}

tsr_sparse small_matrix(tsr_dtype dtype = TSR_F64) {
    const int32_t row_ptr[] = {0, 2, 3, 5};
    const int32_t col[] = {0, 2, 1, 0, 2};
    const double dval[] = {1, 2, 3, 4, 5};
    const float fval[] = {1, 2, 3, 4, 5};
    tsr_sparse A = nullptr;
    EXPECT_EQ(tsr_sparse_create_csr(nullptr, &A, dtype, TSR_INDEX_I32, 3, 3, 5, row_ptr, col,
                                    dtype == TSR_F64 ? static_cast<const void *>(dval) : fval),
              TSR_SUCCESS);
    return A;
}

TEST(SparseProduct, ArgumentErrorsLeaveYUntouched) {
    tsr_sparse A = small_matrix();
    double x[3] = {1, 1, 1}, y[3] = {7, 7, 7};
    auto untouched = [&] { return y[0] == 7 && y[1] == 7 && y[2] == 7; };
    EXPECT_EQ(tsr_dspmv(nullptr, tsr_op(0), 1.0, A, x, 0.0, y), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("op = 0 is not TSR_OP_N"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 1.0, nullptr, x, 0.0, y), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("A is NULL"), std::string::npos);
    EXPECT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 1.0, A, nullptr, 0.0, y), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("x is NULL"), std::string::npos);
    EXPECT_EQ(tsr_dspmv(nullptr, TSR_OP_T, 1.0, A, x, 0.0, nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("y is NULL"), std::string::npos);
    float fx[3] = {1, 1, 1}, fy[3] = {7, 7, 7};
    EXPECT_EQ(tsr_sspmv(nullptr, TSR_OP_N, 1.0f, A, fx, 0.0f, fy), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("TSR_F64"), std::string::npos) << tsr_last_error();
    EXPECT_EQ(fy[0], 7.0f);
    EXPECT_TRUE(untouched());
    tsr_sparse_destroy(A);
}

TEST(SparseProduct, AlphaZeroReadsNeitherAnorX) {
    tsr_sparse A = small_matrix();
    double y[3] = {1, 2, 3};
    ASSERT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 0.0, A, nullptr, 2.0, y), TSR_SUCCESS)
        << tsr_last_error();
    EXPECT_EQ(y[0], 2);
    EXPECT_EQ(y[2], 6);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    double x[3] = {nan, nan, nan};
    ASSERT_EQ(tsr_dspmv(nullptr, TSR_OP_T, 0.0, A, x, 0.0, y), TSR_SUCCESS);
    EXPECT_EQ(y[0], 0);
    EXPECT_EQ(y[1], 0);
    tsr_sparse_destroy(A);
}

TEST(SparseProduct, NanInYDoesNotSurviveBetaZero) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (tsr_backend backend : {TSR_BACKEND_CPU, TSR_BACKEND_REFERENCE}) {
        tsr_handle h = nullptr;
        ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(h, backend), TSR_SUCCESS);
        tsr_sparse A = small_matrix(TSR_F32);
        for (tsr_format f :
             {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_DIA, TSR_FORMAT_HYB}) {
            ASSERT_EQ(tsr_sparse_optimize(h, A, f), TSR_SUCCESS);
            for (tsr_op op : {TSR_OP_N, TSR_OP_T}) {
                for (float alpha : {1.0f, 0.0f}) {
                    float x[3] = {1, 1, 1}, y[3] = {nan, nan, nan};
                    ASSERT_EQ(tsr_sspmv(h, op, alpha, A, x, 0.0f, y), TSR_SUCCESS);
                    for (float v : y)
                        EXPECT_FALSE(std::isnan(v))
                            << tessera::test::format_label(f) << " alpha " << alpha;
                }
            }
        }
        tsr_sparse_destroy(A);
        tsr_destroy(h);
    }
}

TEST(SparseOptimize, ArgumentsAndFormats) {
    tsr_sparse A = small_matrix();
    tsr_format f = TSR_FORMAT_AUTO;
    EXPECT_EQ(tsr_sparse_get_format(A, &f), TSR_SUCCESS);
    EXPECT_EQ(f, TSR_FORMAT_CSR) << "a new matrix is CSR";
    EXPECT_EQ(tsr_sparse_optimize(nullptr, nullptr, TSR_FORMAT_CSR), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_sparse_optimize(nullptr, A, tsr_format(42)), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("format = 42"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(tsr_sparse_get_format(nullptr, &f), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_sparse_get_format(A, nullptr), TSR_ERR_INVALID_ARGUMENT);
    for (tsr_format want :
         {TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_DIA, TSR_FORMAT_HYB, TSR_FORMAT_CSR}) {
        ASSERT_EQ(tsr_sparse_optimize(nullptr, A, want), TSR_SUCCESS);
        ASSERT_EQ(tsr_sparse_get_format(A, &f), TSR_SUCCESS);
        EXPECT_EQ(f, want);
    }
    EXPECT_EQ(tsr_sparse_destroy(nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
}

// One dense row makes ELL (every row padded to it) and scattered entries make DIA (one
// diagonal per entry) mostly padding: both are refused and the matrix stays as it was.
TEST(SparseOptimize, PaddingBeyondTheLimitIsRefused) {
    const Entries dense =
        tessera::test::from_csr(tessera::bench::one_dense_row(2000, 2000, 2, 7, 1));
    tsr_sparse A = nullptr;
    ASSERT_EQ(tessera::test::create_matrix<double>(nullptr, dense, TSR_INDEX_I32, Door::csr, &A),
              TSR_SUCCESS);
    ASSERT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_HYB), TSR_SUCCESS);
    EXPECT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_ELL), TSR_ERR_NOT_SUPPORTED);
    const std::string why = tsr_last_error();
    EXPECT_NE(why.find("ELL would store"), std::string::npos) << why;
    EXPECT_NE(why.find("8 x nnz"), std::string::npos) << why;
    tsr_format f = TSR_FORMAT_AUTO;
    ASSERT_EQ(tsr_sparse_get_format(A, &f), TSR_SUCCESS);
    EXPECT_EQ(f, TSR_FORMAT_HYB) << "a refused optimize keeps the format";
    EXPECT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_DIA), TSR_ERR_NOT_SUPPORTED);
    EXPECT_NE(std::string(tsr_last_error()).find("DIA would store"), std::string::npos)
        << tsr_last_error();
    ASSERT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_AUTO), TSR_SUCCESS);
    ASSERT_EQ(tsr_sparse_get_format(A, &f), TSR_SUCCESS);
    EXPECT_NE(f, TSR_FORMAT_ELL);
    EXPECT_NE(f, TSR_FORMAT_DIA);
    tsr_sparse_destroy(A);
}

// Products read the matrix as its last optimize (or a refused one, which keeps it) left it:
// every format in turn on one matrix, a product of each op after each change.
TEST(SparseOptimize, ProductsFollowEveryChangeOfFormat) {
    const Entries band = tessera::test::from_csr(tessera::bench::banded(3000, 5, 0.9, 4));
    const Entries dense =
        tessera::test::from_csr(tessera::bench::one_dense_row(2000, 2000, 2, 7, 5));
    uint64_t seed = 0;
    auto products = [&](tsr_sparse A, const Entries &e, const char *after) {
        for (tsr_op op : {TSR_OP_N, TSR_OP_T})
            EXPECT_TRUE(tessera::test::check_product<double>(nullptr, A, e, {op, 1.5, 0.5}, ++seed))
                << "after " << after << ", op " << int(op);
    };
    tsr_sparse A = nullptr;
    ASSERT_EQ(tessera::test::create_matrix<double>(nullptr, band, TSR_INDEX_I32, Door::csr, &A),
              TSR_SUCCESS);
    products(A, band, "create");
    for (tsr_format f : {TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_DIA, TSR_FORMAT_HYB,
                         TSR_FORMAT_CSR, TSR_FORMAT_AUTO, TSR_FORMAT_DIA}) {
        ASSERT_EQ(tsr_sparse_optimize(nullptr, A, f), TSR_SUCCESS) << tsr_last_error();
        products(A, band, "an optimize");
    }
    tsr_sparse_destroy(A);
    ASSERT_EQ(tessera::test::create_matrix<double>(nullptr, dense, TSR_INDEX_I32, Door::coo, &A),
              TSR_SUCCESS);
    ASSERT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_HYB), TSR_SUCCESS);
    products(A, dense, "HYB");
    EXPECT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_ELL), TSR_ERR_NOT_SUPPORTED);
    products(A, dense, "a refused ELL");
    tsr_sparse_destroy(A);
}

// The first transposed product of a matrix builds shared data (column spans, buffers):
// several threads start at once on one matrix and must all get the right answer.
TEST(SparseProduct, ManyThreadsOnOneMatrix) {
    const Entries e = tessera::test::from_csr(tessera::bench::random_k_per_row(20000, 20000, 5, 3));
    for (tsr_format f : {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_HYB, TSR_FORMAT_ELL}) {
        tsr_handle h = nullptr;
        ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_num_threads(h, 2), TSR_SUCCESS);
        tsr_sparse A = nullptr;
        ASSERT_EQ(tessera::test::create_matrix<double>(h, e, TSR_INDEX_I32, Door::coo, &A),
                  TSR_SUCCESS);
        ASSERT_EQ(tsr_sparse_optimize(h, A, f), TSR_SUCCESS);
        std::vector<std::thread> pool;
        std::vector<int> ok(4, 0);
        for (int t = 0; t < 4; ++t)
            pool.emplace_back([&, t] {
                for (int rep = 0; rep < 3; ++rep)
                    ok[size_t(t)] += bool(tessera::test::check_product<double>(
                        h, A, e, {t % 2 ? TSR_OP_T : TSR_OP_N, 1.5, 0.5}, uint64_t(10 * t + rep)));
            });
        for (auto &th : pool) th.join();
        for (int t = 0; t < 4; ++t)
            EXPECT_EQ(ok[size_t(t)], 3) << "thread " << t << " format " << f;
        tsr_sparse_destroy(A);
        tsr_destroy(h);
    }
}

// Run by CTest with TESSERA_SPARSE_TUNE=on and TESSERA_VERBOSE=1 (sparse_tune): AUTO times
// every candidate the matrix admits and keeps the fastest, the log lists their times and the
// rules' choice, and products in the kept format are right, N and T, float and double. A
// matrix with a stored zero never tries DIA; one whose ELL would be mostly padding never ELL.
TEST(SparseVerbose, TimedAutoKeepsTheFastest) {
    const char *tune = std::getenv("TESSERA_SPARSE_TUNE");
    const char *v = std::getenv("TESSERA_VERBOSE");
    if (!tune || std::strcmp(tune, "on") != 0 || !v || std::strcmp(v, "1") != 0)
        GTEST_SKIP() << "needs TESSERA_SPARSE_TUNE=on and TESSERA_VERBOSE=1 (ctest sparse_tune)";
    Entries banded = tessera::test::from_csr(tessera::bench::tridiagonal(3000, 1));
    banded.val[5] = 0.0; // a stored zero: DIA is refused
    const Entries skewed =
        tessera::test::from_csr(tessera::bench::one_dense_row(2000, 2000, 2, 7, 1));
    int round = 0;
    for (const Entries *e : std::initializer_list<const Entries *>{&banded, &skewed})
        for (tsr_dtype dtype : {TSR_F32, TSR_F64}) {
            tsr_sparse A = nullptr;
            ASSERT_EQ(dtype == TSR_F32 ? tessera::test::create_matrix<float>(
                                             nullptr, *e, TSR_INDEX_I32, Door::csr, &A)
                                       : tessera::test::create_matrix<double>(
                                             nullptr, *e, TSR_INDEX_I64, Door::coo, &A),
                      TSR_SUCCESS);
            ::testing::internal::CaptureStderr();
            ASSERT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_AUTO), TSR_SUCCESS);
            const std::string log = ::testing::internal::GetCapturedStderr();
            EXPECT_NE(log.find("timed: CSR "), std::string::npos) << log;
            EXPECT_NE(log.find("CSR-tiles "), std::string::npos) << log;
            EXPECT_NE(log.find("(the rules: "), std::string::npos) << log;
            if (e == &banded) EXPECT_EQ(log.find(", DIA "), std::string::npos) << log;
            else EXPECT_EQ(log.find(", ELL "), std::string::npos) << log;
            tsr_format f = TSR_FORMAT_AUTO;
            ASSERT_EQ(tsr_sparse_get_format(A, &f), TSR_SUCCESS);
            EXPECT_NE(f, TSR_FORMAT_AUTO);
            for (tsr_op op : {TSR_OP_N, TSR_OP_T}) {
                const uint64_t seed = uint64_t(100 + round++);
                if (dtype == TSR_F32)
                    EXPECT_TRUE(
                        tessera::test::check_product<float>(nullptr, A, *e, {op, 1.5, 0.5}, seed));
                else
                    EXPECT_TRUE(tessera::test::check_product<double>(nullptr, A, *e,
                                                                     {op, -2.0, 0.0}, seed));
            }
            tsr_sparse_destroy(A);
        }
}

// Run by CTest with TESSERA_VERBOSE=1 (the variable is read once per process).
TEST(SparseVerbose, OptimizeAndProductsAreLogged) {
    const char *v = std::getenv("TESSERA_VERBOSE");
    if (!v || std::strcmp(v, "1") != 0)
        GTEST_SKIP() << "needs TESSERA_VERBOSE=1 (the ctest sparse_verbose sets it)";
    tsr_sparse A = nullptr;
    const Entries e = tessera::test::from_csr(tessera::bench::tridiagonal(20000, 1));
    ASSERT_EQ(tessera::test::create_matrix<double>(nullptr, e, TSR_INDEX_I32, Door::csr, &A),
              TSR_SUCCESS);
    ::testing::internal::CaptureStderr();
    ASSERT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_AUTO), TSR_SUCCESS);
    std::vector<double> x(20000, 1.0), y(20000, 0.0);
    ASSERT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 1.0, A, x.data(), 0.0, y.data()), TSR_SUCCESS);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(
        log.find(
            "tessera: sparse_optimize rows=20000 cols=20000 nnz=59998 requested=auto format=dia"),
        std::string::npos)
        << log;
    EXPECT_NE(log.find("3 diagonals"), std::string::npos) << log;
    EXPECT_NE(
        log.find(
            "tessera: dspmv N rows=20000 cols=20000 nnz=59998 format=dia/standard backend=cpu"),
        std::string::npos)
        << log;
    tsr_sparse_destroy(A);

    // A product small enough to go straight to the CPU's rows when the log is off is logged.
    const Entries small = tessera::test::from_csr(tessera::bench::tridiagonal(30, 2));
    ASSERT_EQ(tessera::test::create_matrix<double>(nullptr, small, TSR_INDEX_I32, Door::csr, &A),
              TSR_SUCCESS);
    ::testing::internal::CaptureStderr();
    ASSERT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 1.0, A, x.data(), 0.0, y.data()), TSR_SUCCESS);
    const std::string small_log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(small_log.find("tessera: dspmv N rows=30 cols=30 nnz=88 format=csr/"),
              std::string::npos)
        << small_log;
    tsr_sparse_destroy(A);
}

} // namespace
