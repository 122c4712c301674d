// The "spmv" subcommand of tessera-bench: options in, STREAM triad, one record per matrix,
// value type and op, summaries and JSON out. Returns the exit status; throws UsageError.
#pragma once

#include "args.hpp"

namespace tessera::bench {

int run_spmv_command(ArgCursor &args);

} // namespace tessera::bench
