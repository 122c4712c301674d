// The "spmm" subcommand of tessera-bench: sparse × dense products (tsr_sspmm, tsr_dspmm) beside
// Eigen on the CPU or cuSPARSE SpMM on the GPU; options in spmv_options.hpp (spmm_usage()).
#pragma once

#include "args.hpp"

namespace tessera::bench {

int run_spmm_command(ArgCursor &args);

} // namespace tessera::bench
