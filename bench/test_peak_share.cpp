// The peak% cell and its JSON value: a share of the measured peak, or "busy" with a reason
// when the peak check warned or a result ran above the peak; never a number above 100.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "peak_share.hpp"

namespace tessera::bench {
namespace {

TEST(PeakShare, BelowThePeakIsAPercentage) {
    const PeakShare share = peak_share(116, 232, false);
    ASSERT_TRUE(share.fraction);
    EXPECT_DOUBLE_EQ(*share.fraction, 0.5);
    EXPECT_EQ(share.reason, nullptr);
    EXPECT_EQ(peak_share_cell(share), "50.0");
}

TEST(PeakShare, AboveThePeakSaysBusy) {
    const PeakShare share = peak_share(250, 232, false);
    EXPECT_FALSE(share.fraction);
    EXPECT_STREQ(share.reason, "above_peak");
    EXPECT_EQ(peak_share_cell(share), "busy");
}

TEST(PeakShare, ABusyPeakCheckSaysBusy) {
    const PeakShare share = peak_share(100, 232, true);
    EXPECT_FALSE(share.fraction);
    EXPECT_STREQ(share.reason, "peak_busy");
    EXPECT_EQ(peak_share_cell(share), "busy");
}

TEST(PeakShare, NoPeakIsADash) {
    for (auto peak : {std::optional<double>(), std::optional<double>(0.0)}) {
        const PeakShare share = peak_share(100, peak, false);
        EXPECT_FALSE(share.fraction);
        EXPECT_STREQ(share.reason, "peak_not_measured");
        EXPECT_EQ(peak_share_cell(share), "-");
    }
}

TEST(PeakShare, NeverANumberAbove100) {
    for (bool busy : {false, true})
        for (double gflops = 0; gflops <= 500; gflops += 0.37) {
            const PeakShare share = peak_share(gflops, 232, busy);
            if (share.fraction) {
                EXPECT_LE(*share.fraction, 1.0);
                EXPECT_EQ(share.reason, nullptr);
            }
            const std::string cell = peak_share_cell(share);
            if (cell == "busy" || cell == "-") continue;
            EXPECT_LE(std::strtod(cell.c_str(), nullptr), 100.0) << gflops << " -> " << cell;
        }
}

} // namespace
} // namespace tessera::bench
