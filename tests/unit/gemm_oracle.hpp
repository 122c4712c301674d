// Test helpers for gemm: matrices with poisoned padding, fresh random data, and the float64
// (long double for double) oracle with the componentwise error bound of DESIGN.md.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../support/seed.hpp"
#include "tessera/tessera.h"

namespace tessera::test {

// A stored matrix: rows×cols in `layout` with leading dimension ld >= the stored row length.
template <typename T> struct Matrix {
    int64_t rows = 0, cols = 0, ld = 1;
    tsr_layout layout = TSR_COL_MAJOR;
    std::vector<T> data;
    T &at(int64_t i, int64_t j) {
        return layout == TSR_COL_MAJOR ? data[i + j * ld] : data[i * ld + j];
    }
    T at(int64_t i, int64_t j) const {
        return layout == TSR_COL_MAJOR ? data[i + j * ld] : data[i * ld + j];
    }
    bool is_padding(size_t index) const; // an element outside rows×cols
};

// The current test's generator: seeded with the run's seed (TESSERA_TEST_SEED, else random;
// see tests/support/seed.hpp) mixed with the test's name, afresh when each test starts.
std::mt19937_64 &rng();
uint64_t seed(); // the run's base seed

// rows×cols with ld = stored length + pad; elements uniform in [-1, 1], padding = `poison`.
template <typename T>
Matrix<T> random_matrix(int64_t rows, int64_t cols, tsr_layout layout, int64_t pad, T poison);

// The element of op(X) at (i, j) for a stored X.
template <typename T> T op_at(const Matrix<T> &x, tsr_op op, int64_t i, int64_t j) {
    return op == TSR_OP_N ? x.at(i, j) : x.at(j, i);
}

struct GemmCase {
    tsr_layout layout;
    tsr_op ta, tb;
    int64_t m, n, k;
    double alpha, beta;
};
std::string describe(const GemmCase &c);

// Runs tsr_sgemm / tsr_dgemm on `handle` (float or double).
template <typename T>
tsr_status run_gemm(tsr_handle handle, const GemmCase &c, const Matrix<T> &A, const Matrix<T> &B,
                    Matrix<T> &C);

// Checks C (after the call) against the oracle computed from A, B and C0 (before the call):
// |C - C_ref| <= 2·(k+2)·u·(|alpha|·(|A||B|) + |beta|·|C0|) element by element (exact where
// the bound is 0), NaN where and only where the oracle is NaN, padding bytes untouched.
template <typename T>
::testing::AssertionResult check_gemm(const GemmCase &c, const Matrix<T> &A, const Matrix<T> &B,
                                      const Matrix<T> &C0, const Matrix<T> &C);

// Builds fresh operands for `c` (padding poisoned; A and B all NaN when alpha == 0 since they
// must not be read; C all NaN when beta == 0 since it must not be read), runs and checks.
template <typename T>
::testing::AssertionResult run_and_check(tsr_handle handle, const GemmCase &c, int64_t pad);

} // namespace tessera::test
