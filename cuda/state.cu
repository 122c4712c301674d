// Handle state of the CUDA backend: the device pool and the pinned staging ring, created once
// per handle and reused by every call on it (no cudaMalloc or cudaFree per call).
#include "state.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <cstring>
#include <new>
#include <vector>

#include "error.hpp"

namespace tessera::cuda {

namespace {
State *shared = nullptr;

// From read_device_settings, once at load: TESSERA_CUDA_DEVICES (empty: unset or unusable),
// and the core's default device when it is a launcher's local rank (rank_device: that rank,
// rank_resolved: the device it stands for).
std::vector<int> env_devices;
int rank_device = -1, rank_resolved = -1;

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

namespace {

tsr_status describe(State *s, int device) {
    cudaDeviceProp prop{};
    if (cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess)
        return fail_cuda(e, "cannot query the CUDA device");
    s->dev = DeviceInfo{};
    s->dev.ordinal = device;
    s->dev.sm_count = prop.multiProcessorCount;
    s->dev.cc_major = prop.major;
    s->dev.cc_minor = prop.minor;
    for (size_t i = 0; i + 1 < sizeof s->dev.name && prop.name[i]; ++i)
        s->dev.name[i] = prop.name[i];
    return TSR_SUCCESS;
}

tsr_status create_one(int device, State **out) {
    auto *s = new (std::nothrow) State;
    if (!s) return fail(TSR_ERR_OUT_OF_MEMORY, "cannot allocate the CUDA handle state");
    if (tsr_status st = describe(s, device); st != TSR_SUCCESS) {
        delete s;
        return st;
    }
    *out = s;
    return TSR_SUCCESS;
}

// Frees every buffer, event and stream the state made on its device (not its group).
void release_device_resources(State *state) {
    DeviceScope scope(state->dev.ordinal);
    for (auto &b : state->operand) b.release();
    for (auto &b : state->vector) b.release();
    state->carries.release();
    state->ticket.release();
    if (state->carries_free) (void)cudaEventDestroy(state->carries_free);
    state->carries_free = nullptr;
    state->block_work.release();
    if (state->block_work_free) (void)cudaEventDestroy(state->block_work_free);
    state->block_work_free = nullptr;
    state->split_slabs.release();
    if (state->split_free) (void)cudaEventDestroy(state->split_free);
    state->split_free = nullptr;
    state->panels.release();
    if (state->panels_free) (void)cudaEventDestroy(state->panels_free);
    state->panels_free = nullptr;
    if (state->uploaded) (void)cudaEventDestroy(state->uploaded);
    state->uploaded = nullptr;
    for (cudaEvent_t &ev : state->computed) {
        if (ev) (void)cudaEventDestroy(ev);
        ev = nullptr;
    }
    if (state->copies) (void)cudaStreamDestroy(state->copies);
    state->copies = nullptr;
    state->pinned.release();
    state->shared_operand.release();
    for (cudaEvent_t &e : state->shared_sent) {
        if (e) (void)cudaEventDestroy(e);
        e = nullptr;
    }
    if (state->peer_done) (void)cudaEventDestroy(state->peer_done);
    state->peer_done = nullptr;
    if (state->peers) (void)cudaStreamDestroy(state->peers);
    state->peers = nullptr;
}

void destroy_group(std::vector<State *> &group) {
    for (State *member : group) {
        release_device_resources(member);
        delete member;
    }
    group.clear();
}

// Each device reads the shares of the others straight over NVLink or PCIe where the pair allows
// it (cudaMemcpyPeerAsync goes through the host otherwise). Enabled once per pair and process.
void enable_peer_access(const std::vector<int> &list) {
    static std::mutex lock;
    static std::vector<std::pair<int, int>> enabled;
    std::lock_guard<std::mutex> guard(lock);
    for (int from : list)
        for (int to : list) {
            if (from == to || std::find(enabled.begin(), enabled.end(), std::make_pair(from, to)) !=
                                  enabled.end())
                continue;
            enabled.emplace_back(from, to); // tried once, whatever the answer
            int can = 0;
            if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess || !can) {
                (void)cudaGetLastError();
                continue;
            }
            DeviceScope scope(from);
            if (cudaDeviceEnablePeerAccess(to, 0) != cudaSuccess) (void)cudaGetLastError();
        }
}

// Parses TESSERA_CUDA_DEVICES: "all" or distinct ordinals below `count`, comma-separated.
bool parse_devices(const char *text, int count, std::vector<int> *out) {
    out->clear();
    if (std::strcmp(text, "all") == 0) {
        for (int d = 0; d < count; ++d) out->push_back(d);
        return count > 0;
    }
    const char *p = text;
    while (*p) {
        char *end = nullptr;
        const long v = std::strtol(p, &end, 10);
        if (end == p || v < 0 || v >= count) return false;
        for (int d : *out)
            if (d == int(v)) return false;
        out->push_back(int(v));
        p = end;
        if (*p == ',') ++p;
        else if (*p) return false;
    }
    return !out->empty();
}

} // namespace

tsr_status create_state(int device, State **out) {
    if (!env_devices.empty()) device = env_devices[0];
    else if (rank_device >= 0 && device == rank_device) device = rank_resolved;
    State *s = nullptr;
    if (tsr_status st = create_one(device, &s); st != TSR_SUCCESS) return st;
    if (env_devices.size() > 1)
        if (tsr_status st = set_devices(s, int(env_devices.size()), env_devices.data());
            st != TSR_SUCCESS) {
            destroy_state(s);
            return st;
        }
    *out = s;
    return TSR_SUCCESS;
}

void destroy_state(State *state) {
    if (!state || state == shared) return;
    destroy_group(state->group);
    release_device_resources(state);
    delete state;
}

tsr_status set_devices(State *state, int count, const int *ids) {
    if (!state) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    int present = 0;
    if (cudaError_t e = cudaGetDeviceCount(&present); e != cudaSuccess)
        return fail_cuda(e, "cannot count the CUDA devices");
    std::vector<int> list;
    if (count == 0 && !ids)
        for (int d = 0; d < present; ++d) list.push_back(d);
    else list.assign(ids, ids + count);
    for (size_t i = 0; i < list.size(); ++i) {
        if (list[i] < 0 || list[i] >= present)
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "device %d does not exist (this host has %d CUDA device%s)", list[i],
                        present, present == 1 ? "" : "s");
        for (size_t j = 0; j < i; ++j)
            if (list[j] == list[i])
                return fail(TSR_ERR_INVALID_ARGUMENT, "device %d is named twice", list[i]);
    }
    if (list.empty()) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "no CUDA device is present");
    std::vector<State *> made;
    for (size_t i = 1; i < list.size(); ++i) {
        State *member = nullptr;
        if (tsr_status st = create_one(list[i], &member); st != TSR_SUCCESS) {
            destroy_group(made);
            return st;
        }
        made.push_back(member);
    }
    if (list[0] != state->dev.ordinal) { // the state moves to another device: its own stream
        release_device_resources(state); // belonged to the old one
        if (tsr_status st = describe(state, list[0]); st != TSR_SUCCESS) {
            destroy_group(made);
            return st;
        }
        state->stream = nullptr;
    }
    destroy_group(state->group);
    state->group = std::move(made);
    enable_peer_access(list);
    return TSR_SUCCESS;
}

tsr_status read_device_settings(int device, bool from_rank, int *resolved) {
    int count = 0;
    if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess)
        return fail_cuda(e, "no usable CUDA driver or device");
    if (count == 0) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "no CUDA device is present");
    if (from_rank) rank_device = device, device = rank_resolved = device % count;
    env_devices.clear();
    if (const char *v = setting("TESSERA_CUDA_DEVICES")) {
        std::vector<int> list;
        if (parse_devices(v, count, &list)) {
            env_devices = list;
            device = list[0];
        } else {
            std::fprintf(stderr,
                         "tessera: warning: TESSERA_CUDA_DEVICES='%.64s' is not 'all' or a list "
                         "of distinct device ordinals below %d; using device %d alone\n",
                         v, count, device);
        }
    }
    *resolved = device;
    return TSR_SUCCESS;
}

State *shared_state() { return shared; }

tsr_status init_shared_state(int device) {
    if (shared) return TSR_SUCCESS;
    return create_state(device, &shared);
}

} // namespace tessera::cuda
