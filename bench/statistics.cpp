// Summary statistics of repeated timings (see statistics.hpp). The median of an even
// count is the mean of the two middle values.
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::bench {
namespace {

double median_of_sorted(const std::vector<double> &sorted) {
    std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

} // namespace

Summary summarize(std::vector<double> samples) {
    Summary s;
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    s.count = samples.size();
    s.median = median_of_sorted(samples);
    s.min = samples.front();
    s.max = samples.back();
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(s.count);
    std::vector<double> deviations;
    deviations.reserve(samples.size());
    for (double x : samples) deviations.push_back(std::fabs(x - s.median));
    std::sort(deviations.begin(), deviations.end());
    s.mad = median_of_sorted(deviations);
    return s;
}

} // namespace tessera::bench
