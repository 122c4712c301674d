// The handle (struct tsr_context): chosen backend, thread count and backend state, plus the
// process-wide default handle that the BLAS symbols and NULL-handle calls use.
#pragma once

#include "core/backend.hpp"

struct tsr_context {
    tsr_backend backend = TSR_BACKEND_AUTO; // as set by the user or the environment
    int num_threads = 1;
    int cuda_device = 0;
    void *cuda_state = nullptr;        // from the CUDA table's create_state, made on first need
    void *cuda_stream = nullptr;       // cudaStream_t given by tsr_set_cuda_stream
    int strassen_levels = 0;           // TESSERA_STRASSEN or tsr_set_strassen; 0 = off
    int64_t strassen_min_block = 1024; // Strassen splits no block below this size
};

namespace tessera::core {

// Whether `backend` can run here; when not, *why says why (a static or cached string).
bool backend_available(tsr_backend backend, const char **why);

// A new handle configured from the environment. When TESSERA_BACKEND names a backend that
// cannot run, one warning per process is printed and the handle uses the CPU.
tsr_status create_context(tsr_context **out);
void destroy_context(tsr_context *ctx);

// Switches the backend; TSR_ERR_BACKEND_UNAVAILABLE (and no change) when it cannot run.
tsr_status set_backend(tsr_context *ctx, tsr_backend backend);

// The process-wide default handle, made once on first use; nullptr only when out of memory.
tsr_context *default_context();

} // namespace tessera::core
