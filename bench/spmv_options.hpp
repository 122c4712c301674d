// Options of "tessera-bench spmv": the backend (cpu or cuda), which matrices (generators, .mtx
// files, a directory of them, the named sets), formats, value and index types, ops, threads,
// timing, anchor, JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "args.hpp"

namespace tessera::bench {

struct SpmvOptions {
    std::string backend = "cpu";         // "cpu" or "cuda" (device vectors, cuSPARSE anchor)
    std::vector<std::string> generators; // "laplacian:2048", ...
    std::vector<std::string> files;      // .mtx paths
    std::vector<std::string> formats{"csr", "coo", "ell", "dia", "hyb", "auto"};
    std::vector<char> dtypes{'d'}; // 's' and/or 'd'
    int index_bits = 32;
    std::vector<char> ops{'n', 't'};
    int threads = 0; // 0: TESSERA_NUM_THREADS, else OMP_NUM_THREADS, else all cores
    int min_reps = 5;
    double min_time = 0.5; // seconds per side
    bool eigen = true;     // the CPU anchor
    bool cusparse = true;  // the GPU anchor
    bool stream = true;    // measure the STREAM triad (cpu) or the device copy (cuda)
    std::string json_path;
    uint64_t seed = 42;
    bool quick = false;
    bool quiet = false; // no progress line on standard error (progress.hpp)
    bool help = false;
    // The spmm subcommand's own: columns of X and Y, and their layouts (r: row-major, c: col).
    std::vector<int64_t> spmm_k{4, 16, 64};
    std::vector<char> layouts{'r', 'c'};
};

// `command` is "spmv" or "spmm" (which takes --k and --layout, and defaults to the spmm set).
SpmvOptions parse_spmv_options(ArgCursor &args, const std::string &command = "spmv");
const char *spmv_usage();
const char *spmm_usage();

// The matrices of the generated large set (>= 20 M nonzeros each), the quick set, and the GPU
// set (Laplacian 2000², random 1 M x 16 per row, power-law rows 1 M mean 10 max 100 k,
// tridiagonal 8 M).
std::vector<std::string> large_set();
std::vector<std::string> quick_set();
std::vector<std::string> corpus_set();
std::vector<std::string> gpu_set();
// The spmm command's default: every kind of structure at 1–3 M entries and 0.1–0.6 M rows, so
// that dense blocks of 64 columns in float64 stay within a few hundred MiB.
std::vector<std::string> spmm_set();
// The .mtx files of a directory, sorted.
std::vector<std::string> matrix_files_in(const std::string &dir);
// Where the shared SuiteSparse set is expected (beside the source tree), "" if unknown.
std::string default_shared_dir();

} // namespace tessera::bench
