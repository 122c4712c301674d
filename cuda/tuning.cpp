// The tuning table's text form and its nearest-shape lookup (tuning.hpp).
#include "tuning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tessera::cuda {

namespace {

const char *const kStreamK[] = {"off", "last", "on"};

bool parse_int(const std::string &s, int64_t lo, int64_t hi, int64_t *out) {
    if (s.empty()) return false;
    char *end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (*end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool parse_ops(const std::string &s, bool *ta, bool *tb) {
    if (s.size() != 2) return false;
    for (int i = 0; i < 2; ++i)
        if (s[size_t(i)] != 'N' && s[size_t(i)] != 'T') return false;
    *ta = s[0] == 'T', *tb = s[1] == 'T';
    return true;
}

} // namespace

std::string TuningCandidate::text() const {
    return kernel + "/" + std::to_string(split_k) + "/" +
           kStreamK[stream_k >= 0 && stream_k <= 2 ? stream_k : 0];
}

bool parse_candidate(const std::string &text, char precision, TuningCandidate *out) {
    const size_t a = text.find('/'), b = a == std::string::npos ? a : text.find('/', a + 1);
    if (b == std::string::npos || a == 0) return false;
    TuningCandidate c;
    c.precision = precision;
    c.kernel = text.substr(0, a);
    int64_t split = 0;
    if (!parse_int(text.substr(a + 1, b - a - 1), 1, 32, &split)) return false;
    c.split_k = int(split);
    const std::string sk = text.substr(b + 1);
    c.stream_k = -1;
    for (int i = 0; i < 3; ++i)
        if (sk == kStreamK[i]) c.stream_k = i;
    if (c.stream_k < 0) return false;
    *out = c;
    return true;
}

bool parse_tuning(const std::string &text, TuningTable *out, std::string *error) {
    TuningTable t;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    bool header = false;
    auto fail = [&](const std::string &why) {
        if (error) *error = "line " + std::to_string(number) + ": " + why;
        return false;
    };
    while (std::getline(in, line)) {
        ++number;
        if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream words(line);
        std::string word;
        if (!(words >> word)) continue;
        if (!header) {
            std::string version;
            if (word != "tessera-cuda-tuning" || !(words >> version) || version != "1")
                return fail("not a tuning table (expected 'tessera-cuda-tuning 1')");
            header = true;
        } else if (word == "device") {
            std::string sm, cc;
            int64_t v = 0;
            if (!(words >> sm >> cc) || sm.rfind("sm=", 0) != 0 || cc.rfind("cc=", 0) != 0 ||
                !parse_int(sm.substr(3), 1, 100000, &v))
                return fail("expected 'device sm=N cc=X.Y NAME'");
            t.sm_count = int(v);
            const size_t dot = cc.find('.');
            int64_t major = 0, minor = 0;
            if (dot == std::string::npos || !parse_int(cc.substr(3, dot - 3), 1, 99, &major) ||
                !parse_int(cc.substr(dot + 1), 0, 99, &minor))
                return fail("bad compute capability '" + cc + "'");
            t.cc_major = int(major), t.cc_minor = int(minor);
            std::getline(words >> std::ws, t.device);
        } else if (word == "candidate") {
            std::string p, spec;
            TuningCandidate c;
            if (!(words >> p >> spec) || (p != "s" && p != "d") || !parse_candidate(spec, p[0], &c))
                return fail("expected 'candidate s|d KERNEL/SPLIT/off|last|on'");
            t.candidates.push_back(c);
        } else if (word == "row") {
            std::string p, ops, ms, ns, ks;
            TuningRow r;
            int64_t m = 0, n = 0, k = 0;
            if (!(words >> p >> ops >> ms >> ns >> ks) || (p != "s" && p != "d") ||
                !parse_ops(ops, &r.ta, &r.tb) || !parse_int(ms, 1, int64_t(1) << 40, &m) ||
                !parse_int(ns, 1, int64_t(1) << 40, &n) || !parse_int(ks, 1, int64_t(1) << 40, &k))
                return fail("expected 'row s|d NN|NT|TN|TT M N K [aligned] INDEX:RATIO...'");
            r.precision = p[0], r.m = m, r.n = n, r.k = k;
            std::string item;
            bool first = true;
            while (words >> item) {
                if (first && item == "aligned") {
                    r.aligned = true, first = false;
                    continue;
                }
                first = false;
                const size_t colon = item.find(':');
                int64_t index = 0;
                char *end = nullptr;
                if (colon == std::string::npos ||
                    !parse_int(item.substr(0, colon), 0, int64_t(t.candidates.size()) - 1, &index))
                    return fail("bad entry '" + item + "' (INDEX:RATIO of a candidate above)");
                const double ratio = std::strtod(item.c_str() + colon + 1, &end);
                if (*end != '\0' || !(ratio >= 1.0) || ratio > 1e6)
                    return fail("bad ratio in '" + item + "' (1 or more)");
                if (t.candidates[size_t(index)].precision != r.precision)
                    return fail("entry '" + item + "' names a candidate of the other precision");
                r.ratios.emplace_back(int(index), ratio);
            }
            if (r.ratios.empty()) return fail("a row lists no candidate");
            t.rows.push_back(std::move(r));
        } else {
            return fail("unknown item '" + word + "'");
        }
    }
    if (!header) return fail("empty table");
    if (t.sm_count == 0) return fail("no 'device' line");
    *out = std::move(t);
    return true;
}

std::string format_tuning(const TuningTable &t) {
    std::string s = "tessera-cuda-tuning 1\n";
    char buf[128];
    std::snprintf(buf, sizeof buf, "device sm=%d cc=%d.%d ", t.sm_count, t.cc_major, t.cc_minor);
    s += buf + t.device + "\n";
    for (const TuningCandidate &c : t.candidates)
        s += std::string("candidate ") + c.precision + " " + c.text() + "\n";
    for (const TuningRow &r : t.rows) {
        std::snprintf(buf, sizeof buf, "row %c %c%c %lld %lld %lld", r.precision, r.ta ? 'T' : 'N',
                      r.tb ? 'T' : 'N', (long long)r.m, (long long)r.n, (long long)r.k);
        s += buf;
        if (r.aligned) s += " aligned";
        for (const auto &[index, ratio] : r.ratios) {
            std::snprintf(buf, sizeof buf, " %d:%.3f", index, ratio);
            s += buf;
        }
        s += "\n";
    }
    return s;
}

TuningIndex::TuningIndex(const TuningTable &t) {
    for (Side *side : {&s_, &d_}) {
        const char precision = side == &s_ ? 's' : 'd';
        for (size_t c = 0; c < t.candidates.size(); ++c)
            if (t.candidates[c].precision == precision) side->candidate.push_back(int(c));
        std::vector<int> column(t.candidates.size(), -1);
        for (size_t c = 0; c < side->candidate.size(); ++c)
            column[size_t(side->candidate[c])] = int(c);
        const size_t width = side->candidate.size();
        for (int i = 0; i < 3; ++i) side->lo[i] = 1e300;
        for (size_t i = 0; i < t.rows.size(); ++i) {
            const TuningRow &r = t.rows[i];
            if (r.precision != precision) continue;
            side->row.push_back(int(i));
            side->lm.push_back(std::log(double(r.m)));
            side->ln.push_back(std::log(double(r.n)));
            side->lk.push_back(std::log(double(r.k)));
            side->ta.push_back(r.ta), side->tb.push_back(r.tb);
            side->aligned.push_back(r.aligned);
            side->aligned_rows += int(r.aligned);
            const size_t at = side->log_ratio.size();
            side->log_ratio.resize(at + width, std::log(kListedRatio));
            side->listed.resize(at + width, 0);
            for (const auto &[index, ratio] : r.ratios) {
                const int c =
                    index >= 0 && size_t(index) < column.size() ? column[size_t(index)] : -1;
                if (c < 0) continue; // another precision's candidate: parse_tuning refuses it
                side->log_ratio[at + size_t(c)] = std::log(ratio);
                side->listed[at + size_t(c)] = 1;
            }
            const double d[3] = {double(r.m), double(r.n), double(r.k)};
            for (int j = 0; j < 3; ++j)
                side->lo[j] = std::min(side->lo[j], d[j]),
                side->hi[j] = std::max(side->hi[j], d[j]);
            side->volume = std::max(side->volume, d[0] * d[1] * d[2]);
        }
    }
}

TuningPick TuningIndex::lookup(char precision, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                               bool aligned, int exclude_row) const {
    TuningPick pick;
    const Side &side = precision == 's' ? s_ : d_;
    if (m <= 0 || n <= 0 || k <= 0 || side.row.empty()) return pick;
    // Beyond the training shapes' range, this precision's: the rules decide.
    const double q[3] = {double(m), double(n), double(k)};
    for (int i = 0; i < 3; ++i)
        if (q[i] > kTuningBeyond * side.hi[i] || q[i] * kTuningBeyond < side.lo[i]) return pick;
    if (q[0] * q[1] * q[2] > kTuningBeyond * kTuningBeyond * side.volume) return pick;
    // The nearest rows, closest first.
    const double lm = std::log(q[0]), ln = std::log(q[1]), lk = std::log(q[2]);
    std::pair<double, size_t> near[kTuningNeighbours];
    int found = 0;
    for (size_t i = 0; i < side.row.size(); ++i) {
        if (side.row[i] == exclude_row) continue;
        const double dm = side.lm[i] - lm, dn = side.ln[i] - ln, dk = side.lk[i] - lk;
        const double d = std::sqrt(dm * dm + dn * dn + dk * dk) +
                         kTuningTransposePenalty * (int(side.ta[i] != ta) + int(side.tb[i] != tb)) +
                         (side.aligned[i] != aligned ? align_penalty_ : 0.0);
        if (d > kTuningReach) continue;
        if (found == kTuningNeighbours && d >= near[kTuningNeighbours - 1].first) continue;
        int at = found < kTuningNeighbours ? found++ : kTuningNeighbours - 1;
        while (at > 0 && near[at - 1].first > d) {
            near[at] = near[at - 1];
            --at;
        }
        near[at] = {d, i};
    }
    if (found == 0) return pick;
    pick.nearest = side.row[near[0].second], pick.distance = near[0].first;
    // Each candidate listed by a neighbour: its weighted log time over the neighbours (unlisted
    // ones count as kListedRatio). The lowest wins; ties go to the lower index.
    const size_t width = side.candidate.size();
    double best = 0;
    for (size_t c = 0; c < width; ++c) {
        bool listed = false;
        double score = 0;
        for (int b = 0; b < found; ++b) {
            const size_t at = near[b].second * width + c;
            listed = listed || side.listed[at];
            score += side.log_ratio[at] / (kTuningWeightFloor + near[b].first);
        }
        if (!listed) continue;
        if (pick.candidate < 0 || score < best - 1e-12)
            pick.candidate = side.candidate[c], best = score;
    }
    return pick;
}

TuningPick tuning_lookup(const TuningTable &t, char precision, bool ta, bool tb, int64_t m,
                         int64_t n, int64_t k, bool aligned, int exclude_row) {
    return TuningIndex(t).lookup(precision, ta, tb, m, n, k, aligned, exclude_row);
}

} // namespace tessera::cuda
