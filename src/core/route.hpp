// The one routing policy of the library: which backend runs a product (gemm or sparse), on
// which of its states, and why; and the one refusal, an operand in device memory that the
// chosen backend cannot read. docs/backends.md ("Routing") has it as a table.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/backend.hpp"
#include "core/context.hpp"
#include "core/plugin.hpp"

namespace tessera::core {

enum class Work { gemm, sparse };

struct RouteRequest {
    Work work;
    const char *routine; // for the refusal's message
    // gemm: the product (for auto's cost model) and its element size; sparse: all 0.
    int elem_size;
    int64_t m, n, k;
    // The memory the call reads or writes: gemm A, B (nullptr when not read), C; sparse x, y.
    const void *operand[3];
};

struct Route {
    const BackendTable *table;
    void *state;     // the backend's per-handle state
    const char *why; // for the call log; nullptr when the handle named the backend
};

// The backend for `req` on `ctx`:
//   reference, cpu: that backend;
//   cuda: the CUDA backend when it runs here and has the work's kernels, else the CPU;
//   auto: the CUDA backend when an operand is device memory; for a gemm on host operands, the
//         CUDA backend's cost model decides (asked only from 256³ multiply-adds on, or once the
//         process has the CUDA driver loaded); else the CPU.
// TSR_ERR_INVALID_ARGUMENT (with the message set) when an operand is device memory and the
// chosen backend cannot read it.
inline tsr_status route(const tsr_context *ctx, const RouteRequest &req, Route *out);

// Whether auto would ask the CUDA plugin about a host-operand gemm of this size in a process
// without the CUDA driver: from 256³ multiply-adds on (asking may load the plugin and the
// driver); below, the CPU runs it. The fast path of gemm plans relies on the same answer.
inline bool auto_would_ask_cuda(int64_t m, int64_t n, int64_t k) {
    return double(m) * double(n) * double(k) >= 256.0 * 256.0 * 256.0;
}

// The whole policy (route.cpp); route() answers its most common case inline.
tsr_status route_policy(const tsr_context *ctx, const RouteRequest &req, Route *out);

struct RouteTables {
    const BackendTable *cpu, *reference;
    std::atomic<bool> asked_cuda; // auto has asked the CUDA plugin about a gemm once
};
extern RouteTables route_tables;

inline tsr_status route(const tsr_context *ctx, const RouteRequest &req, Route *out) {
    // A product in a process without the CUDA driver (so no operand is device memory) on a
    // host backend, or on auto: a sparse product, or a gemm while auto never asked the CUDA
    // plugin and the product is too small to ask about. Decided here, as route_policy would,
    // without its calls (tiny products pay for every nanosecond of them).
    if (ctx->backend != TSR_BACKEND_CUDA && !cuda_driver_loaded()) {
        if (ctx->backend == TSR_BACKEND_CPU)
            return *out = {route_tables.cpu, nullptr, nullptr}, TSR_SUCCESS;
        if (ctx->backend == TSR_BACKEND_REFERENCE)
            return *out = {route_tables.reference, nullptr, nullptr}, TSR_SUCCESS;
        if (req.work == Work::sparse)
            return *out = {route_tables.cpu, nullptr, "auto: host operands"}, TSR_SUCCESS;
        if (!auto_would_ask_cuda(req.m, req.n, req.k) &&
            !route_tables.asked_cuda.load(std::memory_order_relaxed))
            return *out = {route_tables.cpu, nullptr, "auto: host operands, small product"},
                   TSR_SUCCESS;
    }
    return route_policy(ctx, req, out);
}

} // namespace tessera::core
