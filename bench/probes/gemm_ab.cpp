// Two builds of libtessera side by side on gemm products of any shape, in one process: each
// build loaded on its own (dlopen, RTLD_LOCAL), one call of each in turns, and the ratio of the
// two times taken per round, so that the machine's drifts (up to 1.5× within seconds on the
// shared guests) fall on both alike. Prints per shape the median of the per-round ratios
// old/new (above 1: the new build is faster), their spread (the middle half), and each build's
// median GFLOP/s; then the geometric mean of the medians.
//
// Not part of the build:
//   g++ -O2 -fopenmp bench/probes/gemm_ab.cpp -o gemm_ab -ldl
//   ./gemm_ab OLD/libtessera.so.0 NEW/libtessera.so.0 [ROUNDS] SPEC...
// SPEC is TYPE:MxNxK[:OPS], e.g. d:4096x4096x4096 or s:433x2976x551:TN (ops default NN).
// The two paths must name different files (a copy of one build's library will do). Threads:
// TESSERA_NUM_THREADS, as for any caller.

#include "two_builds.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

template <typename T>
using gemm_fn = int (*)(void *, int, int, int, int64_t, int64_t, int64_t, T, const T *, int64_t,
                        const T *, int64_t, T, T *, int64_t);
constexpr int kColMajor = 102, kOpN = 111, kOpT = 112;

struct Build {
    gemm_fn<float> sgemm;
    gemm_fn<double> dgemm;
};

Build load(const char *path) {
    void *h = probe::open_build(path);
    return {reinterpret_cast<gemm_fn<float>>(dlsym(h, "tsr_sgemm")),
            reinterpret_cast<gemm_fn<double>>(dlsym(h, "tsr_dgemm"))};
}

using probe::now;

double median(std::vector<double> v, double q = 0.5) {
    std::sort(v.begin(), v.end());
    return v[size_t(q * double(v.size() - 1) + 0.5)];
}

template <typename T>
double run(const Build &old_b, const Build &new_b, int rounds, int64_t m, int64_t n, int64_t k,
           bool ta, bool tb, const char *spec) {
    const int64_t lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 5, ldc = m + 1;
    std::mt19937 rng(7);
    std::uniform_real_distribution<T> u(-1, 1);
    std::vector<T> A(size_t(lda) * size_t(ta ? m : k)), B(size_t(ldb) * size_t(tb ? k : n)),
        C(size_t(ldc) * size_t(n));
    for (auto *v : {&A, &B, &C})
        for (T &x : *v) x = u(rng);
    const gemm_fn<T> f[2] = {
        sizeof(T) == 4 ? (gemm_fn<T>)(void *)old_b.sgemm : (gemm_fn<T>)(void *)old_b.dgemm,
        sizeof(T) == 4 ? (gemm_fn<T>)(void *)new_b.sgemm : (gemm_fn<T>)(void *)new_b.dgemm};
    const double flops = 2.0 * double(m) * double(n) * double(k);
    // Calls per timing: at least about 2 ms of work, so the clock's grain does not count.
    const int batch = std::max(1, int(2e-3 / (flops / 50e9)));
    auto call = [&](int i) {
        const double t0 = now();
        for (int j = 0; j < batch; ++j)
            f[i](nullptr, kColMajor, ta ? kOpT : kOpN, tb ? kOpT : kOpN, m, n, k, T(1), A.data(),
                 lda, B.data(), ldb, T(0), C.data(), ldc);
        return (now() - t0) / batch;
    };
    call(0), call(1); // first touches, thread pools
    std::vector<double> ratio, t_old, t_new;
    for (int r = 0; r < rounds; ++r) {
        // Alternate which build goes first, so that neither always follows the other's cache.
        const double a = r % 2 ? call(1) : call(0);
        const double b = r % 2 ? call(0) : call(1);
        const double to = r % 2 ? b : a, tn = r % 2 ? a : b;
        t_old.push_back(to);
        t_new.push_back(tn);
        ratio.push_back(to / tn);
    }
    const double med = median(ratio);
    std::printf("%-28s old/new %.3f [%.3f, %.3f]  GFLOP/s old %7.1f new %7.1f\n", spec, med,
                median(ratio, 0.25), median(ratio, 0.75), flops / median(t_old) * 1e-9,
                flops / median(t_new) * 1e-9);
    std::fflush(stdout);
    return med;
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s OLD_LIBRARY NEW_LIBRARY [ROUNDS] TYPE:MxNxK[:OPS]...\n",
                     argv[0]);
        return 2;
    }
    const Build old_b = load(argv[1]), new_b = load(argv[2]);
    int first = 3, rounds = 15;
    if (std::strchr(argv[3], ':') == nullptr) rounds = std::atoi(argv[first++]);
    double log_sum = 0;
    int count = 0;
    for (int i = first; i < argc; ++i) {
        char type = 0, ops[3] = "NN";
        long long m = 0, n = 0, k = 0;
        if (std::sscanf(argv[i], "%c:%lldx%lldx%lld:%2s", &type, &m, &n, &k, ops) < 4 ||
            (type != 's' && type != 'd') || m <= 0 || n <= 0 || k <= 0) {
            std::fprintf(stderr, "bad spec %s\n", argv[i]);
            return 2;
        }
        const bool ta = ops[0] == 'T', tb = ops[1] == 'T';
        const double r = type == 's' ? run<float>(old_b, new_b, rounds, m, n, k, ta, tb, argv[i])
                                     : run<double>(old_b, new_b, rounds, m, n, k, ta, tb, argv[i]);
        log_sum += std::log(r);
        ++count;
    }
    std::printf("geometric mean of old/new over %d products: %.3f\n", count,
                std::exp(log_sum / count));
}
