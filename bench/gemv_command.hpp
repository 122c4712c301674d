// The "gemv" subcommand of tessera-bench: GB/s of Tessera's cblas_?gemv next to OpenBLAS's in
// the same process, op N and T, float and double, square, tall and wide shapes.
#pragma once

#include "args.hpp"

namespace tessera::bench {

int run_gemv_command(ArgCursor &args);

} // namespace tessera::bench
