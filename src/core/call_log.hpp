// The TESSERA_VERBOSE=1 call log: one line per call on stderr with routine, layout, ops,
// sizes, backend, threads, seconds and GFLOP/s (GB/s for gemv; the format for sparse calls).
#pragma once

#include "core/dispatch.hpp"

namespace tessera::core {

void log_gemm(const GemmTrace &trace, const char *backend, const char *why, int threads,
              double seconds);

// A dense matrix-vector product as the user called it (sizes and op as given, before a
// row-major call is folded); the line reports the bytes of A, x and y moved per second.
struct GemvTrace {
    const char *routine; // "sgemv", "dgemv"
    tsr_layout layout;
    char op; // 'N', 'T' or 'C' as the user gave it
    int64_t m, n, incx, incy;
    int elem_size; // 4 or 8
};
void log_gemv(const GemvTrace &trace, const char *backend, const char *why, int threads,
              double seconds);

// A sparse product as the user called it, and the format and kernel it ran with.
struct SpmvTrace {
    const char *routine; // "sspmv", "dspmv", "sspmm", "dspmm"
    char op;             // 'N', 'T' or 'C'
    int64_t rows, cols, nnz;
    const char *format, *kernel;
    int64_t k = 1; // columns of a block product (spmm); 1 for spmv
};
void log_spmv(const SpmvTrace &trace, const char *backend, const char *why, int threads,
              double seconds);

// A tsr_sparse_optimize: what was asked, what was chosen and why.
void log_sparse_optimize(const SpmvTrace &matrix, const char *requested, const char *backend,
                         const char *reason, double seconds);

} // namespace tessera::core
