// The float64 / long double gemm oracle of the tests, operand generation with poisoned
// padding, and the componentwise bound check (with the seed in every failure message).
#include "gemm_oracle.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace tessera::test {

uint64_t seed() { return base_seed(); }

std::mt19937_64 &rng() {
    static std::mt19937_64 engine;
    static uint64_t seeded_at = ~uint64_t(0);
    if (const uint64_t started = tests_started.load(); started != seeded_at) {
        engine.seed(seed_for(test_label()));
        seeded_at = started;
    }
    return engine;
}

template <typename T> bool Matrix<T>::is_padding(size_t index) const {
    int64_t inner = int64_t(index) % ld;
    return inner >= (layout == TSR_COL_MAJOR ? rows : cols);
}

template <typename T>
Matrix<T> random_matrix(int64_t rows, int64_t cols, tsr_layout layout, int64_t pad, T poison) {
    Matrix<T> x;
    x.rows = rows;
    x.cols = cols;
    x.layout = layout;
    const int64_t inner = layout == TSR_COL_MAJOR ? rows : cols;
    const int64_t outer = layout == TSR_COL_MAJOR ? cols : rows;
    x.ld = std::max<int64_t>(1, inner + pad);
    x.data.assign(size_t(std::max<int64_t>(1, x.ld * outer)), poison);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::mt19937_64 &g = rng();
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) x.at(i, j) = T(u(g));
    return x;
}

std::string describe(const GemmCase &c) {
    auto op = [](tsr_op o) { return o == TSR_OP_N ? 'N' : o == TSR_OP_T ? 'T' : 'C'; };
    std::ostringstream s;
    s << (c.layout == TSR_COL_MAJOR ? "col " : "row ") << op(c.ta) << op(c.tb) << " m=" << c.m
      << " n=" << c.n << " k=" << c.k << " alpha=" << c.alpha << " beta=" << c.beta
      << " TESSERA_TEST_SEED=" << seed();
    return s.str();
}

template <typename T>
tsr_status run_gemm(tsr_handle handle, const GemmCase &c, const Matrix<T> &A, const Matrix<T> &B,
                    Matrix<T> &C) {
    if constexpr (sizeof(T) == 4)
        return tsr_sgemm(handle, c.layout, c.ta, c.tb, c.m, c.n, c.k, float(c.alpha), A.data.data(),
                         A.ld, B.data.data(), B.ld, float(c.beta), C.data.data(), C.ld);
    else
        return tsr_dgemm(handle, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, A.data.data(), A.ld,
                         B.data.data(), B.ld, c.beta, C.data.data(), C.ld);
}

template <typename T>
::testing::AssertionResult check_gemm(const GemmCase &c, const Matrix<T> &A, const Matrix<T> &B,
                                      const Matrix<T> &C0, const Matrix<T> &C) {
    using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
    const double u = std::numeric_limits<T>::epsilon() / 2;
    for (size_t idx = 0; idx < C.data.size(); ++idx)
        if (C.is_padding(idx) && std::memcmp(&C.data[idx], &C0.data[idx], sizeof(T)) != 0)
            return ::testing::AssertionFailure()
                   << "padding element " << idx << " of C was written; " << describe(c);
    const bool product = c.k > 0 && c.alpha != 0;
    const bool quick = c.m == 0 || c.n == 0 || ((c.alpha == 0 || c.k == 0) && c.beta == 1);
    int reported = 0;
    ::testing::AssertionResult result = ::testing::AssertionSuccess();
    for (int64_t j = 0; j < c.n; ++j) {
        for (int64_t i = 0; i < c.m; ++i) {
            const T got = C.at(i, j), before = C0.at(i, j);
            if (quick) {
                if (std::memcmp(&got, &before, sizeof(T)) != 0) {
                    return ::testing::AssertionFailure()
                           << "quick return changed C(" << i << "," << j << "); " << describe(c);
                }
                continue;
            }
            Wide sum = 0, abs_sum = 0;
            if (product)
                for (int64_t l = 0; l < c.k; ++l) {
                    Wide p = Wide(op_at(A, c.ta, i, l)) * Wide(op_at(B, c.tb, l, j));
                    sum += p;
                    abs_sum += std::fabs(p);
                }
            Wide want = Wide(c.alpha) * sum, bound = std::fabs(Wide(c.alpha)) * abs_sum;
            if (c.beta != 0) {
                want += Wide(c.beta) * Wide(before);
                bound += std::fabs(Wide(c.beta)) * std::fabs(Wide(before));
            }
            bound *= 2.0 * double(c.k + 2) * u;
            const bool ok = std::isnan(double(want)) ? std::isnan(double(got))
                                                     : (!std::isnan(double(got)) &&
                                                        std::fabs(Wide(got) - want) <= bound);
            if (!ok && reported++ < 5) {
                if (result) result = ::testing::AssertionFailure() << describe(c);
                result << "\n  C(" << i << "," << j << ") = " << double(got) << ", oracle "
                       << double(want) << ", bound " << double(bound);
            }
        }
    }
    if (reported > 5) result << "\n  ... " << reported << " elements out of bound";
    return result;
}

