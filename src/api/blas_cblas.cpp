// The CBLAS doors cblas_sgemm / cblas_dgemm and their ILP64 twins. Errors go to cblas_xerbla
// with reference CBLAS's numbers; row-major ones are those of the swapped column-major call.
#include "api/blas_errors.hpp"
#include "api/gemm_front.hpp"
#include "core/error.hpp"

namespace tessera::api {

namespace {

// CBLAS's op value as a BLAS character, or 0 when it is none of 111, 112, 113.
char cblas_op(int op) {
    switch (op) {
    case TSR_OP_N: return 'N';
    case TSR_OP_T: return 'T';
    case TSR_OP_C: return 'C';
    }
    return 0;
}

template <typename I, typename T>
void cblas_gemm(const char *name, const char *routine, int layout, int transa, int transb, I m, I n,
                I k, T alpha, const T *A, I lda, const T *B, I ldb, T beta, T *C, I ldc) noexcept {
    if (layout != TSR_COL_MAJOR && layout != TSR_ROW_MAJOR) {
        cblas_xerbla(1, name, "Illegal layout setting, %d\n", layout);
        return;
    }
    const char ta = cblas_op(transa), tb = cblas_op(transb);
    if (!ta) {
        cblas_xerbla(2, name, "Illegal TransA setting, %d\n", transa);
        return;
    }
    if (!tb) {
        cblas_xerbla(3, name, "Illegal TransB setting, %d\n", transb);
        return;
    }
    // Reference CBLAS runs the Fortran checks on the (swapped, for row-major) column-major
    // call and adds one for the layout argument; we report the same numbers.
    const bool row = layout == TSR_ROW_MAJOR;
    if (gemm_tiny_quick<T>(nullptr, row, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
        return;
    GemmCheck c = row ? check_gemm(tb, ta, n, m, k, ldb, lda, ldc, sizeof(T))
                      : check_gemm(ta, tb, m, n, k, lda, ldb, ldc, sizeof(T));
    if (c.info != 0) {
        cblas_xerbla(c.info + 1, name, "");
        return;
    }
    tsr_status s = core::guarded(routine, [&] {
        return submit_gemm<T>(nullptr, routine, tsr_layout(layout), ta, tb, m, n, k, alpha, A, lda,
                              B, ldb, beta, C, ldc);
    });
    if (s != TSR_SUCCESS) report_blas_failure(name);
}

} // namespace
} // namespace tessera::api

using tessera::api::cblas_gemm;

extern "C" {

TSR_API void cblas_sgemm(int layout, int transa, int transb, int M, int N, int K, float alpha,
                         const float *A, int lda, const float *B, int ldb, float beta, float *C,
                         int ldc) {
    cblas_gemm("cblas_sgemm", "sgemm", layout, transa, transb, M, N, K, alpha, A, lda, B, ldb, beta,
               C, ldc);
}

TSR_API void cblas_dgemm(int layout, int transa, int transb, int M, int N, int K, double alpha,
                         const double *A, int lda, const double *B, int ldb, double beta, double *C,
                         int ldc) {
    cblas_gemm("cblas_dgemm", "dgemm", layout, transa, transb, M, N, K, alpha, A, lda, B, ldb, beta,
               C, ldc);
}

TSR_API void cblas_sgemm_64(int layout, int transa, int transb, int64_t M, int64_t N, int64_t K,
                            float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                            float beta, float *C, int64_t ldc) {
    cblas_gemm("cblas_sgemm", "sgemm", layout, transa, transb, M, N, K, alpha, A, lda, B, ldb, beta,
               C, ldc);
}

TSR_API void cblas_dgemm_64(int layout, int transa, int transb, int64_t M, int64_t N, int64_t K,
                            double alpha, const double *A, int64_t lda, const double *B,
                            int64_t ldb, double beta, double *C, int64_t ldc) {
    cblas_gemm("cblas_dgemm", "dgemm", layout, transa, transb, M, N, K, alpha, A, lda, B, ldb, beta,
               C, ldc);
}

} // extern "C"
