// The spmv tables and JSON (see spmv_report.hpp). Ratios are of medians; geometric means are
// taken over the matrices of the run.
#include "spmv_report.hpp"

#include <cmath>
#include <map>

namespace tessera::bench {

namespace {

std::string percent(double v) { return significant(100.0 * v) + "%"; }

std::string shorten(const std::string &name, size_t width) {
    if (name.size() <= width) return name;
    std::string out(name, 0, width - 1);
    out.push_back('~');
    return out;
}

} // namespace

SpmvTable::SpmvTable(std::ostream &out)
    : out_(out), table_(out, {{"matrix", 24, true},
                              {"nnz", 9},
                              {"type", 6, true},
                              {"side", 6, true},
                              {"ran", 4, true},
                              {"ms", 8},
                              {"GFLOP/s", 8},
                              {"GB/s", 7},
                              {"triad", 6},
                              {"vs eigen", 8},
                              {"error", 8},
                              {"note", 10, true}}) {}

void SpmvTable::header() { table_.header(); }

void SpmvTable::record(const SpmvRecord &r) {
    const SpmvSide *eigen = r.side("eigen");
    // append, not string&& + string&&: GCC 12 warns (-Wrestrict) wrongly about that inlined insert
    const std::string type = std::string(1, r.dtype).append(std::to_string(r.index_bits)) + " " +
                             char(std::toupper(r.op));
    for (const SpmvSide &s : r.sides) {
        std::vector<std::string> cells = {shorten(r.matrix, 24), std::to_string(r.nnz), type,
                                          s.name, s.format};
        if (s.status != "ok") {
            cells.insert(cells.end(), {"", "", "", "", "", "", s.status + ": " + s.message});
            table_.row(cells);
            continue;
        }
        cells.push_back(significant(s.time.median * 1e3));
        cells.push_back(significant(s.gflops));
        cells.push_back(significant(s.gbs));
        cells.push_back(r.triad_gbs > 0 ? percent(s.gbs / r.triad_gbs) : "");
        const bool plain = s.name == "csr-n"; // CSR's y = A·x timed with a transposed record
        cells.push_back(eigen && eigen->status == "ok" && s.name != "eigen" && !plain
                            ? significant(eigen->time.median / s.time.median) + "x"
                            : "");
        cells.push_back(plain ? "" : scientific(s.rel_error, 1));
        std::string note = plain ? "op N, for T/N" : "";
        if (s.name == "auto" && r.auto_over_best() > 0)
            note = "best " + r.best_format() + ", auto/best " + significant(r.auto_over_best());
        cells.push_back(note);
        table_.row(cells);
    }
}

void print_spmv_summary(std::ostream &out, const std::vector<SpmvRecord> &records) {
    if (records.empty()) return;
    out << "\nSummary (medians; triad = STREAM triad measured in this run)\n";
    // CSR against the triad and Eigen; AUTO against the best; T against N.

    Table t(out, {{"matrix", 24, true},
                  {"type", 6, true},
                  {"csr GB/s", 9},
                  {"of triad", 9},
                  {"eigen GB/s", 10},
                  {"csr/eigen", 9},
                  {"auto", 4, true},
                  {"best", 4, true},
                  {"auto/best", 9},
                  {"T/N csr", 7}});
    t.header();
    std::map<std::string, std::pair<double, int>> eigen_geo; // type -> (sum of logs, count)
    double worst_auto = 0;
    std::string worst_auto_matrix;
    for (const SpmvRecord &r : records) {
        const SpmvSide *c = r.side("csr"), *e = r.side("eigen"), *a = r.side("auto");
        // append, not string&& + string&&: GCC 12 warns (-Wrestrict) wrongly about that inlined
        // insert
        const std::string type = std::string(1, r.dtype).append(std::to_string(r.index_bits)) +
                                 " " + char(std::toupper(r.op));
        std::vector<std::string> cells = {shorten(r.matrix, 24), type};
        const bool c_ok = c && c->status == "ok", e_ok = e && e->status == "ok";
        cells.push_back(c_ok ? significant(c->gbs) : "");
        cells.push_back(c_ok && r.triad_gbs > 0 ? percent(c->gbs / r.triad_gbs) : "");
        cells.push_back(e_ok ? significant(e->gbs) : "");
        cells.push_back(r.csr_over_eigen() > 0 ? significant(r.csr_over_eigen()) + "x" : "");
        cells.push_back(a && a->status == "ok" ? a->format : "");
        cells.push_back(r.best_format());
        cells.push_back(r.auto_over_best() > 0 ? significant(r.auto_over_best()) : "");
        std::string tn;
        if (const SpmvSide *n = r.side("csr-n"); r.op == 't' && c_ok && n && n->status == "ok")
            tn = significant(n->time.median / c->time.median);
        cells.push_back(tn);
        t.row(cells);
        if (r.csr_over_eigen() > 0) {
            auto &g = eigen_geo[type];
            g.first += std::log(r.csr_over_eigen());
            g.second += 1;
        }
        if (r.auto_over_best() > worst_auto) {
            worst_auto = r.auto_over_best();
            worst_auto_matrix = r.matrix + " " + type;
        }
    }
    for (const auto &[type, g] : eigen_geo)
        out << "csr/eigen geomean (" << type << ", " << g.second
            << " matrices): " << significant(std::exp(g.first / g.second)) << "x\n";
    if (worst_auto > 0)
        out << "auto: worst auto/best " << significant(worst_auto) << " (" << worst_auto_matrix
            << ")\n";
    out.flush();
}

Json spmv_record_json(const SpmvRecord &r) {
    Json json;
    json["benchmark"] = "spmv";
    json["matrix"] = r.matrix;
    json["rows"] = r.rows;
    json["cols"] = r.cols;
    json["nnz"] = r.nnz;
    json["dtype"] = std::string(1, r.dtype);
    json["index_bits"] = r.index_bits;
    json["op"] = std::string(1, r.op);
    json["threads"] = r.threads;
    json["effective_bytes"] = r.bytes;
    json["batch"] = r.batch;
    json["triad_gbs"] = r.triad_gbs;
    json["best_format"] = r.best_format();
    json["auto_over_best"] = r.auto_over_best();
    json["csr_over_eigen"] = r.csr_over_eigen();
    Json &sides = json["sides"];
    sides = Json::array();
    for (const SpmvSide &s : r.sides) {
        Json side;
        side["name"] = s.name;
        side["format"] = s.format;
        side["status"] = s.status;
        side["message"] = s.message;
        side["reps"] = int64_t(s.time.count);
        side["median_s"] = s.time.median;
        side["min_s"] = s.time.min;
        side["max_s"] = s.time.max;
        side["mad_s"] = s.time.mad;
        side["gflops"] = s.gflops;
        side["gbs"] = s.gbs;
        side["rel_error"] = s.rel_error;
        sides.push_back(std::move(side));
    }
    return json;
}

Json triad_json(const TriadResult &t) {
    return {{"elements", t.elements},
            {"reps", t.reps},
            {"median_gbs", t.median_gbs},
            {"best_gbs", t.best_gbs}};
}

} // namespace tessera::bench
