// The plugin's per-thread failure detail and the CUDA error to tsr_status mapping.
#include "error.hpp"

#include <cstdarg>
#include <cstdio>

namespace tessera::cuda {

namespace {
thread_local char message[512];
}

tsr_status fail(tsr_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return status;
}

tsr_status fail_cuda(cudaError_t err, const char *what) {
    (void)cudaGetLastError(); // a non-sticky error must not fail the next call
    const tsr_status status =
        err == cudaErrorMemoryAllocation ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_DEVICE;
    return fail(status, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

const char *last_error() { return message; }

} // namespace tessera::cuda
