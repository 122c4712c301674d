// What the spmm subcommand measures per record (one matrix, value type, layout and column
// count): Tessera's tsr_?spmm beside an anchor (Eigen on the cpu backend, cuSPARSE SpMM on
// the cuda one), both checked against each other, then timed in turns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

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

// One record's inputs in the types asked for: the CSR arrays, X (uniform in [-1, 1] from the
// seed), the leading dimensions of packed X and Y, and the record's head.
template <typename V, typename I> struct SpmmCase {
    SpmmRecord head;
    bool row_major;
    std::vector<I> row_ptr, col;
    std::vector<V> val, X;
    int64_t ldx, ldy;
    SpmmCase(const CsrMatrix &m, uint64_t seed, char layout, int64_t k)
        : row_major(layout == 'r'), row_ptr(m.row_ptr.begin(), m.row_ptr.end()),
          col(m.col.begin(), m.col.end()), val(m.val.begin(), m.val.end()), X(size_t(m.cols * k)),
          ldx(row_major ? k : std::max<int64_t>(1, m.cols)),
          ldy(row_major ? k : std::max<int64_t>(1, m.rows)) {
        head.matrix = m.name;
        head.rows = m.rows;
        head.cols = m.cols;
        head.nnz = m.nnz();
        head.dtype = sizeof(V) == 4 ? 's' : 'd';
        head.index_bits = int(sizeof(I) * 8);
        head.layout = layout;
        head.k = k;
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        for (V &x : X) x = V(u(rng));
    }
};

// The cuda backend's record (spmm_cuda.cpp; built with cuSPARSE only): X and Y in device memory,
// CUDA events; the anchor is the fastest of cuSPARSE's CSR algorithms that accept the layout.
SpmmRecord measure_spmm_cuda(const CsrMatrix &m, const SpmvOptions &o, char dtype, char layout,
                             int64_t k);
// The cuSPARSE version and the device's name, for the report's head.
std::string spmm_cuda_head();

} // namespace tessera::bench
