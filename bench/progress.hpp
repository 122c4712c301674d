// A line of progress with an estimate of the time left, on standard error, for the commands
// that run long (gemm, the sweep, tiny, spmv): rewritten in place on a terminal, else rare.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace tessera::bench {

// "8s", "1m12s", "1h05m": a duration as a person reads it (rounded to the second).
std::string duration_text(double seconds);

// "37/300 cases, 1m12s elapsed, about 2m30s left"; without a finished item there is no
// estimate yet, and at the end none is needed.
std::string progress_text(double elapsed_s, std::int64_t done, std::int64_t total,
                          const std::string &unit = "cases");

// Counts finished items and shows progress_text on `out`. Nothing in the first few seconds,
// so short runs stay silent; then, on a terminal, the line is rewritten with '\r' (at most
// four times a second); elsewhere (a CI log) one line every ten seconds at most. Call clear()
// before writing anything else to the terminal, so that the line does not mix with it.
class Progress {
public:
    Progress(std::int64_t total, bool enabled, std::string unit = "cases");
    Progress(std::int64_t total, bool enabled, std::string unit, std::ostream &out, bool terminal);
    ~Progress();
    Progress(const Progress &) = delete;
    Progress &operator=(const Progress &) = delete;

    void advance(std::int64_t count = 1); // `count` more items finished
    void clear();                         // erases the line on a terminal, if shown

    static constexpr double kSilentSeconds = 3;    // nothing before this
    static constexpr double kTerminalEvery = 0.25; // terminal: rewrite at most this often
    static constexpr double kLogEvery = 10;        // otherwise: a line at most this often

private:
    using Clock = std::chrono::steady_clock;
    std::int64_t total_, done_ = 0;
    bool enabled_, terminal_;
    std::string unit_;
    std::ostream &out_;
    Clock::time_point start_, last_shown_;
    bool shown_ = false; // the terminal line is on screen
};

} // namespace tessera::bench
