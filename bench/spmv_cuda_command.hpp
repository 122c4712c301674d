// "tessera-bench spmv --backend cuda": the device, cuSPARSE and the copy bandwidth, then one
// record per matrix, value type and op, printed as it arrives; summary and JSON at the end.
// Returns the exit status (1 when the cuda backend cannot run, or a Tessera side failed or was
// wrong).
#pragma once

#include "spmv_options.hpp"

namespace tessera::bench {

int run_spmv_cuda_command(const SpmvOptions &o);

} // namespace tessera::bench
