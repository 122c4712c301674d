// Failure reporting inside the CUDA plugin: a per-thread detail message that the core reads
// through the table's last_error, and the mapping of CUDA errors onto tsr_status.
#pragma once

#include <cuda_runtime.h>

#include "tessera/tessera.h"

namespace tessera::cuda {

// Records a printf-style message for this thread and returns `status`.
tsr_status fail(tsr_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Maps `err` (not cudaSuccess) to a status — out of memory, or a device error — and records
// "<what>: <CUDA's description>". Clears a non-sticky error so later calls start clean.
tsr_status fail_cuda(cudaError_t err, const char *what);

const char *last_error();

} // namespace tessera::cuda
