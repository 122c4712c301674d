// The tsr_* entry points for library information, handles and backend selection; each
// checks its arguments and never lets an exception out.
#include <cstdio>

#include "core/config.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/plugin.hpp"

using tessera::core::fail;
using tessera::core::guarded;

namespace {

bool backend_value_valid(tsr_backend b) {
    return b == TSR_BACKEND_AUTO || b == TSR_BACKEND_CPU || b == TSR_BACKEND_CUDA ||
           b == TSR_BACKEND_REFERENCE;
}

#define TSR_STR2(x) #x
#define TSR_STR(x) TSR_STR2(x)

} // namespace

extern "C" {

TSR_API const char *tsr_version(void) {
    return TSR_STR(TSR_VERSION_MAJOR) "." TSR_STR(TSR_VERSION_MINOR) "." TSR_STR(TSR_VERSION_PATCH);
}

TSR_API const char *tsr_status_string(tsr_status status) {
    switch (status) {
    case TSR_SUCCESS: return "success";
    case TSR_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TSR_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case TSR_ERR_OUT_OF_MEMORY: return "out of memory";
    case TSR_ERR_DEVICE: return "device error";
    case TSR_ERR_NOT_SUPPORTED: return "not supported";
    case TSR_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

TSR_API const char *tsr_last_error(void) { return tessera::core::last_error(); }

TSR_API tsr_status tsr_create(tsr_handle *handle) {
    return guarded("tsr_create", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_create: handle is NULL");
        return tessera::core::create_context(handle);
    });
}

TSR_API tsr_status tsr_destroy(tsr_handle handle) {
    return guarded("tsr_destroy", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_destroy: handle is NULL");
        tessera::core::destroy_context(handle);
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_set_backend(tsr_handle handle, tsr_backend backend) {
    return guarded("tsr_set_backend", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_set_backend: handle is NULL");
        if (!backend_value_valid(backend))
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "tsr_set_backend: backend = %d is not a tsr_backend", int(backend));
        return tessera::core::set_backend(handle, backend);
    });
}

TSR_API tsr_status tsr_get_backend(tsr_handle handle, tsr_backend *backend) {
    return guarded("tsr_get_backend", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_get_backend: handle is NULL");
        if (!backend) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_get_backend: backend is NULL");
        *backend = handle->backend;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_backend_available(tsr_backend backend, int *available) {
    return guarded("tsr_backend_available", [&] {
        if (!available)
            return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_backend_available: available is NULL");
        if (!backend_value_valid(backend))
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "tsr_backend_available: backend = %d is not a tsr_backend", int(backend));
        const char *why = nullptr;
        bool ok = tessera::core::backend_available(backend, &why);
        if (!ok)
            fail(TSR_ERR_BACKEND_UNAVAILABLE, "backend %s is unavailable: %s",
                 tessera::core::backend_name(backend), why ? why : "unknown reason");
        *available = ok ? 1 : 0;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_set_num_threads(tsr_handle handle, int num_threads) {
    return guarded("tsr_set_num_threads", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_set_num_threads: handle is NULL");
        if (num_threads < 1 || num_threads > tessera::core::kMaxThreads)
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "tsr_set_num_threads: num_threads = %d must be from 1 to %d", num_threads,
                        tessera::core::kMaxThreads);
        handle->num_threads = num_threads;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_set_strassen(tsr_handle handle, int levels, int64_t min_block) {
    return guarded("tsr_set_strassen", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_set_strassen: handle is NULL");
        if (levels < 0 || levels > 2)
            return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_set_strassen: levels = %d must be 0, 1 or 2",
                        levels);
        if (min_block < 0)
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "tsr_set_strassen: min_block = %lld must be >= 0 (0: the default, 1024)",
                        (long long)min_block);
        handle->strassen_levels = levels;
        handle->strassen_min_block = min_block == 0 ? 1024 : min_block;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_set_cuda_stream(tsr_handle handle, void *cuda_stream) {
    return guarded("tsr_set_cuda_stream", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_set_cuda_stream: handle is NULL");
        const char *why = nullptr;
        const tessera::core::BackendTable *cuda = tessera::core::cuda_backend(&why);
        if (!cuda)
            return fail(TSR_ERR_BACKEND_UNAVAILABLE,
                        "tsr_set_cuda_stream: backend cuda is unavailable: %s",
                        why ? why : "unknown reason");
        if (!handle->cuda_state && cuda->create_state) {
            tsr_status s = cuda->create_state(handle->cuda_device, &handle->cuda_state);
            if (s != TSR_SUCCESS)
                return fail(s, "tsr_set_cuda_stream: %s",
                            cuda->last_error ? cuda->last_error() : "cannot set up the device");
        }
        if (cuda->set_stream) {
            tsr_status s = cuda->set_stream(handle->cuda_state, cuda_stream);
            if (s != TSR_SUCCESS)
                return fail(s, "tsr_set_cuda_stream: %s",
                            cuda->last_error ? cuda->last_error() : "cannot use the stream");
        }
        handle->cuda_stream = cuda_stream;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_set_cuda_devices(tsr_handle handle, int count, const int *ids) {
    return guarded("tsr_set_cuda_devices", [&] {
        if (!handle) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_set_cuda_devices: handle is NULL");
        if (count < 0 || (count > 0 && !ids) || (count == 0 && ids))
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "tsr_set_cuda_devices: count = %d with ids %s: give count >= 1 ordinals, "
                        "or count 0 and ids NULL for every device",
                        count, ids ? "given" : "NULL");
        const char *why = nullptr;
        const tessera::core::BackendTable *cuda = tessera::core::cuda_backend(&why);
        if (!cuda || !cuda->set_devices || !cuda->create_state)
            return fail(TSR_ERR_BACKEND_UNAVAILABLE,
                        "tsr_set_cuda_devices: backend cuda is unavailable: %s",
                        why ? why : "the plugin cannot spread over devices");
        const bool fresh = !handle->cuda_state;
        if (fresh) {
            tsr_status s = cuda->create_state(count > 0 ? ids[0] : 0, &handle->cuda_state);
            if (s != TSR_SUCCESS)
                return fail(s, "tsr_set_cuda_devices: %s",
                            cuda->last_error ? cuda->last_error() : "cannot set up the device");
        }
        tsr_status s = cuda->set_devices(handle->cuda_state, count, ids);
        if (s != TSR_SUCCESS) {
            tsr_status reported =
                fail(s, "tsr_set_cuda_devices: %s",
                     cuda->last_error ? cuda->last_error() : "cannot use the devices");
            if (fresh) { // nothing changes: the handle had no state before this call
                if (cuda->destroy_state) cuda->destroy_state(handle->cuda_state);
                handle->cuda_state = nullptr;
            }
            return reported;
        }
        const int first = count > 0 ? ids[0] : 0; // "every device" starts at device 0
        if (first != handle->cuda_device) handle->cuda_stream = nullptr;
        handle->cuda_device = first;
        return TSR_SUCCESS;
    });
}

} // extern "C"
