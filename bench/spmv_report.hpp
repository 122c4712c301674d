// What "tessera-bench spmv" prints and writes: a row per format and matrix as results arrive,
// then the summaries the targets are read from (bandwidth against the triad, AUTO against the
// best format, CSR against Eigen, the transposed product against the plain one), and JSON.
#pragma once

#include <ostream>
#include <vector>

#include "json_output.hpp"
#include "spmv_bench.hpp"
#include "spmv_stream.hpp"
#include "table.hpp"

namespace tessera::bench {

class SpmvTable {
public:
    explicit SpmvTable(std::ostream &out);
    void header();
    void record(const SpmvRecord &r);

private:
    std::ostream &out_;
    Table table_;
};

void print_spmv_summary(std::ostream &out, const std::vector<SpmvRecord> &records);

Json spmv_record_json(const SpmvRecord &r);
Json triad_json(const TriadResult &t);

} // namespace tessera::bench
