// The gemv doors: Fortran sgemv_ / dgemv_ and CBLAS cblas_sgemv / cblas_dgemv with their ILP64
// twins. Reference-BLAS checks and numbers, the row-major fold, and the call on the CPU kernels.
#include <chrono>
#include <cstdlib>

#include "api/blas_errors.hpp"
#include "api/gemm_front.hpp"
#include "core/call_log.hpp"
#include "core/config.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/threads.hpp"
#include "cpu/gemv.hpp"

namespace tessera::api {

namespace {

// Reference xGEMV's checks in its order: the Fortran number of the first bad argument
// (1 TRANS, 2 M, 3 N, 6 LDA, 8 INCX, 11 INCY), 0 when all are valid. An A whose last element
// cannot be addressed counts as a bad LDA.
int check_gemv(char trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy,
               size_t elem_size) {
    if (!op_valid(trans)) return 1;
    if (m < 0) return 2;
    if (n < 0) return 3;
    if (lda < std::max<int64_t>(1, m) || !extent_fits(m, n, lda, elem_size)) return 6;
    if (incx == 0) return 8;
    if (incy == 0) return 11;
    return 0;
}

// A checked call in either layout, folded to column-major (row-major A is column-major A^T,
// so the op flips and m, n swap) and run on the CPU kernels, with the call log.
template <typename T>
tsr_status submit_gemv(const char *routine, tsr_layout layout, char trans, int64_t m, int64_t n,
                       T alpha, const T *A, int64_t lda, const T *x, int64_t incx, T beta, T *y,
                       int64_t incy) {
    const bool verbose = core::config().verbose;
    const core::GemvTrace trace{routine, layout, op_upper(trans), m, n, incx, incy, int(sizeof(T))};
    if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) {
        if (verbose) core::log_gemv(trace, "none", "quick return", 0, 0.0);
        return TSR_SUCCESS;
    }
    tsr_context *ctx = core::default_context();
    if (!ctx)
        return core::fail(TSR_ERR_OUT_OF_MEMORY, "%s: cannot create the default handle", routine);
    const bool row = layout == TSR_ROW_MAJOR;
    const cpu::GemvArgs<T> args{op_transposes(trans) != row,
                                row ? n : m,
                                row ? m : n,
                                alpha,
                                A,
                                lda,
                                x,
                                incx,
                                beta,
                                y,
                                incy};
    const int max_threads = core::call_threads(ctx->num_threads);
    if (!verbose) {
        cpu::gemv(args, max_threads);
        return TSR_SUCCESS;
    }
    const auto start = std::chrono::steady_clock::now();
    const int threads = cpu::gemv(args, max_threads);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    core::log_gemv(trace, "cpu", cpu::gemv_isa(), threads, took.count());
    return TSR_SUCCESS;
}

template <typename I, typename T>
void fortran_gemv(const char *name6, const char *routine, const char *trans, const I *m, const I *n,
                  const T *alpha, const T *A, const I *lda, const T *x, const I *incx,
                  const T *beta, T *y, const I *incy) noexcept {
    if (int info = check_gemv(*trans, *m, *n, *lda, *incx, *incy, sizeof(T)); info != 0) {
        report_xerbla(name6, info);
        return;
    }
    tsr_status s = core::guarded(routine, [&] {
        return submit_gemv<T>(routine, TSR_COL_MAJOR, *trans, *m, *n, *alpha, A, *lda, x, *incx,
                              *beta, y, *incy);
    });
    if (s != TSR_SUCCESS) report_blas_failure(routine);
}

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
void cblas_gemv(const char *name, const char *routine, int layout, int trans, I m, I n, T alpha,
                const T *A, I lda, const T *x, I incx, T beta, T *y, I incy) noexcept {
    if (layout != TSR_COL_MAJOR && layout != TSR_ROW_MAJOR) {
        cblas_xerbla(1, name, "Illegal layout setting, %d\n", layout);
        return;
    }
    const char t = cblas_op(trans);
    if (!t) {
        cblas_xerbla(2, name, "Illegal TransA setting, %d\n", trans);
        return;
    }
    // As reference CBLAS: the Fortran checks of the (swapped, for row-major) column-major call,
    // plus one for the layout argument.
    const bool row = layout == TSR_ROW_MAJOR;
    const int info =
        row ? check_gemv(op_transposes(t) ? 'N' : 'T', n, m, lda, incx, incy, sizeof(T))
            : check_gemv(t, m, n, lda, incx, incy, sizeof(T));
    if (info != 0) {
        cblas_xerbla(info + 1, name, "");
        return;
    }
    tsr_status s = core::guarded(routine, [&] {
        return submit_gemv<T>(routine, tsr_layout(layout), t, m, n, alpha, A, lda, x, incx, beta, y,
                              incy);
    });
    if (s != TSR_SUCCESS) report_blas_failure(name);
}

} // namespace
} // namespace tessera::api

using tessera::api::cblas_gemv;
using tessera::api::fortran_gemv;

extern "C" {

TSR_API void sgemv_(const char *trans, const int *m, const int *n, const float *alpha,
                    const float *A, const int *lda, const float *x, const int *incx,
                    const float *beta, float *y, const int *incy, size_t) {
    fortran_gemv("SGEMV ", "sgemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

TSR_API void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
                    const double *A, const int *lda, const double *x, const int *incx,
                    const double *beta, double *y, const int *incy, size_t) {
    fortran_gemv("DGEMV ", "dgemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

TSR_API void sgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha,
                       const float *A, const int64_t *lda, const float *x, const int64_t *incx,
                       const float *beta, float *y, const int64_t *incy, size_t) {
    fortran_gemv("SGEMV ", "sgemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

TSR_API void dgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const double *alpha,
                       const double *A, const int64_t *lda, const double *x, const int64_t *incx,
                       const double *beta, double *y, const int64_t *incy, size_t) {
    fortran_gemv("DGEMV ", "dgemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

TSR_API void cblas_sgemv(int layout, int trans, int M, int N, float alpha, const float *A, int lda,
                         const float *X, int incX, float beta, float *Y, int incY) {
    cblas_gemv("cblas_sgemv", "sgemv", layout, trans, M, N, alpha, A, lda, X, incX, beta, Y, incY);
}

TSR_API void cblas_dgemv(int layout, int trans, int M, int N, double alpha, const double *A,
                         int lda, const double *X, int incX, double beta, double *Y, int incY) {
    cblas_gemv("cblas_dgemv", "dgemv", layout, trans, M, N, alpha, A, lda, X, incX, beta, Y, incY);
}

TSR_API void cblas_sgemv_64(int layout, int trans, int64_t M, int64_t N, float alpha,
                            const float *A, int64_t lda, const float *X, int64_t incX, float beta,
                            float *Y, int64_t incY) {
    cblas_gemv("cblas_sgemv", "sgemv", layout, trans, M, N, alpha, A, lda, X, incX, beta, Y, incY);
}

TSR_API void cblas_dgemv_64(int layout, int trans, int64_t M, int64_t N, double alpha,
                            const double *A, int64_t lda, const double *X, int64_t incX,
                            double beta, double *Y, int64_t incY) {
    cblas_gemv("cblas_dgemv", "dgemv", layout, trans, M, N, alpha, A, lda, X, incX, beta, Y, incY);
}

} // extern "C"
