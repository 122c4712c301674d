// What the spmm subcommand measures per record (one matrix, value type, layout and column
// count): Tessera's tsr_?spmm beside an anchor (Eigen on the cpu backend, cuSPARSE SpMM on
// the cuda one), both checked against each other, then timed in turns.
#pragma once

#include <cstdint>
#include <string>

#include "spmv_generators.hpp"
#include "spmv_options.hpp"

namespace tessera::bench {

struct SpmmRecord {
    std::string matrix;
    int64_t rows = 0, cols = 0, nnz = 0;
    char dtype = 'd';
    int index_bits = 32;
    char layout = 'r'; // r: row-major X and Y, c: column-major
    int64_t k = 0;
    double ours_s = 0, anchor_s = 0; // median seconds per product (0: not measured)
    std::string anchor;              // "eigen", "cusparse-csr-alg2", ...
    double difference = 0;           // max |Y_ours - Y_anchor| / max |Y_anchor|
    std::string status = "ok";       // "ok" or "failed"
    std::string note;                // why, when failed
    double gflops(double seconds) const {
        return seconds > 0 ? 2.0 * double(nnz) * double(k) / seconds * 1e-9 : 0.0;
    }
};

// The cuda backend's record (spmm_cuda.cpp; built with cuSPARSE only): X and Y in device memory,
// CUDA events; the anchor is the fastest of cuSPARSE's CSR algorithms that accept the layout.
SpmmRecord measure_spmm_cuda(const CsrMatrix &m, const SpmvOptions &o, char dtype, char layout,
                             int64_t k);
// The cuSPARSE version and the device's name, for the report's head.
std::string spmm_cuda_head();

} // namespace tessera::bench
