// Sparse input that once crashed or gave wrong answers: sizes beyond memory refused cleanly,
// structure analysis in memory proportional to the matrix, x overlapping y refused, and NaN/Inf
// in x reaching exactly the rows IEEE arithmetic says, in every format (no padding multiplies x).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sparse_support.hpp"
#include "tessera/tessera.h"

namespace {

using tessera::test::Door;
using tessera::test::Entries;

const tsr_format kFormats[] = {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL,
                               TSR_FORMAT_DIA, TSR_FORMAT_HYB, TSR_FORMAT_AUTO};

// Sizes whose row pointers no memory can hold: once the allocation's size wrapped to zero and
// the copy wrote far past it. Now refused (invalid beyond 2^60, out of memory below), the
// output handle untouched.
TEST(SparseSizes, RowsBeyondMemoryAreRefused) {
    const int64_t cases[][2] = {{(int64_t(1) << 61) - 1, 1},
                                {INT64_MAX, 1},
                                {1, INT64_MAX},
                                {INT64_MAX, INT64_MAX},
                                {(int64_t(1) << 60), 2}};
    for (const auto &c : cases)
        for (tsr_dtype dtype : {TSR_F32, TSR_F64})
            for (int door = 0; door < 2; ++door) {
                SCOPED_TRACE(std::to_string(c[0]) + " x " + std::to_string(c[1]) +
                             (door ? " coo" : " csr"));
                tsr_sparse A = reinterpret_cast<tsr_sparse>(uintptr_t(0x1234));
                const tsr_status s =
                    door == 0 ? tsr_sparse_create_csr(nullptr, &A, dtype, TSR_INDEX_I64, c[0], c[1],
                                                      0, nullptr, nullptr, nullptr)
                              : tsr_sparse_create_coo(nullptr, &A, dtype, TSR_INDEX_I64, c[0], c[1],
                                                      0, nullptr, nullptr, nullptr);
                EXPECT_TRUE(s == TSR_ERR_INVALID_ARGUMENT || s == TSR_ERR_OUT_OF_MEMORY)
                    << tsr_status_string(s) << ": " << tsr_last_error();
                EXPECT_EQ(A, reinterpret_cast<tsr_sparse>(uintptr_t(0x1234)));
                if (c[0] > (int64_t(1) << 60) || c[1] > (int64_t(1) << 60))
                    EXPECT_EQ(s, TSR_ERR_INVALID_ARGUMENT) << tsr_last_error();
            }
}

// A 1 x 2^40 matrix of two entries: the analysis once sized a bitmap by rows + cols (128 GiB).
// Every format is chosen or refused in memory proportional to rows + nnz.
TEST(SparseSizes, AnalysisOfAVeryWideMatrixStaysSmall) {
    const int64_t cols = int64_t(1) << 40;
    const int64_t row_ptr[2] = {0, 2}, col[2] = {3, cols - 1};
    const double val[2] = {1.5, -2.0};
    for (tsr_format f : kFormats) {
        SCOPED_TRACE(tessera::test::format_label(f));
        tsr_sparse A = nullptr;
        ASSERT_EQ(tsr_sparse_create_csr(nullptr, &A, TSR_F64, TSR_INDEX_I64, 1, cols, 2, row_ptr,
                                        col, val),
                  TSR_SUCCESS)
            << tsr_last_error();
        const tsr_status s = tsr_sparse_optimize(nullptr, A, f);
        EXPECT_TRUE(s == TSR_SUCCESS || s == TSR_ERR_NOT_SUPPORTED)
            << tsr_status_string(s) << ": " << tsr_last_error();
        // Transposed, x has one element and y 2^40: too large to run here, but a product of a
        // tall transpose would read only the two entries.
        EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
    }
}

// x and y sharing memory: documented as forbidden, now refused with nothing written.
TEST(SparseOverlap, XAndYMayNotOverlap) {
    const int32_t row_ptr[4] = {0, 1, 2, 3}, col[3] = {0, 1, 2};
    const double val[3] = {2, 3, 4};
    tsr_sparse A = nullptr;
    ASSERT_EQ(
        tsr_sparse_create_csr(nullptr, &A, TSR_F64, TSR_INDEX_I32, 3, 3, 3, row_ptr, col, val),
        TSR_SUCCESS);
    std::vector<double> buf = {1, 2, 3, 4, 5, 6, 7};
    const std::vector<double> before = buf;
    for (int shift : {0, 1, 2, -2, -1}) {
        double *x = buf.data() + 2, *y = buf.data() + 2 + shift;
        EXPECT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 1.0, A, x, 0.0, y), TSR_ERR_INVALID_ARGUMENT)
            << shift;
        EXPECT_NE(std::string(tsr_last_error()).find("overlap"), std::string::npos)
            << tsr_last_error();
        EXPECT_EQ(buf, before) << shift;
    }
    // adjacent, not overlapping: computed
    EXPECT_EQ(tsr_dspmv(nullptr, TSR_OP_N, 1.0, A, buf.data(), 0.0, buf.data() + 3), TSR_SUCCESS)
        << tsr_last_error();
    EXPECT_EQ(buf[3], 2.0);
    EXPECT_EQ(buf[5], 12.0);
    EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
}

