// The oracle and the checks of spmm_support.hpp.
#include "spmm_support.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "../support/seed.hpp"

namespace tessera::test {

std::string describe(const BlockCase &c) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "layout=%s op=%s k=%lld pad=%lld alpha=%g beta=%g TESSERA_TEST_SEED=%llu",
                  c.layout == TSR_ROW_MAJOR ? "row" : "col", c.op == TSR_OP_N ? "N" : "T",
                  (long long)c.k, (long long)c.pad, c.alpha, c.beta,
                  static_cast<unsigned long long>(base_seed()));
    return text;
}

template <typename T>
::testing::AssertionResult check_block_product(tsr_handle h, tsr_sparse A, const Entries &e,
                                               const BlockCase &c, uint64_t seed,
                                               const BlockRunner<T> &run) {
    const bool trans = c.op != TSR_OP_N, row_major = c.layout == TSR_ROW_MAJOR;
    const int64_t in = trans ? e.rows : e.cols, out = trans ? e.cols : e.rows, k = c.k;
    const int64_t ldx = (row_major ? std::max<int64_t>(1, k) : std::max<int64_t>(1, in)) + c.pad;
    const int64_t ldy = (row_major ? std::max<int64_t>(1, k) : std::max<int64_t>(1, out)) + c.pad;
    auto at = [&](int64_t i, int64_t j, int64_t ld) { return row_major ? i * ld + j : i + j * ld; };
    const size_t x_size = size_t(row_major ? in * ldx : k * ldx);
    const size_t y_size = size_t(row_major ? out * ldy : k * ldy);
    const T nan = std::numeric_limits<T>::quiet_NaN(), sentinel = T(-12345.5);

    std::mt19937_64 rng = rng_for(test_label() + "/block/" + std::to_string(seed));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<T> X(x_size, nan), Y(y_size, sentinel);
    for (int64_t i = 0; i < in; ++i)
        for (int64_t j = 0; j < k; ++j) X[size_t(at(i, j, ldx))] = c.alpha == 0 ? nan : T(u(rng));
    for (int64_t i = 0; i < out; ++i)
        for (int64_t j = 0; j < k; ++j) Y[size_t(at(i, j, ldy))] = c.beta == 0 ? nan : T(u(rng));
    const std::vector<T> Y0 = Y;

    const T alpha = T(c.alpha), beta = T(c.beta);
    const tsr_status s = run ? run(h, c, alpha, A, X, ldx, beta, Y, ldy)
                         : sizeof(T) == 4
                             ? tsr_sspmm(h, c.layout, c.op, k, float(alpha), A,
                                         reinterpret_cast<const float *>(X.data()), ldx,
                                         float(beta), reinterpret_cast<float *>(Y.data()), ldy)
                             : tsr_dspmm(h, c.layout, c.op, k, double(alpha), A,
                                         reinterpret_cast<const double *>(X.data()), ldx,
                                         double(beta), reinterpret_cast<double *>(Y.data()), ldy);
    if (s != TSR_SUCCESS)
        return ::testing::AssertionFailure()
               << e.name << " " << describe(c) << ": status " << s << " " << tsr_last_error();

    // The oracle: sums, sums of magnitudes and term counts per output element.
    std::vector<long double> ref(size_t(out * k), 0.0L), mag(size_t(out * k), 0.0L);
    std::vector<int64_t> terms(size_t(out), 0);
    if (c.alpha != 0)
        for (int64_t p = 0; p < e.nnz(); ++p) {
            const int64_t o = trans ? e.col[size_t(p)] : e.row[size_t(p)];
            const int64_t i = trans ? e.row[size_t(p)] : e.col[size_t(p)];
            const long double v = (long double)T(e.val[size_t(p)]);
            for (int64_t j = 0; j < k; ++j) {
                const long double t = v * (long double)X[size_t(at(i, j, ldx))];
                ref[size_t(o * k + j)] += t;
                mag[size_t(o * k + j)] += std::fabs(t);
            }
            ++terms[size_t(o)];
        }
    const long double eps = std::numeric_limits<T>::epsilon();
    int64_t bad = 0;
    std::string first;
    auto report = [&](const std::string &what) {
        if (bad++ == 0) first = what;
    };
    for (size_t idx = 0; idx < y_size; ++idx) {
        const int64_t i = row_major ? int64_t(idx) / ldy : int64_t(idx) % ldy;
        const int64_t j = row_major ? int64_t(idx) % ldy : int64_t(idx) / ldy;
        const bool inside = i < out && j < k;
        if (!inside) { // padding: must be exactly as it was
            if (!(Y[idx] == Y0[idx]))
                report("padding element " + std::to_string(idx) + " was written");
            continue;
        }
        const size_t r = size_t(i * k + j);
        const long double want =
            (long double)alpha * ref[r] + (c.beta == 0 ? 0.0L : (long double)beta * Y0[idx]);
        const long double bound =
            4.0L * (long double)(terms[size_t(i)] + 3) * eps *
                (std::fabs((long double)alpha) * mag[r] +
                 (c.beta == 0 ? 0.0L : std::fabs((long double)beta * Y0[idx]))) +
            std::numeric_limits<T>::denorm_min();
        if (!std::isfinite(double(Y[idx])) || std::fabs((long double)Y[idx] - want) > bound)
            report("Y(" + std::to_string(i) + ", " + std::to_string(j) + ") = " +
                   std::to_string(double(Y[idx])) + ", expected " + std::to_string(double(want)));
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << e.name << " " << describe(c) << ": " << bad << " bad elements; first: " << first;
}

template ::testing::AssertionResult check_block_product<float>(tsr_handle, tsr_sparse,
                                                               const Entries &, const BlockCase &,
                                                               uint64_t,
                                                               const BlockRunner<float> &);
template ::testing::AssertionResult check_block_product<double>(tsr_handle, tsr_sparse,
                                                                const Entries &, const BlockCase &,
                                                                uint64_t,
                                                                const BlockRunner<double> &);

} // namespace tessera::test
