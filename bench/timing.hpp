// Interleaved A/B timing: after a warm-up, the sides take turns (ours, anchor, ours,
// anchor, ...) so that clock changes and background noise fall on all of them alike.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tessera::bench {

// One contender. run_once() does one call and returns its duration in seconds; a CPU side
// wraps its call with wall_timed(), a GPU side may time itself with events.
struct TimedSide {
    std::string name;
    std::function<double()> run_once;
};

struct TimingPlan {
    int min_reps = 3;      // timed calls per side, at least
    double min_time = 0.5; // seconds of timed calls each side should reach
    // A turn is one call, or back-to-back calls until turn_time has passed: small products
    // are timed in a tight loop, large ones alternate call by call.
    double turn_time = 0.1;
    // Idle pause before each turn. Thread pools spin after a call before they sleep
    // (OpenBLAS's pthread workers for 2^28 TSC ticks, 0.13 s at 2 GHz; libgomp's a few ms);
    // without the pause, the side that runs next shares its cores with the spinning ones.
    double settle = 0.0;
    // Turns stop once every side has min_reps calls and min_time of timed work, or once
    // the timed part has run cap_factor·min_time·sides seconds (and every side has its
    // min_reps): a fast side next to a slow one gets what the slow one's time allows.
    double cap_factor = 2.0;
    int max_reps = 100000; // per side
    // Warm-up, untimed: each side in turn, for one call and warmup_fraction·min_time.
    double warmup_fraction = 0.2;
};

// The timings of each side, in the order of `sides`. Exceptions thrown by a side propagate.
std::vector<std::vector<double>> run_interleaved(std::span<const TimedSide> sides,
                                                 const TimingPlan &plan);

// Seconds since an arbitrary fixed point, monotonic.
double now_seconds();

// Sleeps (idle, not spinning) for the given seconds; 0 or less returns at once.
void idle_for(double seconds);

// Wraps a void() call into a run_once that measures its wall-clock time.
template <class F> std::function<double()> wall_timed(F call) {
    return [call = std::move(call)]() mutable {
        double start = now_seconds();
        call();
        return now_seconds() - start;
    };
}

} // namespace tessera::bench
