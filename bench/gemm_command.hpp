// The "gemm" subcommand of tessera-bench: options in, banner, table and JSON out.
// Returns the process exit status (0 ok, 1 a measurement failed); throws UsageError.
#pragma once

#include "args.hpp"

namespace tessera::bench {

int run_gemm_command(ArgCursor &args);

} // namespace tessera::bench
