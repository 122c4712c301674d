// The "spmv" subcommand (see spmv_command.hpp): threads, the triad, then each matrix loaded
// once and measured for every value type and op asked for, printed as it arrives. The cuda
// backend has a command of its own (spmv_cuda_command.cpp).
#include "spmv_command.hpp"

#include <omp.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include <tessera/tessera.h>

#include "json_output.hpp"
#include "progress.hpp"
#include "machine_info.hpp"
#include "spmv_cuda_command.hpp"
#include "spmv_eigen.hpp"
#include "spmv_options.hpp"
#include "spmv_report.hpp"
#include "spmv_stream.hpp"

namespace tessera::bench {

namespace {

int env_threads(const char *name) {
    const char *text = std::getenv(name);
    int value = 0;
    if (!text) return 0;
    auto [end, ec] = std::from_chars(text, text + std::strlen(text), value);
    return ec == std::errc() && *end == '\0' && value > 0 ? value : 0;
}

int resolve_threads(int asked) {
    if (asked > 0) return asked;
    if (int t = env_threads("TESSERA_NUM_THREADS")) return t;
    if (int t = env_threads("OMP_NUM_THREADS")) return t;
    return omp_get_num_procs();
}

} // namespace

int run_spmv_command(ArgCursor &args) {
    const SpmvOptions o = parse_spmv_options(args);
    if (o.help) {
        std::cout << spmv_usage();
        return 0;
    }
    if (o.backend == "cuda") return run_spmv_cuda_command(o);
    JsonOutput json_out(o.json_path); // opened first: a bad path fails before the long run
    std::ostream &log = json_out.log();

    const int threads = resolve_threads(o.threads);
    const MachineInfo machine = probe_machine();
    log << "tessera " << tsr_version() << " spmv; cpu: " << machine.cpu_model << " ("
        << machine.logical_cpus << " logical); threads " << threads << "\n"
        << "anchor: " << (o.eigen ? eigen_version() : std::string("none")) << "\n";
    TriadResult triad;
    std::unique_ptr<Triad> triad_arrays;
    if (o.stream) {
        triad_arrays = std::make_unique<Triad>(threads);
        triad = measure_triad(*triad_arrays);
        log << "STREAM triad (" << threads << " threads, 3 x " << triad.elements * 8 / (1 << 20)
            << " MiB): median " << significant(triad.median_gbs) << " GB/s, best "
            << significant(triad.best_gbs)
            << " GB/s alone; records beyond the caches time it again in turns with their "
               "products\n";
    }
    log << "method: y = op(A)*x, alpha 1, beta 0, x uniform in [-1, 1]; every side checked against "
           "a long\n"
           "        double reference (error = max|y - y_ref| / max(|A||x|)), then all timed in "
           "turns\n"
           "        (small matrices: back-to-back batches of products, time per product);\n"
           "        medians of >= "
        << o.min_reps << " calls and >= " << o.min_time << " s per side\n\n";
    log.flush();

    SpmvTable table(log);
    table.header();
    std::vector<SpmvRecord> records;
    Progress progress(
        std::int64_t((o.generators.size() + o.files.size()) * o.dtypes.size() * o.ops.size()),
        !o.quiet, "records");
    auto run_input = [&](const std::string &what, bool is_file) {
        const CsrMatrix m = load_input(what, is_file, o.seed);
        for (char dtype : o.dtypes)
            for (char op : o.ops) {
                records.push_back(
                    measure_spmv(m, o, dtype, op, threads, triad_arrays.get(), triad.median_gbs));
                progress.clear();
                table.record(records.back());
                progress.advance();
            }
    };
    for (const std::string &g : o.generators) run_input(g, false);
    for (const std::string &f : o.files) run_input(f, true);
    print_spmv_summary(log, records);

    if (json_out.wanted()) {
        Json json = Json::object();
        json["tool"] = {
            {"name", "tessera-bench"}, {"tessera_version", tsr_version()}, {"subcommand", "spmv"}};
        json["machine"] = {{"cpu_model", machine.cpu_model},
                           {"logical_cpus", machine.logical_cpus},
                           {"hostname", machine.hostname},
                           {"date", machine.date_utc}};
        json["threads"] = threads;
        json["anchor"] = o.eigen ? eigen_version() : std::string("none");
        json["triad"] = triad_json(triad);
        Json &out = json["records"];
        out = Json::array();
        for (const SpmvRecord &r : records) out.push_back(spmv_record_json(r));
        if (!json_out.emit(json)) return 1;
    }
    bool failed = false;
    for (const SpmvRecord &r : records)
        for (const SpmvSide &s : r.sides) failed = failed || s.status == "failed";
    return failed ? 1 : 0;
}

} // namespace tessera::bench
