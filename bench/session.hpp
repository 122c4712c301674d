// What every subcommand sets up before measuring: the threads shared by Tessera and the
// anchors, the anchors themselves (OpenBLAS, BLIS), the machine, the peak and the banner.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "blis.hpp"
#include "machine_info.hpp"
#include "openblas.hpp"
#include "options.hpp"
#include "peak.hpp"

namespace tessera::bench {

struct Session {
    int threads = 1;
    std::string threads_origin; // "--threads", "TESSERA_NUM_THREADS", ...
    MachineInfo machine;
    std::unique_ptr<OpenBlas> openblas; // nullptr: no OpenBLAS (see anchor_note)
    std::string anchor_note;            // why there is no OpenBLAS, when there is none
    std::unique_ptr<Blis> blis;         // nullptr: no BLIS (see blis_note)
    std::string blis_note;              // why there is no BLIS, when there is none
    std::optional<PeakTable> peak;      // after measure_session_peak, unless skipped
    std::string peak_note;              // why there is no peak, when there is none
    bool any_anchor() const { return openblas || blis; }
};

// Resolves the threads, loads the anchors asked for (BLIS, then OpenBLAS) with their thread
// counts set to ours, and describes the machine. Never fails: a missing anchor is noted.
Session open_session(const CommonOptions &options);

// Measures the peak FLOP rate (options.peak_time per measurement) into session.peak, or
// notes why not (--peak-time 0, no AVX2+FMA).
void measure_session_peak(Session &session, const CommonOptions &options);

// The banner: Tessera's version, CPU, threads, the anchors' kernels and configuration, and
// the peak when it was measured.
void print_session(std::ostream &out, const Session &session);

} // namespace tessera::bench
