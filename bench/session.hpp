// What every subcommand sets up before measuring: the thread count shared by Tessera and
// the anchor, the anchor library itself, the machine description, and the banner.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "machine_info.hpp"
#include "openblas.hpp"
#include "options.hpp"

namespace tessera::bench {

struct Session {
    int threads = 1;
    std::string threads_origin; // "--threads", "TESSERA_NUM_THREADS", ...
    MachineInfo machine;
    std::unique_ptr<OpenBlas> openblas; // nullptr: no anchor (see anchor_note)
    std::string anchor_note;            // why there is no anchor, when there is none
};

// Resolves the threads, loads OpenBLAS (unless --anchor none) with its thread count set to
// ours, and describes the machine. Never fails: a missing OpenBLAS is noted, not fatal.
Session open_session(const CommonOptions &options);

// The banner: Tessera's version, CPU, threads and the anchor's core type and configuration.
void print_session(std::ostream &out, const Session &session);

} // namespace tessera::bench
