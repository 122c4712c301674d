// The "tiny" subcommand of tessera-bench: nanoseconds per call of small products (m, n, k up to
// 64) through tsr_?gemm, a gemm plan, OpenBLAS, libxsmm's BLAS-style call and its JIT kernel.
#pragma once

#include "args.hpp"

namespace tessera::bench {

int run_tiny_command(ArgCursor &args);

} // namespace tessera::bench
