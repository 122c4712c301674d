// The backend table: the function pointers every backend (reference, cpu, cuda plugin)
// fills in, and the column-major call descriptor they receive. No layouts or Fortran here.
#pragma once

#include <cstdint>

#include "tessera/tessera.h"

namespace tessera::sparse {
struct Storage;
}

namespace tessera::core {

// C = alpha·op(A)·op(B) + beta·C, column-major, arguments already checked. Backends are
// only called when m, n > 0 and the call is not a quick return; k == 0 or alpha == 0 may
// still arrive (then C = beta·C without reading A or B; beta == 0 never reads C).
template <typename T> struct GemmArgs {
    bool trans_a, trans_b;
    int64_t m, n, k;
    T alpha;
    const T *A;
    int64_t lda;
    const T *B;
    int64_t ldb;
    T beta;
    T *C;
    int64_t ldc;
};

// y = alpha·op(A)·x + beta·y for a sparse A (src/sparse storage, host memory, read-only).
// Backends are called only when op(A) has rows; alpha == 0 may still arrive (then y = beta·y
// without reading A or x); beta == 0 never reads y. `prepared` is what the backend's
// sparse_prepare made for this matrix (nullptr when it has none).
template <typename T> struct SpmvArgs {
    bool trans;
    T alpha;
    const T *x;
    T beta;
    T *y;
    const sparse::Storage *A; // its values are of type T
    void *prepared;
};

// What a backend knows about the calling handle.
struct ExecContext {
    int num_threads;     // >= 1; already 1 inside an OpenMP parallel region
    void *backend_state; // from create_state, or nullptr
    int strassen_levels = 0;  // 0: classical; 1 or 2: levels of Strassen's method, opt-in
    int64_t strassen_min_block = 1024; // smallest block size Strassen may split down to
};

// Bumped whenever the layout of BackendTable changes; a plugin with another value is refused.
inline constexpr uint32_t kBackendAbiVersion = 3;

struct BackendTable {
    uint32_t abi_version; // kBackendAbiVersion
    const char *name;     // "cpu", "reference", "cuda"
    // Per-handle state (device buffers, streams); optional.
    tsr_status (*create_state)(int device, void **state);
    void (*destroy_state)(void *state);
    tsr_status (*set_stream)(void *state, void *stream);
    tsr_status (*gemm_f32)(const ExecContext *ctx, const GemmArgs<float> *args);
    tsr_status (*gemm_f64)(const ExecContext *ctx, const GemmArgs<double> *args);
    // Detail text of the last failure on this thread inside the backend (plugins keep
    // their own); may be nullptr for backends that report through core::fail.
    const char *(*last_error)(void);
    // Sparse products (since version 2). sparse_prepare makes the backend's own data for a
    // matrix after each optimize (device copies, partitions), or sets *prepared = nullptr;
    // sparse_release frees it. A backend without sparse support leaves all four nullptr.
    tsr_status (*sparse_prepare)(const ExecContext *ctx, const sparse::Storage *A, void **prepared);
    tsr_status (*spmv_f32)(const ExecContext *ctx, const SpmvArgs<float> *args);
    tsr_status (*spmv_f64)(const ExecContext *ctx, const SpmvArgs<double> *args);
    void (*sparse_release)(void *prepared);
    // For TSR_BACKEND_AUTO (since version 3): nonzero when this backend should run the gemm —
    // 2: one of A, B, C is its device memory; 1: the operands are host memory, but the product
    // is large enough to pay for moving them; 0: the CPU is predicted faster. elem_size is 4
    // or 8. nullptr: never chosen automatically.
    int (*gemm_prefer)(int num_threads, int elem_size, int64_t m, int64_t n, int64_t k,
                       const void *A, const void *B, const void *C);
};

} // namespace tessera::core

// The backends that live in libtessera.so.
namespace tessera::reference {
const core::BackendTable &backend();
}
namespace tessera::cpu {
const core::BackendTable &backend();
}
