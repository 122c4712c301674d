// The "peak" subcommand of tessera-bench (see peak_command.hpp): common options only (no
// anchors are loaded), --peak-time or --min-time for the length of each measurement.
#include "peak_command.hpp"

#include <fstream>
#include <iostream>

#include <tessera/tessera.h>

#include "json_output.hpp"
#include "options.hpp"
#include "peak_report.hpp"
#include "session.hpp"
#include "session_json.hpp"

namespace tessera::bench {
namespace {

std::string peak_usage() {
    return std::string(
               "usage: tessera-bench peak [options]\n"
               "\n"
               "Measures the peak FLOP rate: FMA throughput with 30 (AVX-512) or 15\n"
               "(AVX2) independent chains per thread, for AVX-512 and AVX2+FMA in float and\n"
               "double, on one thread and on the run's threads (one chain set per\n"
               "thread), each only where the CPU supports it. GFLOP/s = 2 x lanes per\n"
               "FMA. The gemm subcommand measures the same before its cases and reports\n"
               "peak% against the best instruction set at its thread count.\n"
               "\n"
               "options (the gemm options that apply here):\n") +
           common_options_help() +
           "  (--min-time S sets the length of each measurement too; --anchor is ignored)\n";
}

} // namespace

int run_peak_command(ArgCursor &args) {
    CommonOptions options;
    while (!args.done()) {
        if (parse_common_option(args, options)) continue;
        if (args.current().starts_with("-"))
            throw UsageError("unknown option '" + args.current() + "'");
        throw UsageError("unexpected argument '" + args.current() + "'");
    }
    if (options.peak_time < 0 && options.min_time_given) options.peak_time = options.min_time;
    finish_common_options(options);
    if (options.help) {
        std::cout << peak_usage();
        return 0;
    }
    if (options.peak_time <= 0) throw UsageError("peak: --peak-time must be above 0");
    options.anchor_openblas = options.anchor_blis = false;

    const std::string &json_path = options.json_path;
    std::ostream &log = json_path == "-" ? std::cerr : std::cout;
    std::ofstream json_file;
    if (!json_path.empty() && json_path != "-") {
        json_file.open(json_path);
        if (!json_file) throw UsageError("--json: cannot write '" + json_path + "'");
    }

    Session session = open_session(options);
    log << "tessera-bench peak, Tessera " << tsr_version() << ", " << session.machine.date_utc
        << '\n'
        << "CPU: " << session.machine.cpu_model << ", " << session.machine.logical_cpus
        << " logical CPUs (" << session.machine.cpu_features << ")\n"
        << "threads: " << session.threads << " (" << session.threads_origin << ")\n"
        << "method: " << peak_method() << "; " << options.peak_time << " s each\n\n";
    log.flush();
    measure_session_peak(session, options);
    if (!session.peak) {
        log << "peak: " << session.peak_note << '\n';
    } else {
        print_peak_table(log, *session.peak, session.threads);
        log << '\n';
        print_peak_banner(log, *session.peak, session.threads);
    }

    if (!json_path.empty()) {
        std::ostream &out = json_path == "-" ? std::cout : json_file;
        Json json = Json::object();
        add_session_json(json, session, options, "peak");
        json["records"] = Json::array();
        write_json_document(out, json);
        if (json_path != "-") {
            json_file.close();
            if (!json_file) {
                std::cerr << "tessera-bench: writing " << json_path << " failed\n";
                return 1;
            }
            log << "\nJSON written to " << json_path << '\n';
        }
    }
    return session.peak ? 0 : 1;
}

} // namespace tessera::bench
