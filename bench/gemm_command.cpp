// The "gemm" subcommand (see gemm_command.hpp): options, session, peak, then the cases, each
// printed as it arrives, and the JSON at the end.
#include "gemm_command.hpp"

#include <fstream>
#include <iostream>
#include <vector>

#include "gemm_bench.hpp"
#include "gemm_options.hpp"
#include "gemm_report.hpp"
#include "json_writer.hpp"
#include "session.hpp"
#include "session_json.hpp"

namespace tessera::bench {
namespace {

std::string anchors_phrase(const Session &s) {
    if (s.openblas && s.blis) return "Tessera, OpenBLAS and BLIS in turns";
    if (s.openblas) return "Tessera and OpenBLAS in turns";
    if (s.blis) return "Tessera and BLIS in turns";
    return "Tessera";
}

void print_method(std::ostream &out, const Session &s, const CommonOptions &o) {
    const TimingPlan plan = GemmBench::timing_plan(o, s.threads, s.any_anchor());
    const char *f64 = s.openblas ? "OpenBLAS" : "BLIS";
    out << "method: C = op(A)*op(B), alpha 1, beta 0, uniform random data in [-1, 1];\n"
        << "        warm-up, then " << anchors_phrase(s) << " of >= " << plan.turn_time
        << " s (settle " << plan.settle << " s before each); median of >= " << o.min_reps
        << " reps and >= " << o.min_time << " s per side\n"
        << "error:  ||C - C_ref||_F / ||C_ref||_F; C_ref for sgemm: "
        << (s.any_anchor() ? std::string(f64) + " dgemm on the inputs in float64, all entries"
                           : std::string("long double, sampled entries"))
        << ";\n        for dgemm: " << GemmBench::kSampledEntries
        << " sampled entries in long double with compensated sums\n\n";
    out.flush();
}

void write_json(std::ostream &out, const Session &session, const CommonOptions &options,
                const std::vector<GemmRecord> &records) {
    JsonWriter json(out);
    json.begin_object();
    write_session_json(json, session, options, "gemm");
    const TimingPlan plan =
        GemmBench::timing_plan(options, session.threads, session.any_anchor());
    json.key("timing").begin_object();
    json.field("min_reps", plan.min_reps).field("min_time_s", plan.min_time);
    json.field("turn_time_s", plan.turn_time).field("settle_s", plan.settle);
    json.field("cap_factor", plan.cap_factor).field("warmup_fraction", plan.warmup_fraction);
    json.field("statistic", "median");
    json.end_object();
    json.key("records").begin_array();
    for (const auto &r : records) write_gemm_record(json, r);
    json.end_array();
    json.end_object();
    json.finish();
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
    const std::string &json_path = options.common.json_path;
    std::ostream &log = json_path == "-" ? std::cerr : std::cout;
    std::ofstream json_file;
    if (!json_path.empty() && json_path != "-") {
        json_file.open(json_path); // opened first: a bad path fails before the long run
        if (!json_file) throw UsageError("--json: cannot write '" + json_path + "'");
    }

    Session session = open_session(options.common);
    measure_session_peak(session, options.common);
    print_session(log, session);
    print_method(log, session, options.common);

    GemmBench bench(session, options.common);
    GemmTable table(log, {session.openblas != nullptr, session.blis != nullptr,
                          session.peak.has_value()});
    table.header();
    std::vector<GemmRecord> records;
    bool failed = false;
    for (const GemmCase &c : cases) {
        bench.run(c, [&](const GemmRecord &r) {
            table.row(r);
            records.push_back(r);
            failed = failed || r.status == "failed";
        });
    }

    if (json_path == "-") {
        write_json(std::cout, session, options.common, records);
    } else if (!json_path.empty()) {
        write_json(json_file, session, options.common, records);
        json_file.close();
        if (!json_file) {
            std::cerr << "tessera-bench: writing " << json_path << " failed\n";
            return 1;
        }
        log << "\nJSON written to " << json_path << '\n';
    }
    return failed ? 1 : 0;
}

} // namespace tessera::bench
