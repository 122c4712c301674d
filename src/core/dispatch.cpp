// Runs one gemm call on the backend the routing policy (route.hpp) chooses: the quick return of
// reference BLAS, the single-thread rule inside OpenMP regions, and the verbose log with timing.
#include "core/dispatch.hpp"

#include <chrono>

#include "core/call_log.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/host_backends.hpp"
#include "core/plugin.hpp"
#include "core/route.hpp"
#include "core/threads.hpp"

namespace tessera::core {

namespace {

template <typename T> auto entry(const BackendTable &t) {
    if constexpr (sizeof(T) == 4) return t.gemm_f32;
    else return t.gemm_f64;
}

} // namespace

template <typename T>
tsr_status gemm(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace) {
    if (!ctx) ctx = default_context();
    if (!ctx)
        return fail(TSR_ERR_OUT_OF_MEMORY, "%s: cannot create the default handle", trace.routine);
    const bool verbose = config().verbose;

    const bool quick =
        args.m == 0 || args.n == 0 || ((args.alpha == T(0) || args.k == 0) && args.beta == T(1));
    if (quick) {
        if (verbose) log_gemm(trace, "none", "quick return", 0, 0.0);
        return TSR_SUCCESS;
    }

    const bool product = args.alpha != T(0) && args.k > 0;
    Route choice;
    const RouteRequest request{Work::gemm,
                               trace.routine,
                               int(sizeof(T)),
                               args.m,
                               args.n,
                               args.k,
                               {product ? args.A : nullptr, product ? args.B : nullptr, args.C}};
    if (tsr_status s = route(ctx, request, &choice); s != TSR_SUCCESS) return s;
    ExecContext exec{call_threads(ctx->num_threads), choice.state, ctx->strassen_levels,
                     ctx->strassen_min_block};
    auto run = entry<T>(*choice.table);
    // A plugin keeps its failure detail to itself: carry it into this library's message.
    auto detail = [&](tsr_status s) {
        if (s != TSR_SUCCESS && choice.table->last_error)
            return fail(s, "%s: %s", trace.routine, choice.table->last_error());
        return s;
    };
    if (!verbose) return detail(run(&exec, &args));

    auto start = std::chrono::steady_clock::now();
    tsr_status status = detail(run(&exec, &args));
    // A product on device operands returns once queued: the log times it to its end.
    if (status == TSR_SUCCESS && choice.table->synchronize)
        status = detail(choice.table->synchronize(choice.state));
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    log_gemm(trace, choice.table->name, choice.why, exec.num_threads, took.count());
    return status;
}

template <typename T>
tsr_status gemm_planned_rest(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace,
                             HostDirectFn<T> direct) {
    if (!ctx) ctx = default_context();
    if (!ctx)
        return fail(TSR_ERR_OUT_OF_MEMORY, "%s: cannot create the default handle", trace.routine);
    const BackendTable *table = nullptr;
    switch (ctx->backend) {
    case TSR_BACKEND_CPU: table = &host_backend(TSR_BACKEND_CPU); break;
    case TSR_BACKEND_AUTO: // only where route() would not ask the CUDA plugin either
        if (!auto_would_ask_cuda(args.m, args.n, args.k)) table = &host_backend(TSR_BACKEND_CPU);
        break;
    case TSR_BACKEND_REFERENCE:
        table = &host_backend(TSR_BACKEND_REFERENCE);
        direct = nullptr;
        break;
    case TSR_BACKEND_CUDA: break;
    }
    const bool quick = args.m == 0 || args.n == 0 || args.k == 0 || args.alpha == T(0);
    if (!table || quick || config().verbose || cuda_driver_loaded()) return gemm(ctx, args, trace);
    if (direct) {
        direct(args.m, args.n, args.k, args.alpha, args.A, args.lda, args.B,
               args.trans_b ? args.ldb : 1, args.trans_b ? 1 : args.ldb, args.beta, args.C,
               args.ldc);
        return TSR_SUCCESS;
    }
    ExecContext exec{call_threads(ctx->num_threads), nullptr, ctx->strassen_levels,
                     ctx->strassen_min_block};
    return entry<T>(*table)(&exec, &args);
}

template tsr_status gemm_planned_rest<float>(tsr_context *, const GemmArgs<float> &,
                                             const GemmTrace &, HostDirectFn<float>);
template tsr_status gemm_planned_rest<double>(tsr_context *, const GemmArgs<double> &,
                                              const GemmTrace &, HostDirectFn<double>);
template tsr_status gemm<float>(tsr_context *, const GemmArgs<float> &, const GemmTrace &);
template tsr_status gemm<double>(tsr_context *, const GemmArgs<double> &, const GemmTrace &);

} // namespace tessera::core
