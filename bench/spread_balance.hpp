// The load balance of Tessera's multi-GPU gemm as its TESSERA_VERBOSE=1 log reports it: one
// "tessera: cuda spread balance:" line per spread call, with each device's busy time (CUDA
// events), when the shared operand was whole on it, and its idle tail (how long it waited, done,
// for the last device), all in milliseconds.
#pragma once

#include <string>
#include <vector>

namespace tessera::bench {

// Per device, the medians over every balance line of a log (empty when it has none).
struct SpreadBalance {
    std::vector<double> busy_ms, ready_ms, tail_ms;
    bool empty() const { return busy_ms.empty(); }
};

SpreadBalance spread_balance_from_log(const std::string &log);

// "1.0 2.5 3.0": a list of milliseconds for a table cell.
std::string join_ms(const std::vector<double> &values);

} // namespace tessera::bench
