// The spmv measurement: one matrix, one value type, one op; every format of Tessera (and AUTO)
// and Eigen timed in turns, checked against a long double reference, turned into GFLOP/s,
// effective bandwidth and ratios.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "spmv_case.hpp"
#include "spmv_generators.hpp"
#include "spmv_options.hpp"
#include "statistics.hpp"

namespace tessera::bench {

class Triad;

// A format as the command line names it ("csr", ..., "auto") and back.
tsr_format spmv_format_of(const std::string &name);
const char *spmv_format_name(tsr_format format);

// A matrix named on the command line, loaded: generated, or read from a .mtx file (then made
// canonical: rows sorted by column, duplicates summed).
CsrMatrix load_input(const std::string &what, bool is_file, uint64_t seed);

struct SpmvSide {
    std::string name;   // "csr", ..., "auto", "eigen"
    std::string format; // the format that ran (for auto: the one it chose)
    std::string status; // "ok", "refused" (padding limit), "failed", "unavailable"
    std::string message;
    Summary time;
    double gflops = 0, gbs = 0, rel_error = 0;
};

struct SpmvRecord : SpmvRecordHead {
    int threads = 1;
    int batch = 1;        // products per timed call (small matrices run several back to back)
    double triad_gbs = 0; // the STREAM triad, timed in turns with the products
    std::vector<SpmvSide> sides;
    const SpmvSide *side(const std::string &name) const;
    std::string best_format() const; // the fastest named format
    double auto_over_best() const;   // time of the format AUTO chose / the best format's (0: n/a)
    double csr_over_eigen() const;   // Eigen's time / CSR's (> 1: CSR faster; 0: n/a)
};

// Runs every side on `m` and reports the record.
// With a triad and a matrix beyond the caches, the triad is timed in turns with the products
// and the record's triad_gbs is its median over the same stretch of time; otherwise it is
// `triad_alone_gbs`, the triad measured on its own.
SpmvRecord measure_spmv(const CsrMatrix &m, const SpmvOptions &o, char dtype, char op, int threads,
                        Triad *triad, double triad_alone_gbs);

} // namespace tessera::bench
