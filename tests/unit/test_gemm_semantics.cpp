// BLAS semantics that users rely on, checked on every backend here: NaN and Inf propagate,
// beta = 0 never reads C, alpha = 0 or k = 0 never reads A or B, quick returns, 'C' == 'T',
// and row-major agrees with column-major.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>
#include <vector>

#include "gemm_oracle.hpp"

namespace tessera::test {
namespace {

class GemmSemantics : public ::testing::TestWithParam<tsr_backend> {
protected:
    void SetUp() override {
        ASSERT_EQ(tsr_create(&h_), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(h_, GetParam()), TSR_SUCCESS);
    }
    void TearDown() override { tsr_destroy(h_); }
    tsr_handle h_ = nullptr;
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A NaN or Inf in A reaches exactly the row of C it multiplies into.
TEST_P(GemmSemantics, NaNAndInfPropagate) {
    const int64_t m = 37, n = 29, k = 41;
    for (double special : {kNaN, kInf, -kInf}) {
        auto A = random_matrix<double>(m, k, TSR_COL_MAJOR, 0, 0.0);
        auto B = random_matrix<double>(k, n, TSR_COL_MAJOR, 0, 0.0);
        for (auto &x : B.data) x = std::fabs(x) + 0.5; // positive, so Inf keeps its sign
        auto C = random_matrix<double>(m, n, TSR_COL_MAJOR, 0, 0.0);
        A.at(11, 7) = special;
        ASSERT_EQ(tsr_dgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 1.0, A.data.data(), m,
                            B.data.data(), k, 0.5, C.data.data(), m),
                  TSR_SUCCESS);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                double c = C.at(i, j);
                if (i != 11) ASSERT_TRUE(std::isfinite(c)) << i << "," << j << " seed " << seed();
                else if (std::isnan(special)) ASSERT_TRUE(std::isnan(c));
                else ASSERT_EQ(c, special) << "seed " << seed();
            }
    }
    // Inf · 0 is NaN.
    std::vector<float> A = {std::numeric_limits<float>::infinity()}, B = {0.0f}, C = {1.0f};
    ASSERT_EQ(tsr_sgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 1, 1, 1, 1.0f, A.data(), 1, B.data(),
                        1, 1.0f, C.data(), 1),
              TSR_SUCCESS);
    EXPECT_TRUE(std::isnan(C[0]));
    // NaN in C survives beta != 0.
    A = {1.0f}, B = {1.0f}, C = {std::numeric_limits<float>::quiet_NaN()};
    ASSERT_EQ(tsr_sgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 1, 1, 1, 1.0f, A.data(), 1, B.data(),
                        1, 2.0f, C.data(), 1),
              TSR_SUCCESS);
    EXPECT_TRUE(std::isnan(C[0]));
}

TEST_P(GemmSemantics, BetaZeroNeverReadsC) {
    const int64_t m = 19, n = 23, k = 11;
    auto A = random_matrix<float>(m, k, TSR_COL_MAJOR, 0, 0.0f);
    auto B = random_matrix<float>(k, n, TSR_COL_MAJOR, 0, 0.0f);
    for (float poison :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        std::vector<float> C(size_t(m * n), poison);
        ASSERT_EQ(tsr_sgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 1.0f, A.data.data(), m,
                            B.data.data(), k, 0.0f, C.data(), m),
                  TSR_SUCCESS);
        for (float c : C) ASSERT_TRUE(std::isfinite(c));
        // alpha = 0 and beta = 0: C becomes zero without reading anything.
        std::fill(C.begin(), C.end(), poison);
        ASSERT_EQ(tsr_sgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 0.0f, nullptr, m,
                            nullptr, k, 0.0f, C.data(), m),
                  TSR_SUCCESS);
        for (float c : C) ASSERT_EQ(c, 0.0f);
    }
}

TEST_P(GemmSemantics, AlphaZeroOrKZeroNeverReadsAB) {
    const int64_t m = 13, n = 9;
    auto C = random_matrix<double>(m, n, TSR_COL_MAJOR, 0, 0.0);
    auto C0 = C;
    std::vector<double> nanA(size_t(m * 5), kNaN), nanB(size_t(5 * n), kNaN);
    // alpha = 0: C = beta·C, A and B full of NaN (or NULL) are ignored.
    ASSERT_EQ(tsr_dgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, 5, 0.0, nanA.data(), m,
                        nanB.data(), 5, -2.0, C.data.data(), m),
              TSR_SUCCESS);
    for (size_t i = 0; i < C.data.size(); ++i) ASSERT_EQ(C.data[i], -2.0 * C0.data[i]);
    // k = 0: the same with NULL operands.
    C = C0;
    ASSERT_EQ(tsr_dgemm(h_, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_T, m, n, 0, 3.0, nullptr, 1, nullptr, n,
                        0.5, C.data.data(), m),
              TSR_SUCCESS);
    for (size_t i = 0; i < C.data.size(); ++i) ASSERT_EQ(C.data[i], 0.5 * C0.data[i]);
}

