// The "gemv" subcommand (see gemv_command.hpp): for each shape, op and type, Tessera's and
// OpenBLAS's cblas_?gemv are timed in turns after a warm-up, and the medians give GB/s (A, x
// once, y read and written) and the ratio. --isa runs the whole table once per ISA path, each in
// a child process with TESSERA_CPU_ISA set (the library picks its kernels once per process).
#include "gemv_command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "openblas.hpp"
#include "statistics.hpp"
#include "timing.hpp"

extern "C" {
void cblas_sgemv(int layout, int trans, int m, int n, float alpha, const float *A, int lda,
                 const float *x, int incx, float beta, float *y, int incy);
void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double *A, int lda,
                 const double *x, int incx, double beta, double *y, int incy);
}

extern char **environ;

namespace tessera::bench {
namespace {

struct Shape {
    int m, n;
};

const std::vector<Shape> kShapes = {{1000, 1000}, {2000, 2000},  {4000, 4000},
                                    {8000, 8000}, {32000, 1000}, {1000, 32000}};

struct GemvOptions {
    std::vector<Shape> shapes = kShapes;
    std::string dtypes = "sd", ops = "NT";
    int threads = 2;
    double min_time = 0.3, settle = 0.15;
    std::vector<std::string> isas; // empty: the process's own
    std::string openblas_path;
};

const char *kUsage =
    "usage: tessera-bench gemv [options]\n"
    "\n"
    "GB/s of column-major y = alpha*op(A)*x + beta*y (alpha 1.5, beta 0.5, unit increments)\n"
    "through Tessera's cblas_?gemv and OpenBLAS's, in turns, medians; the ratio is OpenBLAS's\n"
    "time over Tessera's (above 1: Tessera is faster). Shapes: 1000, 2000, 4000, 8000 square,\n"
    "32000x1000 (tall) and 1000x32000 (wide).\n"
    "\n"
    "options:\n"
    "  --shapes MxN,...       instead of the default shapes (N alone: square)\n"
    "  --dtype s|d|both       (default both)\n"
    "  --op N|T|both          (default both)\n"
    "  --threads T            threads of both libraries (default 2)\n"
    "  --min-time S           seconds of timed calls per side (default 0.3)\n"
    "  --settle S             idle seconds before each turn (default 0.15)\n"
    "  --isa LIST             run once per TESSERA_CPU_ISA in LIST (avx512,avx2,generic)\n"
    "  --openblas PATH        the OpenBLAS to load (default libopenblas.so.0)\n";

GemvOptions parse(ArgCursor &args, std::vector<std::string> *child_args) {
    GemvOptions o;
    // Takes "--name value" or "--name=value", and keeps it for a child run (but --isa).
    auto take = [&](const char *name) {
        auto v = args.take_option(name);
        if (v && std::string(name) != "--isa") child_args->push_back(std::string(name) + "=" + *v);
        return v;
    };
    while (!args.done()) {
        if (args.take_flag("--help")) {
            std::fputs(kUsage, stdout);
            std::exit(0);
        }
        if (auto v = take("--isa")) {
            o.isas = split_list(*v);
        } else if (auto v = take("--shapes")) {
            o.shapes.clear();
            for (const auto &item : split_list(*v)) {
                const auto x = item.find('x');
                const int m = int(parse_int(item.substr(0, x), "--shapes", 1, 1 << 30));
                const int n = x == std::string::npos
                                  ? m
                                  : int(parse_int(item.substr(x + 1), "--shapes", 1, 1 << 30));
                o.shapes.push_back({m, n});
            }
        } else if (auto v = take("--dtype")) {
            o.dtypes = *v == "both" ? "sd" : *v;
            if (o.dtypes != "s" && o.dtypes != "d" && o.dtypes != "sd")
                throw UsageError("--dtype takes s, d or both");
        } else if (auto v = take("--op")) {
            o.ops = *v == "both" ? "NT" : *v;
            if (o.ops != "N" && o.ops != "T" && o.ops != "NT")
                throw UsageError("--op takes N, T or both");
        } else if (auto v = take("--threads")) {
            o.threads = int(parse_int(*v, "--threads", 1, 1024));
        } else if (auto v = take("--min-time")) {
            o.min_time = parse_number(*v, "--min-time", 0);
        } else if (auto v = take("--settle")) {
            o.settle = parse_number(*v, "--settle", 0);
        } else if (auto v = take("--openblas")) {
            o.openblas_path = *v;
        } else {
            throw UsageError("gemv: unknown option '" + args.current() + "'");
        }
    }
    return o;
}

// One table row: both sides timed in turns; the error of Tessera's y against a double oracle.
template <typename T>
void run_case(const OpenBlas &ob, const Shape &s, char op, const GemvOptions &o,
              std::mt19937_64 &rng) {
    const int m = s.m, n = s.n;
    const bool trans = op == 'T';
    const int xlen = trans ? m : n, ylen = trans ? n : m;
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    auto fill = [&](std::vector<T> &v, size_t len) {
        v.resize(len);
        for (auto &e : v) e = T(dist(rng) + (dist(rng) < 0 ? -0.01 : 0.01)); // never zero
    };
    std::vector<T> A, x, y0;
    fill(A, size_t(m) * size_t(n));
    fill(x, size_t(xlen));
    fill(y0, size_t(ylen));
    std::vector<T> y_ours = y0, y_theirs = y0;
    const T alpha = T(1.5), beta = T(0.5);
    const int top = trans ? 112 : 111;
    auto ours = [&] {
        if constexpr (sizeof(T) == 4)
            cblas_sgemv(102, top, m, n, alpha, A.data(), m, x.data(), 1, beta, y_ours.data(), 1);
        else cblas_dgemv(102, top, m, n, alpha, A.data(), m, x.data(), 1, beta, y_ours.data(), 1);
    };
    auto theirs = [&] {
        if constexpr (sizeof(T) == 4)
            ob.sgemv(102, top, m, n, alpha, A.data(), m, x.data(), 1, beta, y_theirs.data(), 1);
        else ob.dgemv(102, top, m, n, alpha, A.data(), m, x.data(), 1, beta, y_theirs.data(), 1);
    };

    // Accuracy of one call from y0, against a double (long double for double) oracle.
    ours();
    double err = 0;
    for (int j = 0; j < ylen; ++j) {
        long double s = 0, mag = 0;
        for (int i = 0; i < xlen; ++i) {
            const long double a = trans ? A[size_t(j) * m + i] : A[size_t(i) * m + j];
            s += a * x[size_t(i)];
            mag += std::fabs(a * x[size_t(i)]);
        }
        const long double want = alpha * s + beta * (long double)y0[size_t(j)];
        const long double scale = std::fabs(alpha) * mag + std::fabs(beta * y0[size_t(j)]);
        err = std::max(err, double(std::fabs(y_ours[size_t(j)] - want) / scale));
    }

    TimingPlan plan;
    plan.min_time = o.min_time;
    plan.settle = o.settle;
    plan.turn_time = 0.05;
    const TimedSide sides[] = {{"tessera", wall_timed(ours)}, {"openblas", wall_timed(theirs)}};
    const auto times = run_interleaved(sides, plan);
    const double t_ours = summarize(times[0]).median, t_theirs = summarize(times[1]).median;
    const double bytes = (double(m) * n + xlen + 2.0 * ylen) * sizeof(T);
    std::printf("%-6s %c %6d %6d  %9.2f  %9.2f  %6.2f  %9.1e\n", sizeof(T) == 4 ? "sgemv" : "dgemv",
                op, m, n, bytes / t_ours * 1e-9, bytes / t_theirs * 1e-9, t_theirs / t_ours, err);
    std::fflush(stdout);
}

// Runs this command again in a child with TESSERA_CPU_ISA=isa; its exit status.
int run_child(const std::string &isa, const std::vector<std::string> &child_args) {
    std::vector<std::string> env_strings;
    for (char **e = environ; *e; ++e)
        if (std::string(*e).rfind("TESSERA_CPU_ISA=", 0) != 0) env_strings.push_back(*e);
    env_strings.push_back("TESSERA_CPU_ISA=" + isa);
    std::vector<char *> env, argv;
    for (auto &e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
    std::vector<std::string> args = {"tessera-bench", "gemv"};
    args.insert(args.end(), child_args.begin(), child_args.end());
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), env.data()) != 0)
        return 1;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace

int run_gemv_command(ArgCursor &args) {
    std::vector<std::string> child_args;
    const GemvOptions o = parse(args, &child_args);
    if (!o.isas.empty()) {
        int worst = 0;
        for (const auto &isa : o.isas) worst = std::max(worst, run_child(isa, child_args));
        return worst;
    }
    // Both libraries read their thread counts once: set before the first call.
    setenv("TESSERA_NUM_THREADS", std::to_string(o.threads).c_str(), 1);
    std::string why;
    auto ob = OpenBlas::load(o.openblas_path, &why);
    if (!ob || !ob->sgemv || !ob->dgemv) {
        std::fprintf(stderr, "tessera-bench gemv: no OpenBLAS with cblas_?gemv: %s\n", why.c_str());
        return 1;
    }
    ob->set_num_threads(o.threads);
    const char *isa = std::getenv("TESSERA_CPU_ISA");
    std::printf("gemv: tessera %s (TESSERA_CPU_ISA=%s) vs OpenBLAS %s (%s), %d threads\n",
                tsr_version(), isa ? isa : "auto", ob->corename().c_str(), ob->path().c_str(),
                o.threads);
    std::printf("%-6s %s %6s %6s  %9s  %9s  %6s  %9s\n", "", "op", "m", "n", "GB/s ours", "GB/s OB",
                "ratio", "rel.err");
    std::mt19937_64 rng(20261126);
    for (char dt : o.dtypes)
        for (char op : o.ops)
            for (const Shape &s : o.shapes) {
                if (dt == 's') run_case<float>(*ob, s, op, o, rng);
                else run_case<double>(*ob, s, op, o, rng);
            }
    return 0;
}

} // namespace tessera::bench
