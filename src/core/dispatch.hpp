// Dispatch of a checked, column-major gemm to the handle's backend: quick return, backend
// choice, thread count, timing and the TESSERA_VERBOSE call log.
#pragma once

#include "core/backend.hpp"
#include "core/config.hpp"
#include "core/context.hpp"
#include "core/plugin.hpp"

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

// The CPU backend's unpacked kernel (cpu::DirectGemmFn): C[0:m, 0:n] = alpha·op(A)·op(B) +
// beta·C with op(A) column-major, op(B) at strides (b_rs, b_cs).
template <typename T>
using HostDirectFn = void (*)(int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t lda,
                              const T *b, int64_t b_rs, int64_t b_cs, T beta, T *c, int64_t ldc);

// The same for a gemm plan's execution, and for a tsr_?gemm call the CPU would run unpacked on
// one thread: where the call can only run on a host backend (the handle's backend is cpu or
// reference, or auto on a product too small for auto to ask the CUDA plugin; and no CUDA driver
// is loaded, so no operand can be device memory), straight to that backend; else, and with the
// call log on, as gemm(). `direct` (or nullptr) is the kernel the CPU backend runs this product
// on, on one thread, as cpu::planned_direct found it: on the CPU backend the call goes straight
// to it. gemm_planned, inline, takes that way where direct_allowed says so; the rest is
// gemm_planned_rest, out of line.
template <typename T>
tsr_status gemm_planned_rest(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace,
                             HostDirectFn<T> direct);

// Whether a product that cpu::planned_direct gave a kernel may run on it, now, on `ctx`: its
// backend is cpu, or auto (such a product is always below the size at which auto asks the CUDA
// plugin), the call log is off and no CUDA driver is loaded.
// Inline: tiny products pay for every call on their way.
inline bool direct_allowed(const tsr_context *ctx) {
    if (!ctx) ctx = default_context();
    return ctx && (ctx->backend == TSR_BACKEND_CPU || ctx->backend == TSR_BACKEND_AUTO) &&
           !config().verbose && !cuda_driver_loaded();
}

template <typename T>
inline tsr_status gemm_planned(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace,
                               HostDirectFn<T> direct) {
    // planned_direct gives a kernel only for m, n, k > 0; alpha = 0 reads neither A nor B.
    if (direct && args.alpha != T(0) && direct_allowed(ctx)) {
        direct(args.m, args.n, args.k, args.alpha, args.A, args.lda, args.B,
               args.trans_b ? args.ldb : 1, args.trans_b ? 1 : args.ldb, args.beta, args.C,
               args.ldc);
        return TSR_SUCCESS;
    }
    return gemm_planned_rest(ctx, args, trace, direct);
}

} // namespace tessera::core
