// The device plumbing of the GPU spmv bench (built only with CUDA): checked runtime calls,
// device buffers, batches of products timed with CUDA events on one stream, and the
// device-to-device copy whose bandwidth the products are judged against.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>

#include "spmv_cuda_record.hpp"

namespace tessera::bench {

// Throws std::runtime_error("what: <CUDA's message>") unless e is cudaSuccess.
void cuda_check(cudaError_t e, const char *what);

// The current device as the report describes it.
GpuDeviceInfo probe_device();

// Device memory, freed on destruction.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    DeviceBuffer(DeviceBuffer &&other) noexcept;
    DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
    void *get() const { return p_; }
    size_t bytes() const { return bytes_; }
    void upload(const void *host, size_t bytes);
    void download(void *host, size_t bytes) const;
    void fill_nan(); // every byte 0xff: a NaN in float and in double

private:
    void *p_ = nullptr;
    size_t bytes_ = 0;
};

// Times `count` back-to-back launches on the stream between two events. The device is then
// synchronised as a whole, and the host's clock around the batch is reported as well: events
// on the stream see only work ordered on it, so an event time far below the wall time means
// a call ran somewhere else.
class EventTimer {
public:
    explicit EventTimer(cudaStream_t stream);
    ~EventTimer();
    EventTimer(const EventTimer &) = delete;
    EventTimer &operator=(const EventTimer &) = delete;
    // Seconds between the events; *wall_s (if given) the host's seconds for the whole batch.
    double batch(const std::function<void()> &launch, int count, double *wall_s = nullptr);

private:
    cudaStream_t stream_;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// cudaMemcpyAsync device to device of one large buffer into another: bytes() is what one pass
// moves (read plus write, as STREAM's copy counts it).
class DeviceCopy {
public:
    DeviceCopy(cudaStream_t stream, size_t bytes);
    void pass();
    double bytes() const { return 2.0 * double(src_.bytes()); }
    size_t buffer_bytes() const { return src_.bytes(); }

private:
    cudaStream_t stream_;
    DeviceBuffer src_, dst_;
};

// `reps` event-timed passes after two untimed ones.
CopyResult measure_copy(DeviceCopy &copy, EventTimer &timer, int reps = 20);

} // namespace tessera::bench
