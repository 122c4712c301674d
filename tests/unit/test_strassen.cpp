// Strassen's method (opt-in) against the float64 oracle with its normwise bound (Higham,
// Accuracy and Stability of Numerical Algorithms, Thm. 23.2): one and two levels, odd sizes
// whose fringes run classically, every op, both layouts, alpha/beta, beta = 0 on NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "gemm_oracle.hpp"

namespace tessera::test {
namespace {

// max |C - C_ref| <= [12^L (b² + 5b) − 5·2^L·b] u |alpha| max|A| max|B| + 2(4^L + 2) u |beta|
// max|C0| with b the block size at the deepest level (the square case of the theorem, applied with
// the largest block); the fringes satisfy the smaller classical bound.
template <typename T>
void check(tsr_handle classical, tsr_handle strassen, const GemmCase &c, int levels) {
    const bool a_rows_m = c.ta == TSR_OP_N, b_rows_k = c.tb == TSR_OP_N;
    auto A = random_matrix<T>(a_rows_m ? c.m : c.k, a_rows_m ? c.k : c.m, c.layout, 1, T(0));
    auto B = random_matrix<T>(b_rows_k ? c.k : c.n, b_rows_k ? c.n : c.k, c.layout, 2, T(0));
    auto C0 = random_matrix<T>(c.m, c.n, c.layout, 1, T(0));
    if (c.beta == 0)
        for (size_t i = 0; i < C0.data.size(); ++i)
            if (!C0.is_padding(i)) C0.data[i] = std::numeric_limits<T>::quiet_NaN();
    auto ours = C0, plain = C0;
    ASSERT_EQ(run_gemm(strassen, c, A, B, ours), TSR_SUCCESS) << tsr_last_error();
    ASSERT_EQ(run_gemm(classical, c, A, B, plain), TSR_SUCCESS) << tsr_last_error();

    const double u = std::numeric_limits<T>::epsilon() / 2;
    const double blk = double(std::max({c.m, c.n, c.k}) >> levels) + 1;
    double max_a = 0, max_b = 0, max_c = 0, err = 0;
    for (int64_t i = 0; i < A.rows; ++i)
        for (int64_t j = 0; j < A.cols; ++j) max_a = std::max(max_a, std::fabs(double(A.at(i, j))));
    for (int64_t i = 0; i < B.rows; ++i)
        for (int64_t j = 0; j < B.cols; ++j) max_b = std::max(max_b, std::fabs(double(B.at(i, j))));
    bool differs = false;
    for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = 0; i < c.m; ++i) {
            long double want = 0;
            for (int64_t l = 0; l < c.k; ++l)
                want += (long double)op_at(A, c.ta, i, l) * (long double)op_at(B, c.tb, l, j);
            want *= c.alpha;
            if (c.beta != 0) {
                want += (long double)c.beta * C0.at(i, j);
                max_c = std::max(max_c, std::fabs(double(C0.at(i, j))));
            }
            const T got = ours.at(i, j);
            ASSERT_FALSE(std::isnan(double(got))) << describe(c) << " at " << i << "," << j;
            err = std::max(err, double(std::fabs((long double)got - want)));
            differs |= std::memcmp(&got, &plain.at(i, j), sizeof(T)) != 0;
        }
    const double L = levels;
    const double bound = (std::pow(12.0, L) * (blk * blk + 5 * blk) - 5 * std::pow(2.0, L) * blk) *
                             u * std::fabs(c.alpha) * max_a * max_b +
                         2 * (std::pow(4.0, L) + 2) * u * std::fabs(c.beta) * max_c;
    EXPECT_LE(err, bound) << describe(c) << " levels " << levels;
    // Strassen's rounding differs from the classical one: equal results would mean it never ran.
    EXPECT_TRUE(differs) << "the Strassen path did not run: " << describe(c);
    for (size_t i = 0; i < ours.data.size(); ++i)
        if (ours.is_padding(i))
            ASSERT_EQ(std::memcmp(&ours.data[i], &C0.data[i], sizeof(T)), 0) << "padding written";
}

TEST(Strassen, NormwiseBound_cpu) {
    tsr_handle classical, strassen;
    ASSERT_EQ(tsr_create(&classical), TSR_SUCCESS);
    ASSERT_EQ(tsr_create(&strassen), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(classical, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(strassen, TSR_BACKEND_CPU), TSR_SUCCESS);
    const int64_t shapes[][3] = {
        {160, 160, 160}, {171, 137, 150}, {193, 197, 199}, {200, 136, 144}};
    for (int levels : {1, 2}) {
        ASSERT_EQ(tsr_set_strassen(strassen, levels, 32), TSR_SUCCESS);
        for (const auto &s : shapes) {
            if ((std::min({s[0], s[1], s[2]}) >> levels) < 32) continue;
            for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
                for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
                    for (tsr_op tb : {TSR_OP_N, TSR_OP_C}) {
                        GemmCase c{layout, ta, tb, s[0], s[1], s[2], 1.0, 0.0};
                        check<float>(classical, strassen, c, levels);
                        c.alpha = -0.75, c.beta = 1.5;
                        check<double>(classical, strassen, c, levels);
                        if (HasFatalFailure()) return;
                    }
        }
    }
    tsr_destroy(classical);
    tsr_destroy(strassen);
}

TEST(Strassen, ArgumentsAndSmallProductsStayClassical) {
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    EXPECT_EQ(tsr_set_strassen(h, 3, 0), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_strassen(h, -1, 0), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_strassen(h, 1, -5), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_strassen(nullptr, 1, 0), TSR_ERR_INVALID_ARGUMENT);
    // With the default block size (1024) a 300³ product is classical: bitwise the same.
    ASSERT_EQ(tsr_set_strassen(h, 2, 0), TSR_SUCCESS);
    tsr_handle plain;
    ASSERT_EQ(tsr_create(&plain), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(plain, TSR_BACKEND_CPU), TSR_SUCCESS);
    GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 300, 300, 300, 1.0, 0.0};
    auto A = random_matrix<float>(300, 300, TSR_COL_MAJOR, 0, 0.f);
    auto B = random_matrix<float>(300, 300, TSR_COL_MAJOR, 0, 0.f);
    auto C1 = random_matrix<float>(300, 300, TSR_COL_MAJOR, 0, 0.f), C2 = C1;
    ASSERT_EQ(run_gemm(h, c, A, B, C1), TSR_SUCCESS);
    ASSERT_EQ(run_gemm(plain, c, A, B, C2), TSR_SUCCESS);
    EXPECT_EQ(std::memcmp(C1.data.data(), C2.data.data(), C1.data.size() * sizeof(float)), 0);
    tsr_destroy(h);
    tsr_destroy(plain);
}

// Inf and NaN with Strassen on: exactly the classical product's non-finite entries. Once an
// Inf at A(0,0) of a 300 x 290 x 280 product made 435 non-finite entries instead of row 0's
// 290, and NaN at C(0,0) instead of Inf.
template <typename T> void check_nonfinite_exact(int levels) {
    tsr_handle classical, strassen;
    ASSERT_EQ(tsr_create(&classical), TSR_SUCCESS);
    ASSERT_EQ(tsr_create(&strassen), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(classical, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(strassen, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_strassen(strassen, levels, 16), TSR_SUCCESS);
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    struct Poison {
        bool in_a;
        int64_t i, j;
        T value;
    };
    for (Poison p : {Poison{true, 0, 0, inf}, Poison{true, 137, 11, -inf},
                     Poison{false, 5, 288, nan}, Poison{false, 279, 0, inf}}) {
        GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 300, 290, 280, 1.0, 0.0};
        auto A = random_matrix<T>(300, 280, TSR_COL_MAJOR, 1, T(0));
        auto B = random_matrix<T>(280, 290, TSR_COL_MAJOR, 2, T(0));
        (p.in_a ? A : B).at(p.i, p.j) = p.value;
        auto ours = random_matrix<T>(300, 290, TSR_COL_MAJOR, 0, T(0)), plain = ours;
        ASSERT_EQ(run_gemm(strassen, c, A, B, ours), TSR_SUCCESS) << tsr_last_error();
        ASSERT_EQ(run_gemm(classical, c, A, B, plain), TSR_SUCCESS) << tsr_last_error();
        int64_t nonfinite = 0;
        for (int64_t j = 0; j < 290; ++j)
            for (int64_t i = 0; i < 300; ++i) {
                const T got = ours.at(i, j), want = plain.at(i, j);
                nonfinite += !std::isfinite(want);
                if (std::isnan(want)) ASSERT_TRUE(std::isnan(got)) << i << "," << j;
                else if (std::isinf(want)) ASSERT_EQ(got, want) << i << "," << j;
                else ASSERT_TRUE(std::isfinite(got)) << i << "," << j << " = " << got;
            }
        // a row of C (from A) or a column (from B), no more
        EXPECT_EQ(nonfinite, p.in_a ? 290 : 300);
    }
    tsr_destroy(classical);
    tsr_destroy(strassen);
}

TEST(StrassenNonFinite, OneLevelFloat) { check_nonfinite_exact<float>(1); }
TEST(StrassenNonFinite, TwoLevelsDouble) { check_nonfinite_exact<double>(2); }

} // namespace
} // namespace tessera::test
