// Parsing of the spmv subcommand's options (see spmv_options.hpp) and its help text.
#include "spmv_options.hpp"

#include <algorithm>
#include <filesystem>

namespace tessera::bench {

std::vector<std::string> large_set() {
    return {"laplacian:2048", "tridiagonal:7000000", "random:2000000x2000000:10",
            "powerlaw:2200000x2200000:11"};
}

std::vector<std::string> quick_set() {
    return {"laplacian:300", "tridiagonal:200000", "random:100000x100000:10", "powerlaw:100000x100000:11"};
}

std::vector<std::string> matrix_files_in(const std::string &dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".mtx") out.push_back(entry.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string default_shared_dir() {
#ifdef TESSERA_SHARED_MATRICES
    return TESSERA_SHARED_MATRICES;
#else
    return {};
#endif
}

namespace {

std::vector<char> letters(const std::string &text, const std::string &what, const std::string &allowed) {
    std::vector<char> out;
    for (const std::string &item : split_list(text)) {
        if (item == "both" && allowed == "sd") return {'s', 'd'};
        if (item.size() != 1 || allowed.find(item[0]) == std::string::npos)
            throw UsageError(what + ": '" + item + "' is not one of " + allowed);
        out.push_back(item[0]);
    }
    if (out.empty()) throw UsageError(what + " needs a value");
    return out;
}

} // namespace

SpmvOptions parse_spmv_options(ArgCursor &args) {
    SpmvOptions o;
    bool sets_given = false;
    bool min_time_given = false;
    std::vector<std::string> sets;
    while (!args.done()) {
        if (args.take_flag("--help") || args.take_flag("-h")) {
            o.help = true;
        } else if (args.take_flag("--quick")) {
            o.quick = true;
        } else if (auto v = args.take_option("--matrix")) {
            for (const std::string &p : split_list(*v)) o.files.push_back(p);
        } else if (auto v = args.take_option("--gen")) {
            for (const std::string &g : split_list(*v, ';')) o.generators.push_back(g);
        } else if (auto v = args.take_option("--set")) {
            sets_given = true;
            for (const std::string &s : split_list(*v)) {
                if (s != "large" && s != "shared" && s != "quick")
                    throw UsageError("--set: '" + s + "' is not one of large, shared, quick");
                sets.push_back(s);
            }
        } else if (auto v = args.take_option("--formats")) {
            o.formats = split_list(*v);
            for (const std::string &f : o.formats)
                if (f != "csr" && f != "coo" && f != "ell" && f != "dia" && f != "hyb" && f != "auto")
                    throw UsageError("--formats: '" + f + "' is not one of csr, coo, ell, dia, hyb, auto");
        } else if (auto v = args.take_option("--dtype")) {
            o.dtypes = letters(*v, "--dtype", "sd");
        } else if (auto v = args.take_option("--index")) {
            o.index_bits = int(parse_int(*v, "--index", 32, 64));
            if (o.index_bits != 32 && o.index_bits != 64) throw UsageError("--index: 32 or 64");
        } else if (auto v = args.take_option("--op")) {
            o.ops = letters(*v == "both" ? "n,t" : *v, "--op", "nt");
        } else if (auto v = args.take_option("--threads")) {
            o.threads = int(parse_int(*v, "--threads", 1, 4096));
        } else if (auto v = args.take_option("--reps")) {
            o.min_reps = int(parse_int(*v, "--reps", 1, 1000000));
        } else if (auto v = args.take_option("--min-time")) {
            o.min_time = parse_number(*v, "--min-time", 0.0);
            min_time_given = true;
        } else if (auto v = args.take_option("--anchor")) {
            if (*v != "eigen" && *v != "none") throw UsageError("--anchor: eigen or none");
            o.eigen = *v == "eigen";
        } else if (args.take_flag("--no-stream")) {
            o.stream = false;
        } else if (auto v = args.take_option("--json")) {
            if (v->empty()) throw UsageError("--json needs a file name (or - for stdout)");
            o.json_path = *v;
        } else if (auto v = args.take_option("--seed")) {
            o.seed = uint64_t(parse_int(*v, "--seed", 0, INT64_MAX));
        } else if (args.current().rfind("--", 0) != 0) {
            o.files.push_back(args.current()); // a bare argument is a .mtx file
            args.skip();
        } else {
            throw UsageError("spmv: unknown option '" + args.current() + "'");
        }
    }
    if (o.quick && !min_time_given) o.min_time = 0.1;
    if (!sets_given && o.files.empty() && o.generators.empty()) sets.push_back(o.quick ? "quick" : "large");
    for (const std::string &s : sets) {
        if (s == "large") for (const auto &g : large_set()) o.generators.push_back(g);
        if (s == "quick") for (const auto &g : quick_set()) o.generators.push_back(g);
        if (s == "shared") {
            const std::string dir = default_shared_dir();
            std::vector<std::string> files = dir.empty() ? std::vector<std::string>{} : matrix_files_in(dir);
            if (files.empty()) throw UsageError("--set shared: no .mtx files in '" + dir + "'");
            for (const auto &f : files) o.files.push_back(f);
        }
    }
    return o;
}

const char *spmv_usage() {
    return "usage: tessera-bench spmv [FILE.mtx ...] [--matrix F,..] [--gen SPEC;..] [--set large|shared|quick]\n"
           "                          [--formats csr,coo,ell,dia,hyb,auto] [--dtype s|d|both] [--index 32|64]\n"
           "                          [--op n|t|both] [--threads N] [--reps R] [--min-time S]\n"
           "                          [--anchor eigen|none] [--no-stream] [--json FILE|-] [--seed N] [--quick]\n"
           "\n"
           "Sparse y = A*x (op n) and y = A^T*x (op t) in every format of Tessera, side by side with\n"
           "Eigen's OpenMP sparse x dense vector product, against a STREAM triad measured in the run.\n"
           "\n"
           "  FILE.mtx, --matrix  Matrix Market files (coordinate real/integer/pattern,\n"
           "                      general/symmetric/skew-symmetric; symmetric ones expanded)\n"
           "  --gen SPEC          generated: laplacian:N (2D 5-point, N^2 rows), tridiagonal:N,\n"
           "                      random:ROWSxCOLS:K (K per row), powerlaw:ROWSxCOLS:MEAN\n"
           "  --set               large (default: >= 20 M nonzeros each, beyond the caches),\n"
           "                      shared (the SuiteSparse files beside the sources), quick\n"
           "  --formats           formats to time (default all five and auto)\n"
           "  --dtype, --index    value type (default d) and index width (default 32)\n"
           "  --op                n, t or both (default both)\n"
           "  --threads N         threads for Tessera and Eigen (default: TESSERA_NUM_THREADS,\n"
           "                      else OMP_NUM_THREADS, else all cores)\n"
           "  --reps, --min-time  timed calls (default 5) and seconds (default 0.5) per side, at least\n"
           "  --anchor            eigen (default, when built with Eigen) or none\n"
           "  --no-stream         skip the STREAM triad\n"
           "  --json FILE         also write the records as JSON (- for stdout, the table then on stderr)\n"
           "\n"
           "Effective bandwidth counts the bytes of values, column indices, row pointers, x and y of the\n"
           "CSR matrix, each once, whatever the format; GFLOP/s is 2*nnz/time.\n";
}

} // namespace tessera::bench
