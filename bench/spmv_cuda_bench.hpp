// The GPU spmv measurement (built only with CUDA): Tessera's cuda backend in every format with x
// and y in device memory (and CSR/AUTO with host vectors, end to end), cuSPARSE's SpMV beside
// it, all checked against the long double reference and timed in turns with CUDA events.
#pragma once

#include <memory>
#include <stdexcept>

#include "spmv_cuda_record.hpp"
#include "spmv_generators.hpp"
#include "spmv_options.hpp"

namespace tessera::bench {

// Tessera's cuda backend cannot run here (no plugin, no device): what tsr_last_error() said.
struct CudaBackendUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class GpuSpmvBench {
public:
    // One Tessera handle on the cuda backend, ordered on a stream of the bench's own
    // (tsr_set_cuda_stream); cuSPARSE on the same stream; the events; the copy buffers and the
    // copy measured alone (unless o.stream is off). Throws CudaBackendUnavailable, or
    // std::runtime_error for any other failure to set up.
    explicit GpuSpmvBench(const SpmvOptions &o);
    ~GpuSpmvBench();
    GpuSpmvBench(const GpuSpmvBench &) = delete;
    GpuSpmvBench &operator=(const GpuSpmvBench &) = delete;

    const GpuDeviceInfo &device() const;
    const CopyResult &copy_alone() const; // all zeros without the copy

    // One record: every format, every cuSPARSE algorithm, y = op(A)·x with alpha 1, beta 0.
    // A side that cannot run (refused format, failed call, wrong result) says so in its status;
    // only a failure of the device itself makes the whole record fail (record.note).
    GpuSpmvRecord measure(const CsrMatrix &m, char dtype, char op);

private:
    struct State;
    std::unique_ptr<State> s_;
};

} // namespace tessera::bench
