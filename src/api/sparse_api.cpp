// The tsr_sparse_* and tsr_?spmv/tsr_?spmm entry points: argument checks with messages naming
// the fault, the copy of the user's arrays into canonical CSR (or their use in place), and the
// hand-off to dispatch.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/sparse_dispatch.hpp"
#include "sparse/assemble.hpp"
#include "sparse/measures.hpp"
#include "sparse/validate.hpp"

using tessera::core::fail;
using tessera::core::guarded;

namespace {

enum class Input { csr, coo, csr_view };

template <typename V, typename I>
tessera::sparse::Storage assemble(Input kind, int64_t rows, int64_t cols, int64_t nnz,
                                  const void *a, const void *col_idx, const void *values) {
    using namespace tessera::sparse;
    Typed<V, I> t;
    const auto *ia = static_cast<const I *>(a);
    const auto *ic = static_cast<const I *>(col_idx);
    const auto *v = static_cast<const V *>(values);
    switch (kind) {
    case Input::csr: t.csr = assemble_from_csr<V, I>(rows, cols, nnz, ia, ic, v); break;
    case Input::coo: t.csr = assemble_from_coo<V, I>(rows, cols, nnz, ia, ic, v); break;
    case Input::csr_view: t.csr = wrap_csr<V, I>(rows, cols, nnz, ia, ic, v); break;
    }
    t.rows = row_stats(rows, cols, t.csr.row_ptr.data());
    t.plan.reason = "as created";
    return Storage{std::move(t)};
}

template <typename I>
tessera::sparse::Fault check(Input kind, int64_t rows, int64_t cols, int64_t nnz, const void *a,
                             const void *col_idx, const void *values) {
    const auto *ia = static_cast<const I *>(a);
    const auto *ic = static_cast<const I *>(col_idx);
    if (kind == Input::coo) return tessera::sparse::check_coo<I>(rows, cols, nnz, ia, ic, values);
    tessera::sparse::Fault fault = tessera::sparse::check_csr<I>(rows, cols, nnz, ia, ic, values);
    if (fault.empty() && kind == Input::csr_view)
        if (const int64_t row = tessera::sparse::first_unsorted_row<I>(rows, ia, ic); row >= 0)
            fault = "the columns of row " + std::to_string(row) +
                    " are not strictly ascending (a matrix used in place must be canonical; "
                    "tsr_sparse_create_csr sorts a copy)";
    return fault;
}

tsr_status create(const char *name, Input kind, tsr_sparse *matrix, tsr_dtype dtype,
                  tsr_index_type itype, int64_t rows, int64_t cols, int64_t nnz, const void *a,
                  const void *col_idx, const void *values) {
    if (!matrix) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: matrix is NULL", name);
    if (dtype != TSR_F32 && dtype != TSR_F64)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: dtype = %d is not TSR_F32 or TSR_F64", name,
                    int(dtype));
    if (itype != TSR_INDEX_I32 && itype != TSR_INDEX_I64)
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: itype = %d is not TSR_INDEX_I32 or TSR_INDEX_I64", name, int(itype));
    const bool i32 = itype == TSR_INDEX_I32;
    tessera::sparse::Fault fault = i32 ? check<int32_t>(kind, rows, cols, nnz, a, col_idx, values)
                                       : check<int64_t>(kind, rows, cols, nnz, a, col_idx, values);
    if (!fault.empty()) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: %s", name, fault.c_str());

    auto m = std::make_unique<tsr_sparse_matrix>();
    m->dtype = dtype;
    m->itype = itype;
    m->rows = rows;
    m->cols = cols;
    if (dtype == TSR_F32)
        m->storage = i32 ? assemble<float, int32_t>(kind, rows, cols, nnz, a, col_idx, values)
                         : assemble<float, int64_t>(kind, rows, cols, nnz, a, col_idx, values);
    else
        m->storage = i32 ? assemble<double, int32_t>(kind, rows, cols, nnz, a, col_idx, values)
                         : assemble<double, int64_t>(kind, rows, cols, nnz, a, col_idx, values);
    tessera::core::refresh_view(m.get());
    *matrix = m.release();
    return TSR_SUCCESS;
}

bool format_valid(tsr_format f) {
    return f == TSR_FORMAT_AUTO || f == TSR_FORMAT_CSR || f == TSR_FORMAT_COO ||
           f == TSR_FORMAT_ELL || f == TSR_FORMAT_DIA || f == TSR_FORMAT_HYB;
}

