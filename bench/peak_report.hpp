// How the measured peak is shown: a table for the peak subcommand, two banner lines for the
// gemm run, and the "peak" JSON object both write.
#pragma once

#include <optional>
#include <ostream>

#include "json_output.hpp"
#include "peak.hpp"

namespace tessera::bench {

// The peak subcommand's table: one row per instruction set and precision, GFLOP/s on one
// thread and on the run's threads, and the ratio of the two.
void print_peak_table(std::ostream &out, const PeakTable &table, int threads);

// The gemm banner's lines: every measurement in one line, then what peak% is against.
void print_peak_banner(std::ostream &out, const PeakTable &table, int threads);

// The value of the "peak" member: the method, every measurement and the best per precision
// at `threads`; null when the peak was not measured.
Json peak_json(const std::optional<PeakTable> &table, int threads, const std::string &note);

} // namespace tessera::bench
