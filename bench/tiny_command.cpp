// The "tiny" subcommand (see tiny_command.hpp): for each size and type, every side is timed in
// batches of back-to-back calls (beta 1, so C is read and written), the sides in turns, and the
// median batch gives the nanoseconds per call; ratios are the anchor's time over Tessera's.
#include "tiny_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "json_output.hpp"
#include "machine_info.hpp"
#include "openblas.hpp"
#include "progress.hpp"
#include "options.hpp"
#include "session.hpp"
#include "session_json.hpp"
#include "statistics.hpp"
#include "timing.hpp"

#ifdef TESSERA_BENCH_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

namespace tessera::bench {
namespace {

struct TinyShape {
    int m, n, k;
};

// Square sizes, then a few mixed shapes of the same range: all within libxsmm's JIT (m, n, k at
// most 64), so its BLAS-style call never falls back to a BLAS.
const std::vector<TinyShape> kShapes = {{4, 4, 4},    {8, 8, 8},    {12, 12, 12}, {16, 16, 16},
                                        {24, 24, 24}, {32, 32, 32}, {48, 48, 48}, {64, 64, 64},
                                        {5, 7, 3},    {16, 4, 32},  {64, 8, 16},  {9, 64, 13}};

struct Side {
    std::string name;
    std::function<void()> call; // one product
    double ns = 0;              // median ns per call
};

std::string tiny_usage() {
    return std::string(
               "usage: tessera-bench tiny [options]\n"
               "\n"
               "Nanoseconds per call of small column-major NN products, beta 1, one thread:\n"
               "tsr_?gemm on the default handle, the same through a gemm plan\n"
               "(tsr_gemm_plan_execute) and through the plan's bare kernel\n"
               "(tsr_gemm_plan_?gemm_kernel), OpenBLAS's cblas_?gemm, libxsmm's libxsmm_?gemm\n"
               "and its JIT kernel (libxsmm_?mmdispatch), each where it is available; sides in\n"
               "turns, batches of calls, medians. Shapes: 4, 8, 12, 16, 24, 32, 48, 64\n"
               "(square) and 5x7x3, 16x4x32, 64x8x16, 9x64x13. The ratios are the anchor's\n"
               "time over Tessera's (above 1: Tessera is faster); last, libxsmm's JIT over the\n"
               "plan and over the kernel in geometric mean over the square shapes.\n"
               "\n"
               "options:\n"
               "  --dtype s|d|both  (default both)\n") +
           common_options_help();
}

template <typename T>
void add_sides(const TinyShape &s, std::vector<T> &A, std::vector<T> &B, std::vector<T> &C,
               const Session &session, tsr_gemm_plan plan, std::vector<Side> &sides) {
    const int m = s.m, n = s.n, k = s.k;
    T *a = A.data(), *b = B.data(), *c = C.data();
    if constexpr (sizeof(T) == 4) {
        sides.push_back({"tsr_sgemm", [=] {
                             tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 1.0f, a,
                                       m, b, k, 1.0f, c, m);
                         }});
    } else {
        sides.push_back({"tsr_dgemm", [=] {
                             tsr_dgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 1.0, a,
                                       m, b, k, 1.0, c, m);
                         }});
    }
    sides.push_back({"plan", [=] { tsr_gemm_plan_execute(plan, 1.0, a, b, 1.0, c); }});
    // The plan's bare kernel, where it has one (no checks: how libxsmm's JIT kernel is called).
    if constexpr (sizeof(T) == 4) {
        tsr_sgemm_kernel kernel = nullptr;
        if (tsr_gemm_plan_sgemm_kernel(plan, &kernel) == TSR_SUCCESS)
            sides.push_back({"kernel", [=] { kernel(plan, 1.0f, a, b, 1.0f, c); }});
    } else {
        tsr_dgemm_kernel kernel = nullptr;
        if (tsr_gemm_plan_dgemm_kernel(plan, &kernel) == TSR_SUCCESS)
            sides.push_back({"kernel", [=] { kernel(plan, 1.0, a, b, 1.0, c); }});
    }
    if (session.openblas) {
        const OpenBlas *ob = session.openblas.get();
        if constexpr (sizeof(T) == 4)
            sides.push_back({"openblas", [=] {
                                 ob->sgemm(102, 111, 111, m, n, k, 1.0f, a, m, b, k, 1.0f, c, m);
                             }});
        else
            sides.push_back({"openblas", [=] {
                                 ob->dgemm(102, 111, 111, m, n, k, 1.0, a, m, b, k, 1.0, c, m);
                             }});
    }
#ifdef TESSERA_BENCH_HAVE_LIBXSMM
    const libxsmm_blasint lm = m, ln = n, lk = k;
    if constexpr (sizeof(T) == 4) {
        sides.push_back({"libxsmm_sgemm", [=] {
                             const float one = 1;
                             libxsmm_sgemm("N", "N", &lm, &ln, &lk, &one, a, &lm, b, &lk, &one, c,
                                           &lm);
                         }});
        if (libxsmm_smmfunction f = libxsmm_smmdispatch(m, n, k, nullptr, nullptr, nullptr, nullptr,
                                                        nullptr, nullptr, nullptr))
            sides.push_back({"libxsmm-jit", [=] { f(a, b, c); }});
    } else {
        sides.push_back({"libxsmm_dgemm", [=] {
                             const double one = 1;
                             libxsmm_dgemm("N", "N", &lm, &ln, &lk, &one, a, &lm, b, &lk, &one, c,
                                           &lm);
                         }});
        if (libxsmm_dmmfunction f = libxsmm_dmmdispatch(m, n, k, nullptr, nullptr, nullptr, nullptr,
                                                        nullptr, nullptr, nullptr))
            sides.push_back({"libxsmm-jit", [=] { f(a, b, c); }});
    }
#endif
}

