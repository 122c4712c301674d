// Per-handle state of the CUDA backend: device, stream, a device-memory pool reused across
// calls (one grow-only buffer per operand) and the pinned buffers that host operands go through.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "core/backend.hpp"
#include "kernels.hpp"
#include "tessera/tessera.h"

namespace tessera::cuda {

// A grow-only device allocation: reused by every call that fits, replaced by a larger one
// when not. Allocation failure is TSR_ERR_OUT_OF_MEMORY.
struct DeviceBuffer {
    void *ptr = nullptr;
    size_t bytes = 0;
    tsr_status reserve(size_t need);
    void release();
};

// Two pinned host buffers used in turn, each with an event saying when the copy that reads
// or writes it has finished, so that host copies overlap with transfers.
struct PinnedRing {
    void *half[2] = {nullptr, nullptr};
    cudaEvent_t done[2] = {nullptr, nullptr};
    size_t bytes = 0; // of each half
    tsr_status reserve(size_t need);
    void release();
};

inline constexpr int kMaxSharedRounds = 8;

struct State {
    DeviceInfo dev;
    cudaStream_t stream =
        nullptr;             // the user's (tsr_set_cuda_stream), else the legacy default stream
    std::mutex staging;      // host-operand calls take the buffers below one at a time
    DeviceBuffer operand[3]; // A, B, C copies of host operands
    PinnedRing pinned;
    // Sparse products (under `staging` too): device copies of host x and y, and the carries
    // of the balanced kernels, with an event recorded after the last product that used them
    // (a product on another stream waits for it before reusing them).
    DeviceBuffer vector[2];
    DeviceBuffer carries;
    DeviceBuffer ticket; // one-launch merge path's block counter (spmv_csr.cu), zero between uses
    cudaEvent_t carries_free = nullptr;
    // Block products (spmm.cu, under `staging`): the transposed blocks of column-major X and Y
    // and the long rows' partial sums, with an event recorded after the last product that
    // used them, as for the carries.
    DeviceBuffer block_work;
    cudaEvent_t block_work_free = nullptr;
    // Host-operand gemm with transfers overlapping the product (gemm.cu): a stream of its own
    // for the copies, created on first use (under `staging`), and events between the two.
    cudaStream_t copies = nullptr;
    cudaEvent_t uploaded = nullptr, computed[2] = {nullptr, nullptr};
    // Split-K gemm: the slabs of partial products, taken by one call at a time (`split`, not
    // `staging`: device-operand calls do not take that one), with an event recorded after the
    // sum that read them last (a product on another stream waits for it).
    std::mutex split;
    DeviceBuffer split_slabs;
    cudaEvent_t split_free = nullptr;
    // The TF32 modes on wgmma (wgmma_gemm.hpp): the packed panels of op(A) and op(B), taken by
    // one call at a time (before `split`, when both are taken), with an event recorded after
    // the product that read them last.
    std::mutex panels_lock;
    DeviceBuffer panels;
    cudaEvent_t panels_free = nullptr;
    // The other GPUs of the handle (tsr_set_cuda_devices, TESSERA_CUDA_DEVICES), each with a
    // state of its own that this one owns: host-operand gemm is spread over this state's
    // device and theirs (gemm.cu). Changed only by configuration calls.
    std::vector<State *> group;
    // A spread product (under `spread`, taken on the handle's own state for the whole call):
    // this device's whole copy of the operand every device needs, assembled from the share
    // each device sent up, in up to kMaxSharedRounds pieces (each recorded by `shared_sent`),
    // and copied between the devices.
    // The copies from the other devices run on `peers`, beside the copy stream's transfers from
    // the host, each recorded by `peer_done` for the state's stream to wait for.
    std::mutex spread;
    DeviceBuffer shared_operand;
    cudaEvent_t shared_sent[kMaxSharedRounds] = {};
    cudaStream_t peers = nullptr;
    cudaEvent_t peer_done = nullptr;
};

// A new state for `device`, spreading over the devices of TESSERA_CUDA_DEVICES when that is
// set (its first is then the state's device); on failure a status with the reason recorded.
tsr_status create_state(int device, State **out);
void destroy_state(State *state);

// Makes `state` spread over `count` devices (ids[0] its own; count 0, ids null: every device
// of the host). A bad list (an ordinal out of range, one twice) changes nothing.
tsr_status set_devices(State *state, int count, const int *ids);

// The plugin's device settings, from the core's PluginHost at load: the default device (a
// launcher's local rank taken modulo the device count) and TESSERA_CUDA_DEVICES.
tsr_status read_device_settings(int device, bool from_rank, int *resolved);

// The state used when a handle has none of its own (auto routing, the default handle).
State *shared_state();
tsr_status init_shared_state(int device); // once, from the plugin's entry point
// The state of a call: its handle's, else the shared one (nullptr where there is none).
inline State *state_of(const core::ExecContext *ctx) {
    return ctx && ctx->backend_state ? static_cast<State *>(ctx->backend_state) : shared_state();
}

// A TESSERA_CUDA_* setting as the core read it (core::PluginHost::setting), or nullptr when
// unset; the core hands the reader over when it loads the plugin (plugin.cu).
const char *setting(const char *name);

// Makes the state's device current on this thread for the scope, restoring the previous one.
class DeviceScope {
public:
    explicit DeviceScope(int device);
    ~DeviceScope();
    cudaError_t status() const { return err_; }

private:
    int previous_ = -1;
    cudaError_t err_ = cudaSuccess;
};

} // namespace tessera::cuda
