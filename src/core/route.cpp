// The routing policy (route.hpp) for gemm and sparse products alike.
#include "core/route.hpp"

#include <atomic>

#include "core/error.hpp"
#include "core/host_backends.hpp"
#include "core/plugin.hpp"
#include "core/threads.hpp"

namespace tessera::core {

namespace {

bool serves(const BackendTable *t, Work work) {
    if (!t) return false;
    if (work == Work::gemm) return t->gemm_f32 && t->gemm_f64;
    return t->sparse_prepare && t->spmv_f32 && t->spmv_f64;
}

// The CUDA table for an auto gemm on host operands, without starting CUDA for small calls in
// a process that does not use it: the plugin is asked once a call is large, or once the process
// has the CUDA driver loaded. *why: the log's reason when it returns nullptr.
const BackendTable *auto_cuda(const RouteRequest &r, const BackendTable *driver_cuda,
                              const char **why) {
    std::atomic<bool> &asked = route_tables.asked_cuda;
    if (!asked.load(std::memory_order_relaxed)) {
        if (!auto_would_ask_cuda(r.m, r.n, r.k) && !driver_cuda) {
            *why = "auto: host operands, small product";
            return nullptr;
        }
        asked.store(true, std::memory_order_relaxed);
    }
    *why = "auto: no CUDA device";
    return cuda_backend(nullptr);
}

Route choose(const tsr_context *ctx, const RouteRequest &r, const BackendTable *driver_cuda,
             bool device) {
    const BackendTable &cpu = *route_tables.cpu;
    switch (ctx->backend) {
    case TSR_BACKEND_REFERENCE: return {route_tables.reference, nullptr, nullptr};
    case TSR_BACKEND_CPU: return {&cpu, nullptr, nullptr};
    case TSR_BACKEND_CUDA: {
        const BackendTable *cuda = cuda_backend(nullptr);
        if (serves(cuda, r.work)) return {cuda, ctx->cuda_state, nullptr};
        return {&cpu, nullptr, cuda ? "cuda has no kernels for this product" : "cuda unavailable"};
    }
    case TSR_BACKEND_AUTO: break;
    }
    if (device) {
        if (serves(driver_cuda, r.work))
            return {driver_cuda, ctx->cuda_state, "auto: device operands"};
        return {&cpu, nullptr, "auto: no CUDA backend for device operands"};
    }
    if (r.work == Work::sparse) return {&cpu, nullptr, "auto: host operands"};
    const char *why = nullptr;
    const BackendTable *cuda = auto_cuda(r, driver_cuda, &why);
    if (!cuda) return {&cpu, nullptr, why};
    if (!cuda->gemm_prefer || !serves(cuda, r.work))
        return {&cpu, nullptr, "auto: the CUDA backend takes no gemm by itself"};
    switch (cuda->gemm_prefer(call_threads(ctx->num_threads), r.elem_size, r.m, r.n, r.k,
                              r.operand[0], r.operand[1], r.operand[2])) {
    case 0: return {&cpu, nullptr, "auto: host operands, the CPU predicted faster"};
    case 2: return {cuda, ctx->cuda_state, "auto: device operands"};
    default:
        return {cuda, ctx->cuda_state,
                "auto: host operands, the GPU predicted faster with the transfers"};
    }
}

} // namespace

// The library's own tables, looked up once when it is loaded.
RouteTables route_tables{
    &host_backend(TSR_BACKEND_CPU), &host_backend(TSR_BACKEND_REFERENCE), {false}};

tsr_status route_policy(const tsr_context *ctx, const RouteRequest &r, Route *out) {
    // One look at the loader per call (it takes the loader's lock): operands can be device
    // memory only once the CUDA driver is loaded.
    const BackendTable *driver_cuda = cuda_backend_if_driver_loaded();
    // Whether an operand is device memory matters to auto and to a backend that cannot read it.
    const bool named_reader = ctx->backend == TSR_BACKEND_CUDA && serves(driver_cuda, r.work);
    const bool device = driver_cuda && !named_reader &&
                        any_device_pointer(driver_cuda, r.operand[0], r.operand[1], r.operand[2]);
    *out = choose(ctx, r, driver_cuda, device);
    if (device && !(out->table->capabilities & kReadsDeviceMemory))
        return fail(
            TSR_ERR_INVALID_ARGUMENT,
            "%s: an operand is CUDA device memory, which the %s backend cannot read; use the "
            "cuda or auto backend, or pass host memory",
            r.routine, out->table->name);
    return TSR_SUCCESS;
}

} // namespace tessera::core
