// Two builds of libtessera side by side on the tiny products of `tessera-bench tiny`, in one
// process: each build loaded on its own (dlopen, RTLD_LOCAL), the two builds and libxsmm's JIT
// kernel timed in turns, batches of back-to-back calls, the median batch of 41. On a machine
// whose speed moves between runs this is how a change to the tiny path is judged: the ratio of
// the two builds in the same seconds. C is scaled down between batches (beta 1 would let it
// grow without bound).
//
// Not part of the build:
//   g++ -O2 bench/probes/tiny_ab.cpp -o tiny_ab -lxsmm -lxsmmnoblas -ldl -lpthread
//   ./tiny_ab OLD/libtessera.so.0 NEW/libtessera.so.0          (through gemm plans)
//   ./tiny_ab OLD/libtessera.so.0 NEW/libtessera.so.0 door     (through tsr_?gemm)
//   ./tiny_ab OLD/libtessera.so.0 NEW/libtessera.so.0 kernel   (the plans' bare kernels)
// The two paths must name different files (a copy of one build's library will do).
#include <libxsmm.h>

#include "two_builds.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

namespace {

// The few entry points used, by their C signatures (tessera.h's enums are ints).
using plan_t = void *;
using create_fn = int (*)(void *, plan_t *, int, int, int, int, int64_t, int64_t, int64_t, int64_t,
                          int64_t, int64_t);
using execute_fn = int (*)(plan_t, double, const void *, const void *, double, void *);
using destroy_fn = int (*)(plan_t);
template <typename T> using kernel_t = void (*)(plan_t, T, const T *, const T *, T, T *);
template <typename T> using get_kernel_fn = int (*)(plan_t, kernel_t<T> *);
template <typename T>
using gemm_fn = int (*)(void *, int, int, int, int64_t, int64_t, int64_t, T, const T *, int64_t,
                        const T *, int64_t, T, T *, int64_t);
constexpr int kF32 = 0, kF64 = 1, kColMajor = 102, kOpN = 111;

struct Build {
    create_fn create;
    execute_fn execute;
    destroy_fn destroy;
    gemm_fn<float> sgemm;
    gemm_fn<double> dgemm;
    get_kernel_fn<float> skernel; // nullptr in builds before the bare kernels
    get_kernel_fn<double> dkernel;
};

Build load(const char *path) {
    void *h = probe::open_build(path);
    return {reinterpret_cast<create_fn>(dlsym(h, "tsr_gemm_plan_create")),
            reinterpret_cast<execute_fn>(dlsym(h, "tsr_gemm_plan_execute")),
            reinterpret_cast<destroy_fn>(dlsym(h, "tsr_gemm_plan_destroy")),
            reinterpret_cast<gemm_fn<float>>(dlsym(h, "tsr_sgemm")),
            reinterpret_cast<gemm_fn<double>>(dlsym(h, "tsr_dgemm")),
            reinterpret_cast<get_kernel_fn<float>>(dlsym(h, "tsr_gemm_plan_sgemm_kernel")),
            reinterpret_cast<get_kernel_fn<double>>(dlsym(h, "tsr_gemm_plan_dgemm_kernel"))};
}

using probe::now;

enum class Way { plan, door, kernel };

// One side's call for an m×n×k product on A, B, C: through a plan of `b` (its execute or its
// bare kernel, where it has one), or its tsr_?gemm.
template <typename T>
std::function<void()> side(const Build &b, Way way, plan_t plan, int m, int n, int k, const T *A,
                           const T *B, T *C) {
    if (way == Way::kernel) {
        kernel_t<T> f = nullptr;
        int got = -1;
        if constexpr (sizeof(T) == 4) got = b.skernel ? b.skernel(plan, &f) : -1;
        else got = b.dkernel ? b.dkernel(plan, &f) : -1;
        if (got == 0) return [=] { f(plan, T(1), A, B, T(1), C); };
    }
    if (way != Way::door) return [=] { b.execute(plan, 1.0, A, B, 1.0, C); };
    if constexpr (sizeof(T) == 4)
        return [=] { b.sgemm(nullptr, kColMajor, kOpN, kOpN, m, n, k, 1, A, m, B, k, 1, C, m); };
    else return [=] { b.dgemm(nullptr, kColMajor, kOpN, kOpN, m, n, k, 1, A, m, B, k, 1, C, m); };
}

template <typename T> void run(const Build &old_b, const Build &new_b, Way way) {
    const int shapes[][3] = {{4, 4, 4},    {8, 8, 8},    {12, 12, 12}, {16, 16, 16},
                             {24, 24, 24}, {32, 32, 32}, {48, 48, 48}, {64, 64, 64},
                             {5, 7, 3},    {16, 4, 32},  {64, 8, 16},  {9, 64, 13}};
    const char type = sizeof(T) == 4 ? 's' : 'd';
    std::mt19937 rng(1);
    std::uniform_real_distribution<T> u(-1, 1);
    double log_old = 0, log_new = 0;
    for (const auto &s : shapes) {
        const int m = s[0], n = s[1], k = s[2];
        std::vector<T> A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n);
        for (auto *v : {&A, &B, &C})
            for (T &x : *v) x = u(rng);
        plan_t po = nullptr, pn = nullptr;
        const int dtype = sizeof(T) == 4 ? kF32 : kF64;
        old_b.create(nullptr, &po, dtype, kColMajor, kOpN, kOpN, m, n, k, m, k, m);
        new_b.create(nullptr, &pn, dtype, kColMajor, kOpN, kOpN, m, n, k, m, k, m);
        std::vector<std::function<void()>> sides = {
            side<T>(old_b, way, po, m, n, k, A.data(), B.data(), C.data()),
            side<T>(new_b, way, pn, m, n, k, A.data(), B.data(), C.data())};
        T *a = A.data(), *b = B.data(), *c = C.data();
        if constexpr (sizeof(T) == 4) {
            auto f = libxsmm_smmdispatch(m, n, k, nullptr, nullptr, nullptr, nullptr, nullptr,
                                         nullptr, nullptr);
            sides.push_back([=] { f(a, b, c); });
        } else {
            auto f = libxsmm_dmmdispatch(m, n, k, nullptr, nullptr, nullptr, nullptr, nullptr,
                                         nullptr, nullptr);
            sides.push_back([=] { f(a, b, c); });
        }
        const double flops = 2.0 * m * n * k;
        const int batch = std::max(20, int(2e-4 / (flops * 1e-11 + 1e-8)));
        std::vector<std::vector<double>> ns(sides.size());
        for (int round = 0; round < 41; ++round)
            for (size_t i = 0; i < sides.size(); ++i) {
                const double t0 = now();
                for (int j = 0; j < batch; ++j) sides[i]();
                ns[i].push_back((now() - t0) / batch * 1e9);
                for (T &x : C) x *= T(1e-3);
            }
        double med[3];
        for (size_t i = 0; i < sides.size(); ++i) {
            std::sort(ns[i].begin(), ns[i].end());
            med[i] = ns[i][ns[i].size() / 2];
        }
        std::printf("%c %2dx%2dx%2d  old %8.1f  new %8.1f  jit %8.1f ns   jit/old %.2f  "
                    "jit/new %.2f  old/new %.2f\n",
                    type, m, n, k, med[0], med[1], med[2], med[2] / med[0], med[2] / med[1],
                    med[0] / med[1]);
        log_old += std::log(med[2] / med[0]);
        log_new += std::log(med[2] / med[1]);
        old_b.destroy(po);
        new_b.destroy(pn);
    }
    const double count = double(std::size(shapes));
    std::printf("%c geometric mean of jit / Tessera: old %.3f, new %.3f\n", type,
                std::exp(log_old / count), std::exp(log_new / count));
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OLD_LIBRARY NEW_LIBRARY [door|kernel]\n", argv[0]);
        return 2;
    }
    const Build old_b = load(argv[1]), new_b = load(argv[2]);
    const char *mode = argc > 3 ? argv[3] : "";
    const Way way = !std::strcmp(mode, "door")     ? Way::door
                    : !std::strcmp(mode, "kernel") ? Way::kernel
                                                   : Way::plan;
    std::printf("%s, ns per call (median of 41 batches in turns), column-major NN, beta 1\n",
                way == Way::door     ? "tsr_?gemm"
                : way == Way::kernel ? "plans' bare kernels (execute where a build has none)"
                                     : "gemm plans");
    libxsmm_init();
    run<float>(old_b, new_b, way);
    run<double>(old_b, new_b, way);
    libxsmm_finalize();
}
