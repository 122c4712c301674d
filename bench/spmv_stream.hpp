// The STREAM triad (a = b + s·c over arrays far larger than the caches) measured in the same
// run as the sparse products, with the same threads, and timed in turns with them: the
// bandwidth they are judged against (a shared machine's bandwidth drifts).
#pragma once

#include <cstdint>

namespace tessera::bench {

struct TriadResult {
    int64_t elements = 0;  // per array (float64)
    double median_gbs = 0; // 3 x 8 bytes per element (STREAM's count, no write-allocate)
    double best_gbs = 0;
    int reps = 0;
};

// The triad's arrays (placed by first touch with the threads that use them) and one pass.
class Triad {
public:
    explicit Triad(int threads, int64_t elements = int64_t(1) << 25);
    ~Triad();
    Triad(const Triad &) = delete;
    Triad &operator=(const Triad &) = delete;
    void pass(); // a = b + s·c once
    int64_t elements() const { return n_; }
    double bytes() const { return 3.0 * 8.0 * double(n_); }

private:
    int threads_;
    int64_t n_;
    double *a_, *b_, *c_;
};

// `reps` timed passes after one untimed one.
TriadResult measure_triad(Triad &triad, int reps = 15);

} // namespace tessera::bench
