// See spread_balance.hpp.
#include "spread_balance.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "statistics.hpp"

namespace tessera::bench {
namespace {

// The comma-separated numbers after `label` up to the next ';' of `line` (none: empty).
std::vector<double> numbers_after(const std::string &line, const std::string &label) {
    std::vector<double> out;
    const size_t at = line.find(label);
    if (at == std::string::npos) return out;
    std::string list = line.substr(at + label.size());
    list = list.substr(0, list.find(';'));
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) out.push_back(std::atof(item.c_str()));
    return out;
}

// Per device, the median over the calls that list it.
std::vector<double> medians(const std::vector<std::vector<double>> &calls) {
    size_t devices = 0;
    for (const auto &c : calls) devices = std::max(devices, c.size());
    std::vector<double> out;
    for (size_t d = 0; d < devices; ++d) {
        std::vector<double> v;
        for (const auto &c : calls)
            if (d < c.size()) v.push_back(c[d]);
        out.push_back(summarize(v).median);
    }
    return out;
}

} // namespace

SpreadBalance spread_balance_from_log(const std::string &log) {
    std::vector<std::vector<double>> busy, ready, tail; // [call][device]
    std::stringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("tessera: cuda spread balance:") == std::string::npos) continue;
        busy.push_back(numbers_after(line, "busy ms "));
        ready.push_back(numbers_after(line, "shared operand whole after ms "));
        tail.push_back(numbers_after(line, "idle tail ms "));
    }
    SpreadBalance b;
    b.busy_ms = medians(busy), b.ready_ms = medians(ready), b.tail_ms = medians(tail);
    return b;
}

std::string join_ms(const std::vector<double> &values) {
    std::string out;
    char item[32];
    for (double x : values) {
        std::snprintf(item, sizeof item, "%s%.1f", out.empty() ? "" : " ", x);
        out += item;
    }
    return out;
}

} // namespace tessera::bench
