// The sweep's summary (see gemm_sweep.hpp): ratios gathered per precision and backend, their
// geometric mean and 5th percentile, and the ten worst cases with their transposes, padded
// leading dimensions and beta.
#include "gemm_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "backend_names.hpp"

namespace tessera::bench {

namespace {

std::string case_text(const GemmRecord &r) {
    std::string t = r.shape.text() + " " + r.ops.text() + " " + layout_name(r.layout);
    if (!r.ld.empty()) t += " " + r.ld;
    t += r.beta != 0 ? " beta=" + std::to_string(r.beta).substr(0, 3) : " beta=0";
    return t;
}

} // namespace

std::vector<SweepSummary> summarize_sweep(const std::vector<GemmRecord> &records) {
    std::vector<SweepSummary> out;
    for (const GemmRecord &r : records) {
        if (r.status != "ok" || !r.ratio || !r.anchor) continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const SweepSummary &s) {
            return s.precision == r.precision && s.backend == r.backend;
        });
        if (it == out.end()) {
            SweepSummary s;
            s.precision = r.precision, s.backend = r.backend, s.anchor = r.anchor->name;
            out.push_back(std::move(s));
            it = out.end() - 1;
        }
        it->worst_cases.push_back(r); // every case, for now; trimmed below
    }
    for (SweepSummary &s : out) {
        auto &all = s.worst_cases;
        std::sort(all.begin(), all.end(),
                  [](const GemmRecord &a, const GemmRecord &b) { return *a.ratio < *b.ratio; });
        s.cases = int(all.size());
        double log_sum = 0;
        for (const GemmRecord &r : all) log_sum += std::log(*r.ratio);
        s.geomean = std::exp(log_sum / double(all.size()));
        s.p5 = *all[size_t(std::ceil(0.05 * double(all.size()))) - 1].ratio;
        s.worst = *all.front().ratio;
        if (all.size() > 10) all.resize(10);
    }
    return out;
}

void print_sweep(std::ostream &out, const std::vector<SweepSummary> &summaries,
                 std::uint64_t seed) {
    for (const SweepSummary &s : summaries) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "\nsweep (seed %llu) %sgemm %s over %s, %d cases: geometric mean %.3f, 5th "
                      "percentile %.3f, "
                      "worst %.3f\n",
                      (unsigned long long)seed, precision_letter(s.precision),
                      backend_name(s.backend), s.anchor.c_str(), s.cases, s.geomean, s.p5, s.worst);
        out << line << "  the ten worst:\n";
        for (const GemmRecord &r : s.worst_cases) {
            std::snprintf(line, sizeof line, "  %6.3f  %8.1f / %8.1f GFLOP/s  %s\n", *r.ratio,
                          r.ours->gflops, r.anchor->gflops, case_text(r).c_str());
            out << line;
        }
    }
    out.flush();
}

Json sweep_json(const std::vector<SweepSummary> &summaries, std::uint64_t seed) {
    Json out = Json::array();
    for (const SweepSummary &s : summaries) {
        Json j;
        j["seed"] = seed;
        j["dtype"] = precision_letter(s.precision);
        j["backend"] = backend_name(s.backend);
        j["anchor"] = s.anchor;
        j["cases"] = s.cases;
        j["geomean"] = s.geomean;
        j["p5"] = s.p5;
        j["worst"] = s.worst;
        j["worst_cases"] = Json::array();
        for (const GemmRecord &r : s.worst_cases)
            j["worst_cases"].push_back(Json{{"ratio", *r.ratio}, {"case", case_text(r)}});
        out.push_back(std::move(j));
    }
    return out;
}

} // namespace tessera::bench
