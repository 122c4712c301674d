// How gemm results are shown (see gemm_report.hpp). "anchor" is OpenBLAS (cuBLAS on the GPU),
// "blis" BLIS; a ratio is Tessera / that anchor in GFLOP/s, peak% Tessera over the measured peak.
#include "gemm_report.hpp"

#include <algorithm>

#include "backend_names.hpp"

namespace tessera::bench {
namespace {

std::string routine(const GemmRecord &r) {
    return std::string(precision_letter(r.precision)) + "gemm";
}

// "NN", or "NT row" for a row-major product.
std::string op_text(const GemmRecord &r) {
    return r.ops.text() + (r.layout == TSR_ROW_MAJOR ? " row" : "");
}

void optional_number(JsonWriter &json, const std::optional<double> &v) {
    if (v) json.value(*v);
    else json.null();
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
    json.key("peak_fraction");
    optional_number(json, side->peak_fraction);
    json.end_object();
}

std::vector<Column> table_columns(const GemmColumns &c) {
    std::vector<Column> cols{{"shape", 14, true},  {"op", 6, true}, {"routine", 7, true},
                             {"backend", 9, true}, {"reps", 5},     {"Tessera GF/s", 12}};
    if (c.gpu) {
        auto width = [](const std::string &title) { return int(title.size()); };
        const std::string anchor = c.gpu_anchor + " GF/s", alt = c.gpu_alt + " GF/s";
        cols.insert(cols.end(), {{anchor, width(anchor)}, {"ratio", 6}});
        if (!c.gpu_alt.empty()) cols.insert(cols.end(), {{alt, width(alt)}, {"ratio", 6}});
        cols.push_back({"Tessera err", 11});
        cols.push_back({c.gpu_anchor + " err", std::max(8, width(c.gpu_anchor + " err"))});
        if (!c.gpu_alt.empty())
            cols.push_back({c.gpu_alt + " err", std::max(8, width(c.gpu_alt + " err"))});
        return cols;
    }
    if (c.openblas) cols.insert(cols.end(), {{"OpenBLAS GF/s", 13}, {"ratio", 6}});
    if (c.blis) cols.insert(cols.end(), {{"BLIS GF/s", 9}, {"ratio", 6}});
    if (c.strassen) cols.insert(cols.end(), {{"Strassen GF/s", 13}, {"speed-up", 8}});
    if (c.peak) cols.push_back({"peak%", 5});
    cols.push_back({"Tessera err", 11});
    if (c.openblas) cols.push_back({"OpenBLAS err", 12});
    if (c.blis) cols.push_back({"BLIS err", 8});
    if (c.strassen) cols.push_back({"Strassen err", 12});
    return cols;
}

} // namespace

GemmTable::GemmTable(std::ostream &out, GemmColumns columns)
    : columns_(columns), table_(out, table_columns(columns)), out_(out) {}

void GemmTable::header() { table_.header(); }

void GemmTable::row(const GemmRecord &r) {
    if (r.status == "unavailable") {
        if (said_unavailable_.insert(r.backend).second)
            table_.note("  (backend " + std::string(backend_name(r.backend)) +
                        " skipped: " + r.message + ")");
        return;
    }
    std::vector<std::string> cells{r.shape.text(), op_text(r), routine(r), backend_name(r.backend)};
    if (r.status != "ok") {
        cells.push_back("");
        table_.row(cells);
        table_.note("  FAILED: " + r.message);
        return;
    }
    auto gflops = [](const std::optional<SideResult> &s) {
        return s ? significant(s->gflops) : std::string("-");
    };
    auto error = [](const std::optional<SideResult> &s) {
        return s ? scientific(s->error, 1) : std::string("-");
    };
    auto ratio = [](const std::optional<double> &v) { return v ? significant(*v) : "-"; };
    cells.push_back(std::to_string(r.ours->seconds.count));
    cells.push_back(gflops(r.ours));
    if (columns_.gpu) {
        cells.insert(cells.end(), {gflops(r.anchor), ratio(r.ratio)});
        if (!columns_.gpu_alt.empty())
            cells.insert(cells.end(), {gflops(r.anchor_alt), ratio(r.ratio_alt)});
        cells.push_back(error(r.ours));
        cells.push_back(error(r.anchor));
        if (!columns_.gpu_alt.empty()) cells.push_back(error(r.anchor_alt));
        table_.row(cells);
        return;
    }
    if (columns_.openblas) cells.insert(cells.end(), {gflops(r.anchor), ratio(r.ratio)});
    if (columns_.blis) cells.insert(cells.end(), {gflops(r.blis), ratio(r.ratio_blis)});
    if (columns_.strassen)
        cells.insert(cells.end(), {gflops(r.strassen), ratio(r.strassen_speedup)});
    if (columns_.peak)
        cells.push_back(r.ours->peak_fraction ? significant(100 * *r.ours->peak_fraction) : "-");
    cells.push_back(error(r.ours));
    if (columns_.openblas) cells.push_back(error(r.anchor));
    if (columns_.blis) cells.push_back(error(r.blis));
    if (columns_.strassen) cells.push_back(error(r.strassen));
    table_.row(cells);
}

void write_gemm_record(JsonWriter &json, const GemmRecord &r) {
    json.begin_object();
    json.field("benchmark", "gemm").field("routine", routine(r));
    json.field("dtype", precision_letter(r.precision));
    json.field("m", r.shape.m).field("n", r.shape.n).field("k", r.shape.k);
    json.field("layout", layout_name(r.layout));
    json.field("transa", r.ops.text().substr(0, 1)).field("transb", r.ops.text().substr(1, 1));
    json.field("alpha", r.alpha).field("beta", r.beta);
    if (!r.ld.empty()) json.field("ld_pads", r.ld);
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
        json.key("blis");
        write_side(json, r.blis);
        json.key("ratio");
        optional_number(json, r.ratio);
        json.key("ratio_blis");
        optional_number(json, r.ratio_blis);
        json.key("anchor_alt");
        write_side(json, r.anchor_alt);
        json.key("ratio_alt");
        optional_number(json, r.ratio_alt);
        json.key("strassen");
        write_side(json, r.strassen);
        json.key("strassen_speedup");
        optional_number(json, r.strassen_speedup);
        json.key("peak_gflops");
        optional_number(json, r.peak_gflops);
        json.key("peak_fraction");
        optional_number(json, r.ours ? r.ours->peak_fraction : std::nullopt);
    }
    json.end_object();
}

} // namespace tessera::bench
