// Chooses the backend for one gemm call and runs it: the quick return of reference BLAS,
// the single-thread rule inside OpenMP regions, and the verbose log with timing.
#include "core/dispatch.hpp"

#include <chrono>

#include "core/call_log.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/plugin.hpp"
#include "core/threads.hpp"

namespace tessera::core {

namespace {

struct Choice {
    const BackendTable *table;
    void *state;     // the backend's per-handle state
    const char *why; // for the log; nullptr when the handle named the backend
};

Choice choose(const tsr_context *ctx) {
    switch (ctx->backend) {
    case TSR_BACKEND_REFERENCE: return {&reference::backend(), nullptr, nullptr};
    case TSR_BACKEND_CUDA:
        if (const BackendTable *cuda = cuda_backend(nullptr)) return {cuda, ctx->cuda_state, nullptr};
        return {&cpu::backend(), nullptr, "cuda unavailable"};
    case TSR_BACKEND_CPU: return {&cpu::backend(), nullptr, nullptr};
    case TSR_BACKEND_AUTO: break;
    }
    // Until the CUDA backend has a cost model, auto means the CPU.
    return {&cpu::backend(), nullptr, "auto"};
}

template <typename T> auto entry(const BackendTable &t) {
    if constexpr (sizeof(T) == 4) return t.gemm_f32;
    else return t.gemm_f64;
}

} // namespace

template <typename T>
tsr_status gemm(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace) {
    if (!ctx) ctx = default_context();
    if (!ctx) return fail(TSR_ERR_OUT_OF_MEMORY, "%s: cannot create the default handle", trace.routine);
    const bool verbose = config().verbose;

    const bool quick = args.m == 0 || args.n == 0 ||
                       ((args.alpha == T(0) || args.k == 0) && args.beta == T(1));
    if (quick) {
        if (verbose) log_gemm(trace, "none", "quick return", 0, 0.0);
        return TSR_SUCCESS;
    }

    Choice choice = choose(ctx);
    ExecContext exec{call_threads(ctx->num_threads), choice.state};
    auto run = entry<T>(*choice.table);
    if (!verbose) return run(&exec, &args);

    auto start = std::chrono::steady_clock::now();
    tsr_status status = run(&exec, &args);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    log_gemm(trace, choice.table->name, choice.why, exec.num_threads, took.count());
    return status;
}

template tsr_status gemm<float>(tsr_context *, const GemmArgs<float> &, const GemmTrace &);
template tsr_status gemm<double>(tsr_context *, const GemmArgs<double> &, const GemmTrace &);

} // namespace tessera::core
