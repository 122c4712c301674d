// A result's share of the measured peak (see peak_share.hpp). A share above 1 cannot be
// true of a peak measured well, so it says that the peak's measurement was disturbed.
#include "peak_share.hpp"

#include <cmath>

#include "table.hpp"

namespace tessera::bench {

PeakShare peak_share(double gflops, std::optional<double> peak_gflops, bool peak_busy) {
    if (!peak_gflops || !(*peak_gflops > 0) || !std::isfinite(*peak_gflops))
        return {std::nullopt, "peak_not_measured"};
    if (peak_busy) return {std::nullopt, "peak_busy"};
    const double fraction = gflops / *peak_gflops;
    if (!(fraction <= 1.0)) return {std::nullopt, "above_peak"};
    return {fraction, nullptr};
}

std::string peak_share_cell(const PeakShare &share) {
    if (share.fraction) return significant(100 * *share.fraction);
    return share.reason && std::string(share.reason) != "peak_not_measured" ? "busy" : "-";
}

const char *peak_busy_footnote() {
    return "busy: no peak% (the machine was busy while the peak was measured: the peak "
           "check warned, or a result ran above the measured peak)";
}

} // namespace tessera::bench
