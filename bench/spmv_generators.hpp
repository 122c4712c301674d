// Generated sparse matrices for tessera-bench spmv and the tests: 2D 5-point Laplacian,
// tridiagonal, random k-per-row, power-law row lengths, banded, and shapes with empty rows
// or one dense row. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::bench {

// CSR with sorted, distinct columns per row.
struct CsrMatrix {
    std::string name;
    int64_t rows = 0, cols = 0;
    std::vector<int64_t> row_ptr{0};
    std::vector<int64_t> col;
    std::vector<double> val;
    int64_t nnz() const { return int64_t(val.size()); }
};

// The 5-point Laplacian of an n x n grid (n² rows; 4 on the diagonal, -1 off it).
CsrMatrix laplacian_2d(int64_t n);
// Tridiagonal n x n with random values.
CsrMatrix tridiagonal(int64_t n, uint64_t seed);
// k distinct random columns in every row.
CsrMatrix random_k_per_row(int64_t rows, int64_t cols, int64_t k, uint64_t seed);
// Row lengths drawn from a power law (Pareto, exponent 2.2) with about `mean` entries per row,
// capped at cols, and at max_len when it is > 0 (which lowers the mean a little); random columns.
CsrMatrix power_law(int64_t rows, int64_t cols, double mean, uint64_t seed, int64_t max_len = 0);
// Entries inside the band |i - j| <= half_width, each present with probability `fill`.
CsrMatrix banded(int64_t n, int64_t half_width, double fill, uint64_t seed);
// Random k-per-row where a fraction `empty` of the rows has no entry at all.
CsrMatrix with_empty_rows(int64_t rows, int64_t cols, int64_t k, double empty, uint64_t seed);
// Random k-per-row plus one completely dense row (row `dense_row`).
CsrMatrix one_dense_row(int64_t rows, int64_t cols, int64_t k, int64_t dense_row, uint64_t seed);

// A generator named on the command line: "laplacian:N", "tridiagonal:N", "random:ROWSxCOLS:K",
// "powerlaw:ROWSxCOLS:MEAN[:MAX]"; throws std::invalid_argument with the accepted forms otherwise.
CsrMatrix generate(const std::string &spec, uint64_t seed);

} // namespace tessera::bench
