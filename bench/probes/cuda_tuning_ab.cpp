// Two CUDA tuning tables side by side on SGEMM products of the sweep's kind, in one process: two
// copies of one build of libtessera, each in its own directory with its own copy of the CUDA
// plugin, the first's plugin started with TESSERA_CUDA_TUNING unset (the built-in tables), the
// second's with TESSERA_CUDA_TUNING=TABLE; every product timed with each in turns (five rounds,
// each the median of three calls, CUDA events, device operands) and the median of the rounds'
// time ratios kept. cuBLAS's own speed moves several percent between processes, so two sweeps
// in two processes cannot tell a table's effect from that drift; this can. With TABLE =
// `builtin` it is an A/A control of the method.
//
// Not part of the build:
//   g++ -O2 bench/probes/cuda_tuning_ab.cpp -o cuda_tuning_ab -I/usr/local/cuda/include \
//       -L/usr/local/cuda/lib64 -lcudart -ldl
//   ./cuda_tuning_ab A/libtessera.so.0 B/libtessera.so.0 TABLE [COUNT [SEED]]
// Shapes: m, n, k log-uniform in [16, 16384], m·n·k at most 4096³, random transposes, leading
// dimensions padded by 0–7, beta 0 or 0.5 (as `tessera-bench --sweep`, not its draws).
#include <cuda_runtime.h>

#include "two_builds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using sgemm_fn = int (*)(void *, int, int, int, int64_t, int64_t, int64_t, float, const float *,
                         int64_t, const float *, int64_t, float, float *, int64_t);
constexpr int kColMajor = 102, kOpN = 111, kOpT = 112, kBackendCuda = 2;

struct Build {
    void *handle = nullptr;
    sgemm_fn sgemm = nullptr;
    const char *(*last_error)() = nullptr;
};

// Opens a build, makes a handle on its CUDA backend and stream `s`, and runs one product so that
// its plugin starts (and reads TESSERA_CUDA_TUNING) now.
Build start(const char *path, cudaStream_t s, const float *A, const float *B, float *C) {
    void *lib = probe::open_build(path);
    Build b;
    auto create = reinterpret_cast<int (*)(void **)>(dlsym(lib, "tsr_create"));
    auto backend = reinterpret_cast<int (*)(void *, int)>(dlsym(lib, "tsr_set_backend"));
    auto stream = reinterpret_cast<int (*)(void *, void *)>(dlsym(lib, "tsr_set_cuda_stream"));
    b.sgemm = reinterpret_cast<sgemm_fn>(dlsym(lib, "tsr_sgemm"));
    b.last_error = reinterpret_cast<const char *(*)()>(dlsym(lib, "tsr_last_error"));
    if (create(&b.handle) || backend(b.handle, kBackendCuda) || stream(b.handle, s) ||
        b.sgemm(b.handle, kColMajor, kOpN, kOpN, 64, 64, 64, 1, A, 64, B, 64, 0, C, 64)) {
        std::fprintf(stderr, "%s: %s\n", path, b.last_error ? b.last_error() : "no symbols");
        std::exit(1);
    }
    cudaStreamSynchronize(s);
    return b;
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s A/libtessera.so.0 B/libtessera.so.0 TABLE [COUNT [SEED]]\n",
                     argv[0]);
        return 2;
    }
    const int count = argc > 4 ? std::atoi(argv[4]) : 400;
    const unsigned seed = argc > 5 ? unsigned(std::atoi(argv[5])) : 7;
    cudaStream_t s;
    cudaStreamCreate(&s);
    const size_t cap = size_t(1) << 28; // floats per operand (1 GiB)
    float *A = nullptr, *B = nullptr, *C = nullptr;
    if (cudaMalloc(&A, cap * 4) || cudaMalloc(&B, cap * 4) || cudaMalloc(&C, cap * 4)) {
        std::fprintf(stderr, "cannot allocate 3 GiB on the device\n");
        return 1;
    }
    cudaMemset(A, 0, cap * 4), cudaMemset(B, 0, cap * 4), cudaMemset(C, 0, cap * 4);
    unsetenv("TESSERA_CUDA_TUNING");
    Build a = start(argv[1], s, A, B, C);
    setenv("TESSERA_CUDA_TUNING", argv[3], 1);
    Build b = start(argv[2], s, A, B, C);

    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> side(std::log(16.0), std::log(16384.0));
    std::uniform_int_distribution<int> pad(0, 7), coin(0, 1);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    std::vector<double> ratios;
    while (int(ratios.size()) < count) {
        const int64_t m = int64_t(std::exp(side(rng))), n = int64_t(std::exp(side(rng))),
                      k = int64_t(std::exp(side(rng)));
        if (double(m) * double(n) * double(k) > 4096.0 * 4096.0 * 4096.0) continue;
        const bool ta = coin(rng), tb = coin(rng);
        const float beta = coin(rng) ? 0.5f : 0.0f;
        const int64_t lda = (ta ? k : m) + pad(rng), ldb = (tb ? n : k) + pad(rng),
                      ldc = m + pad(rng);
        if (size_t(lda) * size_t(ta ? m : k) > cap || size_t(ldb) * size_t(tb ? k : n) > cap ||
            size_t(ldc) * size_t(n) > cap)
            continue;
        auto time = [&](const Build &x) {
            auto call = [&] {
                return x.sgemm(x.handle, kColMajor, ta ? kOpT : kOpN, tb ? kOpT : kOpN, m, n, k, 1,
                               A, lda, B, ldb, beta, C, ldc);
            };
            if (call()) {
                std::fprintf(stderr, "%s\n", x.last_error());
                std::exit(1);
            }
            float ms[3];
            for (float &t : ms) {
                cudaEventRecord(e0, s);
                call();
                cudaEventRecord(e1, s);
                cudaEventSynchronize(e1);
                cudaEventElapsedTime(&t, e0, e1);
            }
            std::sort(ms, ms + 3);
            return double(ms[1]);
        };
        std::vector<double> rounds;
        for (int r = 0; r < 5; ++r) rounds.push_back(time(a) / time(b));
        std::sort(rounds.begin(), rounds.end());
        ratios.push_back(rounds[2]);
        std::printf("%lldx%lldx%lld %c%c beta %.1f  A/B %.3f\n", (long long)m, (long long)n,
                    (long long)k, ta ? 'T' : 'N', tb ? 'T' : 'N', beta, rounds[2]);
    }
    double logs = 0;
    for (double r : ratios) logs += std::log(r);
    std::sort(ratios.begin(), ratios.end());
    const size_t last = ratios.size() - 1;
    std::printf("cases %zu: geometric mean of A's time over B's %.4f; p5 %.3f p50 %.3f p95 %.3f\n",
                ratios.size(), std::exp(logs / double(ratios.size())),
                ratios[size_t(0.05 * double(last))], ratios[last / 2],
                ratios[size_t(0.95 * double(last))]);
}
