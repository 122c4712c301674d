// The "tune" subcommand (see tune_command.hpp). The parent draws the training cases, writes them
// to a file, and runs one child per candidate with that candidate forced; each child times
// every case on device operands (CUDA events on the handle's stream, median of at least three
// calls and --min-time seconds) and writes its times. The parent then keeps, per case, every
// candidate within 1.5× of the best, and reports how the rules (no candidate forced) and the
// table itself (each case looked up with its own row left out) do against the best.
#include "tune_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

#include <tessera/tessera.h>

#include "../cuda/gemm_tiles.hpp"
#include "../cuda/tuning.hpp"

#ifdef TESSERA_BENCH_HAVE_CUDA
#include <cuda_runtime.h>
#endif

extern char **environ;

namespace tessera::bench {
namespace {

using cuda::TuningCandidate;
using cuda::TuningRow;
using cuda::TuningTable;

struct TuneOptions {
    std::uint64_t seed = 1;
    int count = 200;
    std::vector<Precision> precisions{Precision::f32, Precision::f64};
    double cap = 4096.0 * 4096.0 * 4096.0;
    double min_time = 0.005;
    std::string out = "tessera-cuda-tuning.tsv";
    bool twins = true; // each shape also with leading dimensions padded to multiples of 32
    // Child mode: the cases file, where its times go, and whether to run each case once
    // (kernel names) instead of timing it.
    std::string child_cases, child_times;
    bool child_once = false;
};

std::string tune_usage() {
    return "usage: tessera-bench tune [options]\n"
           "\n"
           "Times every candidate kernel setting of the CUDA gemm (SGEMM tiles, DGEMM\n"
           "kernels, split-K slices 1/2/4/8/16/32, stream-K off/last/on for the tiles that\n"
           "have\n"
           "it) on random training shapes drawn as the sweep draws them (m, n, k log-uniform\n"
           "in [16, 16384], m*n*k capped, random transposes, leading dimensions padded by\n"
           "0..7, beta 0 or 0.5), each also with aligned leading dimensions (multiples of\n"
           "32), one child process per candidate, on device operands, and writes the\n"
           "tuning table, its rows marked by alignment (TESSERA_CUDA_TUNING=FILE loads it;\n"
           "copy it to cuda/tuning/ to build it in). Judge a table with the sweep on another\n"
           "seed.\n"
           "\n"
           "options:\n"
           "  --seed S        training shapes (default 1; judge with a sweep of another seed)\n"
           "  --count N       training shapes per precision (default 200)\n"
           "  --precision P   s, d or s,d (default s,d)\n"
           "  --cap X         the largest m*n*k (default 4096^3)\n"
           "  --min-time T    seconds of timed calls per case and candidate (default 0.005)\n"
           "  --no-twins      the random leading dimensions only (no aligned rows)\n"
           "  --out FILE      the table (default tessera-cuda-tuning.tsv)\n";
}

// The cases file: "s NT m n k pad_a pad_b pad_c beta" per line.
void write_cases(const std::string &path, const std::vector<GemmCase> &cases) {
    std::ofstream out(path);
    for (const GemmCase &c : cases)
        out << precision_letter(c.precision) << ' ' << c.ops.text() << ' ' << c.shape.m << ' '
            << c.shape.n << ' ' << c.shape.k << ' ' << c.pad_a << ' ' << c.pad_b << ' ' << c.pad_c
            << ' ' << c.beta << '\n';
    if (!out) throw std::runtime_error("cannot write " + path);
}

[[maybe_unused]] std::vector<GemmCase> read_cases(const std::string &path) {
    std::ifstream in(path);
    std::vector<GemmCase> cases;
    std::string p, ops;
    GemmCase c;
    while (in >> p >> ops >> c.shape.m >> c.shape.n >> c.shape.k >> c.pad_a >> c.pad_b >> c.pad_c >>
           c.beta) {
        c.precision = p == "d" ? Precision::f64 : Precision::f32;
        c.ops.transa = ops[0] == 'T' ? TSR_OP_T : TSR_OP_N;
        c.ops.transb = ops[1] == 'T' ? TSR_OP_T : TSR_OP_N;
        cases.push_back(c);
    }
    return cases;
}

// Runs this executable with `args` and the environment plus `env`; stderr to `err_path` when
// given. Returns the exit status (-1: could not start or killed).
int run_child(const std::vector<std::string> &args, const std::map<std::string, std::string> &env,
              const std::string &err_path = "") {
    std::vector<std::string> envs;
    for (char **e = environ; *e; ++e) {
        const std::string kv = *e;
        const std::string key = kv.substr(0, kv.find('='));
        if (!env.count(key)) envs.push_back(kv);
    }
    for (const auto &[k, v] : env) envs.push_back(k + "=" + v);
    std::vector<char *> argv, envp;
    std::string self = "/proc/self/exe";
    argv.push_back(self.data());
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    for (std::string &e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!err_path.empty())
        posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int started =
        posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (started != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

// Whether the plugin sees the case as aligned: leading dimensions of whole 16-byte vectors
// (the child's buffers start 256-byte aligned). Column-major, as the child calls it.
bool case_aligned(const GemmCase &c) {
    const int64_t vec = c.precision == Precision::f32 ? 4 : 2;
    const bool ta = c.ops.transa != TSR_OP_N, tb = c.ops.transb != TSR_OP_N;
    const int64_t lda = (ta ? c.shape.k : c.shape.m) + c.pad_a,
                  ldb = (tb ? c.shape.n : c.shape.k) + c.pad_b, ldc = c.shape.m + c.pad_c;
    return lda % vec == 0 && ldb % vec == 0 && ldc % vec == 0;
}

std::string temp_path(const std::string &what) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tessera-tune-" + std::to_string(getpid()) +
           "-" + what;
}

// The candidates of one precision, in table order: every SGEMM SIMT tile (gemm_tiles.hpp) or
// DGEMM kernel (the thin tiles too: beyond the thin rule's products they win on many shapes of
// a side under 128 or a short k), each with split-K slices 1 to 32, and stream-K for the
// kernel that has it.
std::vector<TuningCandidate> candidates_of(char precision) {
    std::vector<TuningCandidate> out;
    std::vector<std::string> kernels;
    std::string streamk = "128x128";
    if (precision == 's') {
        for (const cuda::SimtTile &t : cuda::kSgemmTiles) kernels.push_back(t.name);
        streamk = cuda::kSgemmTiles[cuda::sgemm_stream_k_tile()].name;
    } else {
        kernels = {"128x128", "64x64", "simt", "128x64", "64x128", "128x32", "32x128"};
    }
    for (const std::string &k : kernels)
        for (int split : {1, 2, 4, 8, 16, 32}) {
            out.push_back({precision, k, split, 0});
            if (split == 1 && k == streamk) {
                out.push_back({precision, k, 1, 1});
                out.push_back({precision, k, 1, 2});
            }
        }
    return out;
}

// A child's times file: "device SM MAJOR MINOR NAME" then "index seconds" per case.
struct ChildTimes {
    int sm = 0, major = 0, minor = 0;
    std::string device;
    std::vector<double> seconds; // per case; 0 where it failed
};

ChildTimes read_times(const std::string &path, size_t cases) {
    ChildTimes t;
    t.seconds.assign(cases, 0.0);
    std::ifstream in(path);
    std::string word;
    if (!(in >> word) || word != "device" || !(in >> t.sm >> t.major >> t.minor))
        throw std::runtime_error("the tuning child wrote no times (" + path + ")");
    std::getline(in >> std::ws, t.device);
    size_t i = 0;
    double s = 0;
    while (in >> i >> s)
        if (i < cases) t.seconds[i] = s;
    return t;
}

#ifdef TESSERA_BENCH_HAVE_CUDA
void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The child: every case on device operands (one set of buffers, filled with random numbers
// once, each case using their beginning), timed or (once) run a single time each.
int run_child_cases(const TuneOptions &o) {
    const std::vector<GemmCase> cases = read_cases(o.child_cases);
    size_t bytes[3] = {1, 1, 1};
    auto dims = [](const GemmCase &c, int64_t *lda, int64_t *ldb, int64_t *ldc, size_t sizes[3]) {
        const int64_t m = c.shape.m, n = c.shape.n, k = c.shape.k;
        const bool ta = c.ops.transa != TSR_OP_N, tb = c.ops.transb != TSR_OP_N;
        *lda = (ta ? k : m) + c.pad_a, *ldb = (tb ? n : k) + c.pad_b, *ldc = m + c.pad_c;
        const size_t e = c.precision == Precision::f32 ? 4 : 8;
        sizes[0] = size_t(*lda) * size_t(ta ? m : k) * e;
        sizes[1] = size_t(*ldb) * size_t(tb ? k : n) * e;
        sizes[2] = size_t(*ldc) * size_t(n) * e;
    };
    for (const GemmCase &c : cases) {
        int64_t la, lb, lc;
        size_t s[3];
        dims(c, &la, &lb, &lc, s);
        for (int i = 0; i < 3; ++i) bytes[i] = std::max(bytes[i], s[i]);
    }
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
    void *buf[3] = {};
    std::vector<float> noise(size_t(1) << 22);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float &x : noise) x = u(rng);
    for (int i = 0; i < 3; ++i) {
        check(cudaMalloc(&buf[i], bytes[i]), "cudaMalloc");
        for (size_t at = 0; at < bytes[i]; at += noise.size() * sizeof(float))
            check(cudaMemcpy(static_cast<char *>(buf[i]) + at, noise.data(),
                             std::min(noise.size() * sizeof(float), bytes[i] - at),
                             cudaMemcpyHostToDevice),
                  "fill");
    }
    tsr_handle h = nullptr;
    if (tsr_create(&h) != TSR_SUCCESS || tsr_set_backend(h, TSR_BACKEND_CUDA) != TSR_SUCCESS ||
        tsr_set_cuda_stream(h, stream) != TSR_SUCCESS)
        throw std::runtime_error(tsr_last_error());
    int dev = 0;
    cudaDeviceProp prop{};
    check(cudaGetDevice(&dev), "device");
    check(cudaGetDeviceProperties(&prop, dev), "device");
    std::ofstream out(o.child_times);
    out << "device " << prop.multiProcessorCount << ' ' << prop.major << ' ' << prop.minor << ' '
        << prop.name << '\n';
    for (size_t i = 0; i < cases.size(); ++i) {
        const GemmCase &c = cases[i];
        int64_t lda, ldb, ldc;
        size_t s[3];
        dims(c, &lda, &ldb, &ldc, s);
        auto call = [&]() {
            const tsr_status st =
                c.precision == Precision::f32
                    ? tsr_sgemm(h, TSR_COL_MAJOR, c.ops.transa, c.ops.transb, c.shape.m, c.shape.n,
                                c.shape.k, 1.0f, static_cast<const float *>(buf[0]), lda,
                                static_cast<const float *>(buf[1]), ldb, float(c.beta),
                                static_cast<float *>(buf[2]), ldc)
                    : tsr_dgemm(h, TSR_COL_MAJOR, c.ops.transa, c.ops.transb, c.shape.m, c.shape.n,
                                c.shape.k, 1.0, static_cast<const double *>(buf[0]), lda,
                                static_cast<const double *>(buf[1]), ldb, c.beta,
                                static_cast<double *>(buf[2]), ldc);
            return st == TSR_SUCCESS;
        };
        if (o.child_once) {
            std::fprintf(stderr, "tessera-bench case %zu\n", i);
            std::fflush(stderr);
            const bool ok = call();
            check(cudaStreamSynchronize(stream), "gemm");
            std::fflush(stderr);
            out << i << ' ' << (ok ? 1 : 0) << '\n';
            continue;
        }
        if (!call()) continue; // warm-up (and a check that the call is accepted)
        std::vector<double> samples;
        double total = 0;
        while (samples.size() < 3 || (total < o.min_time && samples.size() < 50)) {
            check(cudaEventRecord(start, stream), "event");
            call();
            check(cudaEventRecord(stop, stream), "event");
            check(cudaEventSynchronize(stop), "gemm");
            float ms = 0;
            check(cudaEventElapsedTime(&ms, start, stop), "event time");
            samples.push_back(double(ms) * 1e-3);
            total += samples.back();
        }
        std::sort(samples.begin(), samples.end());
        out << i << ' ' << samples[samples.size() / 2] << '\n';
    }
    tsr_destroy(h);
    for (void *p : buf) cudaFree(p);
    cudaEventDestroy(start), cudaEventDestroy(stop), cudaStreamDestroy(stream);
    return out ? 0 : 1;
}
#else
int run_child_cases(const TuneOptions &) {
    std::cerr << "tessera-bench tune: this bench was built without CUDA\n";
    return 1;
}
#endif

std::map<std::string, std::string> forced_env(const TuningCandidate &c) {
    static const char *const sk[] = {"off", "last", "on"};
    return {{c.precision == 's' ? "TESSERA_CUDA_SGEMM" : "TESSERA_CUDA_DGEMM", c.kernel},
            {"TESSERA_CUDA_SPLITK", c.split_k == 1 ? "off" : std::to_string(c.split_k)},
            {"TESSERA_CUDA_STREAMK", sk[c.stream_k]},
            {"TESSERA_CUDA_TUNING", "off"},
            {"TESSERA_VERBOSE", "0"}};
}

double geomean(const std::vector<double> &v) {
    double s = 0;
    for (double x : v) s += std::log(x);
    return v.empty() ? 0 : std::exp(s / double(v.size()));
}

[[maybe_unused]] int run_parent(const TuneOptions &o) {
    GemmOptions g;
    g.common.seed = o.seed;
    g.sweep_count = o.count;
    g.sweep_cap = o.cap;
    g.precisions = o.precisions;
    g.backends = {TSR_BACKEND_CUDA};
    g.sweep_aligned = o.twins;
    const std::vector<GemmCase> cases = sweep_cases(g);
    const std::string cases_path = temp_path("cases"), times_path = temp_path("times");
    write_cases(cases_path, cases);
    TuningTable table;
    std::vector<std::vector<double>> times; // per candidate (table order), per case
    std::vector<double> rules(cases.size(), 0.0);
    auto run = [&](const std::map<std::string, std::string> &env, const std::string &what) {
        std::fprintf(stderr, "tune: %s\n", what.c_str());
        const int status = run_child({"tune", "--child", cases_path, "--times", times_path,
                                      "--min-time", std::to_string(o.min_time)},
                                     env);
        if (status != 0) throw std::runtime_error("the tuning child for " + what + " failed");
        return read_times(times_path, cases.size());
    };
    for (Precision p : o.precisions) {
        for (const TuningCandidate &c : candidates_of(precision_letter(p)[0])) {
            ChildTimes t = run(forced_env(c), std::string(precision_letter(p)) + " " + c.text());
            table.sm_count = t.sm, table.cc_major = t.major, table.cc_minor = t.minor;
            table.device = t.device;
            table.candidates.push_back(c);
            times.push_back(std::move(t.seconds));
        }
    }
    // The rules: nothing forced, no table.
    rules = run({{"TESSERA_CUDA_TUNING", "off"}, {"TESSERA_VERBOSE", "0"}}, "the rules").seconds;
    std::remove(cases_path.c_str());
    std::remove(times_path.c_str());

    std::vector<int> wins(table.candidates.size(), 0);
    std::vector<double> best(cases.size(), 0.0);
    for (size_t i = 0; i < cases.size(); ++i) {
        const char p = precision_letter(cases[i].precision)[0];
        TuningRow r;
        r.precision = p;
        r.ta = cases[i].ops.transa != TSR_OP_N, r.tb = cases[i].ops.transb != TSR_OP_N;
        r.m = cases[i].shape.m, r.n = cases[i].shape.n, r.k = cases[i].shape.k;
        r.aligned = case_aligned(cases[i]);
        int argbest = -1;
        for (size_t c = 0; c < table.candidates.size(); ++c)
            if (table.candidates[c].precision == p && times[c][i] > 0 &&
                (argbest < 0 || times[c][i] < best[i]))
                best[i] = times[c][i], argbest = int(c);
        if (argbest < 0) continue;
        ++wins[size_t(argbest)];
        for (size_t c = 0; c < table.candidates.size(); ++c)
            if (table.candidates[c].precision == p && times[c][i] > 0 &&
                times[c][i] <= cuda::kListedRatio * best[i])
                r.ratios.emplace_back(int(c), times[c][i] / best[i]);
        std::sort(r.ratios.begin(), r.ratios.end(),
                  [](const auto &a, const auto &b) { return a.second < b.second; });
        table.rows.push_back(std::move(r));
    }
    std::ofstream out(o.out);
    out << "# tessera-bench tune --seed " << o.seed << " --count " << o.count << " --cap " << o.cap
        << " --min-time " << o.min_time << (o.twins ? "" : " --no-twins") << " --precision ";
    for (size_t i = 0; i < o.precisions.size(); ++i)
        out << (i ? "," : "") << precision_letter(o.precisions[i]);
    out << "\n" << cuda::format_tuning(table);
    if (!out) throw std::runtime_error("cannot write " + o.out);

    // How the rules and the table (each shape looked up without its rows) do against the best,
    // over all shapes and over the aligned and unaligned ones apart, with the lookup's
    // alignment penalty and a few others.
    std::printf("tuning table: %s (%zu rows, device %s, %d SMs)\n", o.out.c_str(),
                table.rows.size(), table.device.c_str(), table.sm_count);
    auto low = [](std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[size_t(std::ceil(q * double(v.size()))) - 1];
    };
    auto line = [&](const std::string &what, const std::vector<double> &v) {
        std::printf("  %-40s %4zu shapes: geomean %.3f, 5th percentile %.3f, worst %.3f\n",
                    what.c_str(), v.size(), geomean(v), low(v, 0.05), low(v, 0.0001));
    };
    // Each row looked up in the table without its shape (the row and its twin of the other
    // alignment), for the lookup's alignment penalty and a few others.
    const double penalties[] = {cuda::kTuningAlignPenalty, 0.0, 0.5, 2.0, 4.0};
    constexpr size_t kPenalties = sizeof penalties / sizeof penalties[0];
    std::vector<size_t> case_of; // the case of each row
    for (size_t i = 0; i < cases.size(); ++i)
        if (best[i] > 0) case_of.push_back(i);
    for (Precision p : o.precisions) {
        const char pl = precision_letter(p)[0];
        std::vector<double> rule_ratio[2], loo_ratio[kPenalties][2]; // [aligned]
        for (size_t r = 0; r < table.rows.size(); ++r) {
            const TuningRow &row = table.rows[r];
            if (row.precision != pl) continue;
            const size_t i = case_of[r];
            if (rules[i] > 0) rule_ratio[row.aligned].push_back(best[i] / rules[i]);
            TuningTable without = table;
            without.rows.clear();
            for (const TuningRow &x : table.rows)
                if (x.precision != row.precision || x.ta != row.ta || x.tb != row.tb ||
                    x.m != row.m || x.n != row.n || x.k != row.k)
                    without.rows.push_back(x);
            cuda::TuningIndex index(without);
            for (size_t q = 0; q < kPenalties; ++q) {
                index.set_align_penalty(penalties[q]);
                const cuda::TuningPick pick =
                    index.lookup(pl, row.ta, row.tb, row.m, row.n, row.k, row.aligned);
                const double t = pick.candidate >= 0 ? times[size_t(pick.candidate)][i] : rules[i];
                if (t > 0) loo_ratio[q][row.aligned].push_back(best[i] / t);
            }
        }
        auto both = [](const std::vector<double> *v) {
            std::vector<double> all = v[0];
            all.insert(all.end(), v[1].begin(), v[1].end());
            return all;
        };
        std::printf("%sgemm, training shapes of seed %llu, speed over the best candidate's:\n",
                    precision_letter(p), (unsigned long long)o.seed);
        line("the rules:", both(rule_ratio));
        line("  unaligned shapes:", rule_ratio[0]);
        line("  aligned shapes:", rule_ratio[1]);
        for (size_t q = 0; q < kPenalties; ++q) {
            char what[80];
            std::snprintf(what, sizeof what,
                          "the table, shape left out, penalty %.1f%s:", penalties[q],
                          q == 0 ? " (used)" : "");
            line(what, both(loo_ratio[q]));
            line("  unaligned shapes:", loo_ratio[q][0]);
            line("  aligned shapes:", loo_ratio[q][1]);
        }
        std::printf("  best candidate counts:");
        for (size_t c = 0; c < table.candidates.size(); ++c)
            if (table.candidates[c].precision == pl && wins[c] > 0)
                std::printf(" %s=%d", table.candidates[c].text().c_str(), wins[c]);
        std::printf("\n");
    }
    return 0;
}

} // namespace

std::vector<std::string> cuda_kernel_names(const std::vector<GemmCase> &cases) {
    std::vector<std::string> names(cases.size());
    if (cases.empty()) return names;
    const std::string cases_path = temp_path("name-cases"), times_path = temp_path("name-out"),
                      log_path = temp_path("name-log");
    write_cases(cases_path, cases);
    run_child({"tune", "--child", cases_path, "--times", times_path, "--once"},
              {{"TESSERA_VERBOSE", "1"}}, log_path);
    std::ifstream in(log_path);
    std::string line;
    long current = -1;
    const std::string marker = "tessera-bench case ", kernel = "tessera: cuda kernel ";
    while (std::getline(in, line)) {
        if (line.rfind(marker, 0) == 0) current = std::atol(line.c_str() + marker.size());
        else if (line.rfind(kernel, 0) == 0 && current >= 0 && size_t(current) < names.size()) {
            // "NAME[, split] for sgemm NN m=.. n=.. k=..[ (tuning table, ...)]": the name and
            // its notes, the shape left out (a fringe product adds a second name).
            std::string text = line.substr(kernel.size());
            const size_t f = text.find(" for ");
            const size_t table = text.find(" (tuning table");
            std::string name = text.substr(0, f);
            if (table != std::string::npos) name += text.substr(table);
            std::string &slot = names[size_t(current)];
            slot += slot.empty() ? name : " + " + name;
        }
    }
    for (const std::string &p : {cases_path, times_path, log_path}) std::remove(p.c_str());
    return names;
}

int run_tune_command(ArgCursor &args) {
    TuneOptions o;
    while (!args.done()) {
        if (args.take_flag("--help") || args.take_flag("-h")) {
            std::cout << tune_usage();
            return 0;
        } else if (auto v = args.take_option("--seed")) {
            o.seed = std::uint64_t(parse_int(*v, "--seed", 0, INT64_MAX));
        } else if (auto v = args.take_option("--count")) {
            o.count = int(parse_int(*v, "--count", 1, 100000));
        } else if (auto v = args.take_option("--precision")) {
            o.precisions.clear();
            for (const std::string &p : split_list(*v)) {
                if (p == "s") o.precisions.push_back(Precision::f32);
                else if (p == "d") o.precisions.push_back(Precision::f64);
                else throw UsageError("--precision: '" + p + "' is neither s nor d");
            }
        } else if (auto v = args.take_option("--cap")) {
            o.cap = parse_number(*v, "--cap", 4096);
        } else if (auto v = args.take_option("--min-time")) {
            o.min_time = parse_number(*v, "--min-time", 0);
        } else if (auto v = args.take_option("--out")) {
            o.out = *v;
        } else if (args.take_flag("--no-twins")) {
            o.twins = false;
        } else if (auto v = args.take_option("--child")) {
            o.child_cases = *v;
        } else if (auto v = args.take_option("--times")) {
            o.child_times = *v;
        } else if (args.take_flag("--once")) {
            o.child_once = true;
        } else {
            throw UsageError("tune: unknown option '" + args.current() + "'");
        }
    }
    if (!o.child_cases.empty()) return run_child_cases(o);
#ifndef TESSERA_BENCH_HAVE_CUDA
    std::cerr << "tessera-bench tune: this bench was built without CUDA\n";
    return 1;
#else
    return run_parent(o);
#endif
}

} // namespace tessera::bench
