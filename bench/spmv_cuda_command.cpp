// The spmv subcommand on the cuda backend (see spmv_cuda_command.hpp). Without CUDA at configure
// time it says so and fails; with it, a device failure in one record is reported and the run goes
// on.
#include "spmv_cuda_command.hpp"

#include <iostream>

#ifdef TESSERA_BENCH_HAVE_CUDA
#include <fstream>
#include <memory>

#include <tessera/tessera.h>

#include "json_output.hpp"
#include "progress.hpp"
#include "machine_info.hpp"
#include "spmv_bench.hpp"
#include "spmv_cuda_bench.hpp"
#include "spmv_cuda_report.hpp"
#endif

namespace tessera::bench {

#ifndef TESSERA_BENCH_HAVE_CUDA

int run_spmv_cuda_command(const SpmvOptions &) {
    std::cerr << "tessera-bench: --backend cuda: this tessera-bench was built without CUDA (CMake "
                 "found no\n"
                 "CUDA compiler or no cuSPARSE); reconfigure on a machine with the CUDA toolkit\n";
    return 1;
}

#else

int run_spmv_cuda_command(const SpmvOptions &o) {
    JsonOutput json_out(o.json_path); // opened first: a bad path fails before the long run
    std::ostream &log = json_out.log();

    std::unique_ptr<GpuSpmvBench> bench;
    try {
        bench = std::make_unique<GpuSpmvBench>(o);
    } catch (const CudaBackendUnavailable &e) {
        std::cerr << "tessera-bench: the cuda backend is unavailable: " << e.what() << '\n';
        return 1;
    } catch (const std::exception &e) {
        std::cerr << "tessera-bench: cannot set up the GPU measurement: " << e.what() << '\n';
        return 1;
    }
    const MachineInfo machine = probe_machine();
    log << "tessera " << tsr_version() << " spmv, backend cuda; host: " << machine.cpu_model
        << '\n';
    print_gpu_device(log, bench->device(), bench->copy_alone());
    log << "method: y = op(A)*x, alpha 1, beta 0, x uniform in [-1, 1], x and y in device memory\n"
           "        (host ms: Tessera with x and y in host memory, copies included, host clock);\n"
           "        every side checked against a long double reference (error = max|y - y_ref| / "
           "max(|A||x|),\n"
           "        y starting as NaN), then batches of back-to-back products (~2 ms each) timed "
           "with CUDA\n"
           "        events on one stream, all sides in turns; medians of >= "
        << o.min_reps << " batches and >= " << o.min_time << " s per side\n\n";
    log.flush();

    GpuSpmvTable table(log);
    table.header();
    std::vector<GpuSpmvRecord> records;
    Progress progress(
        std::int64_t((o.generators.size() + o.files.size()) * o.dtypes.size() * o.ops.size()),
        !o.quiet, "records");
    auto run_input = [&](const std::string &what, bool is_file) {
        const CsrMatrix m = load_input(what, is_file, o.seed);
        for (char dtype : o.dtypes)
            for (char op : o.ops) {
                GpuSpmvRecord r;
                try {
                    r = bench->measure(m, dtype, op);
                } catch (const std::exception
                             &e) { // the device itself failed (allocation, a lost context)
                    r.matrix = m.name;
                    r.rows = m.rows, r.cols = m.cols, r.nnz = m.nnz();
                    r.dtype = dtype, r.op = op, r.index_bits = o.index_bits;
                    r.note = std::string("failed: ") + e.what();
                }
                records.push_back(std::move(r));
                progress.clear();
                table.record(records.back());
                progress.advance();
            }
    };
    for (const std::string &g : o.generators) run_input(g, false);
    for (const std::string &f : o.files) run_input(f, true);
    print_gpu_spmv_summary(log, records);

    if (json_out.wanted()) {
        Json json = Json::object();
        json["tool"] = {{"name", "tessera-bench"},
                        {"tessera_version", tsr_version()},
                        {"subcommand", "spmv"},
                        {"backend", "cuda"}};
        json["machine"] = {{"cpu_model", machine.cpu_model},
                           {"logical_cpus", machine.logical_cpus},
                           {"hostname", machine.hostname},
                           {"date", machine.date_utc}};
        json["device"] = gpu_device_json(bench->device());
        const std::string &cusparse = bench->device().cusparse_version;
        json["anchor"] = cusparse.empty() ? std::string("none") : "cuSPARSE " + cusparse;
        json["copy"] = copy_json(bench->copy_alone());
        json["settings"] = {{"min_reps", o.min_reps},
                            {"min_time_s", o.min_time},
                            {"batch_target_s", 2e-3},
                            {"seed", o.seed}};
        Json &out = json["records"];
        out = Json::array();
        for (const GpuSpmvRecord &r : records) out.push_back(gpu_spmv_record_json(r));
        if (!json_out.emit(json)) return 1;
    }
    bool bad = false;
    for (const GpuSpmvRecord &r : records) {
        bad = bad || !r.note.empty();
        for (const GpuSpmvSide &s : r.sides)
            bad = bad || (s.library == "tessera" &&
                          (s.status == "failed" || s.status == "wrong" ||
                           s.host_status == "failed" || s.host_status == "wrong"));
    }
    return bad ? 1 : 0;
}

#endif

} // namespace tessera::bench