// The checks every product makes of op and A; fills *trans, *out and *in (op(A)'s shape).
template <typename T>
tsr_status check_op_and_matrix(const char *name, tsr_op op, tsr_sparse A, const char *other_name,
                               int64_t *out, int64_t *in) {
    constexpr tsr_dtype dtype = sizeof(T) == 4 ? TSR_F32 : TSR_F64;
    if (op != TSR_OP_N && op != TSR_OP_T && op != TSR_OP_C)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: op = %d is not TSR_OP_N, TSR_OP_T or TSR_OP_C",
                    name, int(op));
    if (!A) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: A is NULL", name);
    if (A->dtype != dtype)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: A holds %s values; use %s", name,
                    A->dtype == TSR_F32 ? "TSR_F32" : "TSR_F64", other_name);
    const bool trans = op != TSR_OP_N;
    *out = trans ? A->cols : A->rows;
    *in = trans ? A->rows : A->cols;
    return TSR_SUCCESS;
}

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
bool overlap(const void *a, uint64_t a_bytes, const void *b, uint64_t b_bytes) {
    const auto a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
    return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

template <typename T>
tsr_status spmv(const char *name, tsr_handle handle, tsr_op op, T alpha, tsr_sparse A, const T *x,
                T beta, T *y) {
    int64_t out = 0, in = 0;
    if (tsr_status s = check_op_and_matrix<T>(
            name, op, A, A && A->dtype == TSR_F32 ? "tsr_sspmv" : "tsr_dspmv", &out, &in);
        s != TSR_SUCCESS)
        return s;
    if (out > 0 && !y) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: y is NULL", name);
    if (out > 0 && in > 0 && alpha != T(0) && tessera::core::nnz_of(A) > 0 && !x)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: x is NULL", name);
    // y is written while x is read, in any order: they must not share an element.
    if (x && y && in > 0 && out > 0 &&
        overlap(x, uint64_t(in) * sizeof(T), y, uint64_t(out) * sizeof(T)))
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: x and y overlap (y must be a separate array)",
                    name);
    return tessera::core::spmv<T>(handle, name + 4, op, alpha, A, x, beta, y);
}

// The bytes a dense block of `rows` × `cols` spans from its first element to its last, in
// `layout` with leading dimension ld (already checked): 0 for an empty block; -1 beyond what
// an address range can hold.
int64_t block_span(tsr_layout layout, int64_t rows, int64_t cols, int64_t ld, size_t elem) {
    if (rows == 0 || cols == 0) return 0;
    const int64_t lines = layout == TSR_ROW_MAJOR ? rows : cols;
    const int64_t along = layout == TSR_ROW_MAJOR ? cols : rows;
    int64_t elems = 0, bytes = 0;
    if (__builtin_mul_overflow(lines - 1, ld, &elems) ||
        __builtin_add_overflow(elems, along, &elems) ||
        __builtin_mul_overflow(elems, int64_t(elem), &bytes))
        return -1;
    return bytes;
}

template <typename T>
tsr_status spmm(const char *name, tsr_handle handle, tsr_layout layout, tsr_op op, int64_t k,
                T alpha, tsr_sparse A, const T *X, int64_t ldx, T beta, T *Y, int64_t ldy) {
    if (layout != TSR_ROW_MAJOR && layout != TSR_COL_MAJOR)
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: layout = %d is not TSR_ROW_MAJOR or TSR_COL_MAJOR", name, int(layout));
    int64_t out = 0, in = 0;
    if (tsr_status s = check_op_and_matrix<T>(
            name, op, A, A && A->dtype == TSR_F32 ? "tsr_sspmm" : "tsr_dspmm", &out, &in);
        s != TSR_SUCCESS)
        return s;
    if (k < 0)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: k = %lld is negative", name, (long long)k);
    const bool row_major = layout == TSR_ROW_MAJOR;
    const int64_t need_x = std::max<int64_t>(1, row_major ? k : in);
    const int64_t need_y = std::max<int64_t>(1, row_major ? k : out);
    if (ldx < need_x)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: ldx = %lld is less than %lld (%s)", name,
                    (long long)ldx, (long long)need_x, row_major ? "k" : "the rows of X");
    if (ldy < need_y)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: ldy = %lld is less than %lld (%s)", name,
                    (long long)ldy, (long long)need_y, row_major ? "k" : "the rows of Y");
    const int64_t x_bytes = block_span(layout, in, k, ldx, sizeof(T));
    const int64_t y_bytes = block_span(layout, out, k, ldy, sizeof(T));
    if (x_bytes < 0 || y_bytes < 0)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: %s spans more bytes than an address can reach",
                    name, x_bytes < 0 ? "X" : "Y");
    if (y_bytes > 0 && !Y) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: Y is NULL", name);
    const bool reads_x = y_bytes > 0 && in > 0 && alpha != T(0) && tessera::core::nnz_of(A) > 0;
    if (reads_x && !X) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: X is NULL", name);
    // Y is written while X is read, in any order: their spans must not meet.
    if (X && Y && x_bytes > 0 && y_bytes > 0 && overlap(X, uint64_t(x_bytes), Y, uint64_t(y_bytes)))
        return fail(TSR_ERR_INVALID_ARGUMENT,
                    "%s: X and Y overlap (Y must not share memory with X)", name);
    return tessera::core::spmm<T>(handle, name + 4, layout, op, k, alpha, A, X, ldx, beta, Y, ldy);
}

} // namespace

