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
        if (r.status != "ok" || !r.ratio || !r.anchor || r.aligned_twin) continue;
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
    // Each aligned twin after its case (same precision, backend, shape, transposes, beta).
    const GemmRecord *last = nullptr;
    std::vector<std::vector<double>> ours(out.size()), theirs(out.size());
    for (const GemmRecord &r : records) {
        if (!r.aligned_twin) {
            last = &r;
            continue;
        }
        if (!last || r.status != "ok" || last->status != "ok" || !r.ours || !last->ours ||
            last->precision != r.precision || last->backend != r.backend ||
            last->shape.m != r.shape.m || last->shape.n != r.shape.n ||
            last->shape.k != r.shape.k || last->ops.text() != r.ops.text() || last->beta != r.beta)
            continue;
        for (size_t i = 0; i < out.size(); ++i)
            if (out[i].precision == r.precision && out[i].backend == r.backend) {
                const double q = last->ours->gflops / r.ours->gflops;
                ours[i].push_back(q);
                if (last->anchor && r.anchor)
                    theirs[i].push_back(last->anchor->gflops / r.anchor->gflops);
                out[i].aligned_worst_cases.emplace_back(q, *last);
            }
    }
    for (size_t i = 0; i < out.size(); ++i) {
        SweepSummary &s = out[i];
        if (ours[i].empty()) continue;
        auto geo = [](const std::vector<double> &v) {
            double l = 0;
            for (double x : v) l += std::log(x);
            return v.empty() ? 0.0 : std::exp(l / double(v.size()));
        };
        s.aligned_pairs = int(ours[i].size());
        s.aligned_geomean = geo(ours[i]);
        s.anchor_aligned_geomean = geo(theirs[i]);
        s.aligned_worst = *std::min_element(ours[i].begin(), ours[i].end());
        s.aligned_below =
            int(std::count_if(ours[i].begin(), ours[i].end(), [](double q) { return q < 0.95; }));
        auto &w = s.aligned_worst_cases;
        std::sort(w.begin(), w.end(),
                  [](const auto &a, const auto &b) { return a.first < b.first; });
        if (w.size() > 5) w.resize(5);
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
            std::snprintf(line, sizeof line, "  %6.3f  %8.1f / %8.1f GFLOP/s  %s", *r.ratio,
                          r.ours->gflops, r.anchor->gflops, case_text(r).c_str());
            out << line << (r.kernel.empty() ? "" : "  [" + r.kernel + "]") << "\n";
        }
        if (s.aligned_pairs > 0) {
            std::snprintf(line, sizeof line,
                          "  unaligned over aligned leading dimensions (%d pairs): Tessera "
                          "geometric mean %.3f, worst %.3f, %d below 0.95; %s %.3f\n",
                          s.aligned_pairs, s.aligned_geomean, s.aligned_worst, s.aligned_below,
                          s.anchor.c_str(), s.anchor_aligned_geomean);
            out << line;
            for (const auto &[q, r] : s.aligned_worst_cases) {
                std::snprintf(line, sizeof line, "  %6.3f  %s\n", q, case_text(r).c_str());
                out << line;
            }
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
            j["worst_cases"].push_back(
                Json{{"ratio", *r.ratio}, {"case", case_text(r)}, {"kernel", r.kernel}});
        if (s.aligned_pairs > 0) {
            j["aligned_pairs"] = s.aligned_pairs;
            j["unaligned_over_aligned_geomean"] = s.aligned_geomean;
            j["unaligned_over_aligned_worst"] = s.aligned_worst;
            j["unaligned_below_0_95"] = s.aligned_below;
            j["anchor_unaligned_over_aligned_geomean"] = s.anchor_aligned_geomean;
        }
        out.push_back(std::move(j));
    }
    return out;
}

} // namespace tessera::bench
