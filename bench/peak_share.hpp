// A result's share of the measured peak, or why there is none: the peak check saw a busy
// machine, or the result ran above the peak (which a busy machine lowered). Never above 100%.
#pragma once

#include <optional>
#include <string>

namespace tessera::bench {

struct PeakShare {
    std::optional<double> fraction; // gflops / peak, in [0, 1]; absent with a reason
    const char *reason = nullptr;   // "peak_not_measured", "peak_busy", "above_peak"; null
                                    // when fraction is set
};

// gflops over peak_gflops, unless the peak was not measured, peak_busy (the peak check
// warned: peak_warnings), or the share would exceed 1.
PeakShare peak_share(double gflops, std::optional<double> peak_gflops, bool peak_busy);

// The table's peak% cell: the percentage, "busy" (busy or above the peak) or "-".
std::string peak_share_cell(const PeakShare &share);

// The line under a table with a "busy" cell.
const char *peak_busy_footnote();

} // namespace tessera::bench
