// tessera-bench multigpu: host-operand gemm on one GPU and on every GPU of the host through
// Tessera, beside cuBLASXt on every GPU at each of its block sizes, from pageable and pinned
// host memory (docs/performance.md, "Several GPUs").
#pragma once

#include "args.hpp"

namespace tessera::bench {

int run_multigpu_command(ArgCursor &args);

} // namespace tessera::bench
