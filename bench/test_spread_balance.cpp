// The multigpu command's reading of the library's balance lines: medians per device over the
// calls, other log lines ignored, a log without such lines giving nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spread_balance.hpp"

namespace tessera::bench {
namespace {

std::string line(const char *busy, const char *ready, const char *tail) {
    return std::string("tessera: cuda spread balance: sgemm m=512 n=512 k=512 on 3 devices; busy "
                       "ms ") +
           busy + "; shared operand whole after ms " + ready + "; idle tail ms " + tail +
           "; call ms 12.5\n";
}

TEST(SpreadBalance, MediansPerDeviceOverTheCalls) {
    const std::string log = "tessera: cuda kernel mma128x128 for sgemm NN m=512 n=512 k=512\n" +
                            line("10.0,11.0,12.0", "1.0,1.5,2.0", "2.0,1.0,0.0") +
                            "tessera: sgemm 512x512x512 on cuda\n" +
                            line("30.0,13.0,14.0", "3.0,2.5,2.0", "0.0,0.5,0.0") +
                            line("20.0,12.0,16.0", "2.0,3.5,2.0", "1.0,0.0,4.0");
    const SpreadBalance b = spread_balance_from_log(log);
    EXPECT_EQ(b.busy_ms, (std::vector<double>{20.0, 12.0, 14.0}));
    EXPECT_EQ(b.ready_ms, (std::vector<double>{2.0, 2.5, 2.0}));
    EXPECT_EQ(b.tail_ms, (std::vector<double>{1.0, 0.5, 0.0}));
    EXPECT_EQ(join_ms(b.busy_ms), "20.0 12.0 14.0");
}

TEST(SpreadBalance, NoBalanceLineGivesNothing) {
    EXPECT_TRUE(spread_balance_from_log("").empty());
    EXPECT_TRUE(spread_balance_from_log("tessera: cuda kernel mma for sgemm\n").empty());
    EXPECT_EQ(join_ms({}), "");
}

} // namespace
} // namespace tessera::bench
