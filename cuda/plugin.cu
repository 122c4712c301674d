// The plugin's one exported symbol: checks the driver and the device, then hands the core
// the CUDA backend table (gemm and sparse products on our own kernels).
#include <cstdio>

#include "core/backend.hpp"
#include "error.hpp"
#include "gemm.hpp"
#include "sparse_device.hpp"
#include "spmv.hpp"
#include "state.hpp"

namespace tessera::cuda {

namespace {

tsr_status table_create_state(int device, void **state) {
    State *s = nullptr;
    tsr_status st = create_state(device, &s);
    *state = s;
    return st;
}

void table_destroy_state(void *state) { destroy_state(static_cast<State *>(state)); }

tsr_status table_set_stream(void *state, void *stream) {
    auto *s = static_cast<State *>(state);
    if (!s) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    s->stream = static_cast<cudaStream_t>(stream);
    return TSR_SUCCESS;
}

tsr_status table_set_devices(void *state, int count, const int *ids) {
    return set_devices(static_cast<State *>(state), count, ids);
}

tsr_status table_synchronize(void *state) {
    State *s = state ? static_cast<State *>(state) : shared_state();
    if (!s) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    DeviceScope scope(s->dev.ordinal);
    if (scope.status() != cudaSuccess)
        return fail_cuda(scope.status(), "cannot select the CUDA device");
    if (cudaError_t e = cudaStreamSynchronize(s->stream); e != cudaSuccess)
        return fail_cuda(e, "waiting for the product");
    return TSR_SUCCESS;
}

const core::BackendTable table = {
    core::kBackendAbiVersion,
    "cuda",
    table_create_state,
    table_destroy_state,
    table_set_stream,
    gemm_f32,
    gemm_f64,
    last_error,
    sparse_prepare,
    spmv_f32,
    spmv_f64,
    sparse_release,
    gemm_prefer,
    core::kReadsDeviceMemory,
    sparse_plan,
    sparse_kernel_name,
    table_synchronize,
    table_set_devices,
    spmm_f32,
    spmm_f64,
};

char reason[512];
const core::PluginHost *host_of_plugin = nullptr;

} // namespace

const char *setting(const char *name) {
    return host_of_plugin && host_of_plugin->setting ? host_of_plugin->setting(name) : nullptr;
}

} // namespace tessera::cuda

using namespace tessera::cuda;

extern "C" __attribute__((visibility("default"))) const tessera::core::BackendTable *
TESSERA_CUDA_ENTRY(const tessera::core::PluginHost *host, const char **why) {
    auto refuse = [&](const char *fmt, auto... args) -> const tessera::core::BackendTable * {
        std::snprintf(reason, sizeof reason, fmt, args...);
        if (why) *why = reason;
        return nullptr;
    };
    if (!host || host->abi_version != tessera::core::kBackendAbiVersion)
        return refuse("this plugin was built for another version of libtessera.so");
    host_of_plugin = host;
    int device = host->device;
    int count = 0;
    if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
        (void)cudaGetLastError();
        return refuse("no usable CUDA driver or device (%s)", cudaGetErrorString(e));
    }
    if (count == 0) return refuse("no CUDA device is present");
    if (!host->device_from_rank && (device < 0 || device >= count))
        return refuse("TESSERA_CUDA_DEVICE=%d, but there are %d CUDA devices", device, count);
    // A launcher's local rank picks the device modulo the count; TESSERA_CUDA_DEVICES, when
    // set, names the devices handles spread over (its first is then the default device).
    if (read_device_settings(device, host->device_from_rank != 0, &device) != TSR_SUCCESS)
        return refuse("%s", last_error());
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (major < 8)
        return refuse("CUDA device %d has compute capability %d.%d; this build needs 8.0 or later",
                      device, major, minor);
    {
        DeviceScope scope(device);
        if (scope.status() != cudaSuccess)
            return refuse("cannot use CUDA device %d (%s)", device,
                          cudaGetErrorString(scope.status()));
        if (init_shared_state(device) != TSR_SUCCESS)
            return refuse("cannot set up CUDA device %d (%s)", device, last_error());
    }
    read_kernel_choice(*host);
    return &table;
}
