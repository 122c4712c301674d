// The TESSERA_VERBOSE=1 call log: one line per call on stderr with routine, layout, ops,
// sizes, backend, threads, seconds and GFLOP/s.
#pragma once

#include "core/dispatch.hpp"

namespace tessera::core {

void log_gemm(const GemmTrace &trace, const char *backend, const char *why, int threads,
              double seconds);

} // namespace tessera::core
