// The summary of a gemm sweep (--preset sweep): per precision and backend, the geometric mean,
// 5th percentile and worst of Tessera's speed over the anchor's, and the ten worst cases.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "gemm_bench.hpp"
#include "json_output.hpp"

namespace tessera::bench {

struct SweepSummary {
    Precision precision = Precision::f32;
    tsr_backend backend = TSR_BACKEND_CPU;
    std::string anchor; // the anchor's name ("openblas", "cuBLAS")
    int cases = 0;      // cases with a ratio
    double geomean = 0; // of the ratios
    double p5 = 0;      // 5th percentile (nearest rank)
    double worst = 0;
    std::vector<GemmRecord> worst_cases; // the ten lowest ratios, lowest first
    // --sweep-aligned: Tessera's speed on each case over its speed on the case's aligned twin
    // (the same product, leading dimensions padded to multiples of 32), and the anchor's.
    int aligned_pairs = 0;
    double aligned_geomean = 0, aligned_worst = 0, anchor_aligned_geomean = 0;
    int aligned_below = 0; // pairs where Tessera lost more than 5% to the twin
    std::vector<std::pair<double, GemmRecord>> aligned_worst_cases; // the five lowest
};

// One summary per (precision, backend) that has ratios, in the order they first appear.
std::vector<SweepSummary> summarize_sweep(const std::vector<GemmRecord> &records);
void print_sweep(std::ostream &out, const std::vector<SweepSummary> &summaries, std::uint64_t seed);
// The "sweep" member: an array of summaries.
Json sweep_json(const std::vector<SweepSummary> &summaries, std::uint64_t seed);

} // namespace tessera::bench
