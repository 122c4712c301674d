// Handle state of the CUDA backend: the device pool and the pinned staging ring, created once
// per handle and reused by every call on it (no cudaMalloc or cudaFree per call).
#include "state.hpp"

#include <new>

#include "error.hpp"

namespace tessera::cuda {

namespace {
State *shared = nullptr;

size_t grown(size_t need) { // round up to limit how often a growing workload reallocates
    size_t size = size_t(1) << 20;
    while (size < need) size += size / 2;
    return size;
}
} // namespace

tsr_status DeviceBuffer::reserve(size_t need) {
    if (need <= bytes) return TSR_SUCCESS;
    release();
    const size_t size = grown(need);
    if (cudaError_t e = cudaMalloc(&ptr, size); e != cudaSuccess) {
        ptr = nullptr;
        (void)cudaGetLastError();
        return fail(TSR_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of device memory: %s", size,
                    cudaGetErrorString(e));
    }
    bytes = size;
    return TSR_SUCCESS;
}

void DeviceBuffer::release() {
    if (ptr) (void)cudaFree(ptr);
    ptr = nullptr;
    bytes = 0;
}

tsr_status PinnedRing::reserve(size_t need) {
    for (auto &ev : done)
        if (!ev)
            if (cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
                e != cudaSuccess)
                return fail_cuda(e, "cannot create an event");
    if (need <= bytes) return TSR_SUCCESS;
    for (auto &h : half)
        if (h) (void)cudaFreeHost(h), h = nullptr;
    bytes = 0;
    const size_t size = grown(need);
    for (auto &h : half) {
        if (cudaError_t e = cudaHostAlloc(&h, size, cudaHostAllocPortable); e != cudaSuccess) {
            h = nullptr;
            (void)cudaGetLastError();
            for (auto &o : half)
                if (o) (void)cudaFreeHost(o), o = nullptr;
            return fail(TSR_ERR_OUT_OF_MEMORY,
                        "cannot allocate %zu bytes of pinned host memory: %s", size,
                        cudaGetErrorString(e));
        }
    }
    bytes = size;
    return TSR_SUCCESS;
}

void PinnedRing::release() {
    for (auto &h : half)
        if (h) (void)cudaFreeHost(h), h = nullptr;
    for (auto &ev : done)
        if (ev) (void)cudaEventDestroy(ev), ev = nullptr;
    bytes = 0;
}

DeviceScope::DeviceScope(int device) {
    err_ = cudaGetDevice(&previous_);
    if (err_ == cudaSuccess && previous_ != device) err_ = cudaSetDevice(device);
    else previous_ = -1;
}

DeviceScope::~DeviceScope() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

tsr_status create_state(int device, State **out) {
    auto *s = new (std::nothrow) State;
    if (!s) return fail(TSR_ERR_OUT_OF_MEMORY, "cannot allocate the CUDA handle state");
    cudaDeviceProp prop{};
    if (cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
        delete s;
        return fail_cuda(e, "cannot query the CUDA device");
    }
    s->dev.ordinal = device;
    s->dev.sm_count = prop.multiProcessorCount;
    s->dev.cc_major = prop.major;
    s->dev.cc_minor = prop.minor;
    for (size_t i = 0; i + 1 < sizeof s->dev.name && prop.name[i]; ++i)
        s->dev.name[i] = prop.name[i];
    *out = s;
    return TSR_SUCCESS;
}

void destroy_state(State *state) {
    if (!state || state == shared) return;
    {
        DeviceScope scope(state->dev.ordinal);
        for (auto &b : state->operand) b.release();
        for (auto &b : state->vector) b.release();
        state->carries.release();
        if (state->carries_free) (void)cudaEventDestroy(state->carries_free);
        state->split_slabs.release();
        if (state->split_free) (void)cudaEventDestroy(state->split_free);
        state->panels.release();
        if (state->panels_free) (void)cudaEventDestroy(state->panels_free);
        if (state->uploaded) (void)cudaEventDestroy(state->uploaded);
        for (cudaEvent_t ev : state->computed)
            if (ev) (void)cudaEventDestroy(ev);
        if (state->copies) (void)cudaStreamDestroy(state->copies);
        state->pinned.release();
    }
    delete state;
}

State *shared_state() { return shared; }

tsr_status init_shared_state(int device) {
    if (shared) return TSR_SUCCESS;
    return create_state(device, &shared);
}

} // namespace tessera::cuda