TEST_P(GemmSemantics, QuickReturnsTouchNothing) {
    std::vector<float> C(12, std::numeric_limits<float>::quiet_NaN());
    std::vector<float> before = C;
    // alpha = 0, beta = 1: nothing is read or written (NaN stays NaN bit for bit).
    ASSERT_EQ(tsr_sgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 4, 5, 0.0f, nullptr, 3, nullptr,
                        5, 1.0f, C.data(), 3),
              TSR_SUCCESS);
    EXPECT_EQ(std::memcmp(C.data(), before.data(), C.size() * sizeof(float)), 0);
    // k = 0, beta = 1.
    ASSERT_EQ(tsr_sgemm(h_, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_N, 3, 4, 0, 2.0f, nullptr, 1, nullptr,
                        4, 1.0f, C.data(), 4),
              TSR_SUCCESS);
    EXPECT_EQ(std::memcmp(C.data(), before.data(), C.size() * sizeof(float)), 0);
    // m = 0 and n = 0 with NULL everywhere.
    EXPECT_EQ(tsr_sgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 0, 4, 5, 1.0f, nullptr, 1, nullptr,
                        5, 0.0f, nullptr, 1),
              TSR_SUCCESS);
    EXPECT_EQ(tsr_dgemm(h_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 4, 0, 5, 1.0, nullptr, 4, nullptr, 5,
                        0.0, nullptr, 4),
              TSR_SUCCESS);
}

// 'C' is 'T' for real types (bit for bit), and row-major C = op(A)op(B) equals the
// column-major product of the transposed storage.
TEST_P(GemmSemantics, ConjTransIsTransAndLayoutsAgree) {
    const int64_t m = 21, n = 18, k = 33;
    auto A = random_matrix<double>(k, m, TSR_COL_MAJOR, 2, 0.0); // op(A) = A^T
    auto B = random_matrix<double>(n, k, TSR_COL_MAJOR, 1, 0.0); // op(B) = B^T
    std::vector<double> C1(size_t(m * n)), C2(size_t(m * n)), C3(size_t(m * n));
    ASSERT_EQ(tsr_dgemm(h_, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_T, m, n, k, 1.5, A.data.data(), A.ld,
                        B.data.data(), B.ld, 0.0, C1.data(), m),
              TSR_SUCCESS);
    ASSERT_EQ(tsr_dgemm(h_, TSR_COL_MAJOR, TSR_OP_C, TSR_OP_C, m, n, k, 1.5, A.data.data(), A.ld,
                        B.data.data(), B.ld, 0.0, C2.data(), m),
              TSR_SUCCESS);
    EXPECT_EQ(std::memcmp(C1.data(), C2.data(), C1.size() * sizeof(double)), 0);
    // C1 = A^T B^T, so C1^T = B A. Row-major n×m storage with ld m is C1's column-major
    // storage; B (column-major n×k) read row-major is k×n, A (column-major k×m) is m×k: both
    // are op = T.
    ASSERT_EQ(tsr_dgemm(h_, TSR_ROW_MAJOR, TSR_OP_T, TSR_OP_T, n, m, k, 1.5, B.data.data(), B.ld,
                        A.data.data(), A.ld, 0.0, C3.data(), m),
              TSR_SUCCESS);
    for (size_t i = 0; i < C1.size(); ++i)
        EXPECT_NEAR(C1[i], C3[i], 1e-12 * (1 + std::fabs(C1[i])));
}

INSTANTIATE_TEST_SUITE_P(Backends, GemmSemantics,
                         ::testing::Values(TSR_BACKEND_CPU, TSR_BACKEND_REFERENCE),
                         [](const auto &info) {
                             return std::string(info.param == TSR_BACKEND_CPU ? "cpu"
                                                                              : "reference");
                         });

// The reference backend is an oracle: its sums are carried in double (long double for
// dgemm). A naive float sum of 2^22 positive terms once erred by 2e-3.
TEST(ReferenceBackend, SgemmAccumulatesInDouble) {
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_REFERENCE), TSR_SUCCESS);
    const int64_t k = int64_t(1) << 22;
    std::vector<float> a(static_cast<size_t>(k)), b(static_cast<size_t>(k));
    uint64_t state = 0x9E3779B97F4A7C15ull ^ uint64_t(std::time(nullptr));
    auto next = [&] { // xorshift: fresh positive values in (0, 1)
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        return float(double(state >> 40) / double(1ull << 24)) + 1e-3f;
    };
    for (int64_t l = 0; l < k; ++l) a[size_t(l)] = next(), b[size_t(l)] = next();
    long double exact = 0;
    for (int64_t l = 0; l < k; ++l) exact += (long double)a[size_t(l)] * b[size_t(l)];
    float c = 0;
    ASSERT_EQ(tsr_sgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 1, 1, k, 1.0f, a.data(), 1, b.data(),
                        k, 0.0f, &c, 1),
              TSR_SUCCESS);
    // one rounding to float at the end, and the double sum's own error far below it
    const long double rel = std::fabs((long double)c - exact) / exact;
    EXPECT_LE(rel, 2 * std::numeric_limits<float>::epsilon()) << "relative error " << double(rel);
    tsr_destroy(h);
}

} // namespace
} // namespace tessera::test
