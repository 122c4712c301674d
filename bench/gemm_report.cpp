// How gemm results are shown (see gemm_report.hpp). "ours" is Tessera on the record's
// backend, "anchor" is OpenBLAS; the ratio is ours / anchor in GFLOP/s (above 1: faster).
#include "gemm_report.hpp"

#include "backend_names.hpp"

namespace tessera::bench {
namespace {

std::string routine(const GemmRecord &r) {
    return std::string(precision_letter(r.precision)) + "gemm";
}

void write_side(JsonWriter &json, const std::optional<SideResult> &side) {
    if (!side) {
        json.null();
        return;
    }
    json.begin_object();
    json.field("name", side->name).field("reps", side->seconds.count);
    json.field("median_s", side->seconds.median).field("min_s", side->seconds.min);
    json.field("max_s", side->seconds.max).field("mean_s", side->seconds.mean);
    json.field("mad_s", side->seconds.mad).field("gflops", side->gflops);
    json.field("rel_error", side->error);
    json.end_object();
}

} // namespace

GemmTable::GemmTable(std::ostream &out)
    : table_(out, {{"shape", 16, true},
                   {"routine", 7, true},
                   {"backend", 9, true},
                   {"reps", 5},
                   {"Tessera GF/s", 12},
                   {"OpenBLAS GF/s", 13},
                   {"ratio", 6},
                   {"Tessera err", 11},
                   {"OpenBLAS err", 12}}),
      out_(out) {}

void GemmTable::header() {
    table_.header();
}

void GemmTable::row(const GemmRecord &r) {
    if (r.status == "unavailable") {
        if (said_unavailable_.insert(r.backend).second)
            table_.note("  (backend " + std::string(backend_name(r.backend)) +
                        " skipped: " + r.message + ")");
        return;
    }
    std::vector<std::string> cells{r.shape.text(), routine(r), backend_name(r.backend)};
    if (r.status != "ok") {
        cells.push_back("");
        table_.row(cells);
        table_.note("  FAILED: " + r.message);
        return;
    }
    cells.push_back(std::to_string(r.ours->seconds.count));
    cells.push_back(significant(r.ours->gflops));
    cells.push_back(r.anchor ? significant(r.anchor->gflops) : "-");
    cells.push_back(r.ratio ? significant(*r.ratio) : "-");
    cells.push_back(scientific(r.ours->error, 1));
    cells.push_back(r.anchor ? scientific(r.anchor->error, 1) : "-");
    table_.row(cells);
}

void write_gemm_record(JsonWriter &json, const GemmRecord &r) {
    json.begin_object();
    json.field("benchmark", "gemm").field("routine", routine(r));
    json.field("dtype", precision_letter(r.precision));
    json.field("m", r.shape.m).field("n", r.shape.n).field("k", r.shape.k);
    json.field("layout", "col").field("transa", "N").field("transb", "N");
    json.field("alpha", r.alpha).field("beta", r.beta);
    json.field("backend", backend_name(r.backend)).field("threads", r.threads);
    json.field("flops", r.shape.flops());
    json.field("status", r.status);
    if (!r.message.empty()) json.field("message", r.message);
    if (r.status == "ok") {
        json.field("reference", r.reference);
        json.key("ours");
        write_side(json, r.ours);
        json.key("anchor");
        write_side(json, r.anchor);
        json.key("ratio");
        if (r.ratio)
            json.value(*r.ratio);
        else
            json.null();
    }
    json.end_object();
}

} // namespace tessera::bench
