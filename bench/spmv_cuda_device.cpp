// Device buffers, event timing and the device copy of the GPU spmv bench (see
// spmv_cuda_device.hpp). Every runtime call is checked; a failure becomes an exception that the
// bench turns into a row's status.
#include "spmv_cuda_device.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

#include "statistics.hpp"
#include "timing.hpp"

namespace tessera::bench {

void cuda_check(cudaError_t e, const char *what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

GpuDeviceInfo probe_device() {
    GpuDeviceInfo info;
    int device = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp p{};
    cuda_check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
    info.name = p.name;
    info.cc_major = p.major;
    info.cc_minor = p.minor;
    info.sms = p.multiProcessorCount;
    info.memory_bytes = double(p.totalGlobalMem);
    info.l2_bytes = double(p.l2CacheSize);
    int clock_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess)
        info.nominal_gbs = 2.0 * double(clock_khz) * 1e3 * double(bus_bits) / 8.0 * 1e-9;
    (void)cudaGetLastError(); // an attribute the device does not report is not an error here
    cudaDriverGetVersion(&info.driver_version);
    cudaRuntimeGetVersion(&info.runtime_version);
    return info;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes) cuda_check(cudaMalloc(&p_, bytes), "cudaMalloc");
}

DeviceBuffer::~DeviceBuffer() {
    if (p_) cudaFree(p_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept : p_(other.p_), bytes_(other.bytes_) {
    other.p_ = nullptr;
    other.bytes_ = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
    std::swap(p_, other.p_);
    std::swap(bytes_, other.bytes_);
    return *this;
}

void DeviceBuffer::upload(const void *host, size_t bytes) {
    if (bytes)
        cuda_check(cudaMemcpy(p_, host, bytes, cudaMemcpyHostToDevice), "copy to the device");
}

void DeviceBuffer::download(void *host, size_t bytes) const {
    if (bytes)
        cuda_check(cudaMemcpy(host, p_, bytes, cudaMemcpyDeviceToHost), "copy from the device");
}

void DeviceBuffer::fill_nan() {
    if (bytes_) cuda_check(cudaMemset(p_, 0xff, bytes_), "cudaMemset");
}

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
}

EventTimer::~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
}

double EventTimer::batch(const std::function<void()> &launch, int count, double *wall_s) {
    const double t0 = now_seconds();
    cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    for (int k = 0; k < count; ++k) launch();
    cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop_), "waiting for the products");
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const double t1 = now_seconds();
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    if (wall_s) *wall_s = t1 - t0;
    return double(ms) * 1e-3;
}

DeviceCopy::DeviceCopy(cudaStream_t stream, size_t bytes)
    : stream_(stream), src_(bytes), dst_(bytes) {
    cuda_check(cudaMemset(src_.get(), 0x3c, bytes), "cudaMemset");
    cuda_check(cudaMemset(dst_.get(), 0, bytes), "cudaMemset");
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

void DeviceCopy::pass() {
    cuda_check(
        cudaMemcpyAsync(dst_.get(), src_.get(), src_.bytes(), cudaMemcpyDeviceToDevice, stream_),
        "cudaMemcpyAsync");
}

CopyResult measure_copy(DeviceCopy &copy, EventTimer &timer, int reps) {
    const std::function<void()> pass = [&copy] { copy.pass(); };
    timer.batch(pass, 2);
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) times.push_back(timer.batch(pass, 1));
    const Summary s = summarize(times);
    CopyResult out;
    out.buffer_bytes = double(copy.buffer_bytes());
    out.reps = reps;
    out.median_gbs = copy.bytes() / s.median * 1e-9;
    out.best_gbs = copy.bytes() / s.min * 1e-9;
    return out;
}

} // namespace tessera::bench
