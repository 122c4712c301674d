// The tsr_sparse_* and tsr_?spmv entry points: argument checks with messages naming the fault,
// the copy of the user's arrays into canonical CSR, and the hand-off to dispatch.
#include <cstdint>
#include <memory>

#include "core/error.hpp"
#include "core/sparse_dispatch.hpp"
#include "sparse/assemble.hpp"
#include "sparse/measures.hpp"
#include "sparse/validate.hpp"

using tessera::core::fail;
using tessera::core::guarded;

namespace {

enum class Input { csr, coo };

template <typename V, typename I>
tessera::sparse::Storage assemble(Input kind, int64_t rows, int64_t cols, int64_t nnz,
                                  const void *a, const void *col_idx, const void *values) {
    using namespace tessera::sparse;
    Typed<V, I> t;
    t.csr = kind == Input::csr ? assemble_from_csr<V, I>(rows, cols, nnz, static_cast<const I *>(a),
                                                         static_cast<const I *>(col_idx),
                                                         static_cast<const V *>(values))
                               : assemble_from_coo<V, I>(rows, cols, nnz, static_cast<const I *>(a),
                                                         static_cast<const I *>(col_idx),
                                                         static_cast<const V *>(values));
    t.rows = row_stats(rows, cols, t.csr.row_ptr.data());
    t.plan.reason = "as created";
    return Storage{std::move(t)};
}

template <typename I>
tessera::sparse::Fault check(Input kind, int64_t rows, int64_t cols, int64_t nnz, const void *a,
                             const void *col_idx, const void *values) {
    return kind == Input::csr
               ? tessera::sparse::check_csr<I>(rows, cols, nnz, static_cast<const I *>(a),
                                               static_cast<const I *>(col_idx), values)
               : tessera::sparse::check_coo<I>(rows, cols, nnz, static_cast<const I *>(a),
                                               static_cast<const I *>(col_idx), values);
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
    *matrix = m.release();
    return TSR_SUCCESS;
}

bool format_valid(tsr_format f) {
    return f == TSR_FORMAT_AUTO || f == TSR_FORMAT_CSR || f == TSR_FORMAT_COO ||
           f == TSR_FORMAT_ELL || f == TSR_FORMAT_DIA || f == TSR_FORMAT_HYB;
}

template <typename T>
tsr_status spmv(const char *name, tsr_handle handle, tsr_op op, T alpha, tsr_sparse A, const T *x,
                T beta, T *y) {
    constexpr tsr_dtype dtype = sizeof(T) == 4 ? TSR_F32 : TSR_F64;
    if (op != TSR_OP_N && op != TSR_OP_T && op != TSR_OP_C)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: op = %d is not TSR_OP_N, TSR_OP_T or TSR_OP_C",
                    name, int(op));
    if (!A) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: A is NULL", name);
    if (A->dtype != dtype)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: A holds %s values; use %s", name,
                    A->dtype == TSR_F32 ? "TSR_F32" : "TSR_F64",
                    A->dtype == TSR_F32 ? "tsr_sspmv" : "tsr_dspmv");
    const bool trans = op != TSR_OP_N;
    const int64_t out = trans ? A->cols : A->rows, in = trans ? A->rows : A->cols;
    if (out > 0 && !y) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: y is NULL", name);
    if (out > 0 && in > 0 && alpha != T(0) && tessera::core::nnz_of(A) > 0 && !x)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: x is NULL", name);
    // y is written while x is read, in any order: they must not share an element.
    if (x && y && in > 0 && out > 0) {
        const auto x0 = reinterpret_cast<uintptr_t>(x), y0 = reinterpret_cast<uintptr_t>(y);
        if (x0 < y0 + uintptr_t(out) * sizeof(T) && y0 < x0 + uintptr_t(in) * sizeof(T))
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "%s: x and y overlap (y must be a separate array)", name);
    }
    return tessera::core::spmv<T>(handle, name + 4, op, alpha, A, x, beta, y);
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

} // extern "C"
