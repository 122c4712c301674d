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

void write_gpu_device(JsonWriter &json, const GpuDeviceInfo &d) {
    json.begin_object();
    json.field("name", d.name)
        .field("compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
    json.field("sms", d.sms).field("memory_bytes", d.memory_bytes).field("l2_bytes", d.l2_bytes);
    json.field("nominal_gbs", d.nominal_gbs)
        .field("driver_version", version_text(d.driver_version));
    json.field("runtime_version", version_text(d.runtime_version));
    json.end_object();
}

void write_copy(JsonWriter &json, const CopyResult &c) {
    json.begin_object();
    json.field("method", "cudaMemcpyAsync device to device, read + write counted");
    json.field("buffer_bytes", c.buffer_bytes)
        .field("reps", c.reps)
        .field("median_gbs", c.median_gbs);
    json.field("best_gbs", c.best_gbs);
    json.end_object();
}

namespace {

void write_times(JsonWriter &json, const Summary &t) {
    json.field("reps", int64_t(t.count)).field("median_s", t.median).field("min_s", t.min);
    json.field("max_s", t.max).field("mad_s", t.mad);
}

} // namespace

void write_gpu_spmv_record(JsonWriter &json, const GpuSpmvRecord &r) {
    const std::string best = r.cusparse_best();
    json.begin_object();
    json.field("benchmark", "spmv")
        .field("backend", "cuda")
        .field("matrix", r.matrix)
        .field("rows", r.rows);
    json.field("cols", r.cols).field("nnz", r.nnz).field("dtype", std::string(1, r.dtype));
    json.field("index_bits", r.index_bits)
        .field("op", std::string(1, r.op))
        .field("effective_bytes", r.bytes);
    json.field("copy_gbs", r.copy_gbs).field("copy_in_turns", r.copy_in_turns);
    json.field("best_format", r.best_format()).field("cusparse_best", best);
    json.field("auto_over_best", r.auto_over_best());
    json.field("auto_vs_cusparse_best", best.empty() ? 0.0 : r.speedup("auto", best));
    json.field("csr_vs_cusparse_best", best.empty() ? 0.0 : r.speedup("csr", best));
    json.field("csr_vs_cusparse_csr_alg1", r.speedup("csr", "cusparse-csr1"));
    json.field("note", r.note);
    json.key("sides").begin_array();
    for (const GpuSpmvSide &s : r.sides) {
        json.begin_object();
        json.field("name", s.name).field("library", s.library).field("format", s.format);
        json.field("status", s.status).field("message", s.message).field("batch", s.batch);
        write_times(json, s.time);
        json.field("wall_median_s", s.wall_median).field("events_suspect", s.events_suspect());
        json.field("gflops", s.gflops)
            .field("gbs", s.gbs)
            .field("copy_fraction", r.copy_fraction(s));
        json.field("rel_error", s.rel_error)
            .field("outside_bound", s.outside)
            .field("worst_of_bound", s.worst_of_bound);
        json.field("vs_cusparse_best", best.empty() ? 0.0 : r.speedup(s.name, best));
        json.field("vs_cusparse_csr_alg1", r.speedup(s.name, "cusparse-csr1"));
        json.key("host_vectors");
        if (s.host_status.empty()) json.null();
        else {
            json.begin_object();
            json.field("status", s.host_status)
                .field("message", s.host_message)
                .field("batch", s.host_batch);
            write_times(json, s.host_time);
            json.field("rel_error", s.host_rel_error).field("outside_bound", s.host_outside);
            json.end_object();
        }
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

} // namespace tessera::bench
