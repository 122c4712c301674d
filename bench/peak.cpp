// The machine's measured peak (see peak.hpp): each kernel is calibrated on one thread, then
// timed in chunks of ~20 ms between barriers of an OpenMP team; the fastest chunk is its peak.
#include "peak.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

#include "timing.hpp"

namespace tessera::bench {
namespace {

constexpr double kChunkSeconds = 0.02;

// Iterations that take about `seconds` on one thread.
std::int64_t calibrate(const PeakKernel &kernel, double seconds) {
    std::int64_t iterations = 1000;
    for (;;) {
        double start = now_seconds();
        kernel.run(iterations);
        double took = now_seconds() - start;
        if (took >= seconds / 4 || iterations > (std::int64_t(1) << 40)) {
            double scaled = double(iterations) * seconds / std::max(took, 1e-9);
            return std::max<std::int64_t>(1, std::int64_t(scaled));
        }
        iterations *= 4;
    }
}

PeakMeasurement measure(const PeakKernel &kernel, int threads, std::int64_t iterations,
                        double seconds_each) {
    PeakMeasurement m;
    m.kernel = &kernel;
    m.threads = threads;
    const double flops = kernel.flops_per_iteration() * double(iterations) * threads;
    double best = 0, total = 0;
    // One untimed chunk first: wide vector units power up, clocks settle.
    for (int chunk = -1; chunk == -1 || total < seconds_each; ++chunk) {
        double start = 0, took = 0;
#pragma omp parallel num_threads(threads)
        {
#pragma omp barrier
#pragma omp master
            start = now_seconds();
            kernel.run(iterations);
#pragma omp barrier
#pragma omp master
            took = now_seconds() - start;
        }
        if (chunk < 0) continue;
        total += took;
        if (took > 0) best = std::max(best, flops / took * 1e-9);
    }
    m.gflops = best;
    m.seconds = total;
    return m;
}

// Online CPUs that are not SMT siblings of one another (sysfs topology); at least 1.
int physical_cores() {
    std::set<std::string> cores;
    for (int cpu = 0; cpu < 4096; ++cpu) {
        std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                         "/topology/thread_siblings_list");
        if (!in) break;
        std::string siblings;
        std::getline(in, siblings);
        cores.insert(siblings);
    }
    return std::max<int>(1, int(cores.size()));
}

} // namespace

const PeakMeasurement *PeakTable::best(Precision precision, int threads) const {
    const PeakMeasurement *out = nullptr;
    for (const auto &m : items) {
        if (m.threads != threads || m.kernel->f64 != (precision == Precision::f64)) continue;
        if (!out || m.gflops > out->gflops) out = &m;
    }
    return out;
}

PeakTable measure_peak(int threads, double seconds_each) {
    PeakTable table;
    table.seconds_each = seconds_each;
    int count = 0;
    const PeakKernel *kernels = peak_kernels(&count);
    for (int i = 0; i < count; ++i) {
        const PeakKernel &kernel = kernels[i];
        if (!peak_kernel_supported(kernel)) {
            table.skipped.push_back(std::string(kernel.name) + (kernel.f64 ? " double" : " float"));
            continue;
        }
        const std::int64_t iterations = calibrate(kernel, kChunkSeconds);
        table.items.push_back(measure(kernel, 1, iterations, seconds_each));
        if (threads > 1) table.items.push_back(measure(kernel, threads, iterations, seconds_each));
    }
    return table;
}

std::vector<std::string> peak_warnings(const PeakTable &table, int threads) {
    std::vector<std::string> out;
    auto text = [](double v) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.2f", v);
        return std::string(buffer);
    };
    for (const auto &s : table.items) {
        if (s.kernel->f64) continue;
        for (const auto &d : table.items) {
            if (!d.kernel->f64 || d.kernel->isa != s.kernel->isa || d.threads != s.threads ||
                d.gflops <= 0)
                continue;
            const double ratio = s.gflops / d.gflops;
            if (ratio < 1.6 || ratio > 2.5)
                out.push_back(std::string(s.kernel->name) + " on " + std::to_string(s.threads) +
                              " thread(s): float / double = " + text(ratio) +
                              ", not about 2: the machine was probably busy");
        }
    }
    // Threads on distinct cores should scale almost linearly; SMT siblings share the units.
    const int cores = std::min(threads, physical_cores());
    for (const auto &one : table.items) {
        if (one.threads != 1 || threads <= 1) continue;
        for (const auto &many : table.items)
            if (many.kernel == one.kernel && many.threads == threads &&
                many.gflops < 0.75 * cores * one.gflops)
                out.push_back(std::string(one.kernel->name) +
                              (one.kernel->f64 ? " double: " : " float: ") +
                              std::to_string(threads) + " threads reach " +
                              text(many.gflops / one.gflops) + "x one thread on " +
                              std::to_string(cores) + " core(s): the machine was probably busy");
    }
    return out;
}

std::string peak_method() {
    return "independent FMA chains in vector registers (acc += 0*0; 30 zmm or 15 ymm chains "
           "per thread, each thread its own), chunks of ~20 ms between OpenMP barriers, best "
           "chunk; GFLOP/s = threads x chains x lanes x 2 / time";
}

} // namespace tessera::bench
