// The packed loops' sharing of row blocks (cpu/packed_loops.hpp): each thread takes the front
// of its own range, then the backs of the others'; every block is taken exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "cpu/packed_loops.hpp"

namespace {

using tessera::cpu::take_block;

uint64_t range(uint64_t front, uint64_t back) { return front | back << 32; }

TEST(PackedLoops, TakeBlockOwnFrontThenOthersBacks) {
    std::atomic<uint64_t> ranges[3];
    ranges[0] = range(0, 3), ranges[1] = range(3, 6), ranges[2] = range(6, 8);
    // Thread 1 alone: its own blocks in order, then thread 2's and thread 0's from the back.
    std::vector<int64_t> got;
    std::vector<int> owners;
    int owner = -1;
    for (int64_t b; (b = take_block(ranges, 3, 1, &owner)) >= 0;) {
        got.push_back(b);
        owners.push_back(owner);
    }
    EXPECT_EQ(got, (std::vector<int64_t>{3, 4, 5, 7, 6, 2, 1, 0}));
    EXPECT_EQ(owners, (std::vector<int>{1, 1, 1, 2, 2, 0, 0, 0}));
    EXPECT_EQ(take_block(ranges, 3, 0, &owner), -1);
}

TEST(PackedLoops, TakeBlockEmptyRanges) {
    std::atomic<uint64_t> ranges[2];
    ranges[0] = range(4, 4), ranges[1] = range(9, 9);
    int owner = -1;
    EXPECT_EQ(take_block(ranges, 2, 0, &owner), -1);
    EXPECT_EQ(take_block(ranges, 2, 1, &owner), -1);
}

// Threads taking at once, one of them slowed: every block once, none lost.
TEST(PackedLoops, TakeBlockEveryBlockOnceUnderContention) {
    constexpr int kTeam = 4, kPer = 500;
    for (int round = 0; round < 20; ++round) {
        std::atomic<uint64_t> ranges[kTeam];
        for (int t = 0; t < kTeam; ++t)
            ranges[t] = range(uint64_t(t * kPer), uint64_t((t + 1) * kPer));
        std::vector<std::vector<int64_t>> got(kTeam);
        std::vector<std::thread> threads;
        for (int t = 0; t < kTeam; ++t)
            threads.emplace_back([&, t] {
                int owner = -1;
                for (int64_t b; (b = take_block(ranges, kTeam, t, &owner)) >= 0;) {
                    if (b / kPer != owner) got[size_t(t)].push_back(-1); // not the owner's block
                    got[size_t(t)].push_back(b);
                    if (t == round % kTeam) std::this_thread::yield();
                }
            });
        for (std::thread &th : threads) th.join();
        std::vector<int64_t> all;
        for (const auto &g : got) all.insert(all.end(), g.begin(), g.end());
        std::sort(all.begin(), all.end());
        ASSERT_EQ(all.size(), size_t(kTeam * kPer)) << "round " << round;
        for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], int64_t(i)) << "round " << round;
    }
}

} // namespace