template <typename T>
::testing::AssertionResult run_and_check(tsr_handle handle, const GemmCase &c, int64_t pad) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const bool a_rows_m = c.ta == TSR_OP_N, b_rows_k = c.tb == TSR_OP_N;
    Matrix<T> A = random_matrix<T>(a_rows_m ? c.m : c.k, a_rows_m ? c.k : c.m, c.layout, pad, nan);
    Matrix<T> B = random_matrix<T>(b_rows_k ? c.k : c.n, b_rows_k ? c.n : c.k, c.layout, pad, nan);
    Matrix<T> C = random_matrix<T>(c.m, c.n, c.layout, pad, T(-7.25));
    if (c.alpha == 0) { // A and B must not be read
        std::fill(A.data.begin(), A.data.end(), nan);
        std::fill(B.data.begin(), B.data.end(), nan);
    }
    if (c.beta == 0) // C must not be read
        for (size_t i = 0; i < C.data.size(); ++i)
            if (!C.is_padding(i)) C.data[i] = nan;
    const Matrix<T> C0 = C;
    tsr_status s = run_gemm(handle, c, A, B, C);
    if (s != TSR_SUCCESS)
        return ::testing::AssertionFailure() << "status " << tsr_status_string(s) << ": "
                                             << tsr_last_error() << "; " << describe(c);
    if (c.alpha == 0 || c.beta == 0) {
        // The oracle must not see the poison that the library was not allowed to read.
        Matrix<T> A0 = A, B0 = B, Cz = C0;
        if (c.alpha == 0) {
            std::fill(A0.data.begin(), A0.data.end(), T(0));
            std::fill(B0.data.begin(), B0.data.end(), T(0));
        }
        if (c.beta == 0)
            for (size_t i = 0; i < Cz.data.size(); ++i)
                if (!Cz.is_padding(i)) Cz.data[i] = T(0);
        return check_gemm(c, A0, B0, Cz, C);
    }
    return check_gemm(c, A, B, C0, C);
}

template Matrix<float> random_matrix<float>(int64_t, int64_t, tsr_layout, int64_t, float);
template Matrix<double> random_matrix<double>(int64_t, int64_t, tsr_layout, int64_t, double);
template tsr_status run_gemm<float>(tsr_handle, const GemmCase &, const Matrix<float> &,
                                    const Matrix<float> &, Matrix<float> &);
template tsr_status run_gemm<double>(tsr_handle, const GemmCase &, const Matrix<double> &,
                                     const Matrix<double> &, Matrix<double> &);
template ::testing::AssertionResult check_gemm<float>(const GemmCase &, const Matrix<float> &,
                                                      const Matrix<float> &, const Matrix<float> &,
                                                      const Matrix<float> &);
template ::testing::AssertionResult check_gemm<double>(const GemmCase &, const Matrix<double> &,
                                                       const Matrix<double> &,
                                                       const Matrix<double> &,
                                                       const Matrix<double> &);
template ::testing::AssertionResult run_and_check<float>(tsr_handle, const GemmCase &, int64_t);
template ::testing::AssertionResult run_and_check<double>(tsr_handle, const GemmCase &, int64_t);
template struct Matrix<float>;
template struct Matrix<double>;

} // namespace tessera::test
