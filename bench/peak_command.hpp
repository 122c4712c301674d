// The "peak" subcommand of tessera-bench: the machine's FMA throughput per instruction set
// and precision, on one thread and on the run's threads, as a table and as JSON.
#pragma once

#include "args.hpp"

namespace tessera::bench {

int run_peak_command(ArgCursor &args);

} // namespace tessera::bench
