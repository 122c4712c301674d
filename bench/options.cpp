// Options every tessera-bench subcommand understands (see options.hpp): parsing with range
// checks and the help text that documents them.
#include "options.hpp"

namespace tessera::bench {

bool parse_common_option(ArgCursor &args, CommonOptions &options) {
    if (args.take_flag("--help") || args.take_flag("-h")) {
        options.help = true;
    } else if (args.take_flag("--quick")) {
        options.quick = true;
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
        if (*v != "openblas" && *v != "none")
            throw UsageError("--anchor: '" + *v + "' is not one of openblas, none");
        options.anchor = *v;
    } else if (auto v = args.take_option("--openblas")) {
        if (v->empty()) throw UsageError("--openblas needs a library path");
        options.openblas_path = *v;
    } else {
        return false;
    }
    return true;
}

void finish_common_options(CommonOptions &options) {
    if (options.quick && !options.min_time_given) options.min_time = 0.1;
}

const char *common_options_help() {
    return "  --threads N       threads for Tessera and OpenBLAS alike (default:\n"
           "                    TESSERA_NUM_THREADS, else OMP_NUM_THREADS, else all cores)\n"
           "  --reps R          timed repetitions per side, at least (default 3)\n"
           "  --min-time S      seconds of timed work per side, at least (default 0.5, 0.1 with\n"
           "                    --quick); --min-time 0 runs exactly R repetitions\n"
           "  --settle S        idle pause before each turn, so that the other library's idle\n"
           "                    threads stop spinning (default 0.1 with more than one thread)\n"
           "  --json FILE       also write the results as JSON to FILE (- for stdout)\n"
           "  --quick           smaller default shapes and --min-time 0.1: a smoke run\n"
           "  --seed N          seed of the random data and of the sampled reference (default 42)\n"
           "  --anchor NAME     openblas (default) or none\n"
           "  --openblas PATH   load this OpenBLAS instead of libopenblas.so.0\n"
           "  --help            this text\n";
}

} // namespace tessera::bench
