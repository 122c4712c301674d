// Handle life cycle and backend switching, and the default handle made once per process
// (thread-safe static initialisation) from the environment for the BLAS doors.
#include "core/context.hpp"

#include <cstdio>
#include <mutex>
#include <new>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/plugin.hpp"

namespace tessera::core {

bool backend_available(tsr_backend backend, const char **why) {
    switch (backend) {
    case TSR_BACKEND_AUTO:
    case TSR_BACKEND_CPU:
    case TSR_BACKEND_REFERENCE: return true;
    case TSR_BACKEND_CUDA: return cuda_backend(why) != nullptr;
    }
    if (why) *why = "unknown backend value";
    return false;
}

namespace {

// The environment's backend, or the CPU (with one warning per process) when it cannot run.
tsr_backend environment_backend() {
    tsr_backend wanted = config().backend;
    const char *why = nullptr;
    if (backend_available(wanted, &why)) return wanted;
    static std::once_flag warned;
    std::call_once(warned, [&] {
        std::fprintf(stderr,
                     "tessera: warning: TESSERA_BACKEND=%s is unavailable: %s; running on the cpu "
                     "backend\n",
                     backend_name(wanted), why ? why : "unknown reason");
    });
    return TSR_BACKEND_CPU;
}

} // namespace

// The handle's own CUDA state (its stream, pool and pinned buffers); without one, the plugin
// runs the handle's calls on a state shared by the process.
static tsr_status make_cuda_state(tsr_context *ctx) {
    const BackendTable *cuda = cuda_backend(nullptr);
    if (!cuda || !cuda->create_state) return TSR_SUCCESS;
    tsr_status s = cuda->create_state(ctx->cuda_device, &ctx->cuda_state);
    if (s != TSR_SUCCESS)
        return fail(s, "tsr_set_backend: cannot set up the CUDA device: %s",
                    cuda->last_error ? cuda->last_error() : "unknown reason");
    return TSR_SUCCESS;
}

tsr_status create_context(tsr_context **out) {
    auto *ctx = new (std::nothrow) tsr_context;
    if (!ctx) return fail(TSR_ERR_OUT_OF_MEMORY, "tsr_create: out of memory");
    ctx->backend = environment_backend();
    ctx->num_threads = config().num_threads;
    ctx->cuda_device = config().cuda_device;
    ctx->strassen_levels = config().strassen_levels;
    if (ctx->backend == TSR_BACKEND_CUDA) (void)make_cuda_state(ctx); // else the shared state
    *out = ctx;
    return TSR_SUCCESS;
}

void destroy_context(tsr_context *ctx) {
    if (ctx->cuda_state) {
        if (const BackendTable *cuda = cuda_backend(nullptr); cuda && cuda->destroy_state)
            cuda->destroy_state(ctx->cuda_state);
    }
    delete ctx;
}

tsr_status set_backend(tsr_context *ctx, tsr_backend backend) {
    const char *why = nullptr;
    if (!backend_available(backend, &why))
        return fail(TSR_ERR_BACKEND_UNAVAILABLE, "tsr_set_backend: backend %s is unavailable: %s",
                    backend_name(backend), why ? why : "unknown reason");
    if (backend == TSR_BACKEND_CUDA && !ctx->cuda_state) {
        if (tsr_status s = make_cuda_state(ctx); s != TSR_SUCCESS) return s;
    }
    ctx->backend = backend;
    return TSR_SUCCESS;
}

tsr_context *default_context() {
    // Made once, thread-safely, on first use; lives until the process ends.
    static tsr_context *const ctx = [] {
        tsr_context *made = nullptr;
        return create_context(&made) == TSR_SUCCESS ? made : nullptr;
    }();
    return ctx;
}

} // namespace tessera::core
