// Options every tessera-bench subcommand understands: threads, repetitions, times, JSON,
// quick mode, seed, the anchor libraries and the peak measurement.
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
    bool quiet = false;    // no progress line on standard error (progress.hpp)
    bool help = false;
    std::uint64_t seed = 42;     // random data and sampled reference entries
    bool anchor_openblas = true; // --anchor: which anchors to load (both by default;
    bool anchor_blis = true;     // a missing one is noted and the run goes on)
    std::string openblas_path;   // "" = libopenblas.so.0 from the loader's search path
    std::string blis_path;       // "" = libblis.so.4 from the search path or Debian's
    double peak_time = -1;       // seconds per peak measurement; 0: none; < 0: automatic
};

// Consumes one common option at the cursor; false when the argument is not one of them.
bool parse_common_option(ArgCursor &args, CommonOptions &options);
// Settings that depend on several options (quick mode's shorter minimum and peak times).
void finish_common_options(CommonOptions &options);
// Help text for the common options, one per line, indented by two spaces.
const char *common_options_help();
// "openblas,blis", "openblas", "blis" or "none": the anchors asked for.
std::string anchors_text(const CommonOptions &options);

} // namespace tessera::bench
