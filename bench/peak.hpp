// The machine's measured peak: FMA throughput per instruction set and precision, on one
// thread and on the run's threads, the yardstick for the gemm table's "peak%" column.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gemm_options.hpp"
#include "peak_kernels.hpp"

namespace tessera::bench {

struct PeakMeasurement {
    const PeakKernel *kernel = nullptr;
    int threads = 1;
    double gflops = 0;  // best chunk: threads × chains × lanes × 2 flops / time
    double seconds = 0; // timed, all chunks together
};

struct PeakTable {
    double seconds_each = 0;            // target time of each measurement
    std::vector<PeakMeasurement> items; // supported kernels × thread counts, best ISA first
    std::vector<std::string> skipped;   // kernels this CPU cannot run, by name
    // The highest value for the precision at this thread count (over the instruction sets);
    // nullptr when nothing was measured.
    const PeakMeasurement *best(Precision precision, int threads) const;
};

// Measures every kernel the CPU supports on 1 thread and on `threads` (OpenMP, one set of
// chains per thread), each for about `seconds_each` split into chunks; the best chunk counts.
PeakTable measure_peak(int threads, double seconds_each);

// One sentence on how the peak is measured, for banners and JSON.
std::string peak_method();

// Signs that the measurement was disturbed (another busy process): float not about twice
// double on one instruction set, or more threads slower than one. Empty when consistent.
std::vector<std::string> peak_warnings(const PeakTable &table, int threads);

} // namespace tessera::bench
