// How gemm results are shown (see gemm_report.hpp). "anchor" is OpenBLAS (cuBLAS on the GPU),
// "blis" BLIS; a ratio is Tessera / that anchor in GFLOP/s, peak% Tessera over the measured peak.
#include "gemm_report.hpp"

#include <algorithm>

#include "backend_names.hpp"
#include "peak_share.hpp"

namespace tessera::bench {
namespace {

std::string routine(const GemmRecord &r) {
    return std::string(precision_letter(r.precision)) + "gemm";
}

// "NN", or "NT row" for a row-major product.
std::string op_text(const GemmRecord &r) {
    return r.ops.text() + (r.layout == TSR_ROW_MAJOR ? " row" : "");
}

Json side_json(const std::optional<SideResult> &side) {
    if (!side) return nullptr;
    Json j;
    j["name"] = side->name;
    j["reps"] = side->seconds.count;
    j["median_s"] = side->seconds.median;
    j["min_s"] = side->seconds.min;
    j["max_s"] = side->seconds.max;
    j["mean_s"] = side->seconds.mean;
    j["mad_s"] = side->seconds.mad;
    j["gflops"] = side->gflops;
    j["rel_error"] = side->error;
    j["peak_fraction"] = json_number(side->peak_fraction);
    j["peak_fraction_reason"] = json_text(side->peak_reason);
    return j;
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
    if (columns_.peak) {
        const std::string cell =
            peak_share_cell(PeakShare{r.ours->peak_fraction, r.ours->peak_reason});
        peak_busy_ = peak_busy_ || cell == "busy";
        cells.push_back(cell);
    }
    cells.push_back(error(r.ours));
    if (columns_.openblas) cells.push_back(error(r.anchor));
    if (columns_.blis) cells.push_back(error(r.blis));
    if (columns_.strassen) cells.push_back(error(r.strassen));
    table_.row(cells);
}

void GemmTable::footer() {
    if (peak_busy_) table_.note(std::string("\n") + peak_busy_footnote());
}

Json gemm_record_json(const GemmRecord &r) {
    Json j;
    j["benchmark"] = "gemm";
    j["routine"] = routine(r);
    j["dtype"] = precision_letter(r.precision);
    j["m"] = r.shape.m;
    j["n"] = r.shape.n;
    j["k"] = r.shape.k;
    j["layout"] = layout_name(r.layout);
    j["transa"] = r.ops.text().substr(0, 1);
    j["transb"] = r.ops.text().substr(1, 1);
    j["alpha"] = r.alpha;
    j["beta"] = r.beta;
    if (!r.ld.empty()) j["ld_pads"] = r.ld;
    j["backend"] = backend_name(r.backend);
    j["threads"] = r.threads;
    j["flops"] = r.shape.flops();
    j["status"] = r.status;
    if (!r.message.empty()) j["message"] = r.message;
    if (r.status == "ok") {
        j["reference"] = r.reference;
        j["ours"] = side_json(r.ours);
        j["anchor"] = side_json(r.anchor);
        j["blis"] = side_json(r.blis);
        j["ratio"] = json_number(r.ratio);
        j["ratio_blis"] = json_number(r.ratio_blis);
        j["anchor_alt"] = side_json(r.anchor_alt);
        j["ratio_alt"] = json_number(r.ratio_alt);
        j["strassen"] = side_json(r.strassen);
        j["strassen_speedup"] = json_number(r.strassen_speedup);
        j["peak_gflops"] = json_number(r.peak_gflops);
        j["peak_fraction"] = json_number(r.ours ? r.ours->peak_fraction : std::nullopt);
        j["peak_fraction_reason"] = json_text(r.ours ? r.ours->peak_reason : nullptr);
    }
    return j;
}

} // namespace tessera::bench
