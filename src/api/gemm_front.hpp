// Shared by the three gemm doors (tsr_*, Fortran, CBLAS): reference-BLAS argument checks and
// the fold of a call in either layout into one column-major descriptor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/dispatch.hpp"
#include "cpu/backend.hpp"

namespace tessera::api {

// 'N', 'T' or 'C' (either case) are valid ops; 'C' means 'T' for real types.
inline bool op_valid(char c) {
    return c == 'N' || c == 'n' || c == 'T' || c == 't' || c == 'C' || c == 'c';
}
inline bool op_transposes(char c) { return c != 'N' && c != 'n'; }
// The letter of a tsr_op ('N', 'T', 'C'), '?' for a value outside the enum.
inline char op_letter(tsr_op op) {
    switch (op) {
    case TSR_OP_N: return 'N';
    case TSR_OP_T: return 'T';
    case TSR_OP_C: return 'C';
    }
    return '?';
}
inline char op_upper(char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; }

// Result of the reference xGEMM checks, in its order: info is the 1-based Fortran parameter
// number of the first bad argument (0 when all are valid); `minimum` is the smallest legal
// value for a leading-dimension failure. `extent` marks a matrix whose last element, at
// (rows - 1) + (cols - 1)·ld, lies beyond what a pointer can address: info then names its
// leading dimension, and nothing is read or written.
struct GemmCheck {
    int info = 0;
    int64_t minimum = 0;
    bool extent = false;
};
GemmCheck check_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                     int64_t ldb, int64_t ldc, size_t elem_size);
// Whether rows × cols elements with leading dimension ld can be addressed at all: the last one,
// at (rows - 1) + (cols - 1)·ld, within PTRDIFF_MAX bytes. Inline, with a first test that
// settles every size below 2^28 (whose span cannot reach 2^59 bytes): this runs on every call.
inline bool extent_fits(int64_t rows, int64_t cols, int64_t ld, size_t elem_size) {
    if (rows <= 0 || cols <= 0) return true;
    if ((uint64_t(rows) | uint64_t(cols) | uint64_t(ld)) < (uint64_t(1) << 28)) return true;
    const int64_t max_elements = int64_t(PTRDIFF_MAX / ptrdiff_t(elem_size));
    int64_t span = 0;
    if (__builtin_mul_overflow(cols - 1, ld, &span) || __builtin_add_overflow(span, rows, &span))
        return false;
    return span <= max_elements;
}

// The tsr_* door's checks (enums, then check_gemm) with a message naming the argument in the
// caller's own terms; TSR_SUCCESS or TSR_ERR_INVALID_ARGUMENT with tsr_last_error() set.
tsr_status check_tsr_gemm(const char *name, tsr_layout layout, tsr_op transa, tsr_op transb,
                          int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                          size_t elem_size);

// The quick way of the tiniest products, for every gemm door before its checks: m, n and k
// from 1 to kTinySide, op(A) of the column-major call (after the fold of a row-major one) not
// transposed, op(B) a valid op, each leading dimension at least its minimum and below 2^28,
// alpha not 0, no operand NULL. Every argument check passes under these conditions, and the
// product goes straight to the CPU kernel that check_gemm, submit_gemm and core::gemm_planned
// would reach (cpu::tiny_direct), where core::direct_allowed says so. False: nothing done,
// the door's own way.
constexpr int64_t kTinySide = 64;
template <typename T>
inline bool gemm_tiny_quick(tsr_context *ctx, bool row, char ta, char tb, int64_t m, int64_t n,
                            int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,
                            T beta, T *C, int64_t ldc) {
    if (row) { // row-major C = op(A)op(B) is column-major C^T = op(B)^T op(A)^T
        std::swap(ta, tb);
        std::swap(m, n);
        std::swap(A, B);
        std::swap(lda, ldb);
    }
    if ((ta != 'N' && ta != 'n') || !op_valid(tb)) return false;
    if (m < 1 || n < 1 || k < 1 || m > kTinySide || n > kTinySide || k > kTinySide) return false;
    const bool tb_t = op_transposes(tb);
    if (lda < m || ldb < (tb_t ? n : k) || ldc < m || ((lda | ldb | ldc) >> 28) != 0) return false;
    if (alpha == T(0) || !A || !B || !C) return false;
    const core::HostDirectFn<T> f = cpu::tiny_direct<T>(m, n, k);
    if (!f || !core::direct_allowed(ctx)) return false;
    f(m, n, k, alpha, A, lda, B, tb_t ? ldb : 1, tb_t ? 1 : ldb, beta, C, ldc);
    return true;
}

// Folds a checked call in `layout` into a column-major one (row-major C = op(A)op(B) is
// column-major C^T = op(B)^T op(A)^T) and dispatches it. A product the CPU would run unpacked
// on one thread (cpu::planned_direct) goes the way of a plan's (core::gemm_planned): straight
// to that kernel where the handle's backend, the call log and the CUDA driver allow, else the
// whole dispatch; a tiny product is then not charged for the routing, the thread count and
// the CPU driver's own choice of path.
template <typename T>
tsr_status submit_gemm(tsr_context *ctx, const char *routine, tsr_layout layout, char transa,
                       char transb, int64_t m, int64_t n, int64_t k, T alpha, const T *A,
                       int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc) {
    core::GemmTrace trace{routine, layout, op_upper(transa), op_upper(transb), m, n, k};
    core::GemmArgs<T> args;
    if (layout == TSR_COL_MAJOR)
        args = {op_transposes(transa),
                op_transposes(transb),
                m,
                n,
                k,
                alpha,
                A,
                lda,
                B,
                ldb,
                beta,
                C,
                ldc};
    else
        args = {op_transposes(transb),
                op_transposes(transa),
                n,
                m,
                k,
                alpha,
                B,
                ldb,
                A,
                lda,
                beta,
                C,
                ldc};
    if (const core::HostDirectFn<T> direct = cpu::planned_direct(args))
        return core::gemm_planned(ctx, args, trace, direct);
    return core::gemm(ctx, args, trace);
}

} // namespace tessera::api
