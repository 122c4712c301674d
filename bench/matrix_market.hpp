// A Matrix Market reader for sparse matrices: coordinate real / integer / pattern, general /
// symmetric / skew-symmetric. Used by tessera-bench spmv and by the tests.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::bench {

// A matrix as coordinates, 0-based, in file order; symmetric and skew-symmetric files are
// expanded (the mirror of each off-diagonal entry is added, negated for skew-symmetric) and
// pattern entries are ones. Duplicates are kept (the library sums them).
struct CooMatrix {
    int64_t rows = 0, cols = 0;
    std::vector<int64_t> row, col;
    std::vector<double> val;
    std::string field;    // "real", "integer" or "pattern"
    std::string symmetry; // "general", "symmetric" or "skew-symmetric"
    int64_t stored = 0;   // entries in the file, before expansion
    int64_t nnz() const { return int64_t(val.size()); }
};

// A file that cannot be read or is not a supported Matrix Market matrix; the message names
// the file, the line and the problem.
struct MatrixMarketError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

CooMatrix read_matrix_market(const std::string &path);
// The same from text already in memory (`name` is used in messages).
CooMatrix parse_matrix_market(const std::string &text, const std::string &name);

} // namespace tessera::bench
