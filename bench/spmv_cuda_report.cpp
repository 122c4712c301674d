// The GPU spmv tables and JSON (see spmv_cuda_report.hpp). Ratios are of medians, anchor time
// over ours (above 1: Tessera is faster); geometric means are over the records of the run.
#include "spmv_cuda_report.hpp"

#include <cctype>
#include <cmath>
#include <map>

namespace tessera::bench {

namespace {

std::string percent(double v) { return significant(100.0 * v) + "%"; }

std::string times(double v) { return v > 0 ? significant(v) + "x" : ""; }

std::string shorten(const std::string &name, size_t width) {
    if (name.size() <= width) return name;
    std::string out(name, 0, width - 1);
    out.push_back('~');
    return out;
}

std::string type_of(const GpuSpmvRecord &r) {
    // append, not string&& + string&&: GCC 12 warns (-Wrestrict) wrongly about that inlined insert
    return std::string(1, r.dtype).append(std::to_string(r.index_bits)) + " " +
           char(std::toupper(r.op));
}

std::string version_text(int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// The host-vector column: a time, or what kept it from one.
std::string host_cell(const GpuSpmvSide &s) {
    if (s.host_status.empty()) return "";
    if (s.host_status == "ok") return significant(s.host_time.median * 1e3);
    return s.host_status;
}

} // namespace

GpuSpmvTable::GpuSpmvTable(std::ostream &out)
    : out_(out), table_(out, {{"matrix", 24, true},
                              {"nnz", 9},
                              {"type", 6, true},
                              {"side", 13, true},
                              {"ran", 4, true},
                              {"us", 8},
                              {"GFLOP/s", 8},
                              {"GB/s", 7},
                              {"copy", 6},
                              {"vs best", 7},
                              {"vs alg1", 7},
                              {"host ms", 8},
                              {"error", 8},
                              {"note", 10, true}}) {}

void GpuSpmvTable::header() { table_.header(); }

void GpuSpmvTable::record(const GpuSpmvRecord &r) {
    const std::string best = r.cusparse_best();
    for (const GpuSpmvSide &s : r.sides) {
        std::vector<std::string> cells = {shorten(r.matrix, 24), std::to_string(r.nnz), type_of(r),
                                          s.name, s.format};
        if (!s.timed() || s.time.count == 0) {
            cells.insert(cells.end(),
                         {"", "", "", "", "", "", host_cell(s), "", s.status + ": " + s.message});
            table_.row(cells);
            continue;
        }
        cells.push_back(significant(s.time.median * 1e6));
        cells.push_back(significant(s.gflops));
        cells.push_back(significant(s.gbs));
        cells.push_back(r.copy_fraction(s) > 0 ? percent(r.copy_fraction(s)) : "");
        cells.push_back(times(r.speedup(s.name, best)));
        cells.push_back(times(r.speedup(s.name, "cusparse-csr1")));
        cells.push_back(host_cell(s));
        cells.push_back(scientific(s.rel_error, 1));
        std::string note;
        auto add = [&note](const std::string &text) { note += (note.empty() ? "" : "; ") + text; };
        if (s.status == "wrong") add("WRONG: " + s.message);
        else if (!s.message.empty()) add(s.message);
        if (s.name == "auto" && r.auto_over_best() > 0)
            add("best " + r.best_format() + ", auto/best " + significant(r.auto_over_best()));
        if (s.name == best) add("cuSPARSE best");
        if (s.events_suspect())
            add("events saw " + significant(s.time.median * 1e6) + " us of " +
                significant(s.wall_median * 1e6) + " us wall: not on the stream?");
        if (!s.host_status.empty() && s.host_status != "ok") add("host: " + s.host_message);
        cells.push_back(note);
        table_.row(cells);
    }
    if (!r.note.empty()) table_.note(r.matrix + " " + type_of(r) + ": " + r.note);
}

void print_gpu_device(std::ostream &out, const GpuDeviceInfo &d, const CopyResult &copy) {
    out << "device: " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", " << d.sms << " SMs, "
        << significant(d.memory_bytes / double(1 << 30)) << " GiB, L2 "
        << significant(d.l2_bytes / double(1 << 20)) << " MiB";
    if (d.nominal_gbs > 0) out << ", nominal " << significant(d.nominal_gbs) << " GB/s";
    out << "); driver " << version_text(d.driver_version) << ", runtime "
        << version_text(d.runtime_version) << '\n';
    out << "anchor: "
        << (d.cusparse_version.empty() ? std::string("none") : "cuSPARSE " + d.cusparse_version)
        << '\n';
    if (copy.reps > 0)
        out << "device copy (cudaMemcpyAsync, 2 x "
            << significant(copy.buffer_bytes / double(1 << 20))
            << " MiB, read + write counted): median " << significant(copy.median_gbs)
            << " GB/s, best " << significant(copy.best_gbs)
            << " GB/s alone; records beyond the L2 cache time it again in turns\n";
}

void print_gpu_spmv_summary(std::ostream &out, const std::vector<GpuSpmvRecord> &records) {
    if (records.empty()) return;
    out << "\nSummary (medians; copy = device-to-device copy measured in this run; xN = cuSPARSE "
           "time / ours)\n";
    Table t(out, {{"matrix", 24, true},
                  {"type", 6, true},
                  {"copy GB/s", 9},
                  {"csr GB/s", 8},
                  {"of copy", 7},
                  {"auto", 4, true},
                  {"auto GB/s", 9},
                  {"of copy", 7},
                  {"best", 4, true},
                  {"auto/best", 9},
                  {"cuSPARSE best", 13, true},
                  {"GB/s", 7},
                  {"auto vs it", 10},
                  {"csr vs alg1", 11},
                  {"auto host ms", 12}});
    t.header();
    std::map<std::string, std::pair<double, int>> auto_geo, csr_geo; // type -> (sum of logs, count)
    int wrong = 0, failed = 0;
    for (const GpuSpmvRecord &r : records) {
        const GpuSpmvSide *c = r.side("csr"), *a = r.side("auto"), *b = r.side(r.cusparse_best());
        const bool c_ok = c && c->status == "ok", a_ok = a && a->status == "ok";
        std::vector<std::string> cells = {shorten(r.matrix, 24), type_of(r)};
        cells.push_back(r.copy_gbs > 0 ? significant(r.copy_gbs) : "");
        cells.push_back(c_ok ? significant(c->gbs) : c ? c->status : "");
        cells.push_back(c_ok && r.copy_gbs > 0 ? percent(r.copy_fraction(*c)) : "");
        cells.push_back(a && a->timed() ? a->format : a ? a->status : "");
        cells.push_back(a_ok ? significant(a->gbs) : "");
        cells.push_back(a_ok && r.copy_gbs > 0 ? percent(r.copy_fraction(*a)) : "");
        cells.push_back(r.best_format());
        cells.push_back(r.auto_over_best() > 0 ? significant(r.auto_over_best()) : "");
        cells.push_back(b ? b->name : "");
        cells.push_back(b ? significant(b->gbs) : "");
        const double auto_vs = b ? r.speedup("auto", b->name) : 0,
                     csr_vs = r.speedup("csr", "cusparse-csr1");
        cells.push_back(times(auto_vs));
        cells.push_back(times(csr_vs));
        cells.push_back(a && a->host_status == "ok" ? significant(a->host_time.median * 1e3) : "");
        t.row(cells);
        if (auto_vs > 0) {
            auto &g = auto_geo[type_of(r)];
            g.first += std::log(auto_vs);
            g.second += 1;
        }
        if (csr_vs > 0) {
            auto &g = csr_geo[type_of(r)];
            g.first += std::log(csr_vs);
            g.second += 1;
        }
        for (const GpuSpmvSide &s : r.sides) {
            if (s.library != "tessera") continue;
            wrong += s.status == "wrong" || s.host_status == "wrong";
            failed += s.status == "failed" || s.host_status == "failed";
        }
    }
    for (const auto &[type, g] : auto_geo)
        out << "auto vs cuSPARSE best, geomean (" << type << ", " << g.second
            << " matrices): " << significant(std::exp(g.first / g.second)) << "x\n";
    for (const auto &[type, g] : csr_geo)
        out << "csr vs cuSPARSE CSR ALG1, geomean (" << type << ", " << g.second
            << " matrices): " << significant(std::exp(g.first / g.second)) << "x\n";
    if (wrong) out << wrong << " Tessera side(s) computed a WRONG result (see the error column)\n";
    if (failed) out << failed << " Tessera side(s) failed (see the notes)\n";
    out.flush();
}

Json gpu_device_json(const GpuDeviceInfo &d) {
    Json json;
    json["name"] = d.name;
    json["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    json["sms"] = d.sms;
    json["memory_bytes"] = d.memory_bytes;
    json["l2_bytes"] = d.l2_bytes;
    json["nominal_gbs"] = d.nominal_gbs;
    json["driver_version"] = version_text(d.driver_version);
    json["runtime_version"] = version_text(d.runtime_version);
    return json;
}

Json copy_json(const CopyResult &c) {
    Json json;
    json["method"] = "cudaMemcpyAsync device to device, read + write counted";
    json["buffer_bytes"] = c.buffer_bytes;
    json["reps"] = c.reps;
    json["median_gbs"] = c.median_gbs;
    json["best_gbs"] = c.best_gbs;
    return json;
}

namespace {

void add_times(Json &json, const Summary &t) {
    json["reps"] = int64_t(t.count);
    json["median_s"] = t.median;
    json["min_s"] = t.min;
    json["max_s"] = t.max;
    json["mad_s"] = t.mad;
}

} // namespace

Json gpu_spmv_record_json(const GpuSpmvRecord &r) {
    const std::string best = r.cusparse_best();
    Json json;
    json["benchmark"] = "spmv";
    json["backend"] = "cuda";
    json["matrix"] = r.matrix;
    json["rows"] = r.rows;
    json["cols"] = r.cols;
    json["nnz"] = r.nnz;
    json["dtype"] = std::string(1, r.dtype);
    json["index_bits"] = r.index_bits;
    json["op"] = std::string(1, r.op);
    json["effective_bytes"] = r.bytes;
    json["copy_gbs"] = r.copy_gbs;
    json["copy_in_turns"] = r.copy_in_turns;
    json["best_format"] = r.best_format();
    json["cusparse_best"] = best;
    json["auto_over_best"] = r.auto_over_best();
    json["auto_vs_cusparse_best"] = best.empty() ? 0.0 : r.speedup("auto", best);
    json["csr_vs_cusparse_best"] = best.empty() ? 0.0 : r.speedup("csr", best);
    json["csr_vs_cusparse_csr_alg1"] = r.speedup("csr", "cusparse-csr1");
    json["note"] = r.note;
    Json &sides = json["sides"];
    sides = Json::array();
    for (const GpuSpmvSide &s : r.sides) {
        Json side;
        side["name"] = s.name;
        side["library"] = s.library;
        side["format"] = s.format;
        side["status"] = s.status;
        side["message"] = s.message;
        side["batch"] = s.batch;
        add_times(side, s.time);
        side["wall_median_s"] = s.wall_median;
        side["events_suspect"] = s.events_suspect();
        side["gflops"] = s.gflops;
        side["gbs"] = s.gbs;
        side["copy_fraction"] = r.copy_fraction(s);
        side["rel_error"] = s.rel_error;
        side["outside_bound"] = s.outside;
        side["worst_of_bound"] = s.worst_of_bound;
        side["vs_cusparse_best"] = best.empty() ? 0.0 : r.speedup(s.name, best);
        side["vs_cusparse_csr_alg1"] = r.speedup(s.name, "cusparse-csr1");
        Json &host = side["host_vectors"];
        if (!s.host_status.empty()) {
            host["status"] = s.host_status;
            host["message"] = s.host_message;
            host["batch"] = s.host_batch;
            add_times(host, s.host_time);
            host["rel_error"] = s.host_rel_error;
            host["outside_bound"] = s.host_outside;
        }
        sides.push_back(std::move(side));
    }
    return json;
}

} // namespace tessera::bench
