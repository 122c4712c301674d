// The "multigpu" subcommand (see multigpu_command.hpp): host-operand gemm over one GPU and over
// all of them through Tessera (tsr_set_cuda_devices), beside cuBLASXt over all of them at each
// of its block sizes, from pageable and from pinned host memory, in one process. Every side
// gets a warm-up call, then --reps timed calls (host wall clock: each call returns with C on
// the host); the median is kept. A sample of C's elements is compared between the sides.
// Tessera's spread calls are run under TESSERA_VERBOSE=1 with the library's log captured, for
// each device's busy time and idle tail (the plugin's "spread balance" line, from events).
#include "multigpu_command.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tessera/tessera.h>

#include "args.hpp"
#include "json_output.hpp"
#include "spread_balance.hpp"
#include "statistics.hpp"

#ifdef TESSERA_BENCH_HAVE_CUDA
#include <cublasXt.h>
#include <cuda_runtime.h>
#endif

namespace tessera::bench {
namespace {

struct Shape {
    int64_t m, n, k;
};

struct MultiGpuOptions {
    std::vector<Shape> shapes = {{16384, 16384, 16384}, {32768, 32768, 8192}};
    std::string dtypes = "sd";
    std::vector<std::string> memories = {"pageable", "pinned"};
    std::vector<int> xt_blocks = {2048, 4096, 8192};
    int reps = 3;
    std::string json;
    bool echo_log = false; // TESSERA_VERBOSE was set by the user: the captured log is echoed
};

const char *kUsage =
    "usage: tessera-bench multigpu [options]\n"
    "\n"
    "Host-operand gemm (column-major NN, alpha 1, beta 0.5; A, B and C in host memory) on one\n"
    "GPU and on every GPU of the host through Tessera, beside cuBLASXt on every GPU at each of\n"
    "its block sizes; medians of host wall-clock times. Ratios: Tessera on all GPUs against\n"
    "Tessera on one GPU, and against cuBLASXt's best block size. The load balance of the\n"
    "spread calls: each device's busy time (CUDA events) and idle tail (how long it waited,\n"
    "done, for the last device), from the library's TESSERA_VERBOSE=1 log.\n"
    "\n"
    "  --shapes LIST   MxNxK or N (cube), comma-separated (default 16384,32768x32768x8192)\n"
    "  --dtype s|d|sd  precisions (default sd)\n"
    "  --memory LIST   pageable, pinned or both (default both)\n"
    "  --xt-blocks L   cuBLASXt block sizes (default 2048,4096,8192; none: no cuBLASXt)\n"
    "  --reps N        timed calls per side (default 3)\n"
    "  --json FILE     write the results as JSON ('-': standard output)\n";

MultiGpuOptions parse(ArgCursor &args) {
    MultiGpuOptions o;
    while (!args.done()) {
        if (args.take_flag("--help")) {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (auto v = args.take_option("--shapes")) {
            o.shapes.clear();
            for (const std::string &item : split_list(*v)) {
                std::vector<std::string> parts = split_list(item, 'x');
                if (parts.size() != 1 && parts.size() != 3)
                    throw UsageError("--shapes takes N or MxNxK items");
                auto size = [&](const std::string &t) {
                    return parse_int(t, "--shapes", 1, 1 << 20);
                };
                o.shapes.push_back(parts.size() == 1
                                       ? Shape{size(parts[0]), size(parts[0]), size(parts[0])}
                                       : Shape{size(parts[0]), size(parts[1]), size(parts[2])});
            }
        } else if (auto v = args.take_option("--dtype")) {
            if (*v != "s" && *v != "d" && *v != "sd" && *v != "ds")
                throw UsageError("--dtype takes s, d or sd");
            o.dtypes = *v;
        } else if (auto v = args.take_option("--memory")) {
            o.memories = split_list(*v);
            for (const std::string &m : o.memories)
                if (m != "pageable" && m != "pinned")
                    throw UsageError("--memory takes pageable, pinned or both");
        } else if (auto v = args.take_option("--xt-blocks")) {
            o.xt_blocks.clear();
            if (*v != "none")
                for (const std::string &b : split_list(*v))
                    o.xt_blocks.push_back(int(parse_int(b, "--xt-blocks", 64, 1 << 16)));
        } else if (auto v = args.take_option("--reps")) {
            o.reps = int(parse_int(*v, "--reps", 1, 100));
        } else if (auto v = args.take_option("--json")) {
            o.json = *v;
        } else {
            throw UsageError("multigpu: unknown option '" + args.current() + "'");
        }
    }
    return o;
}

#ifdef TESSERA_BENCH_HAVE_CUDA

// Host memory of `count` elements, pageable (new) or pinned (cudaMallocHost), freed on exit.
template <typename T> struct HostArray {
    T *ptr = nullptr;
    bool pinned = false;
    HostArray(size_t count, bool pin) : pinned(pin) {
        if (pin) {
            if (cudaMallocHost(&ptr, count * sizeof(T)) != cudaSuccess) ptr = nullptr;
        } else {
            ptr = new (std::nothrow) T[count];
        }
        if (!ptr) throw std::runtime_error("cannot allocate the host operands");
    }
    ~HostArray() {
        if (pinned) cudaFreeHost(ptr);
        else delete[] ptr;
    }
    HostArray(const HostArray &) = delete;
    HostArray &operator=(const HostArray &) = delete;
};

// A parallel copy: C is restored before every side, and at 65536² one thread would take seconds.
template <typename T> void copy_parallel(T *to, const T *from, size_t count) {
    const size_t piece = size_t(1) << 20;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i += piece)
        std::memcpy(to + i, from + i, std::min(piece, count - i) * sizeof(T));
}

// The library's log (standard error) while a side runs, read back afterwards: fd 2 goes to a
// temporary file. `echo`: the user asked for the log (TESSERA_VERBOSE was set), so it is
// written out again.
class LogCapture {
public:
    explicit LogCapture(bool echo) : echo_(echo) {
        std::fflush(stderr);
        file_ = std::tmpfile();
        saved_ = dup(2);
        if (!file_ || saved_ < 0 || dup2(fileno(file_), 2) < 0) restore();
    }
    ~LogCapture() { text(); }
    // Everything logged since the capture began (once; later calls return "").
    std::string text() {
        if (!file_) return "";
        restore();
        std::string out;
        std::rewind(file_);
        char buf[4096];
        for (size_t got; (got = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, got);
        std::fclose(file_);
        file_ = nullptr;
        if (echo_) std::fputs(out.c_str(), stderr);
        return out;
    }

private:
    void restore() {
        std::fflush(stderr);
        if (saved_ >= 0) dup2(saved_, 2), close(saved_), saved_ = -1;
    }
    bool echo_;
    std::FILE *file_ = nullptr;
    int saved_ = -1;
};

template <typename T> void fill(T *x, size_t count, uint64_t seed) {
#pragma omp parallel
    {
        std::mt19937_64 g(seed + 0x9e3779b97f4a7c15ull * uint64_t(omp_get_thread_num() + 1));
        std::uniform_real_distribution<double> u(-1.0, 1.0);
#pragma omp for schedule(static)
        for (size_t i = 0; i < count; ++i) x[i] = T(u(g));
    }
}

struct Side {
    std::string name;
    double seconds = 0; // median
};

double median_of(int reps, const std::function<void()> &call) {
    call(); // warm-up: buffers, pinned rings, plans
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        call();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return summarize(t).median;
}

template <typename T>
void run_case(const MultiGpuOptions &o, const Shape &s, bool pinned, int devices, Json &rows,
              std::ostream &out) {
    const int64_t m = s.m, n = s.n, k = s.k;
    HostArray<T> A(size_t(m * k), pinned), B(size_t(k * n), pinned), C(size_t(m * n), pinned);
    fill(A.ptr, size_t(m * k), 1), fill(B.ptr, size_t(k * n), 2), fill(C.ptr, size_t(m * n), 3);
    const T alpha = 1, beta = T(0.5);
    std::vector<T> C0(size_t(m * n)); // C before, for every side
    copy_parallel(C0.data(), C.ptr, C0.size());
    std::mt19937_64 g(7);
    std::vector<size_t> sample(512);
    for (size_t &i : sample) i = size_t(g() % uint64_t(m * n));
    std::vector<T> reference;
    double worst = 0;
    auto restore = [&] { copy_parallel(C.ptr, C0.data(), C0.size()); };
    // Against the first side's result after the same calls, in units of k·u·(2 + |entry|).
    auto compare = [&] {
        if (reference.empty()) {
            for (size_t i : sample) reference.push_back(C.ptr[i]);
            return;
        }
        for (size_t j = 0; j < sample.size(); ++j)
            worst = std::max(worst, std::abs(double(C.ptr[sample[j]]) - double(reference[j])) /
                                        (double(k) * std::numeric_limits<T>::epsilon() *
                                         (2.0 + std::abs(double(reference[j])))));
    };

    std::vector<Side> sides;
    SpreadBalance balance;
    auto tessera = [&](int count) {
        tsr_handle h = nullptr;
        if (tsr_create(&h) != TSR_SUCCESS || tsr_set_backend(h, TSR_BACKEND_CUDA) != TSR_SUCCESS)
            throw std::runtime_error(std::string("Tessera's CUDA backend: ") + tsr_last_error());
        std::vector<int> ids(static_cast<size_t>(count));
        for (int d = 0; d < count; ++d) ids[size_t(d)] = d;
        if (tsr_set_cuda_devices(h, count, ids.data()) != TSR_SUCCESS)
            throw std::runtime_error(std::string("tsr_set_cuda_devices: ") + tsr_last_error());
        auto call = [&] {
            tsr_status st;
            if constexpr (sizeof(T) == 4)
                st = tsr_sgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, alpha, A.ptr, m,
                               B.ptr, k, beta, C.ptr, m);
            else
                st = tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, alpha, A.ptr, m,
                               B.ptr, k, beta, C.ptr, m);
            if (st != TSR_SUCCESS) throw std::runtime_error(tsr_last_error());
        };
        restore(); // every side makes the same 1 + reps calls from the same C
        LogCapture log(o.echo_log);
        const double t = median_of(o.reps, call);
        if (count > 1) balance = spread_balance_from_log(log.text());
        compare();
        tsr_destroy(h);
        sides.push_back({"tessera, " + std::to_string(count) + " GPU" + (count > 1 ? "s" : ""), t});
    };
    tessera(1);
    if (devices > 1) tessera(devices);
    for (int block : o.xt_blocks) {
        cublasXtHandle_t xt = nullptr;
        if (cublasXtCreate(&xt) != CUBLAS_STATUS_SUCCESS)
            throw std::runtime_error("cublasXtCreate");
        std::vector<int> ids(static_cast<size_t>(devices));
        for (int d = 0; d < devices; ++d) ids[size_t(d)] = d;
        cublasXtDeviceSelect(xt, devices, ids.data());
        cublasXtSetBlockDim(xt, block);
        auto call = [&] {
            cublasStatus_t st;
            if constexpr (sizeof(T) == 4)
                st = cublasXtSgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, size_t(m), size_t(n), size_t(k),
                                   &alpha, A.ptr, size_t(m), B.ptr, size_t(k), &beta, C.ptr,
                                   size_t(m));
            else
                st = cublasXtDgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, size_t(m), size_t(n), size_t(k),
                                   &alpha, A.ptr, size_t(m), B.ptr, size_t(k), &beta, C.ptr,
                                   size_t(m));
            if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasXtGemm failed");
        };
        restore();
        const double t = median_of(o.reps, call);
        compare();
        cublasXtDestroy(xt);
        sides.push_back(
            {"cublasxt " + std::to_string(devices) + " GPUs, block " + std::to_string(block), t});
    }

    const double flops = 2.0 * double(m) * double(n) * double(k);
    const char dtype = sizeof(T) == 4 ? 's' : 'd';
    double best_xt = 0;
    for (const Side &side : sides)
        if (side.name.rfind("cublasxt", 0) == 0 && (best_xt == 0 || side.seconds < best_xt))
            best_xt = side.seconds;
    const double one = sides[0].seconds, all = sides.size() > 1 ? sides[1].seconds : one;
    // The members every row of this case shares, then the row's own.
    auto row = [&](std::initializer_list<std::pair<const char *, Json>> own) {
        Json r{{"dtype", std::string(1, dtype)},
               {"m", m},
               {"n", n},
               {"k", k},
               {"memory", pinned ? "pinned" : "pageable"}};
        for (const auto &[key, value] : own) r[key] = value;
        rows.push_back(r);
    };
    char line[512];
    for (const Side &side : sides) {
        std::snprintf(line, sizeof line,
                      "%cgemm %lldx%lldx%lld %-8s %-30s %9.1f ms %8.1f TFLOP/s\n", dtype,
                      (long long)m, (long long)n, (long long)k, pinned ? "pinned" : "pageable",
                      side.name.c_str(), side.seconds * 1e3, flops / side.seconds * 1e-12);
        out << line;
        row({{"side", side.name},
             {"seconds", side.seconds},
             {"tflops", flops / side.seconds * 1e-12}});
    }
    std::snprintf(line, sizeof line,
                  "  -> tessera %d GPUs / 1 GPU: %.2fx; / cublasxt best block: %s; sampled C "
                  "agrees within %.2f k*u\n",
                  devices, one / all,
                  best_xt > 0 ? (std::to_string(best_xt / all).substr(0, 4) + "x").c_str()
                              : "not run",
                  worst);
    out << line;
    if (best_xt > 0)
        row({{"speedup_over_one_gpu", one / all},
             {"ratio_to_cublasxt_best", best_xt / all},
             {"sample_error_ku", worst}});
    else row({{"speedup_over_one_gpu", one / all}, {"sample_error_ku", worst}});
    if (!balance.empty()) {
        double tail = 0;
        for (double x : balance.tail_ms) tail = std::max(tail, x);
        std::snprintf(line, sizeof line,
                      "  -> balance on %d GPUs (medians, ms): busy %s; shared operand whole after "
                      "%s; idle tail %s (the longest %.1f%% of the call)\n",
                      devices, join_ms(balance.busy_ms).c_str(), join_ms(balance.ready_ms).c_str(),
                      join_ms(balance.tail_ms).c_str(), 100.0 * tail / (all * 1e3));
        out << line;
        row({{"busy_ms", balance.busy_ms},
             {"shared_ready_ms", balance.ready_ms},
             {"idle_tail_ms", balance.tail_ms}});
    }
}

