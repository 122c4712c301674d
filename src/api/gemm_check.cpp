// The argument checks of reference BLAS xGEMM, in its order and with its parameter numbers:
// TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13; then the extents, which no valid
// call exceeds.
#include "api/gemm_front.hpp"

#include <algorithm>

namespace tessera::api {

GemmCheck check_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                     int64_t ldb, int64_t ldc, size_t elem_size) {
    const int64_t rows_a = op_transposes(transa) ? k : m, cols_a = op_transposes(transa) ? m : k;
    const int64_t rows_b = op_transposes(transb) ? n : k, cols_b = op_transposes(transb) ? k : n;
    if (!op_valid(transa)) return {1, 0};
    if (!op_valid(transb)) return {2, 0};
    if (m < 0) return {3, 0};
    if (n < 0) return {4, 0};
    if (k < 0) return {5, 0};
    if (lda < std::max<int64_t>(1, rows_a)) return {8, std::max<int64_t>(1, rows_a)};
    if (ldb < std::max<int64_t>(1, rows_b)) return {10, std::max<int64_t>(1, rows_b)};
    if (ldc < std::max<int64_t>(1, m)) return {13, std::max<int64_t>(1, m)};
    // A and B are read only when the product has work; C whenever it has elements.
    const bool product = m > 0 && n > 0 && k > 0;
    if (product && !extent_fits(rows_a, cols_a, lda, elem_size)) return {8, 0, true};
    if (product && !extent_fits(rows_b, cols_b, ldb, elem_size)) return {10, 0, true};
    if (!extent_fits(m, n, ldc, elem_size)) return {13, 0, true};
    return {};
}

} // namespace tessera::api
