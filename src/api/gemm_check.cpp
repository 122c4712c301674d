// The argument checks of reference BLAS xGEMM, in its order and with its parameter numbers:
// TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13.
#include "api/gemm_front.hpp"

#include <algorithm>

namespace tessera::api {

GemmCheck check_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                     int64_t ldb, int64_t ldc) {
    const int64_t rows_a = op_transposes(transa) ? k : m;
    const int64_t rows_b = op_transposes(transb) ? n : k;
    if (!op_valid(transa)) return {1, 0};
    if (!op_valid(transb)) return {2, 0};
    if (m < 0) return {3, 0};
    if (n < 0) return {4, 0};
    if (k < 0) return {5, 0};
    if (lda < std::max<int64_t>(1, rows_a)) return {8, std::max<int64_t>(1, rows_a)};
    if (ldb < std::max<int64_t>(1, rows_b)) return {10, std::max<int64_t>(1, rows_b)};
    if (ldc < std::max<int64_t>(1, m)) return {13, std::max<int64_t>(1, m)};
    return {};
}

} // namespace tessera::api
