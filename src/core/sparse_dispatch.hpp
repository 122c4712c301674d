// Dispatch of the sparse calls: which backend runs an optimize or a product, the quick
// returns, the single-thread rule inside OpenMP regions, timing and the verbose log.
#pragma once

#include "core/context.hpp"
#include "core/sparse_matrix.hpp"

namespace tessera::core {

// Chooses and builds the matrix's format for the backend of `ctx` (nullptr: default handle).
tsr_status sparse_optimize(tsr_context *ctx, tsr_sparse_matrix *m, tsr_format format);

// y = alpha·op(A)·x + beta·y; arguments already checked (op is N, T or C).
template <typename T>
tsr_status spmv(tsr_context *ctx, const char *routine, tsr_op op, T alpha, tsr_sparse_matrix *A,
                const T *x, T beta, T *y);

// Y = alpha·op(A)·X + beta·Y for dense blocks of k columns; arguments already checked.
template <typename T>
tsr_status spmm(tsr_context *ctx, const char *routine, tsr_layout layout, tsr_op op, int64_t k,
                T alpha, tsr_sparse_matrix *A, const T *X, int64_t ldx, T beta, T *Y, int64_t ldy);

} // namespace tessera::core
