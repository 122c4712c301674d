// Dispatch of a checked, column-major gemm to the handle's backend: quick return, backend
// choice, thread count, timing and the TESSERA_VERBOSE call log.
#pragma once

#include "core/backend.hpp"
#include "core/context.hpp"

namespace tessera::core {

// How the user called, for the call log (the descriptor itself is already column-major).
struct GemmTrace {
    const char *routine; // "sgemm", "dgemm"
    tsr_layout layout;
    char op_a, op_b; // 'N', 'T' or 'C' as the user gave them
    int64_t m, n, k; // the user's sizes
};

// Runs C = alpha·op(A)·op(B) + beta·C on `ctx` (nullptr: the default handle).
template <typename T>
tsr_status gemm(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace);

// The same for a gemm plan's execution: where the call can only run on a host backend (the
// handle's backend is cpu or reference, or auto on a product too small for auto to ask the
// CUDA plugin; and no CUDA driver is loaded, so no operand can be device memory), straight to
// that backend; else, and with the call log on, as gemm().
template <typename T>
tsr_status gemm_planned(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace);

} // namespace tessera::core
