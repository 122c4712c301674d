// Generated sparse matrices for tessera-bench spmv and the tests: 2D 5-point Laplacian, 3D 7-
// and 27-point stencils, tridiagonal, random k-per-row, power-law row lengths, R-MAT graphs,
// dense blocks on the diagonal, banded, and shapes with empty rows or a few dense rows.
// Deterministic for a given seed.
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

// Random k-per-row plus `count` dense rows, evenly spaced.
CsrMatrix dense_rows(int64_t rows, int64_t cols, int64_t k, int64_t count, uint64_t seed);
// The 7-point (points 7) or 27-point (points 27) stencil of an n x n x n grid (n³ rows, random
// values), rows in x-fastest order.
CsrMatrix stencil_3d(int64_t n, int points, uint64_t seed);
// An R-MAT (recursive Kronecker) graph of 2^scale vertices and about edge_factor·2^scale edges:
// each edge picks one quadrant of the adjacency matrix per level with probabilities a, b, c
// and d = 1 - a - b - c; repeated edges are kept once. Larger a: more skewed rows.
CsrMatrix rmat(int scale, int64_t edge_factor, double a, double b, double c, uint64_t seed);
// n rows of dense block x block blocks on the diagonal (the last block cut at n).
CsrMatrix block_diagonal(int64_t n, int64_t block, uint64_t seed);

// A generator named on the command line (generator_forms() lists them); throws
// std::invalid_argument with the accepted forms otherwise.
CsrMatrix generate(const std::string &spec, uint64_t seed);
const char *generator_forms();

} // namespace tessera::bench
