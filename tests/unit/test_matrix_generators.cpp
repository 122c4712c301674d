// The bench's matrix generators (bench/spmv_generators.hpp), which the corpus and the sparse
// tests are built from: valid CSR (rows in order, sorted distinct columns in range, no zero
// values), the structure each promises, the same matrix from the same seed, and the command
// line's forms parsed or refused with the accepted ones named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "spmv_generators.hpp"

namespace {

using tessera::bench::CsrMatrix;

::testing::AssertionResult valid_csr(const CsrMatrix &m) {
    if (int64_t(m.row_ptr.size()) != m.rows + 1 || m.row_ptr.front() != 0 ||
        m.row_ptr.back() != m.nnz() || m.col.size() != m.val.size())
        return ::testing::AssertionFailure() << m.name << ": row pointers or sizes";
    for (int64_t i = 0; i < m.rows; ++i) {
        if (m.row_ptr[size_t(i)] > m.row_ptr[size_t(i) + 1])
            return ::testing::AssertionFailure() << m.name << ": row " << i << " ends early";
        for (int64_t p = m.row_ptr[size_t(i)]; p < m.row_ptr[size_t(i) + 1]; ++p) {
            const int64_t j = m.col[size_t(p)];
            if (j < 0 || j >= m.cols || m.val[size_t(p)] == 0.0 ||
                (p > m.row_ptr[size_t(i)] && m.col[size_t(p) - 1] >= j))
                return ::testing::AssertionFailure()
                       << m.name << ": row " << i << " entry " << p << " (column " << j << ")";
        }
    }
    return ::testing::AssertionSuccess();
}

int64_t row_length(const CsrMatrix &m, int64_t i) {
    return m.row_ptr[size_t(i) + 1] - m.row_ptr[size_t(i)];
}

int64_t longest_row(const CsrMatrix &m) {
    int64_t most = 0;
    for (int64_t i = 0; i < m.rows; ++i) most = std::max(most, row_length(m, i));
    return most;
}

TEST(MatrixGenerators, StencilsHaveTheirNeighbours) {
    for (int64_t n : {1, 2, 5}) {
        const CsrMatrix s7 = tessera::bench::stencil_3d(n, 7, 1);
        ASSERT_TRUE(valid_csr(s7));
        EXPECT_EQ(s7.rows, n * n * n);
        EXPECT_EQ(s7.nnz(), 7 * n * n * n - 6 * n * n); // each face of the cube loses a neighbour
        const CsrMatrix s27 = tessera::bench::stencil_3d(n, 27, 1);
        ASSERT_TRUE(valid_csr(s27));
        EXPECT_EQ(s27.nnz(), (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
    }
    // An interior point of 5³ (2, 2, 2) = row 62: its 27 neighbours, itself in the middle.
    const CsrMatrix s = tessera::bench::stencil_3d(5, 27, 1);
    ASSERT_EQ(row_length(s, 62), 27);
    EXPECT_EQ(s.col[size_t(s.row_ptr[62] + 13)], 62);
    EXPECT_THROW(tessera::bench::stencil_3d(4, 9, 1), std::invalid_argument);
}

TEST(MatrixGenerators, RmatSkewGrowsWithA) {
    const CsrMatrix mild = tessera::bench::rmat(12, 8, 0.45, 0.2, 0.2, 3);
    const CsrMatrix heavy = tessera::bench::rmat(12, 8, 0.75, 0.1, 0.1, 3);
    for (const CsrMatrix *m : {&mild, &heavy}) {
        ASSERT_TRUE(valid_csr(*m));
        EXPECT_EQ(m->rows, 4096);
        EXPECT_LE(m->nnz(), 8 * 4096);     // repeated edges kept once
        EXPECT_GT(m->nnz(), 8 * 4096 / 4); // but most are distinct
    }
    EXPECT_GT(longest_row(heavy), 2 * longest_row(mild));
    EXPECT_THROW(tessera::bench::rmat(12, 8, 0.5, 0.3, 0.3, 3), std::invalid_argument);
}

TEST(MatrixGenerators, BlocksAndDenseRows) {
    const CsrMatrix b = tessera::bench::block_diagonal(10, 4, 2);
    ASSERT_TRUE(valid_csr(b));
    EXPECT_EQ(b.nnz(), 4 * 4 + 4 * 4 + 2 * 2); // the last block cut at row 10
    EXPECT_EQ(b.col[size_t(b.row_ptr[5])], 4);
    EXPECT_EQ(row_length(b, 9), 2);

    const CsrMatrix d = tessera::bench::dense_rows(100, 50, 3, 2, 4);
    ASSERT_TRUE(valid_csr(d));
    int64_t dense = 0;
    for (int64_t i = 0; i < d.rows; ++i) dense += row_length(d, i) == 50;
    EXPECT_EQ(dense, 2);
    EXPECT_EQ(row_length(d, 25), 50); // evenly spaced: rows 25 and 75
    EXPECT_EQ(row_length(d, 75), 50);
}

TEST(MatrixGenerators, EveryFormParsesAndTheSameSeedGivesTheSameMatrix) {
    for (const char *spec :
         {"laplacian:20", "tridiagonal:100", "random:50x70:5", "powerlaw:200x200:6:50",
          "stencil7:6", "stencil27:4", "rmat:8:4", "rmat:8:4:70", "blockdiag:100:7", "band:300:5",
          "band:300:5:40", "emptyrows:300x200:4:60", "denserows:300x200:4:3"}) {
        SCOPED_TRACE(spec);
        const CsrMatrix a = tessera::bench::generate(spec, 11),
                        b = tessera::bench::generate(spec, 11);
        ASSERT_TRUE(valid_csr(a));
        EXPECT_GT(a.nnz(), 0);
        EXPECT_EQ(a.col, b.col);
        EXPECT_EQ(a.val, b.val);
    }
    const CsrMatrix empty = tessera::bench::generate("emptyrows:1000x100:4:60", 5);
    int64_t none = 0;
    for (int64_t i = 0; i < empty.rows; ++i) none += row_length(empty, i) == 0;
    EXPECT_GT(none, 500);
    EXPECT_LT(none, 700);
}

TEST(MatrixGenerators, BadFormsAreRefused) {
    // An unknown name or a wrong count of fields: the message lists the accepted forms.
    for (const char *spec : {"stencil9:4", "rmat:8", "denserows:10x10:2", "blockdiag:10"}) {
        SCOPED_TRACE(spec);
        try {
            tessera::bench::generate(spec, 1);
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument &e) {
            EXPECT_NE(std::string(e.what()).find("stencil27:N"), std::string::npos) << e.what();
        }
    }
    // Numbers out of range.
    for (const char *spec :
         {"rmat:8:4:100", "band:100:3:101", "emptyrows:10x10:2:100", "blockdiag:0:4"}) {
        SCOPED_TRACE(spec);
        EXPECT_THROW(tessera::bench::generate(spec, 1), std::invalid_argument);
    }
}

} // namespace
