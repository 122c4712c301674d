// Options of "tessera-bench spmv": which matrices (generators, .mtx files, the generated large
// set, the shared set), formats, value and index types, ops, threads, timing, anchor, JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "args.hpp"

namespace tessera::bench {

struct SpmvOptions {
    std::vector<std::string> generators; // "laplacian:2048", ...
    std::vector<std::string> files;      // .mtx paths
    std::vector<std::string> formats{"csr", "coo", "ell", "dia", "hyb", "auto"};
    std::vector<char> dtypes{'d'};        // 's' and/or 'd'
    int index_bits = 32;
    std::vector<char> ops{'n', 't'};
    int threads = 0;       // 0: TESSERA_NUM_THREADS, else OMP_NUM_THREADS, else all cores
    int min_reps = 5;
    double min_time = 0.5; // seconds per side
    bool eigen = true;     // the anchor
    bool stream = true;    // measure the STREAM triad
    std::string json_path;
    uint64_t seed = 42;
    bool quick = false;
    bool help = false;
};

SpmvOptions parse_spmv_options(ArgCursor &args);
const char *spmv_usage();

// The matrices of the generated large set (>= 20 M nonzeros each), and the quick set.
std::vector<std::string> large_set();
std::vector<std::string> quick_set();
// The .mtx files of a directory, sorted.
std::vector<std::string> matrix_files_in(const std::string &dir);
// Where the shared SuiteSparse set is expected (beside the source tree), "" if unknown.
std::string default_shared_dir();

} // namespace tessera::bench
