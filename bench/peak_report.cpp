// How the measured peak is shown (see peak_report.hpp). Rows pair each kernel's one-thread
// and all-threads measurement, so that a table row reads as "per core" and "the whole run".
#include "peak_report.hpp"

#include "table.hpp"

namespace tessera::bench {
namespace {

const PeakMeasurement *find(const PeakTable &table, const PeakKernel *kernel, int threads) {
    for (const auto &m : table.items)
        if (m.kernel == kernel && m.threads == threads) return &m;
    return nullptr;
}

const char *precision_word(const PeakKernel &k) { return k.f64 ? "double" : "float"; }

} // namespace

void print_peak_table(std::ostream &out, const PeakTable &table, int threads) {
    std::string all = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
    Table t(out, {{"ISA", 8, true},
                  {"precision", 9, true},
                  {"lanes", 5},
                  {"chains", 6},
                  {"1 thread GF/s", 13},
                  {all + " GF/s", int(all.size()) + 5},
                  {"scaling", 7}});
    t.header();
    for (const auto &m : table.items) {
        if (m.threads != 1) continue;
        const PeakMeasurement *many = threads > 1 ? find(table, m.kernel, threads) : &m;
        std::vector<std::string> cells{
            m.kernel->name, precision_word(*m.kernel), std::to_string(m.kernel->lanes),
            std::to_string(m.kernel->accumulators), significant(m.gflops)};
        cells.push_back(many ? significant(many->gflops) : "-");
        cells.push_back(many && m.gflops > 0 ? significant(many->gflops / m.gflops) : "-");
        t.row(cells);
    }
    for (const auto &name : table.skipped) t.note("  (" + name + ": not supported by this CPU)");
}

void print_peak_banner(std::ostream &out, const PeakTable &table, int threads) {
    if (table.items.empty()) {
        out << "peak:   not measured: this CPU has neither AVX-512 nor AVX2+FMA\n";
        return;
    }
    out << "peak:   FMA GFLOP/s on 1" << (threads > 1 ? " / " + std::to_string(threads) : "")
        << " thread" << (threads > 1 ? "s" : "") << " (" << table.seconds_each << " s each):";
    for (bool f64 : {false, true}) {
        out << (f64 ? ";\n        double " : " float ");
        const char *sep = "";
        for (const auto &m : table.items) {
            if (m.threads != 1 || m.kernel->f64 != f64) continue;
            out << sep << m.kernel->name << ' ' << significant(m.gflops);
            if (threads > 1)
                if (const auto *many = find(table, m.kernel, threads))
                    out << " / " << significant(many->gflops);
            sep = ", ";
        }
    }
    out << "\n        peak% = Tessera GFLOP/s over the best at " << threads << " thread"
        << (threads > 1 ? "s" : "") << ':';
    const char *sep = " ";
    for (Precision p : {Precision::f32, Precision::f64}) {
        const PeakMeasurement *b = table.best(p, threads);
        if (!b) continue;
        out << sep << precision_letter(p) << "gemm " << significant(b->gflops) << " ("
            << b->kernel->name << ')';
        sep = ", ";
    }
    out << '\n';
    for (const auto &w : peak_warnings(table, threads)) out << "warning: peak: " << w << '\n';
}

void write_peak_json(JsonWriter &json, const std::optional<PeakTable> &table, int threads,
                     const std::string &note) {
    if (!table) {
        json.null();
        return;
    }
    json.begin_object();
    json.field("method", peak_method()).field("seconds_each", table->seconds_each);
    if (!note.empty()) json.field("note", note);
    json.key("measurements").begin_array();
    for (const auto &m : table->items) {
        json.begin_object();
        json.field("isa", m.kernel->name).field("dtype", m.kernel->f64 ? "d" : "s");
        json.field("threads", m.threads).field("lanes", m.kernel->lanes);
        json.field("chains", m.kernel->accumulators).field("gflops", m.gflops);
        json.field("timed_s", m.seconds);
        json.end_object();
    }
    json.end_array();
    json.key("warnings").begin_array();
    for (const auto &w : peak_warnings(*table, threads)) json.value(w);
    json.end_array();
    json.key("unsupported").begin_array();
    for (const auto &s : table->skipped) json.value(s);
    json.end_array();
    json.key("best").begin_object();
    for (Precision p : {Precision::f32, Precision::f64}) {
        json.key(precision_letter(p));
        const PeakMeasurement *b = table->best(p, threads);
        if (!b) {
            json.null();
            continue;
        }
        json.begin_object();
        json.field("isa", b->kernel->name).field("threads", b->threads);
        json.field("gflops", b->gflops);
        if (const PeakMeasurement *one = table->best(p, 1))
            json.field("gflops_1thread", one->gflops).field("isa_1thread", one->kernel->name);
        json.end_object();
    }
    json.end_object();
    json.end_object();
}

} // namespace tessera::bench
