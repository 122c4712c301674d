// How gemm results are shown: a table row per measurement for people, a JSON record per
// measurement for scripts.
#pragma once

#include <memory>
#include <ostream>
#include <set>
#include <string>

#include "gemm_bench.hpp"
#include "json_output.hpp"
#include "table.hpp"

namespace tessera::bench {

// Which columns the table has: an anchor's columns only when it was loaded, peak% only when
// the peak was measured. gpu: every case runs on backend cuda, so the anchor columns are
// cuBLAS's (named gpu_anchor), a second cuBLAS side's too where gpu_alt names one, and no peak.
struct GemmColumns {
    bool openblas = true, blis = true, peak = true;
    bool strassen = false; // a Strassen side (--strassen): its GF/s, speed-up and error
    bool gpu = false;
    std::string gpu_anchor = "cuBLAS", gpu_alt;
};

class GemmTable {
public:
    GemmTable(std::ostream &out, GemmColumns columns);
    void header();
    // One row; an unavailable backend gets one note the first time, then nothing.
    void row(const GemmRecord &record);
    // After the last row: the footnote of a "busy" peak% cell, when there was one.
    void footer();

private:
    GemmColumns columns_;
    Table table_;
    std::ostream &out_;
    std::set<tsr_backend> said_unavailable_;
    bool peak_busy_ = false; // some peak% cell says "busy"
};

// One record as a JSON object.
Json gemm_record_json(const GemmRecord &record);

} // namespace tessera::bench
