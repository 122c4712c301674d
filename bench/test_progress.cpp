// The progress line's text: counts, elapsed time and the estimate of the time left, and the
// silence of a short run.
#include <gtest/gtest.h>

#include <sstream>

#include "progress.hpp"

namespace tessera::bench {
namespace {

TEST(ProgressText, Durations) {
    EXPECT_EQ(duration_text(0), "0s");
    EXPECT_EQ(duration_text(-3), "0s");
    EXPECT_EQ(duration_text(8.4), "8s");
    EXPECT_EQ(duration_text(59.6), "1m00s");
    EXPECT_EQ(duration_text(72), "1m12s");
    EXPECT_EQ(duration_text(3599), "59m59s");
    EXPECT_EQ(duration_text(3725), "1h02m");
}

TEST(ProgressText, EstimateFromTheAverageItem) {
    // 37 cases in 72 s: the 263 left take about 263 * 72 / 37 = 512 s.
    EXPECT_EQ(progress_text(72, 37, 300), "37/300 cases, 1m12s elapsed, about 8m32s left");
    EXPECT_EQ(progress_text(10, 1, 2, "records"), "1/2 records, 10s elapsed, about 10s left");
}

TEST(ProgressText, NoEstimateBeforeTheFirstItemOrAfterTheLast) {
    EXPECT_EQ(progress_text(5, 0, 300), "0/300 cases, 5s elapsed");
    EXPECT_EQ(progress_text(130, 300, 300), "300/300 cases, 2m10s elapsed");
}

TEST(ProgressText, ShortRunsPrintNothing) {
    for (bool terminal : {false, true}) {
        std::ostringstream out;
        {
            Progress progress(3, true, "cases", out, terminal);
            for (int i = 0; i < 3; ++i) progress.advance();
        }
        EXPECT_EQ(out.str(), "") << "terminal " << terminal;
    }
}

} // namespace
} // namespace tessera::bench
