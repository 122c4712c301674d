// The tsr_sgemm / tsr_dgemm door: checks with messages that name the argument in the
// caller's own terms (layout-aware), then hands the call to dispatch.
#include <cinttypes>

#include "api/gemm_front.hpp"
#include "core/error.hpp"

namespace tessera::api {

tsr_status check_tsr_gemm(const char *name, tsr_layout layout, tsr_op transa, tsr_op transb,
                          int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                          size_t elem_size) {
    using core::fail;
    if (layout != TSR_ROW_MAJOR && layout != TSR_COL_MAJOR)
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: layout = %d is not TSR_ROW_MAJOR or TSR_COL_MAJOR", name, int(layout));
    const char ta = op_letter(transa), tb = op_letter(transb);
    if (ta == '?')
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: transa = %d is not TSR_OP_N, TSR_OP_T or TSR_OP_C", name, int(transa));
    if (tb == '?')
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: transb = %d is not TSR_OP_N, TSR_OP_T or TSR_OP_C", name, int(transb));

    // The column-major call a row-major one becomes swaps (A, lda) with (B, ldb) and m with n.
    const bool row = layout == TSR_ROW_MAJOR;
    GemmCheck c = row ? check_gemm(tb, ta, n, m, k, ldb, lda, ldc, elem_size)
                      : check_gemm(ta, tb, m, n, k, lda, ldb, ldc, elem_size);
    const char *order = row ? "row-major" : "column-major";
    if (c.extent) {
        const char *which = c.info == 13 ? "C" : ((c.info == 8) != row ? "A" : "B");
        const int64_t ld = c.info == 13 ? ldc : ((c.info == 8) != row ? lda : ldb);
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: %s as described (m = %" PRId64 ", n = %" PRId64 ", k = %" PRId64
                    ", ld%c = %" PRId64 ") extends beyond the address space",
                    name, which, m, n, k, which[0] + ('a' - 'A'), ld);
    }
    switch (c.info) {
    case 0: return TSR_SUCCESS;
    case 3:
    case 4: {
        const bool is_m = (c.info == 3) != row;
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: %s = %" PRId64 " is negative", name,
                    is_m ? "m" : "n", is_m ? m : n);
    }
    case 5: return fail(TSR_ERR_INVALID_ARGUMENT, "%s: k = %" PRId64 " is negative", name, k);
    case 8:
    case 10: {
        const bool is_a = (c.info == 8) != row;
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: %s = %" PRId64
                    " is too small: a %s %s with trans%c = %c needs %s >= %" PRId64,
                    name, is_a ? "lda" : "ldb", is_a ? lda : ldb, order, is_a ? "A" : "B",
                    is_a ? 'a' : 'b', is_a ? ta : tb, is_a ? "lda" : "ldb", c.minimum);
    }
    case 13:
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: ldc = %" PRId64 " is too small: a %s C needs ldc >= %" PRId64, name, ldc,
                    order, c.minimum);
    default: return fail(TSR_ERR_INTERNAL, "%s: unexpected check result %d", name, c.info);
    }
}

namespace {

template <typename T>
tsr_status tsr_gemm(const char *name, tsr_handle h, tsr_layout layout, tsr_op transa, tsr_op transb,
                    int64_t m, int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B,
                    int64_t ldb, T beta, T *C, int64_t ldc) {
    if ((layout == TSR_COL_MAJOR || layout == TSR_ROW_MAJOR) &&
        gemm_tiny_quick(h, layout == TSR_ROW_MAJOR, op_letter(transa), op_letter(transb), m, n, k,
                        alpha, A, lda, B, ldb, beta, C, ldc))
        return TSR_SUCCESS;
    if (tsr_status s =
            check_tsr_gemm(name, layout, transa, transb, m, n, k, lda, ldb, ldc, sizeof(T));
        s != TSR_SUCCESS)
        return s;
    const bool reads_ab = m > 0 && n > 0 && k > 0 && alpha != T(0);
    if ((reads_ab && (!A || !B)) || (m > 0 && n > 0 && !C))
        return core::fail(TSR_ERR_INVALID_ARGUMENT, "%s: %s is NULL", name,
                          (m > 0 && n > 0 && !C) ? "C" : (!A ? "A" : "B"));
    return submit_gemm(h, name + 4, layout, op_letter(transa), op_letter(transb), m, n, k, alpha, A,
                       lda, B, ldb, beta, C, ldc);
}

} // namespace
} // namespace tessera::api

extern "C" {

TSR_API tsr_status tsr_sgemm(tsr_handle handle, tsr_layout layout, tsr_op transa, tsr_op transb,
                             int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                             int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                             int64_t ldc) {
    return tessera::core::guarded("tsr_sgemm", [&] {
        return tessera::api::tsr_gemm("tsr_sgemm", handle, layout, transa, transb, m, n, k, alpha,
                                      A, lda, B, ldb, beta, C, ldc);
    });
}

TSR_API tsr_status tsr_dgemm(tsr_handle handle, tsr_layout layout, tsr_op transa, tsr_op transb,
                             int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                             int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                             int64_t ldc) {
    return tessera::core::guarded("tsr_dgemm", [&] {
        return tessera::api::tsr_gemm("tsr_dgemm", handle, layout, transa, transb, m, n, k, alpha,
                                      A, lda, B, ldb, beta, C, ldc);
    });
}

} // extern "C"
