// Test helpers for sparse × dense products (tsr_?spmm): the case (layout, op, k, padding of the
// leading dimensions, alpha, beta), and the check against a long double oracle with the bound
// of sparse_support.hpp per element, poisoned padding that must stay as it was, and NaN in
// what must not be read.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparse_support.hpp"
#include "tessera/tessera.h"

namespace tessera::test {

struct BlockCase {
    tsr_layout layout;
    tsr_op op;
    int64_t k;   // columns of X and Y
    int64_t pad; // leading dimensions exceed the minimum by this much
    double alpha, beta;
};
std::string describe(const BlockCase &c);

// How check_block_product hands X and Y to the library: by default tsr_sspmm / tsr_dspmm on
// the host arrays; the CUDA tests pass device copies and bring Y back.
template <typename T>
using BlockRunner = std::function<tsr_status(tsr_handle h, const BlockCase &c, T alpha,
                                             tsr_sparse A, const std::vector<T> &X, int64_t ldx,
                                             T beta, std::vector<T> &Y, int64_t ldy)>;

// Y = alpha·op(A)·X + beta·Y with fresh random X and Y (from the test's stream and `seed`), Y
// all NaN when beta == 0 and X all NaN when alpha == 0; the padding of X is NaN (never read)
// and that of Y a sentinel that must survive. Compared with the oracle from `e`.
template <typename T>
::testing::AssertionResult check_block_product(tsr_handle h, tsr_sparse A, const Entries &e,
                                               const BlockCase &c, uint64_t seed,
                                               const BlockRunner<T> &run = {});

} // namespace tessera::test