#endif

} // namespace

int run_multigpu_command(ArgCursor &args) {
    MultiGpuOptions o = parse(args);
    // The balance line is logged under TESSERA_VERBOSE=1, which the library reads once, at its
    // first call: set here, before any.
    const char *verbose = std::getenv("TESSERA_VERBOSE");
    o.echo_log = verbose && std::strcmp(verbose, "1") == 0;
    setenv("TESSERA_VERBOSE", "1", 1);
#ifndef TESSERA_BENCH_HAVE_CUDA
    (void)o;
    std::fputs("tessera-bench multigpu: this bench was built without CUDA\n", stderr);
    return 2;
#else
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fputs("tessera-bench multigpu: no CUDA device here\n", stderr);
        return 2;
    }
    JsonOutput json(o.json);
    std::ostream &out = json.log();
    out << "multigpu: " << devices << " CUDA device(s); medians of " << o.reps
        << " calls after a warm-up, host wall clock\n";
    Json rows = Json::array();
    for (const Shape &s : o.shapes)
        for (const std::string &memory : o.memories)
            for (char dtype : o.dtypes) {
                if (dtype == 's') run_case<float>(o, s, memory == "pinned", devices, rows, out);
                else run_case<double>(o, s, memory == "pinned", devices, rows, out);
                out.flush();
            }
    if (json.wanted() &&
        !json.emit(Json{
            {"command", "multigpu"}, {"devices", devices}, {"reps", o.reps}, {"results", rows}}))
        return 1;
    return 0;
#endif
}

} // namespace tessera::bench
