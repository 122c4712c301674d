// Summary statistics of repeated timings: the median is what the bench reports, the
// rest (min, max, mean, spread) goes to the JSON so that noisy runs can be recognised.
#pragma once

#include <cstddef>
#include <vector>

namespace tessera::bench {

struct Summary {
    std::size_t count = 0;
    double median = 0, min = 0, max = 0, mean = 0;
    double mad = 0; // median absolute deviation from the median
};

// Summarises a sample (empty input gives all zeros).
Summary summarize(std::vector<double> samples);

} // namespace tessera::bench
