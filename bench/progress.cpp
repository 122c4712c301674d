// The progress line (see progress.hpp). The estimate assumes the items left take as long on
// average as those done; the sweep's random shapes make that rough, hence "about".
#include "progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <utility>

namespace tessera::bench {

std::string duration_text(double seconds) {
    const long long s = seconds > 0 ? std::llround(seconds) : 0;
    char buffer[48];
    if (s < 60) std::snprintf(buffer, sizeof buffer, "%llds", s);
    else if (s < 3600) std::snprintf(buffer, sizeof buffer, "%lldm%02llds", s / 60, s % 60);
    else std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", s / 3600, s / 60 % 60);
    return buffer;
}

std::string progress_text(double elapsed_s, std::int64_t done, std::int64_t total,
                          const std::string &unit) {
    std::string text = std::to_string(done) + "/" + std::to_string(total) + " " + unit + ", " +
                       duration_text(elapsed_s) + " elapsed";
    if (done > 0 && done < total)
        text +=
            ", about " + duration_text(elapsed_s / double(done) * double(total - done)) + " left";
    return text;
}

Progress::Progress(std::int64_t total, bool enabled, std::string unit)
    : Progress(total, enabled, std::move(unit), std::cerr, isatty(STDERR_FILENO) == 1) {}

Progress::Progress(std::int64_t total, bool enabled, std::string unit, std::ostream &out,
                   bool terminal)
    : total_(total), enabled_(enabled), terminal_(terminal), unit_(std::move(unit)), out_(out),
      start_(Clock::now()), last_shown_(start_) {}

Progress::~Progress() { clear(); }

void Progress::advance(std::int64_t count) {
    done_ += count;
    if (!enabled_) return;
    if (done_ >= total_) { // the last item's output says that it is over
        clear();
        return;
    }
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double since = std::chrono::duration<double>(now - last_shown_).count();
    if (elapsed < kSilentSeconds || since < (terminal_ ? kTerminalEvery : kLogEvery)) return;
    last_shown_ = now;
    std::cout.flush(); // the table's rows first
    const std::string text = "tessera-bench: " + progress_text(elapsed, done_, total_, unit_);
    if (terminal_) {
        out_ << '\r' << text << "\033[K" << std::flush;
        shown_ = true;
    } else {
        out_ << text << '\n' << std::flush;
    }
}

void Progress::clear() {
    if (!shown_) return;
    out_ << "\r\033[K" << std::flush;
    shown_ = false;
}

} // namespace tessera::bench
