// Options every tessera-bench subcommand understands (see options.hpp): parsing with range
// checks and the help text that documents them.
#include "options.hpp"

namespace tessera::bench {

bool parse_common_option(ArgCursor &args, CommonOptions &options) {
    if (args.take_flag("--help") || args.take_flag("-h")) {
        options.help = true;
    } else if (args.take_flag("--quick")) {
        options.quick = true;
    } else if (args.take_flag("--quiet")) {
        options.quiet = true;
    } else if (auto v = args.take_option("--threads")) {
        options.threads = static_cast<int>(parse_int(*v, "--threads", 1, 4096));
    } else if (auto v = args.take_option("--reps")) {
        options.min_reps = static_cast<int>(parse_int(*v, "--reps", 1, 1000000));
    } else if (auto v = args.take_option("--min-time")) {
        options.min_time = parse_number(*v, "--min-time", 0.0);
        options.min_time_given = true;
    } else if (auto v = args.take_option("--settle")) {
        options.settle = parse_number(*v, "--settle", 0.0);
    } else if (auto v = args.take_option("--json")) {
        if (v->empty()) throw UsageError("--json needs a file name (or - for stdout)");
        options.json_path = *v;
    } else if (auto v = args.take_option("--seed")) {
        options.seed = static_cast<std::uint64_t>(parse_int(*v, "--seed", 0, INT64_MAX));
    } else if (auto v = args.take_option("--anchor")) {
        auto names = split_list(*v);
        if (names.empty()) throw UsageError("--anchor needs openblas, blis or none");
        options.anchor_openblas = options.anchor_blis = false;
        for (const auto &name : names) {
            if (name == "openblas") options.anchor_openblas = true;
            else if (name == "blis") options.anchor_blis = true;
            else if (name == "none" && names.size() > 1)
                throw UsageError("--anchor: none cannot be combined with other anchors");
            else if (name != "none")
                throw UsageError("--anchor: '" + name +
                                 "' is not one of openblas, blis (a comma list) or none");
        }
    } else if (auto v = args.take_option("--openblas")) {
        if (v->empty()) throw UsageError("--openblas needs a library path");
        options.openblas_path = *v;
    } else if (auto v = args.take_option("--blis")) {
        if (v->empty()) throw UsageError("--blis needs a library path");
        options.blis_path = *v;
    } else if (auto v = args.take_option("--peak-time")) {
        options.peak_time = parse_number(*v, "--peak-time", 0.0);
    } else {
        return false;
    }
    return true;
}

void finish_common_options(CommonOptions &options) {
    if (options.quick && !options.min_time_given) options.min_time = 0.1;
    if (options.peak_time < 0) options.peak_time = options.quick ? 0.1 : 0.2;
}

std::string anchors_text(const CommonOptions &options) {
    if (options.anchor_openblas && options.anchor_blis) return "openblas,blis";
    if (options.anchor_openblas) return "openblas";
    if (options.anchor_blis) return "blis";
    return "none";
}

const char *common_options_help() {
    return "  --threads N       threads for Tessera, OpenBLAS and BLIS alike (default:\n"
           "                    TESSERA_NUM_THREADS, else OMP_NUM_THREADS, else all cores)\n"
           "  --reps R          timed repetitions per side, at least (default 3)\n"
           "  --min-time S      seconds of timed work per side, at least (default 0.5, 0.1 with\n"
           "                    --quick); --min-time 0 runs exactly R repetitions\n"
           "  --settle S        idle pause before each turn, so that the other library's idle\n"
           "                    threads stop spinning (default 0.15 with more than one thread)\n"
           "  --json FILE       also write the results as JSON to FILE (- for stdout)\n"
           "  --quick           smaller default shapes and --min-time 0.1: a smoke run\n"
           "  --quiet           no progress line on stderr (shown on runs longer than ~3 s)\n"
           "  --seed N          seed of the random data and of the sampled reference (default 42)\n"
           "  --anchor LIST     anchors to compare with: openblas, blis, a comma list of both\n"
           "                    (default), or none; a missing one is reported and left out\n"
           "  --openblas PATH   load this OpenBLAS instead of libopenblas.so.0\n"
           "  --blis PATH       load this BLIS instead of libblis.so.4 (or Debian's copies)\n"
           "  --peak-time S     seconds per peak-FLOP measurement (default 0.2, 0.1 with\n"
           "                    --quick); 0 skips the peak and the peak% column\n"
           "  --help            this text\n";
}

} // namespace tessera::bench
