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
};

// One summary per (precision, backend) that has ratios, in the order they first appear.
std::vector<SweepSummary> summarize_sweep(const std::vector<GemmRecord> &records);
void print_sweep(std::ostream &out, const std::vector<SweepSummary> &summaries, std::uint64_t seed);
// The "sweep" member: an array of summaries.
Json sweep_json(const std::vector<SweepSummary> &summaries, std::uint64_t seed);

} // namespace tessera::bench
