// Options every tessera-bench subcommand understands: threads, repetitions, minimum time,
// JSON output, quick mode, seed and the anchor library. Subcommands add their own on top.
#pragma once

#include <cstdint>
#include <string>

#include "args.hpp"

namespace tessera::bench {

struct CommonOptions {
    int threads = 0;       // 0: TESSERA_NUM_THREADS, else OMP_NUM_THREADS, else all cores
    int min_reps = 3;      // timed repetitions per side, at least
    double min_time = 0.5; // seconds of timed work per side, at least (see timing.hpp)
    bool min_time_given = false;
    double settle = -1;    // idle seconds before each turn; < 0: automatic (timing.hpp)
    std::string json_path; // "" = no JSON, "-" = JSON on stdout (the table goes to stderr)
    bool quick = false;    // smaller default shapes and a shorter minimum time
    bool help = false;
    std::uint64_t seed = 42;         // random data and sampled reference entries
    std::string anchor = "openblas"; // "openblas" or "none"
    std::string openblas_path;       // "" = libopenblas.so.0 from the loader's search path
};

// Consumes one common option at the cursor; false when the argument is not one of them.
bool parse_common_option(ArgCursor &args, CommonOptions &options);
// Settings that depend on several options (quick mode's shorter minimum time).
void finish_common_options(CommonOptions &options);
// Help text for the common options, one per line, indented by two spaces.
const char *common_options_help();

} // namespace tessera::bench
