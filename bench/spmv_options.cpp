// Parsing of the spmv subcommand's options (see spmv_options.hpp) and its help text.
#include "spmv_options.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace tessera::bench {

std::vector<std::string> large_set() {
    return {"laplacian:2048", "tridiagonal:7000000", "random:2000000x2000000:10",
            "powerlaw:2200000x2200000:11"};
}

std::vector<std::string> quick_set() {
    return {"laplacian:300", "tridiagonal:200000", "random:100000x100000:10",
            "powerlaw:100000x100000:11"};
}

// The corpus: every kind of structure the generators make, 12–28 M entries each (beyond the
// caches of the machines measured), for AUTO against every format on either backend.
std::vector<std::string> corpus_set() {
    return {"stencil7:160",                   // 3-D 7-point, 4.1 M rows, 28 M entries
            "stencil27:100",                  // 3-D 27-point, 1 M rows, 26 M
            "laplacian:2048",                 // 2-D 5-point, 4.2 M rows, 21 M
            "tridiagonal:7000000",            // 21 M
            "band:2000000:8:60",              // random entries in a band, 21 M
            "random:2000000x2000000:10",      // uniform, 20 M
            "powerlaw:2200000x2200000:11",    // power-law row lengths, 24 M
            "rmat:21:8:45",                   // R-MAT graphs, three skews, 13-16 M
            "rmat:21:8:57",                   //
            "rmat:20:16:70",                  //
            "blockdiag:2500000:8",            // dense blocks on the diagonal, 20 M
            "blockdiag:700000:24",            // 17 M
            "blockdiag:625000:32",            // 20 M
            "emptyrows:4000000x1000000:8:60", // rectangular, 60% empty rows, 13 M
            "denserows:2000000x2000000:8:4"}; // four dense rows, 24 M
}

std::vector<std::string> gpu_set() {
    return {"laplacian:2000", "random:1000000x1000000:16", "powerlaw:1000000x1000000:10:100000",
            "tridiagonal:8000000"};
}