template <typename T> void check_nonfinite(tsr_backend backend) {
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, backend), TSR_SUCCESS);
    std::mt19937_64 rng = tessera::test::test_rng();
    for (int which = 0; which < 2; ++which) {
        const Entries e =
            which == 0 ? tessera::test::row_and_diagonal() : tessera::test::padded_band(rng);
        for (tsr_format f : kFormats)
            for (tsr_op op : {TSR_OP_N, TSR_OP_T}) {
                SCOPED_TRACE(e.name + " " + tessera::test::format_label(f) +
                             (op == TSR_OP_N ? " N" : " T"));
                tsr_sparse A = nullptr;
                ASSERT_EQ(tessera::test::create_matrix<T>(h, e, TSR_INDEX_I32, Door::coo, &A),
                          TSR_SUCCESS)
                    << tsr_last_error();
                const tsr_status s = tsr_sparse_optimize(h, A, f);
                if (s != TSR_SUCCESS) { // a format refused for its padding: nothing to check
                    EXPECT_EQ(s, TSR_ERR_NOT_SUPPORTED) << tsr_last_error();
                    tsr_sparse_destroy(A);
                    continue;
                }
                const std::vector<T> x = tessera::test::nonfinite_x<T>(e, op, rng);
                EXPECT_TRUE(tessera::test::check_nonfinite_x<T>(h, A, e, op, x));
                EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
            }
    }
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(SparseNonFinite, EveryFormatOnTheCpuFloat) { check_nonfinite<float>(TSR_BACKEND_CPU); }
TEST(SparseNonFinite, EveryFormatOnTheCpuDouble) { check_nonfinite<double>(TSR_BACKEND_CPU); }
TEST(SparseNonFinite, EveryFormatOnTheReferenceFloat) {
    check_nonfinite<float>(TSR_BACKEND_REFERENCE);
}
TEST(SparseNonFinite, EveryFormatOnTheReferenceDouble) {
    check_nonfinite<double>(TSR_BACKEND_REFERENCE);
}

// DIA cannot tell a stored zero from its fill, and skips both: a matrix that stores zeros is
// never put in DIA, by AUTO (a tridiagonal matrix it otherwise would choose) or by name.
TEST(SparseNonFinite, AutoAvoidsDiaForStoredZeros) {
    const int64_t n = 4096;
    for (int zeros = 0; zeros < 2; ++zeros) {
        Entries e;
        e.rows = e.cols = n;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = std::max<int64_t>(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
                e.row.push_back(i), e.col.push_back(j),
                    e.val.push_back(zeros && i == 7 && j == 8 ? 0.0 : 1.0 + double(i % 5));
        tsr_sparse A = nullptr;
        ASSERT_EQ(tessera::test::create_matrix<double>(nullptr, e, TSR_INDEX_I32, Door::csr, &A),
                  TSR_SUCCESS);
        ASSERT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_AUTO), TSR_SUCCESS);
        tsr_format f = TSR_FORMAT_AUTO;
        ASSERT_EQ(tsr_sparse_get_format(A, &f), TSR_SUCCESS);
        if (zeros) EXPECT_NE(f, TSR_FORMAT_DIA) << "AUTO chose DIA for a matrix with a stored zero";
        else
            EXPECT_EQ(f, TSR_FORMAT_DIA)
                << "the control case: AUTO should choose DIA for a clean tridiagonal";
        // the stored zero at (7, 8) meets a NaN of x: IEEE gives NaN in row 7 for every format
        // AUTO may choose
        std::vector<double> x(size_t(n), 1.0);
        x[8] = std::numeric_limits<double>::quiet_NaN();
        if (zeros) {
            EXPECT_TRUE(tessera::test::check_nonfinite_x<double>(nullptr, A, e, TSR_OP_N, x));
            // asked for by name, DIA is refused, and the matrix keeps the format it had
            EXPECT_EQ(tsr_sparse_optimize(nullptr, A, TSR_FORMAT_DIA), TSR_ERR_NOT_SUPPORTED);
            EXPECT_NE(std::string(tsr_last_error()).find("1 stored zeros"), std::string::npos)
                << tsr_last_error();
            tsr_format kept = TSR_FORMAT_AUTO;
            ASSERT_EQ(tsr_sparse_get_format(A, &kept), TSR_SUCCESS);
            EXPECT_EQ(kept, f);
        }
        EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
    }
}

} // namespace
