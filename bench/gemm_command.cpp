// The "gemm" subcommand (see gemm_command.hpp): options, session, peak, then the cases, each
// printed as it arrives, and the JSON at the end.
#include "gemm_command.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <vector>

#include "gemm_bench.hpp"
#include "gemm_options.hpp"
#include "gemm_report.hpp"
#include "gemm_sweep.hpp"
#include "json_output.hpp"
#include "progress.hpp"
#include "session.hpp"
#include "session_json.hpp"
#include "tune_command.hpp"

namespace tessera::bench {
namespace {

// The CUDA backend's kernel choice, read by the plugin from these variables once per process:
// a run measures one SGEMM tile, DGEMM kernel and math mode (bench/README.md loops over them).
const char *const kCudaKernelVariables[] = {
    "TESSERA_CUDA_SGEMM",   "TESSERA_CUDA_DGEMM", "TESSERA_CUDA_MATH",      "TESSERA_CUDA_SPLITK",
    "TESSERA_CUDA_STREAMK", "TESSERA_CUDA_WGMMA", "TESSERA_CUDA_PERSISTENT"};

bool all_cuda(const GemmOptions &o) {
    return !o.backends.empty() && std::all_of(o.backends.begin(), o.backends.end(),
                                              [](tsr_backend b) { return b == TSR_BACKEND_CUDA; });
}

bool any_cuda(const GemmOptions &o) {
    return std::any_of(o.backends.begin(), o.backends.end(),
                       [](tsr_backend b) { return b == TSR_BACKEND_CUDA; });
}

std::vector<CublasMath> cublas_math(const GemmOptions &o) {
    return o.cublas_math.empty() ? std::vector<CublasMath>{CublasMath::fp32} : o.cublas_math;
}

std::string cublas_label(CublasMath m, bool host) {
    return std::string(m == CublasMath::tf32 ? "cuBLAS-tf32" : "cuBLAS") + (host ? "+copies" : "");
}

// Whether the CPU anchors take turns with Tessera: not when every case runs on the GPU.
bool cpu_anchors_time(const Session &s, const GemmOptions &o) {
    return s.any_anchor() && !all_cuda(o);
}

std::string anchors_phrase(const Session &s, const GemmOptions &o) {
    if (all_cuda(o))
        return cublas_math(o).size() > 1 ? "Tessera and both cuBLAS sides in turns"
                                         : "Tessera and cuBLAS in turns";
    if (s.openblas && s.blis) return "Tessera, OpenBLAS and BLIS in turns";
    if (s.openblas) return "Tessera and OpenBLAS in turns";
    if (s.blis) return "Tessera and BLIS in turns";
    return "Tessera";
}

void print_method(std::ostream &out, const Session &s, const GemmOptions &gemm_options) {
    const CommonOptions &o = gemm_options.common;
    const TimingPlan plan = GemmBench::timing_plan(o, s.threads, cpu_anchors_time(s, gemm_options));
    const char *f64 = s.openblas ? "OpenBLAS" : "BLIS";
    const bool full = s.any_anchor() && !gemm_options.sampled_reference;
    out << (gemm_options.sweep_count > 0
                ? "method: the sweep's random cases (seed " + std::to_string(o.seed) +
                      "): C = op(A)*op(B) + beta*C, alpha 1, beta 0 or 0.5, leading dimensions "
                      "padded;\n"
                      "        uniform random data in [-1, 1]; a beta 0.5 case's error from one "
                      "call on C = 0;\n"
                : std::string("method: C = op(A)*op(B), alpha 1, beta 0, uniform random data in "
                              "[-1, 1];\n"))
        << "        warm-up, then " << anchors_phrase(s, gemm_options)
        << " of >= " << plan.turn_time << " s (settle " << plan.settle
        << " s before each); median of >= " << o.min_reps << " reps and >= " << o.min_time
        << " s per side\n"
        << "error:  ||C - C_ref||_F / ||C_ref||_F; C_ref for sgemm: "
        << (full ? std::string(f64) + " dgemm on the inputs in float64, all entries"
                 : std::string("long double, sampled entries"))
        << ";\n        for dgemm: " << GemmBench::kSampledEntries
        << " sampled entries in long double with compensated sums\n\n";
    out.flush();
}

void print_cuda_kernels(std::ostream &out, const GemmOptions &o) {
    out << "cuda:   kernels";
    for (const char *name : kCudaKernelVariables) {
        const char *v = std::getenv(name);
        out << ' ' << name << '=' << (v && *v ? v : "(unset)");
    }
    out << "; cuBLAS math";
    for (CublasMath m : cublas_math(o)) out << ' ' << cublas_math_name(m);
    out << " (the first is the anchor of the ratio)\n\n";
    out.flush();
}

// The kernel each CUDA summary's worst cases ran (tune_command.hpp: one untimed call each, in a
// child process with the plugin's log on).
void name_cuda_kernels(std::vector<SweepSummary> &sweep) {
    for (SweepSummary &s : sweep) {
        if (s.backend != TSR_BACKEND_CUDA) continue;
        std::vector<GemmCase> cases;
        for (const GemmRecord &r : s.worst_cases) {
            GemmCase c;
            c.shape = r.shape, c.precision = r.precision, c.layout = r.layout, c.ops = r.ops;
            if (r.layout != TSR_COL_MAJOR) { // the same product, column-major
                std::swap(c.shape.m, c.shape.n);
                c.ops.transa = r.ops.transb, c.ops.transb = r.ops.transa;
            }
            c.pad_a = r.layout == TSR_COL_MAJOR ? r.pad_a : r.pad_b;
            c.pad_b = r.layout == TSR_COL_MAJOR ? r.pad_b : r.pad_a;
            c.pad_c = r.pad_c, c.beta = r.beta;
            cases.push_back(c);
        }
        const std::vector<std::string> names = cuda_kernel_names(cases);
        for (size_t i = 0; i < names.size(); ++i) s.worst_cases[i].kernel = names[i];
    }
}

Json gemm_document(const Session &session, const GemmOptions &gemm_options,
                   const std::vector<GemmRecord> &records, const std::vector<SweepSummary> &sweep) {
    const CommonOptions &options = gemm_options.common;
    Json json = Json::object();
    add_session_json(json, session, options, "gemm");
    Json &cuda = json["cuda"];
    Json &kernels = cuda["kernels"];
    kernels = Json::object();
    for (const char *name : kCudaKernelVariables) {
        const char *v = std::getenv(name);
        kernels[name] = v && *v ? Json(v) : Json(nullptr);
    }
    cuda["cublas_math"] = Json::array();
    for (CublasMath m : cublas_math(gemm_options))
        cuda["cublas_math"].push_back(cublas_math_name(m));
    cuda["reference"] = gemm_options.sampled_reference ? "sampled" : "full";
    const TimingPlan plan =
        GemmBench::timing_plan(options, session.threads, cpu_anchors_time(session, gemm_options));
    json["timing"] = {{"min_reps", plan.min_reps},     {"min_time_s", plan.min_time},
                      {"turn_time_s", plan.turn_time}, {"settle_s", plan.settle},
                      {"cap_factor", plan.cap_factor}, {"warmup_fraction", plan.warmup_fraction},
                      {"statistic", "median"}};
    Json &out = json["records"];
    out = Json::array();
    for (const auto &r : records) out.push_back(gemm_record_json(r));
    if (gemm_options.sweep_count > 0) json["sweep"] = sweep_json(sweep, options.seed);
    return json;
}

} // namespace

int run_gemm_command(ArgCursor &args) {
    GemmOptions options = parse_gemm_options(args);
    if (options.common.help) {
        std::cout << gemm_usage();
        return 0;
    }
    const std::vector<GemmCase> cases = plan_gemm_cases(options);

    // JSON on stdout sends the human-readable text to stderr.
    JsonOutput json_out(
        options.common.json_path); // opened first: a bad path fails before the long run
    std::ostream &log = json_out.log();

    Session session = open_session(options.common);
    measure_session_peak(session, options.common);
    print_session(log, session);
    print_method(log, session, options);
    if (any_cuda(options)) print_cuda_kernels(log, options);

    GemmBenchSettings settings;
    settings.cublas_math = cublas_math(options);
    settings.sampled_reference = options.sampled_reference;
    settings.strassen_levels = options.strassen_levels;
    settings.cuda_host_operands = options.cuda_host_operands;
    settings.cpu_anchors_time = cpu_anchors_time(session, options);
    GemmBench bench(session, options.common, settings);
    GemmColumns columns;
    columns.openblas = session.openblas != nullptr;
    columns.blis = session.blis != nullptr;
    columns.peak = session.peak.has_value();
    columns.strassen = options.strassen_levels > 0;
    if (all_cuda(options)) {
        columns.gpu = true;
        columns.gpu_anchor = cublas_label(settings.cublas_math[0], options.cuda_host_operands);
        if (settings.cublas_math.size() > 1)
            columns.gpu_alt = cublas_label(settings.cublas_math[1], options.cuda_host_operands);
    }
    GemmTable table(log, columns);
    table.header();
    std::vector<GemmRecord> records;
    bool failed = false;
    Progress progress(std::int64_t(cases.size()), !options.common.quiet);
    for (const GemmCase &c : cases) {
        bench.run(c, [&](const GemmRecord &r) {
            progress.clear();
            table.row(r);
            records.push_back(r);
            failed = failed || r.status == "failed";
        });
        progress.advance();
    }
    table.footer();

    std::vector<SweepSummary> sweep;
    if (options.sweep_count > 0) {
        sweep = summarize_sweep(records);
        name_cuda_kernels(sweep);
        print_sweep(log, sweep, options.common.seed);
    }
    if (json_out.wanted() && !json_out.emit(gemm_document(session, options, records, sweep)))
        return 1;
    return failed ? 1 : 0;
}

} // namespace tessera::bench
