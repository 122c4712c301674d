// The backend table: the function pointers every backend (reference, cpu, cuda plugin)
// fills in, and the column-major call descriptor they receive. No layouts or Fortran here.
#pragma once

#include <cstdint>

#include "tessera/tessera.h"

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

// What a backend knows about the calling handle.
struct ExecContext {
    int num_threads;     // >= 1; already 1 inside an OpenMP parallel region
    void *backend_state; // from create_state, or nullptr
};

// Bumped whenever the layout of BackendTable changes; a plugin with another value is refused.
inline constexpr uint32_t kBackendAbiVersion = 1;

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
};

} // namespace tessera::core

// The backends that live in libtessera.so.
namespace tessera::reference {
const core::BackendTable &backend();
}
namespace tessera::cpu {
const core::BackendTable &backend();
}
