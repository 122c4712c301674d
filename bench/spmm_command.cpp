// The "spmm" subcommand: each matrix loaded once, then for every value type, layout and column
// count Tessera's sparse × dense product beside its anchor, printed as it arrives, with the
// geometric means of the ratios per column count and overall, and JSON.
#include "spmm_command.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include <tessera/tessera.h>

#include "json_output.hpp"
#include "machine_info.hpp"
#include "progress.hpp"
#include "spmm_bench.hpp"
#include "spmv_bench.hpp"
#include "spmv_eigen.hpp"
#include "spmv_options.hpp"
#include "table.hpp"
#include "timing.hpp"

namespace tessera::bench {

#ifndef TESSERA_BENCH_HAVE_CUDA
// Without cuSPARSE at configure time the cuda backend's records fail, saying why.
SpmmRecord measure_spmm_cuda(const CsrMatrix &m, const SpmvOptions &, char dtype, char layout,
                             int64_t k) {
    SpmmRecord r;
    r.matrix = m.name;
    r.dtype = dtype;
    r.layout = layout;
    r.k = k;
    r.status = "failed";
    r.note = "this tessera-bench was built without CUDA and cuSPARSE";
    return r;
}
std::string spmm_cuda_head() { return "cuda: not built in"; }
#endif

namespace {

template <typename V, typename I>
SpmmRecord measure_cpu(const CsrMatrix &m, const SpmvOptions &o, char layout, int64_t k,
                       int threads) {
    SpmmCase<V, I> c(m, o.seed, layout, k);
    SpmmRecord r = c.head;
    r.anchor = o.eigen ? "eigen" : "none";
    const bool row_major = c.row_major;
    const std::vector<I> &row_ptr = c.row_ptr, &col = c.col;
    const std::vector<V> &val = c.val, &X = c.X;
    const int64_t ldx = c.ldx, ldy = c.ldy;
    std::vector<V> ours(size_t(m.rows * k)), theirs(size_t(m.rows * k));

    tsr_handle h = nullptr;
    tsr_sparse A = nullptr;
    tsr_create(&h);
    tsr_set_backend(h, TSR_BACKEND_CPU);
    tsr_set_num_threads(h, threads);
    // The bench's arrays used in place, as a user holding a CSR matrix would.
    tsr_status s =
        tsr_sparse_create_csr_view(nullptr, &A, sizeof(V) == 4 ? TSR_F32 : TSR_F64,
                                   sizeof(I) == 4 ? TSR_INDEX_I32 : TSR_INDEX_I64, m.rows, m.cols,
                                   m.nnz(), row_ptr.data(), col.data(), val.data());
    const tsr_layout tl = row_major ? TSR_ROW_MAJOR : TSR_COL_MAJOR;
    auto ours_call = [&] {
        if constexpr (sizeof(V) == 4)
            s = tsr_sspmm(h, tl, TSR_OP_N, k, 1.0f, A, X.data(), ldx, 0.0f, ours.data(), ldy);
        else s = tsr_dspmm(h, tl, TSR_OP_N, k, 1.0, A, X.data(), ldx, 0.0, ours.data(), ldy);
    };
    if (s == TSR_SUCCESS) ours_call();
    if (s != TSR_SUCCESS) {
        r.status = "failed";
        r.note = tsr_last_error();
    } else {
        std::vector<TimedSide> sides{{"tessera", wall_timed(ours_call)}};
        std::function<void()> eigen;
        if (o.eigen) {
            const CsrView view{m.rows,     m.cols,     m.nnz(),        row_ptr.data(),
                               col.data(), val.data(), sizeof(V) == 4, sizeof(I) == 8};
            std::string why;
            eigen = eigen_block_product(view, X.data(), theirs.data(), k, row_major, threads, &why);
            if (eigen) {
                eigen();
                double most = 0, worst = 0;
                for (size_t i = 0; i < ours.size(); ++i) {
                    most = std::max(most, std::fabs(double(theirs[i])));
                    worst = std::max(worst, std::fabs(double(ours[i]) - double(theirs[i])));
                }
                r.difference = most > 0 ? worst / most : worst;
                sides.push_back({"eigen", wall_timed(eigen)});
            } else {
                r.anchor = "none";
                r.note = why;
            }
        }
        TimingPlan plan;
        plan.min_reps = o.min_reps;
        plan.min_time = o.min_time;
        const auto times = run_interleaved(sides, plan);
        r.ours_s = summarize(times[0]).median;
        if (times.size() > 1) r.anchor_s = summarize(times[1]).median;
    }
    tsr_sparse_destroy(A);
    tsr_destroy(h);
    return r;
}

SpmmRecord measure(const CsrMatrix &m, const SpmvOptions &o, char dtype, char layout, int64_t k,
                   int threads) {
    if (o.backend == "cuda") return measure_spmm_cuda(m, o, dtype, layout, k);
    const bool i64 = o.index_bits == 64;
    if (dtype == 's')
        return i64 ? measure_cpu<float, int64_t>(m, o, layout, k, threads)
                   : measure_cpu<float, int32_t>(m, o, layout, k, threads);
    return i64 ? measure_cpu<double, int64_t>(m, o, layout, k, threads)
               : measure_cpu<double, int32_t>(m, o, layout, k, threads);
}

void print_row(std::ostream &log, const SpmmRecord &r) {
    char line[256];
    const double ratio = r.anchor_s > 0 && r.ours_s > 0 ? r.anchor_s / r.ours_s : 0;
    std::snprintf(line, sizeof line, "%-30s %c %c %4lld %10s %10s %7s %9.1e  %s%s%s\n",
                  r.matrix.substr(0, 30).c_str(), r.dtype, r.layout, (long long)r.k,
                  significant(r.gflops(r.ours_s)).c_str(),
                  r.anchor_s > 0 ? significant(r.gflops(r.anchor_s)).c_str() : "-",
                  ratio > 0 ? significant(ratio).c_str() : "-", r.difference, r.anchor.c_str(),
                  r.note.empty() ? "" : "  ", r.note.c_str());
    log << line;
}

// Geometric means of ours/anchor by column count, by precision and layout, and overall.
void print_summary(std::ostream &log, const std::vector<SpmmRecord> &records) {
    std::map<std::string, std::pair<double, int>> groups;
    for (const SpmmRecord &r : records) {
        if (r.ours_s <= 0 || r.anchor_s <= 0) continue;
        const double l = std::log(r.anchor_s / r.ours_s);
        for (const std::string &g :
             {std::string("all"), "k=" + std::to_string(r.k), std::string("dtype ") + r.dtype,
              std::string("layout ") + r.layout}) {
            groups[g].first += l;
            groups[g].second += 1;
        }
    }
    log << "\ngeometric mean of Tessera / anchor (speed):\n";
    for (const auto &[name, g] : groups)
        log << "  " << name << ": " << significant(std::exp(g.first / g.second)) << " over "
            << g.second << " records\n";
}

} // namespace

int run_spmm_command(ArgCursor &args) {
    SpmvOptions o = parse_spmv_options(args, "spmm");
    if (o.help) {
        std::cout << spmm_usage();
        return 0;
    }
    JsonOutput json_out(o.json_path);
    std::ostream &log = json_out.log();
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const MachineInfo machine = probe_machine();
    log << "tessera " << tsr_version() << " spmm; ";
    if (o.backend == "cuda") log << spmm_cuda_head() << "\n";
    else
        log << "cpu: " << machine.cpu_model << "; threads " << threads << "; anchor "
            << (o.eigen ? eigen_version() : std::string("none")) << "\n";
    log << "method: Y = A*X, alpha 1, beta 0, X uniform in [-1, 1], packed; Tessera and the "
           "anchor timed in turns,\n        medians of >= "
        << o.min_reps << " calls and >= " << o.min_time
        << " s per side; diff = max|Y - Y_anchor| / max|Y_anchor|\n\n";
    log << "matrix                         t l    k  GFLOP/s    anchor   ratio      diff\n";
    log.flush();
    std::vector<SpmmRecord> records;
    Progress progress(std::int64_t((o.generators.size() + o.files.size()) * o.dtypes.size() *
                                   o.layouts.size() * o.spmm_k.size()),
                      !o.quiet, "records");
    auto run_input = [&](const std::string &what, bool is_file) {
        const CsrMatrix m = load_input(what, is_file, o.seed);
        for (char dtype : o.dtypes)
            for (char layout : o.layouts)
                for (int64_t k : o.spmm_k) {
                    records.push_back(measure(m, o, dtype, layout, k, threads));
                    progress.clear();
                    print_row(log, records.back());
                    log.flush();
                    progress.advance();
                }
    };
    for (const std::string &g : o.generators) run_input(g, false);
    for (const std::string &f : o.files) run_input(f, true);
    print_summary(log, records);

    bool failed = false;
    for (const SpmmRecord &r : records) failed = failed || r.status != "ok";
    if (json_out.wanted()) {
        Json json = Json::object();
        json["tool"] = {
            {"name", "tessera-bench"}, {"tessera_version", tsr_version()}, {"subcommand", "spmm"}};
        json["machine"] = {{"cpu_model", machine.cpu_model},
                           {"logical_cpus", machine.logical_cpus},
                           {"hostname", machine.hostname},
                           {"date", machine.date_utc}};
        json["backend"] = o.backend;
        json["threads"] = threads;
        Json &out = json["records"];
        out = Json::array();
        for (const SpmmRecord &r : records)
            out.push_back(
                {{"matrix", r.matrix},
                 {"rows", r.rows},
                 {"cols", r.cols},
                 {"nnz", r.nnz},
                 {"dtype", std::string(1, r.dtype)},
                 {"index_bits", r.index_bits},
                 {"layout", std::string(1, r.layout)},
                 {"k", r.k},
                 {"tessera_s", json_number(r.ours_s > 0 ? std::optional(r.ours_s) : std::nullopt)},
                 {"anchor", r.anchor},
                 {"anchor_s",
                  json_number(r.anchor_s > 0 ? std::optional(r.anchor_s) : std::nullopt)},
                 {"difference", r.difference},
                 {"status", r.status},
                 {"note", r.note}});
        if (!json_out.emit(json)) return 1;
    }
    return failed ? 1 : 0;
}

} // namespace tessera::bench
