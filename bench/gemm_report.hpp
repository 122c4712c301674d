// How gemm results are shown: a table row per measurement for people, a JSON record per
// measurement for scripts.
#pragma once

#include <memory>
#include <ostream>
#include <set>

#include "gemm_bench.hpp"
#include "json_writer.hpp"
#include "table.hpp"

namespace tessera::bench {

class GemmTable {
public:
    explicit GemmTable(std::ostream &out);
    void header();
    // One row; an unavailable backend gets one note the first time, then nothing.
    void row(const GemmRecord &record);

private:
    Table table_;
    std::ostream &out_;
    std::set<tsr_backend> said_unavailable_;
};

// One record as a JSON object (the writer must be inside an array).
void write_gemm_record(JsonWriter &json, const GemmRecord &record);

} // namespace tessera::bench
