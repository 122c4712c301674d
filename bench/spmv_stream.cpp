// STREAM triad with OpenMP static scheduling, so that each thread works on the pages it
// touched first; timed pass by pass (alone, or as one side of the spmv turns).
#include "spmv_stream.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "statistics.hpp"
#include "timing.hpp"

namespace tessera::bench {

Triad::Triad(int threads, int64_t elements)
    : threads_(threads), n_(elements), a_(new double[size_t(elements)]),
      b_(new double[size_t(elements)]), c_(new double[size_t(elements)]) {
    double *a = a_, *b = b_, *c = c_;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < elements; ++i) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
}

Triad::~Triad() {
    delete[] a_;
    delete[] b_;
    delete[] c_;
}

void Triad::pass() {
    double *a = a_;
    const double *b = b_, *c = c_;
    const double s = 3.0;
    const int64_t n = n_;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    // Keep the result observable so the loop is not removed.
    volatile double sink = a[n / 2];
    (void)sink;
}

TriadResult measure_triad(Triad &triad, int reps) {
    std::vector<double> times;
    for (int r = 0; r <= reps; ++r) {
        const double start = now_seconds();
        triad.pass();
        const double t = now_seconds() - start;
        if (r > 0) times.push_back(t);
    }
    const Summary sum = summarize(times);
    TriadResult out;
    out.elements = triad.elements();
    out.reps = reps;
    out.median_gbs = triad.bytes() / sum.median * 1e-9;
    out.best_gbs = triad.bytes() / sum.min * 1e-9;
    return out;
}

} // namespace tessera::bench
