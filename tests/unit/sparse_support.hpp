// Test helpers for sparse products: a matrix as a list of entries, creating it through either
// door with any value and index type, and the float64 / long double oracle with a per-row
// error bound (|y - y_ref| <= c·(n_i + 3)·u·(|alpha|·(|A||x|)_i + |beta|·|y0_i|)).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../support/seed.hpp"
#include "matrix_market.hpp"
#include "spmv_generators.hpp"
#include "tessera/tessera.h"

namespace tessera::test {

// A matrix as its entries, in a chosen order; duplicates allowed.
struct Entries {
    std::string name;
    int64_t rows = 0, cols = 0;
    std::vector<int64_t> row, col;
    std::vector<double> val;
    int64_t nnz() const { return int64_t(val.size()); }
};

Entries from_csr(const bench::CsrMatrix &m);
Entries from_coo(const bench::CooMatrix &m);
// A rows x cols matrix without entries.
Entries empty_matrix(int64_t rows, int64_t cols);

// Which create function: CSR (entries grouped by row, in their order inside a row) or COO.
enum class Door { csr, coo };
const char *door_name(Door d);

// Creates `A` from `e` with values of type T and indices of `itype`.
template <typename T>
tsr_status create_matrix(tsr_handle h, const Entries &e, tsr_index_type itype, Door door,
                         tsr_sparse *A);

struct ProductCase {
    tsr_op op;
    double alpha, beta;
};
std::string describe(const ProductCase &c);

// How check_product hands x and y to the library: by default tsr_sspmv / tsr_dspmv on the
// host arrays; the CUDA tests pass copies in device memory and bring y back.
template <typename T>
using ProductRunner = std::function<tsr_status(tsr_handle h, tsr_op op, T alpha, tsr_sparse A,
                                               const std::vector<T> &x, T beta, std::vector<T> &y)>;

// Runs y = alpha·op(A)·x + beta·y with fresh random x and y (y all NaN when beta == 0 and x
// all NaN when alpha == 0, since they must not be read) and compares with the oracle
// computed from `e` (the values rounded to T). x and y come from the stream of the current
// test and `seed` (tests/support/seed.hpp), so they change with TESSERA_TEST_SEED.
template <typename T>
::testing::AssertionResult check_product(tsr_handle h, tsr_sparse A, const Entries &e,
                                         const ProductCase &c, uint64_t seed,
                                         const ProductRunner<T> &run = {});

// Matrices whose DIA, ELL and HYB forms are padded, for products with NaN and Inf in x: a 6 x 6
// matrix (row 0 = {0, 1, 2}, then the diagonal), and a random band with empty and long rows.
Entries row_and_diagonal();
Entries padded_band(std::mt19937_64 &rng);

// An x for op(A): for the 6 x 6 matrix, (1, 2, 3, NaN, Inf, 6); otherwise uniform values with
// NaN, +Inf, -Inf and NaN at random places.
template <typename T> std::vector<T> nonfinite_x(const Entries &e, tsr_op op, std::mt19937_64 &rng);

// y = op(A)·x with an x that holds NaN and ±Inf: NaN and Inf must appear in exactly the
// outputs IEEE arithmetic over the stored entries gives (no format's padding may multiply x),
// and the finite outputs must be within the bound.
template <typename T>
::testing::AssertionResult check_nonfinite_x(tsr_handle h, tsr_sparse A, const Entries &e,
                                             tsr_op op, const std::vector<T> &x,
                                             const ProductRunner<T> &run = {});

// The alpha/beta cases every matrix is run with: (1, 0), (-1, 1), (0.5, -2), (0, 0.5), (0, 0).
std::vector<ProductCase> standard_cases(tsr_op op);

const char *format_label(tsr_format f);

// The directory of the shared SuiteSparse matrices, or "" when absent.
std::string shared_matrices_dir();
// The names (without .mtx) of its Matrix Market files, sorted; {"none"} when there are none.
std::vector<std::string> shared_matrix_names();

} // namespace tessera::test
