// The FMA loops behind the peak-FLOP measurement: per instruction set and precision, many
// independent FMA chains in registers, so that throughput, not latency, limits them.
#pragma once

#include <cstdint>

namespace tessera::bench {

enum class PeakIsa { avx512, avx2_fma };

struct PeakKernel {
    PeakIsa isa;
    bool f64;         // double (true) or float lanes
    const char *name; // "avx512", "avx2+fma"
    int lanes;        // elements per vector register
    int accumulators; // independent FMA chains per thread
    // Runs `iterations` rounds of one FMA on every accumulator (iterations >= 1).
    void (*run)(std::int64_t iterations);
    double flops_per_iteration() const { return 2.0 * lanes * accumulators; }
};

// The four kernels (AVX-512 and AVX2+FMA, float and double), best instruction set first.
const PeakKernel *peak_kernels(int *count);
// Whether this CPU (and OS) can run the kernel: __builtin_cpu_supports.
bool peak_kernel_supported(const PeakKernel &kernel);
const char *peak_isa_name(PeakIsa isa);

} // namespace tessera::bench