// Times the sides in turns: rounds of one batch per side, the batch about `batch_ns` long.
void time_sides(std::vector<Side> &sides, const CommonOptions &o) {
    for (Side &s : sides) // warm-up: code, data and libxsmm's JIT in place
        for (int i = 0; i < 1000; ++i) s.call();
    double slowest = 0;
    for (Side &s : sides) {
        const double t0 = now_seconds();
        for (int i = 0; i < 200; ++i) s.call();
        slowest = std::max(slowest, (now_seconds() - t0) / 200);
    }
    const int batch = int(std::clamp(2e-4 / std::max(slowest, 1e-9), 10.0, 1e6));
    const int rounds = std::max(
        o.min_reps,
        int(std::clamp(o.min_time / (batch * slowest * double(sides.size())), 5.0, 201.0)));
    std::vector<std::vector<double>> samples(sides.size());
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < sides.size(); ++i) {
            const double t0 = now_seconds();
            for (int j = 0; j < batch; ++j) sides[i].call();
            samples[i].push_back((now_seconds() - t0) / batch * 1e9);
        }
    for (size_t i = 0; i < sides.size(); ++i) sides[i].ns = summarize(samples[i]).median;
}

} // namespace

int run_tiny_command(ArgCursor &args) {
    CommonOptions options;
    bool single = true, twice = true;
    while (!args.done()) {
        if (parse_common_option(args, options)) continue;
        if (auto v = args.take_option("--dtype")) {
            if (*v != "s" && *v != "d" && *v != "both")
                throw UsageError("--dtype: '" + *v + "' is not s, d or both");
            single = *v != "d", twice = *v != "s";
        } else if (args.current().starts_with("-")) {
            throw UsageError("unknown option '" + args.current() + "'");
        } else {
            throw UsageError("unexpected argument '" + args.current() + "'");
        }
    }
    finish_common_options(options);
    if (options.help) {
        std::cout << tiny_usage();
        return 0;
    }
    if (!options.min_time_given) options.min_time = options.quick ? 0.02 : 0.1;
    options.anchor_blis = false;
    options.threads = 1; // products this small run on one thread in every library
    Session session = open_session(options);
    const std::string &json_path = options.json_path;
    std::ostream &log = json_path == "-" ? std::cerr : std::cout;
    print_session(log, session);
#ifdef TESSERA_BENCH_HAVE_LIBXSMM
    // As for OpenBLAS (choose_coretype): Tessera's AVX2 path against libxsmm's AVX2 code.
    if (isa_narrowed_to_avx2()) setenv("LIBXSMM_TARGET", "hsw", 0);
    libxsmm_init();
    log << "libxsmm: " << LIBXSMM_VERSION << " (linked statically), target "
        << libxsmm_get_target_arch() << "\n";
#else
    log << "libxsmm: not built in (install libxsmm-dev and rebuild)\n";
#endif
    log << "\nns per call, median of batches in turns, column-major NN, alpha 1, beta 1\n\n";

    struct Row {
        std::string dtype;
        TinyShape shape;
        std::vector<Side> sides;
    };
    std::vector<Row> rows;
    std::mt19937_64 rng(options.seed);
    std::uniform_real_distribution<double> u(-1, 1);
    char line[512];
    bool header = false;
    const std::int64_t shapes = std::int64_t(std::size(kShapes));
    Progress progress((single ? shapes : 0) + (twice ? shapes : 0), !options.quiet, "shapes");
    for (int p = 0; p < 2; ++p) {
        if ((p == 0 && !single) || (p == 1 && !twice)) continue;
        for (const TinyShape &s : kShapes) {
            Row row{p == 0 ? "s" : "d", s, {}};
            std::vector<float> Af, Bf, Cf;
            std::vector<double> Ad, Bd, Cd;
            tsr_gemm_plan plan = nullptr;
            tsr_gemm_plan_create(nullptr, &plan, p == 0 ? TSR_F32 : TSR_F64, TSR_COL_MAJOR,
                                 TSR_OP_N, TSR_OP_N, s.m, s.n, s.k, s.m, s.k, s.m);
            auto fill = [&](auto &v, size_t count) {
                v.resize(count);
                for (auto &x : v) x = decltype(v[0] + 0)(u(rng)) * decltype(v[0] + 0)(1e-3);
            };
            if (p == 0) {
                fill(Af, size_t(s.m * s.k)), fill(Bf, size_t(s.k * s.n)),
                    fill(Cf, size_t(s.m * s.n));
                add_sides(s, Af, Bf, Cf, session, plan, row.sides);
            } else {
                fill(Ad, size_t(s.m * s.k)), fill(Bd, size_t(s.k * s.n)),
                    fill(Cd, size_t(s.m * s.n));
                add_sides(s, Ad, Bd, Cd, session, plan, row.sides);
            }
            time_sides(row.sides, options);
            tsr_gemm_plan_destroy(plan);
            progress.clear();
            if (!header) {
                std::snprintf(line, sizeof line, "%-12s %-2s", "shape", "");
                log << line;
                for (const Side &sd : row.sides) {
                    std::snprintf(line, sizeof line, " %13s", sd.name.c_str());
                    log << line;
                }
                log << "   ratios: openblas, libxsmm_?gemm over tsr_?gemm; jit over plan, "
                       "over kernel\n";
                header = true;
            }
            std::snprintf(
                line, sizeof line, "%-12s %-2s",
                (std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k))
                    .c_str(),
                row.dtype.c_str());
            log << line;
            for (const Side &sd : row.sides) {
                std::snprintf(line, sizeof line, " %13.1f", sd.ns);
                log << line;
            }
            auto ns_of = [&](const std::string &prefix) {
                for (const Side &sd : row.sides)
                    if (sd.name.rfind(prefix, 0) == 0) return sd.ns;
                return 0.0;
            };
            const double ours = row.sides[0].ns, plan_ns = ns_of("plan");
            const double kernel_ns = ns_of("kernel");
            std::snprintf(line, sizeof line, "   %6.2f %6.2f %6.2f %6.2f\n",
                          ns_of("openblas") / ours, ns_of("libxsmm_") / ours,
                          ns_of("libxsmm-jit") / plan_ns,
                          kernel_ns > 0 ? ns_of("libxsmm-jit") / kernel_ns : 0.0);
            log << line;
            log.flush();
            rows.push_back(std::move(row));
            progress.advance();
        }
    }
    // The plan's target: libxsmm's JIT over the plan (and over its bare kernel), geometric
    // mean over the square shapes.
    for (const char *dtype : {"s", "d"}) {
        for (const char *side : {"plan", "kernel"}) {
            double logs = 0;
            int count = 0;
            for (const Row &r : rows) {
                if (r.dtype != dtype || r.shape.m != r.shape.n || r.shape.n != r.shape.k) continue;
                double jit = 0, ours = 0;
                for (const Side &sd : r.sides) {
                    if (sd.name == "libxsmm-jit") jit = sd.ns;
                    if (sd.name == side) ours = sd.ns;
                }
                if (jit > 0 && ours > 0) logs += std::log(jit / ours), ++count;
            }
            if (count == 0) continue;
            std::snprintf(line, sizeof line,
                          "%s: libxsmm's JIT over the %s, geometric mean over %d square "
                          "shapes: %.3f\n",
                          dtype, side, count, std::exp(logs / count));
            log << line;
        }
    }
    if (!json_path.empty()) {
        std::ofstream file;
        if (json_path != "-") file.open(json_path);
        std::ostream &out = json_path == "-" ? std::cout : file;
        if (!out) throw UsageError("--json: cannot write '" + json_path + "'");
        Json json = Json::object();
        add_session_json(json, session, options, "tiny");
        Json &records = json["records"];
        records = Json::array();
        for (const Row &r : rows) {
            Json record = {
                {"dtype", r.dtype}, {"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}};
            Json &ns = record["ns_per_call"];
            ns = Json::object();
            for (const Side &sd : r.sides) ns[sd.name] = json_number(sd.ns);
            records.push_back(std::move(record));
        }
        write_json_document(out, json);
    }
    return 0;
}

} // namespace tessera::bench
