// Shared by the behaviour tests: the BLAS symbols as a program declares them, seeded random
// matrices, poisoned outputs and a float64 reference product with a componentwise error bound.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../support/seed.hpp"
#include "tessera/tessera.h"

// Tessera ships no BLAS header: a program declares the symbols itself, as here.
extern "C" {
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *A, const int *lda, const float *B, const int *ldb,
            const float *beta, float *C, const int *ldc, size_t transa_len, size_t transb_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc, size_t transa_len, size_t transb_len);
void sgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n,
               const int64_t *k, const float *alpha, const float *A, const int64_t *lda,
               const float *B, const int64_t *ldb, const float *beta, float *C, const int64_t *ldc,
               size_t transa_len, size_t transb_len);
void dgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n,
               const int64_t *k, const double *alpha, const double *A, const int64_t *lda,
               const double *B, const int64_t *ldb, const double *beta, double *C,
               const int64_t *ldc, size_t transa_len, size_t transb_len);
void cblas_sgemm(int layout, int transa, int transb, int M, int N, int K, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
void cblas_dgemm(int layout, int transa, int transb, int M, int N, int K, double alpha,
                 const double *A, int lda, const double *B, int ldb, double beta, double *C,
                 int ldc);
void cblas_sgemm_64(int layout, int transa, int transb, int64_t M, int64_t N, int64_t K,
                    float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                    float beta, float *C, int64_t ldc);
void cblas_dgemm_64(int layout, int transa, int transb, int64_t M, int64_t N, int64_t K,
                    double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                    double beta, double *C, int64_t ldc);
}

namespace behaviour {

// A generator for a label (the run's seed mixed with it, tests/support/seed.hpp): every test
// draws its own data, the same again under the same TESSERA_TEST_SEED; and the current
// test's name, the usual label.
using tessera::test::rng_for;
using tessera::test::test_label;

template <typename T> std::vector<T> random_values(size_t count, std::mt19937_64 &rng) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(count);
    for (T &x : v) x = T(dist(rng));
    return v;
}

// A buffer filled with a quiet-NaN bit pattern, so any write (or any read that reaches the
// result) is visible.
template <typename T> std::vector<T> poisoned(size_t count) {
    return std::vector<T>(count, std::numeric_limits<T>::quiet_NaN());
}

inline bool same_bytes(const void *a, const void *b, size_t bytes) {
    return std::memcmp(a, b, bytes) == 0;
}

// Index of element (i, j) of a matrix stored in `layout` with leading dimension ld.
inline int64_t at(tsr_layout layout, int64_t i, int64_t j, int64_t ld) {
    return layout == TSR_COL_MAJOR ? i + j * ld : i * ld + j;
}

inline bool transposes(tsr_op op) { return op != TSR_OP_N; }

// Stored sizes of A (op(A) is m×k) and B (op(B) is k×n), rows × cols as the user sees them.
inline int64_t stored_rows(tsr_op op, int64_t r, int64_t c) { return transposes(op) ? c : r; }
inline int64_t stored_cols(tsr_op op, int64_t r, int64_t c) { return transposes(op) ? r : c; }

// Elements a matrix stored with leading dimension ld needs (0 when it is empty).
inline size_t storage(tsr_layout layout, int64_t rows, int64_t cols, int64_t ld) {
    if (rows == 0 || cols == 0) return 1;
    return layout == TSR_COL_MAJOR ? size_t(ld * (cols - 1) + rows)
                                   : size_t(ld * (rows - 1) + cols);
}

// One gemm problem with its data, in either layout.
template <typename T> struct Problem {
    tsr_layout layout = TSR_COL_MAJOR;
    tsr_op ta = TSR_OP_N, tb = TSR_OP_N;
    int64_t m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1;
    T alpha = T(1), beta = T(0);
    std::vector<T> A, B, C0;

    // Random data with leading dimensions `pad` beyond the minimum.
    static Problem make(std::mt19937_64 &rng, tsr_layout layout, tsr_op ta, tsr_op tb, int64_t m,
                        int64_t n, int64_t k, T alpha, T beta, int64_t pad = 0) {
        Problem p;
        p.layout = layout, p.ta = ta, p.tb = tb, p.m = m, p.n = n, p.k = k;
        p.alpha = alpha, p.beta = beta;
        const int64_t ar = stored_rows(ta, m, k), ac = stored_cols(ta, m, k);
        const int64_t br = stored_rows(tb, k, n), bc = stored_cols(tb, k, n);
        auto ld = [&](int64_t rows, int64_t cols) {
            return std::max<int64_t>(1, (layout == TSR_COL_MAJOR ? rows : cols)) + pad;
        };
        p.lda = ld(ar, ac), p.ldb = ld(br, bc), p.ldc = ld(m, n);
        p.A = random_values<T>(storage(layout, ar, ac, p.lda), rng);
        p.B = random_values<T>(storage(layout, br, bc, p.ldb), rng);
        p.C0 = random_values<T>(storage(layout, m, n, p.ldc), rng);
        return p;
    }

    T a(int64_t i, int64_t l) const {
        return transposes(ta) ? A[at(layout, l, i, lda)] : A[at(layout, i, l, lda)];
    }
    T b(int64_t l, int64_t j) const {
        return transposes(tb) ? B[at(layout, j, l, ldb)] : B[at(layout, l, j, ldb)];
    }

    // Compares C (the library's result) with a float64 computation, elementwise:
    // |C - ref| <= 4·(k+2)·u·(|alpha|·sum|a||b| + |beta|·|c0|), u the unit roundoff of T;
    // elements outside the m×n matrix (padding) must be unchanged.
    ::testing::AssertionResult check(const T *C) const {
        const double u = std::numeric_limits<T>::epsilon() / 2;
        std::vector<bool> inside(C0.size(), false);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                double sum = 0, mag = 0;
                for (int64_t l = 0; l < k; ++l) {
                    sum += double(a(i, l)) * double(b(l, j));
                    mag += std::fabs(double(a(i, l)) * double(b(l, j)));
                }
                const int64_t idx = at(layout, i, j, ldc);
                inside[size_t(idx)] = true;
                const double c0 = C0[size_t(idx)];
                const double ref = double(alpha) * sum + (beta == T(0) ? 0.0 : double(beta) * c0);
                const double bound =
                    4.0 * double(k + 2) * u *
                        (std::fabs(double(alpha)) * mag + std::fabs(double(beta) * c0)) +
                    std::numeric_limits<T>::min();
                const double got = C[idx];
                if (!(std::fabs(got - ref) <= bound))
                    return ::testing::AssertionFailure()
                           << "C(" << i << "," << j << ") = " << got << ", expected " << ref
                           << " (bound " << bound << ") for m=" << m << " n=" << n << " k=" << k
                           << (layout == TSR_COL_MAJOR ? " col" : " row") << " ta=" << int(ta)
                           << " tb=" << int(tb)
                           << " TESSERA_TEST_SEED=" << tessera::test::base_seed();
            }
        for (size_t idx = 0; idx < C0.size(); ++idx)
            if (!inside[idx] && !same_bytes(&C[idx], &C0[idx], sizeof(T)))
                return ::testing::AssertionFailure()
                       << "C[" << idx << "] outside the matrix was written";
        return ::testing::AssertionSuccess();
    }
};

// The Fortran letter of an op.
inline char op_char(tsr_op op) { return op == TSR_OP_N ? 'N' : op == TSR_OP_T ? 'T' : 'C'; }

} // namespace behaviour
