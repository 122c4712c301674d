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

Json peak_json(const std::optional<PeakTable> &table, int threads, const std::string &note) {
    if (!table) return nullptr;
    Json j;
    j["method"] = peak_method();
    j["seconds_each"] = table->seconds_each;
    if (!note.empty()) j["note"] = note;
    j["measurements"] = Json::array();
    for (const auto &m : table->items) {
        Json item;
        item["isa"] = m.kernel->name;
        item["dtype"] = m.kernel->f64 ? "d" : "s";
        item["threads"] = m.threads;
        item["lanes"] = m.kernel->lanes;
        item["chains"] = m.kernel->accumulators;
        item["gflops"] = m.gflops;
        item["timed_s"] = m.seconds;
        j["measurements"].push_back(std::move(item));
    }
    j["warnings"] = peak_warnings(*table, threads);
    j["unsupported"] = table->skipped;
    Json best = Json::object();
    for (Precision p : {Precision::f32, Precision::f64}) {
        const PeakMeasurement *b = table->best(p, threads);
        Json &entry = best[precision_letter(p)];
        if (!b) continue; // stays null
        entry["isa"] = b->kernel->name;
        entry["threads"] = b->threads;
        entry["gflops"] = b->gflops;
        if (const PeakMeasurement *one = table->best(p, 1)) {
            entry["gflops_1thread"] = one->gflops;
            entry["isa_1thread"] = one->kernel->name;
        }
    }
    j["best"] = std::move(best);
    return j;
}

} // namespace tessera::bench
