// Chooses the backend for one gemm call and runs it: the quick return of reference BLAS,
// the single-thread rule inside OpenMP regions, and the verbose log with timing.
#include "core/dispatch.hpp"

#include <atomic>
#include <chrono>

#include "core/call_log.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/plugin.hpp"
#include "core/threads.hpp"

namespace tessera::core {

namespace {

// From this many multiply-adds on, auto asks the CUDA plugin about a host-operand product (which
// may load it and the driver); below, in a process without the driver, the CPU runs it.
constexpr double kAutoAskCuda = 256.0 * 256.0 * 256.0;

bool auto_would_ask_cuda(int64_t m, int64_t n, int64_t k) {
    return double(m) * double(n) * double(k) >= kAutoAskCuda;
}

struct Choice {
    const BackendTable *table;
    void *state;     // the backend's per-handle state
    const char *why; // for the log; nullptr when the handle named the backend
};

// The CUDA table for an auto call, without starting CUDA for small calls in a process that
// does not use it: the plugin is asked once a call is large, or once the process has the
// CUDA driver loaded (only then can an operand be device memory).
// `driver_cuda` is cuda_backend_if_driver_loaded() of this call. *why: the log's reason when
// it returns nullptr.
const BackendTable *auto_cuda(int64_t m, int64_t n, int64_t k, const BackendTable *driver_cuda, const char **why) {
    static std::atomic<bool> asked{false};
    if (!asked.load(std::memory_order_relaxed)) {
        if (!auto_would_ask_cuda(m, n, k) && !driver_cuda) {
            *why = "auto: host operands, small product";
            return nullptr;
        }
        asked.store(true, std::memory_order_relaxed);
    }
    *why = "auto: no CUDA device";
    return cuda_backend(nullptr);
}

template <typename T>
Choice choose(const tsr_context *ctx, const GemmArgs<T> &args, const BackendTable *driver_cuda) {
    switch (ctx->backend) {
    case TSR_BACKEND_REFERENCE: return {&reference::backend(), nullptr, nullptr};
    case TSR_BACKEND_CUDA:
        if (const BackendTable *cuda = cuda_backend(nullptr)) return {cuda, ctx->cuda_state, nullptr};
        return {&cpu::backend(), nullptr, "cuda unavailable"};
    case TSR_BACKEND_CPU: return {&cpu::backend(), nullptr, nullptr};
    case TSR_BACKEND_AUTO: break;
    }
    // Auto: the CUDA backend when its operands are device memory or the product pays for the
    // transfers (the backend's own estimate), else the CPU.
    const char *why = nullptr;
    const BackendTable *cuda = auto_cuda(args.m, args.n, args.k, driver_cuda, &why);
    if (cuda && cuda->gemm_prefer) {
        const bool product = args.alpha != T(0) && args.k > 0;
        switch (cuda->gemm_prefer(call_threads(ctx->num_threads), int(sizeof(T)), args.m, args.n, args.k,
                                  product ? args.A : nullptr, product ? args.B : nullptr, args.C)) {
        case 0: return {&cpu::backend(), nullptr, "auto: host operands, the CPU predicted faster"};
        case 2: return {cuda, ctx->cuda_state, "auto: device operands"};
        default: return {cuda, ctx->cuda_state, "auto: host operands, the GPU predicted faster with the transfers"};
        }
    }
    return {&cpu::backend(), nullptr, cuda ? "auto: the CUDA backend takes no gemm by itself" : why};
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

    // One look at the loader per call (it takes the loader's lock): operands can be device
    // memory only once the CUDA driver is loaded.
    const BackendTable *driver_cuda = cuda_backend_if_driver_loaded();
    Choice choice = choose(ctx, args, driver_cuda);
    // A host backend given device memory would dereference it: refuse instead.
    if (driver_cuda && choice.table != driver_cuda) {
        const bool product = args.alpha != T(0) && args.k > 0;
        if (any_device_pointer(driver_cuda, product ? args.A : nullptr, product ? args.B : nullptr, args.C))
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "%s: an operand is CUDA device memory, which the %s backend cannot read; "
                        "use the cuda or auto backend",
                        trace.routine, choice.table->name);
    }
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
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    log_gemm(trace, choice.table->name, choice.why, exec.num_threads, took.count());
    return status;
}

template <typename T>
tsr_status gemm_planned(tsr_context *ctx, const GemmArgs<T> &args, const GemmTrace &trace) {
    if (!ctx) ctx = default_context();
    if (!ctx) return fail(TSR_ERR_OUT_OF_MEMORY, "%s: cannot create the default handle", trace.routine);
    const BackendTable *table = nullptr;
    switch (ctx->backend) {
    case TSR_BACKEND_CPU: table = &cpu::backend(); break;
    case TSR_BACKEND_AUTO: // only where gemm() would not ask the CUDA plugin either
        if (!auto_would_ask_cuda(args.m, args.n, args.k)) table = &cpu::backend();
        break;
    case TSR_BACKEND_REFERENCE: table = &reference::backend(); break;
    case TSR_BACKEND_CUDA: break;
    }
    const bool quick = args.m == 0 || args.n == 0 || args.k == 0 || args.alpha == T(0);
    if (!table || quick || config().verbose || cuda_driver_loaded()) return gemm(ctx, args, trace);
    ExecContext exec{call_threads(ctx->num_threads), nullptr, ctx->strassen_levels, ctx->strassen_min_block};
    return entry<T>(*table)(&exec, &args);
}

template tsr_status gemm_planned<float>(tsr_context *, const GemmArgs<float> &, const GemmTrace &);
template tsr_status gemm_planned<double>(tsr_context *, const GemmArgs<double> &, const GemmTrace &);
template tsr_status gemm<float>(tsr_context *, const GemmArgs<float> &, const GemmTrace &);
template tsr_status gemm<double>(tsr_context *, const GemmArgs<double> &, const GemmTrace &);

} // namespace tessera::core
