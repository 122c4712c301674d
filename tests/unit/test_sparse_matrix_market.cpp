// The Matrix Market reader: each field and symmetry with its expansion, comments and blank
// lines, and every malformed input refused with its line named.
#include <gtest/gtest.h>

#include <string>

#include "matrix_market.hpp"

namespace {

using tessera::bench::CooMatrix;
using tessera::bench::MatrixMarketError;
using tessera::bench::parse_matrix_market;

TEST(MatrixMarket, GeneralRealWithComments) {
    const CooMatrix m = parse_matrix_market("%%MatrixMarket matrix coordinate real general\n"
                                            "% a comment\n\n"
                                            "3 4 3\n"
                                            "1 1 1.5\n"
                                            "3 4 -2e-3\n"
                                            "  2 2   7  \r\n",
                                            "t");
    EXPECT_EQ(m.rows, 3);
    EXPECT_EQ(m.cols, 4);
    ASSERT_EQ(m.nnz(), 3);
    EXPECT_EQ(m.row[1], 2);
    EXPECT_EQ(m.col[1], 3);
    EXPECT_DOUBLE_EQ(m.val[1], -2e-3);
    EXPECT_EQ(m.field, "real");
    EXPECT_EQ(m.symmetry, "general");
}

TEST(MatrixMarket, SymmetricIsExpanded) {
    const CooMatrix m = parse_matrix_market(
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 5\n3 2 -1\n", "t");
    ASSERT_EQ(m.nnz(), 5); // the diagonal once, each off-diagonal twice
    EXPECT_EQ(m.stored, 3);
    EXPECT_EQ(m.row[2], 0);
    EXPECT_EQ(m.col[2], 2);
    EXPECT_EQ(m.val[2], 5);
}

TEST(MatrixMarket, SkewSymmetricMirrorsNegated) {
    const CooMatrix m = parse_matrix_market(
        "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n", "t");
    ASSERT_EQ(m.nnz(), 2);
    EXPECT_EQ(m.val[0], 3);
    EXPECT_EQ(m.row[1], 0);
    EXPECT_EQ(m.col[1], 1);
    EXPECT_EQ(m.val[1], -3);
}

TEST(MatrixMarket, PatternIsOnesAndIntegerIsRead) {
    const CooMatrix p = parse_matrix_market(
        "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n", "t");
    ASSERT_EQ(p.nnz(), 3);
    for (double v : p.val) EXPECT_EQ(v, 1.0);
    const CooMatrix i = parse_matrix_market(
        "%%MatrixMarket MATRIX Coordinate Integer General\n1 2 1\n1 2 -4\n", "t");
    ASSERT_EQ(i.nnz(), 1);
    EXPECT_EQ(i.val[0], -4);
}

void expect_error(const std::string &text, const std::string &words) {
    try {
        parse_matrix_market(text, "bad.mtx");
        ADD_FAILURE() << "accepted: " << text;
    } catch (const MatrixMarketError &e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("bad.mtx:"), std::string::npos) << e.what();
    }
}

TEST(MatrixMarket, MalformedFilesAreRefused) {
    expect_error("", "empty file");
    expect_error("%%MatrixMark matrix coordinate real general\n1 1 0\n",
                 "no %%MatrixMarket banner");
    expect_error("%%MatrixMarket matrix array real general\n1 1\n1\n", "only 'coordinate'");
    expect_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
                 "field 'complex'");
    expect_error("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n",
                 "symmetry 'hermitian'");
    expect_error("%%MatrixMarket matrix coordinate real general\n", "no size line");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2\n", "size line needs");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n",
                 "outside the 2 x 2 matrix");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", "outside");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n",
                 "only 1 of the 2 entries");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n",
                 "more entries than");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", "expected a value");
    expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1 9\n",
                 "unexpected text");
    expect_error("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "must be square");
    expect_error("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 x\n",
                 "expected a column index");
}

// Counts that no file of this size can hold are refused before memory is reserved for them:
// 2^62 symmetric entries (whose doubling overflowed), 10^12 entries in a short file.
TEST(MatrixMarket, AnnouncedCountsBeyondTheFileAreRefused) {
    expect_error(
        "%%MatrixMarket matrix coordinate real symmetric\n4 4 4611686018427387904\n1 1 1\n",
        "announces 4611686018427387904 entries, but only 6 bytes follow");
    expect_error("%%MatrixMarket matrix coordinate pattern general\n9 9 1000000000000\n1 1\n2 2\n",
                 "announces 1000000000000 entries");
    // The largest count the bytes allow is still read (and then found short, or right).
    expect_error("%%MatrixMarket matrix coordinate pattern general\n9 9 3\n1 1\n2 2\n",
                 "only 2 of the 3");
}

// A device or a pipe has no end to read to: refused by name, not read until memory runs out.
TEST(MatrixMarket, OnlyRegularFilesAreRead) {
    for (const char *path : {"/dev/zero", "/dev/null", "/tmp"}) {
        try {
            tessera::bench::read_matrix_market(path);
            ADD_FAILURE() << path << ": no error";
        } catch (const MatrixMarketError &e) {
            EXPECT_NE(std::string(e.what()).find(std::string(path) + ": not a regular file"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(MatrixMarket, MissingFileIsNamed) {
    try {
        tessera::bench::read_matrix_market("/nonexistent/dir/m.mtx");
        ADD_FAILURE() << "no error";
    } catch (const MatrixMarketError &e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/m.mtx: cannot open"),
                  std::string::npos);
    }
}

} // namespace
