// Named shape sets for the gemm subcommand (--preset): square, small, skinny and odd sizes,
// the shapes a CPU-performance question usually needs, and "all" of them.
#pragma once

#include <string>
#include <vector>

#include "gemm_options.hpp"

namespace tessera::bench {

// The shapes of one preset, in run order; throws UsageError for an unknown name.
std::vector<GemmShape> preset_shapes(const std::string &name);
// One line per preset for the help text, indented by two spaces.
std::string presets_help();

} // namespace tessera::bench
