// Interleaved A/B timing (see timing.hpp): a warm-up turn per side, then rounds of turns
// until every side has its minimum count and time, or the time cap is reached.
#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace tessera::bench {

double now_seconds() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

void idle_for(double seconds) {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

std::vector<std::vector<double>> run_interleaved(std::span<const TimedSide> sides,
                                                 const TimingPlan &plan) {
    const double warmup_time = plan.warmup_fraction * plan.min_time;
    for (const auto &side : sides) {
        idle_for(plan.settle);
        for (double start = now_seconds();;) {
            side.run_once();
            if (now_seconds() - start >= warmup_time) break;
        }
    }

    std::vector<std::vector<double>> samples(sides.size());
    std::vector<double> total(sides.size(), 0.0);
    auto enough_reps = [&] {
        return std::all_of(samples.begin(), samples.end(),
                           [&](const auto &s) { return int(s.size()) >= plan.min_reps; });
    };
    auto enough_time = [&] {
        return std::all_of(total.begin(), total.end(),
                           [&](double t) { return t >= plan.min_time; });
    };
    auto at_max = [&] {
        return std::any_of(samples.begin(), samples.end(),
                           [&](const auto &s) { return int(s.size()) >= plan.max_reps; });
    };

    const double cap = plan.cap_factor * plan.min_time * double(sides.size());
    double timed = 0; // seconds spent in turns, settling excluded
    while (!at_max()) {
        if (enough_reps() && (enough_time() || timed >= cap)) break;
        for (std::size_t i = 0; i < sides.size(); ++i) {
            idle_for(plan.settle);
            double turn = 0;
            do {
                double t = sides[i].run_once();
                samples[i].push_back(t);
                total[i] += t;
                turn += t;
            } while (turn < plan.turn_time && int(samples[i].size()) < plan.max_reps);
            timed += turn;
        }
    }
    return samples;
}

} // namespace tessera::bench
