// The Fortran BLAS doors sgemm_ / dgemm_ (32-bit integers) and their ILP64 twins sgemm_64_ /
// dgemm_64_, with the hidden character-length arguments gfortran passes.
#include "api/blas_errors.hpp"
#include "api/gemm_front.hpp"
#include "core/error.hpp"

namespace tessera::api {

namespace {

template <typename I, typename T>
void fortran_gemm(const char *name6, const char *routine, const char *transa, const char *transb,
                  const I *m, const I *n, const I *k, const T *alpha, const T *A, const I *lda,
                  const T *B, const I *ldb, const T *beta, T *C, const I *ldc) noexcept {
    if (gemm_tiny_quick<T>(nullptr, false, *transa, *transb, *m, *n, *k, *alpha, A, *lda, B, *ldb,
                           *beta, C, *ldc))
        return;
    GemmCheck c = check_gemm(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc, sizeof(T));
    if (c.info != 0) {
        report_xerbla(name6, c.info);
        return;
    }
    tsr_status s = core::guarded(routine, [&] {
        return submit_gemm<T>(nullptr, routine, TSR_COL_MAJOR, *transa, *transb, *m, *n, *k, *alpha,
                              A, *lda, B, *ldb, *beta, C, *ldc);
    });
    if (s != TSR_SUCCESS) report_blas_failure(routine);
}

} // namespace
} // namespace tessera::api

using tessera::api::fortran_gemm;

extern "C" {

TSR_API void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                    const int *k, const float *alpha, const float *A, const int *lda,
                    const float *B, const int *ldb, const float *beta, float *C, const int *ldc,
                    size_t, size_t) {
    fortran_gemm("SGEMM ", "sgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

TSR_API void dgemm_(const char *transa, const char *transb, const int *m, const int *n,
                    const int *k, const double *alpha, const double *A, const int *lda,
                    const double *B, const int *ldb, const double *beta, double *C, const int *ldc,
                    size_t, size_t) {
    fortran_gemm("DGEMM ", "dgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

TSR_API void sgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n,
                       const int64_t *k, const float *alpha, const float *A, const int64_t *lda,
                       const float *B, const int64_t *ldb, const float *beta, float *C,
                       const int64_t *ldc, size_t, size_t) {
    fortran_gemm("SGEMM ", "sgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

TSR_API void dgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n,
                       const int64_t *k, const double *alpha, const double *A, const int64_t *lda,
                       const double *B, const int64_t *ldb, const double *beta, double *C,
                       const int64_t *ldc, size_t, size_t) {
    fortran_gemm("DGEMM ", "dgemm", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

} // extern "C"