std::vector<std::string> spmm_set() {
    return {"stencil7:60",                  // 216 K rows, 1.5 M entries
            "stencil27:50",                 // 125 K rows, 3.3 M
            "laplacian:500",                // 250 K rows, 1.2 M
            "band:300000:8:60",             // 3.1 M
            "random:300000x300000:10",      // 3 M
            "powerlaw:300000x300000:10",    // 3 M
            "rmat:18:8:57",                 // 262 K rows, 2 M
            "rmat:18:8:70",                 //
            "blockdiag:300000:8",           // 2.4 M
            "blockdiag:100000:24",          // 2.4 M
            "emptyrows:600000x300000:8:60", // 1.9 M
            "denserows:300000x300000:8:4"}; // 3.6 M
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

std::vector<char> letters(const std::string &text, const std::string &what,
                          const std::string &allowed) {
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

SpmvOptions parse_spmv_options(ArgCursor &args, const std::string &command) {
    const bool spmm = command == "spmm";
    SpmvOptions o;
    bool sets_given = false;
    bool min_time_given = false, dtype_given = false, op_given = false;
    std::string anchor;
    std::vector<std::string> sets;
    while (!args.done()) {
        std::optional<std::string> set;
        if (args.take_flag("--help") || args.take_flag("-h")) {
            o.help = true;
        } else if (args.take_flag("--quick")) {
            o.quick = true;
        } else if (auto b = args.take_option("--backend")) {
            if (*b != "cpu" && *b != "cuda") throw UsageError("--backend: cpu or cuda");
            o.backend = *b;
        } else if (auto m = args.take_option("--matrix")) {
            for (const std::string &p : split_list(*m)) o.files.push_back(p);
        } else if (auto d = args.take_option("--matrices")) {
            for (const std::string &dir : split_list(*d)) {
                const std::vector<std::string> files = matrix_files_in(dir);
                if (files.empty()) throw UsageError("--matrices: no .mtx files in '" + dir + "'");
                for (const auto &f : files) o.files.push_back(f);
            }
        } else if (auto g = args.take_option("--gen")) {
            for (const std::string &spec : split_list(*g, ';')) o.generators.push_back(spec);
        } else if ((set = args.take_option("--set")) || (set = args.take_option("--preset"))) {
            sets_given = true;
            for (const std::string &s : split_list(*set)) {
                if (s != "large" && s != "shared" && s != "quick" && s != "gpu" && s != "corpus")
                    throw UsageError("--set: '" + s +
                                     "' is not one of large, shared, quick, gpu, corpus");
                sets.push_back(s);
            }
        } else if (auto v = args.take_option("--formats")) {
            o.formats = split_list(*v);
            for (const std::string &f : o.formats)
                if (f != "csr" && f != "coo" && f != "ell" && f != "dia" && f != "hyb" &&
                    f != "auto")
                    throw UsageError("--formats: '" + f +
                                     "' is not one of csr, coo, ell, dia, hyb, auto");
        } else if (auto v = args.take_option("--dtype")) {
            o.dtypes = letters(*v, "--dtype", "sd");
            dtype_given = true;
        } else if (auto v = args.take_option("--index")) {
            o.index_bits = int(parse_int(*v, "--index", 32, 64));
            if (o.index_bits != 32 && o.index_bits != 64) throw UsageError("--index: 32 or 64");
        } else if (auto v = args.take_option("--op")) {
            o.ops = letters(*v == "both" ? "n,t" : *v, "--op", "nt");
            op_given = true;
        } else if (auto v = args.take_option("--threads")) {
            o.threads = int(parse_int(*v, "--threads", 1, 4096));
        } else if (auto v = args.take_option("--reps")) {
            o.min_reps = int(parse_int(*v, "--reps", 1, 1000000));
        } else if (auto v = args.take_option("--min-time")) {
            o.min_time = parse_number(*v, "--min-time", 0.0);
            min_time_given = true;
        } else if (auto v = args.take_option("--anchor")) {
            if (*v != "eigen" && *v != "cusparse" && *v != "none")
                throw UsageError("--anchor: eigen (cpu), cusparse (cuda) or none");
            anchor = *v;
        } else if (args.take_flag("--no-stream")) {
            o.stream = false;
        } else if (args.take_flag("--quiet")) {
            o.quiet = true;
        } else if (auto v = args.take_option("--json")) {
            if (v->empty()) throw UsageError("--json needs a file name (or - for stdout)");
            o.json_path = *v;
        } else if (auto v = spmm ? args.take_option("--k") : std::nullopt) {
            o.spmm_k.clear();
            for (const std::string &item : split_list(*v))
                o.spmm_k.push_back(parse_int(item, "--k", 1, 4096));
            if (o.spmm_k.empty()) throw UsageError("--k needs a value");
        } else if (auto v = spmm ? args.take_option("--layout") : std::nullopt) {
            o.layouts = letters(*v == "both" ? "r,c" : *v, "--layout", "rc");
        } else if (auto v = args.take_option("--seed")) {
            o.seed = uint64_t(parse_int(*v, "--seed", 0, INT64_MAX));
        } else if (args.current().rfind("--", 0) != 0) {
            o.files.push_back(args.current()); // a bare argument is a .mtx file
            args.skip();
        } else {
            throw UsageError(command + ": unknown option '" + args.current() + "'");
        }
    }
    const bool cuda = o.backend == "cuda";
    if (!anchor.empty()) {
        if (anchor == (cuda ? "eigen" : "cusparse"))
            throw UsageError("--anchor " + anchor + " is not an anchor of the " + o.backend +
                             " backend");
        o.eigen = anchor == "eigen";
        o.cusparse = anchor == "cusparse";
    }
    if (cuda) o.eigen = false;
    else o.cusparse = false;
    if (cuda && !op_given) o.ops = {'n'}; // cuSPARSE's transpose only where asked for
    if (o.quick && !min_time_given) o.min_time = 0.1;
    if (!sets_given && o.files.empty() && o.generators.empty())
        sets.push_back(o.quick ? "quick" : spmm ? "spmm" : cuda ? "gpu" : "large");
    for (const std::string &s : sets) {
        if (s == "large")
            for (const auto &g : large_set()) o.generators.push_back(g);
        if (s == "quick")
            for (const auto &g : quick_set()) o.generators.push_back(g);
        if (s == "corpus") {
            for (const auto &g : corpus_set()) o.generators.push_back(g);
            const std::string dir = default_shared_dir(); // and the shared files, where found
            for (const auto &f : dir.empty() ? std::vector<std::string>{} : matrix_files_in(dir))
                o.files.push_back(f);
            if (!dtype_given) o.dtypes = {'s', 'd'};
        }
        if (s == "spmm") {
            for (const auto &g : spmm_set()) o.generators.push_back(g);
            if (!dtype_given) o.dtypes = {'s', 'd'};
        }
        if (s == "gpu") {
            for (const auto &g : gpu_set()) o.generators.push_back(g);
            if (!dtype_given) o.dtypes = {'s', 'd'};
        }
        if (s == "shared") {
            const std::string dir = default_shared_dir();
            std::vector<std::string> files =
                dir.empty() ? std::vector<std::string>{} : matrix_files_in(dir);
            if (files.empty()) throw UsageError("--set shared: no .mtx files in '" + dir + "'");
            for (const auto &f : files) o.files.push_back(f);
        }
    }
    return o;
}

const char *spmv_usage() {
    return "usage: tessera-bench spmv [FILE.mtx ...] [--matrix F,..] [--matrices DIR] [--gen "
           "SPEC;..]\n"
           "                          [--set large|shared|quick|gpu|corpus] [--backend cpu|cuda]\n"
           "                          [--formats csr,coo,ell,dia,hyb,auto] [--dtype s|d|both] "
           "[--index 32|64]\n"
           "                          [--op n|t|both] [--threads N] [--reps R] [--min-time S]\n"
           "                          [--anchor eigen|cusparse|none] [--no-stream] [--json FILE|-] "
           "[--seed N]\n"
           "                          [--quick] [--quiet]\n"
           "\n"
           "Sparse y = A*x (op n) and y = A^T*x (op t) in every format of Tessera. On the cpu "
           "backend,\n"
           "side by side with Eigen's OpenMP sparse x dense vector product, against a STREAM "
           "triad\n"
           "measured in the run; on the cuda backend (x and y in device memory, CUDA events), "
           "with\n"
           "cuSPARSE's SpMV (CSR ALG1/ALG2, COO ALG1/ALG2), against a device-to-device copy.\n"
           "\n"
           "  FILE.mtx, --matrix  Matrix Market files (coordinate real/integer/pattern,\n"
           "                      general/symmetric/skew-symmetric; symmetric ones expanded)\n"
           "  --matrices DIR      every .mtx file in DIR (a comma list of directories)\n"
           "  --gen SPEC          generated: laplacian:N (2D 5-point, N^2 rows), stencil7:N and\n"
           "                      stencil27:N (3D, N^3 rows), tridiagonal:N, random:ROWSxCOLS:K\n"
           "                      (K per row), powerlaw:ROWSxCOLS:MEAN[:MAX], "
           "rmat:SCALE:EDGES[:A%]\n"
           "                      (2^SCALE vertices, EDGES per vertex, skew A, default 57),\n"
           "                      blockdiag:N:BLOCK (dense blocks), band:N:HALFWIDTH[:FILL%],\n"
           "                      emptyrows:ROWSxCOLS:K:EMPTY%, denserows:ROWSxCOLS:K:COUNT\n"
           "  --set, --preset     large (cpu default: >= 20 M nonzeros each, beyond the caches),\n"
           "                      shared (the SuiteSparse files beside the sources), quick,\n"
           "                      gpu (cuda default: laplacian:2000, random:1000000x1000000:16,\n"
           "                      powerlaw:1000000x1000000:10:100000, tridiagonal:8000000; "
           "float32\n"
           "                      and float64 unless --dtype says otherwise), corpus (every\n"
           "                      generator's kind of structure at 12-28 M entries, three R-MAT\n"
           "                      skews, three block sizes, with the shared files; float32 and\n"
           "                      float64 unless --dtype says otherwise)\n"
           "  --backend           cpu (default) or cuda\n"
           "  --formats           formats to time (default all five and auto)\n"
           "  --dtype, --index    value type (default d) and index width (default 32)\n"
           "  --op                n, t or both (default both on cpu, n on cuda)\n"
           "  --threads N         threads for Tessera and Eigen (default: TESSERA_NUM_THREADS,\n"
           "                      else OMP_NUM_THREADS, else all cores)\n"
           "  --reps, --min-time  timed calls (default 5) and seconds (default 0.5) per side, at "
           "least\n"
           "  --anchor            eigen (cpu default, when built with Eigen), cusparse (cuda "
           "default)\n"
           "                      or none\n"
           "  --no-stream         skip the STREAM triad (cpu) or the device copy (cuda)\n"
           "  --json FILE         also write the records as JSON (- for stdout, the table then on "
           "stderr)\n"
           "  --quiet             no progress line on stderr (shown on runs longer than ~3 s)\n"
           "\n"
           "Effective bandwidth counts the bytes of values, column indices, row pointers, x and y "
           "of the\n"
           "CSR matrix, each once, whatever the format; GFLOP/s is 2*nnz/time.\n";
}

const char *spmm_usage() {
    return "usage: tessera-bench spmm [the matrix options of spmv] [--k K,..] [--layout r|c|both]\n"
           "                          [--backend cpu|cuda] [--dtype s|d|both] [--index 32|64]\n"
           "                          [--threads N] [--reps R] [--min-time S] [--json FILE|-]\n"
           "\n"
           "Sparse x dense Y = A*X (tsr_sspmm / tsr_dspmm, alpha 1, beta 0) for blocks X of K\n"
           "columns, row-major (r) and column-major (c), packed. On the cpu backend side by side\n"
           "with Eigen's sparse x dense product (a row-major Eigen::Map of the same CSR arrays, "
           "its\n"
           "OpenMP threads); on the cuda backend (X and Y in device memory, CUDA events) with\n"
           "cuSPARSE's SpMM on CSR, the best of its algorithms that accept the layout. Each "
           "side's\n"
           "Y is checked against the other's.\n"
           "\n"
           "  --set, --gen, ...   as for spmv; the default is --set spmm (stencil7:60, "
           "stencil27:50,\n"
           "                      laplacian:500, band, random, powerlaw, two R-MAT skews, two "
           "block\n"
           "                      sizes, empty rows, dense rows; 1-3.6 M entries, float32 and "
           "float64)\n"
           "  --k                 columns of X and Y (default 4,16,64)\n"
           "  --layout            r, c or both (default both)\n"
           "\n"
           "GFLOP/s is 2*nnz*K/time.\n";
}

} // namespace tessera::bench