extern "C" {

TSR_API tsr_status tsr_sparse_create_csr(tsr_handle, tsr_sparse *matrix, tsr_dtype dtype,
                                         tsr_index_type itype, int64_t rows, int64_t cols,
                                         int64_t nnz, const void *row_ptr, const void *col_idx,
                                         const void *values) {
    return guarded("tsr_sparse_create_csr", [&] {
        return create("tsr_sparse_create_csr", Input::csr, matrix, dtype, itype, rows, cols, nnz,
                      row_ptr, col_idx, values);
    });
}

TSR_API tsr_status tsr_sparse_create_csr_view(tsr_handle, tsr_sparse *matrix, tsr_dtype dtype,
                                              tsr_index_type itype, int64_t rows, int64_t cols,
                                              int64_t nnz, const void *row_ptr, const void *col_idx,
                                              const void *values) {
    return guarded("tsr_sparse_create_csr_view", [&] {
        return create("tsr_sparse_create_csr_view", Input::csr_view, matrix, dtype, itype, rows,
                      cols, nnz, row_ptr, col_idx, values);
    });
}

TSR_API tsr_status tsr_sparse_create_coo(tsr_handle, tsr_sparse *matrix, tsr_dtype dtype,
                                         tsr_index_type itype, int64_t rows, int64_t cols,
                                         int64_t nnz, const void *row_idx, const void *col_idx,
                                         const void *values) {
    return guarded("tsr_sparse_create_coo", [&] {
        return create("tsr_sparse_create_coo", Input::coo, matrix, dtype, itype, rows, cols, nnz,
                      row_idx, col_idx, values);
    });
}

TSR_API tsr_status tsr_sparse_optimize(tsr_handle handle, tsr_sparse matrix, tsr_format format) {
    return guarded("tsr_sparse_optimize", [&] {
        if (!matrix) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_sparse_optimize: matrix is NULL");
        if (!format_valid(format))
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "tsr_sparse_optimize: format = %d is not a tsr_format", int(format));
        return tessera::core::sparse_optimize(handle, matrix, format);
    });
}

TSR_API tsr_status tsr_sparse_get_format(tsr_sparse matrix, tsr_format *format) {
    return guarded("tsr_sparse_get_format", [&] {
        if (!matrix) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_sparse_get_format: matrix is NULL");
        if (!format) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_sparse_get_format: format is NULL");
        *format = tessera::core::plan_of(matrix).format;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_sparse_destroy(tsr_sparse matrix) {
    return guarded("tsr_sparse_destroy", [&] {
        if (!matrix) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_sparse_destroy: matrix is NULL");
        delete matrix;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_sspmv(tsr_handle handle, tsr_op op, float alpha, tsr_sparse A,
                             const float *x, float beta, float *y) {
    return guarded("tsr_sspmv",
                   [&] { return spmv<float>("tsr_sspmv", handle, op, alpha, A, x, beta, y); });
}

TSR_API tsr_status tsr_dspmv(tsr_handle handle, tsr_op op, double alpha, tsr_sparse A,
                             const double *x, double beta, double *y) {
    return guarded("tsr_dspmv",
                   [&] { return spmv<double>("tsr_dspmv", handle, op, alpha, A, x, beta, y); });
}

TSR_API tsr_status tsr_sspmm(tsr_handle handle, tsr_layout layout, tsr_op op, int64_t k,
                             float alpha, tsr_sparse A, const float *X, int64_t ldx, float beta,
                             float *Y, int64_t ldy) {
    return guarded("tsr_sspmm", [&] {
        return spmm<float>("tsr_sspmm", handle, layout, op, k, alpha, A, X, ldx, beta, Y, ldy);
    });
}

TSR_API tsr_status tsr_dspmm(tsr_handle handle, tsr_layout layout, tsr_op op, int64_t k,
                             double alpha, tsr_sparse A, const double *X, int64_t ldx, double beta,
                             double *Y, int64_t ldy) {
    return guarded("tsr_dspmm", [&] {
        return spmm<double>("tsr_dspmm", handle, layout, op, k, alpha, A, X, ldx, beta, Y, ldy);
    });
}

} // extern "C"
