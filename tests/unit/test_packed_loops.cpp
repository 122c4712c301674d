// The packed loops' sharing of row blocks (cpu/packed_loops.hpp): each thread takes the front
// of its own range, then the backs of the others' once they have begun; every block is taken
// exactly once.
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
    // Thread 0 has begun (its block 0 taken), thread 2 likewise (blocks 1..3 left).
    std::atomic<uint64_t> ranges[3];
    ranges[0] = range(1, 3), ranges[1] = range(0, 3), ranges[2] = range(1, 4);
    // Thread 1 alone: its own blocks in order, then thread 2's and thread 0's from the back.
    std::vector<int64_t> got;
    std::vector<int> owners;
    int owner = -1;
    for (int64_t b; (b = take_block(ranges, 3, 1, &owner)) >= 0;) {
        got.push_back(b);
        owners.push_back(owner);
    }
    EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 3, 2, 1, 2, 1}));
    EXPECT_EQ(owners, (std::vector<int>{1, 1, 1, 2, 2, 2, 0, 0}));
    EXPECT_EQ(take_block(ranges, 3, 0, &owner), -1);
}

// A range whose owner has not begun is left to it, however long it takes to come.
TEST(PackedLoops, TakeBlockLeavesRangesNotBegun) {
    std::atomic<uint64_t> ranges[2];
    ranges[0] = range(0, 2), ranges[1] = range(0, 0);
    int owner = -1;
    EXPECT_EQ(take_block(ranges, 2, 1, &owner), -1);
    EXPECT_EQ(take_block(ranges, 2, 0, &owner), 0);
    EXPECT_EQ(owner, 0);
    EXPECT_EQ(take_block(ranges, 2, 1, &owner), 1); // begun: its last block may be taken
    EXPECT_EQ(owner, 0);
    EXPECT_EQ(take_block(ranges, 2, 0, &owner), -1);
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
        for (int t = 0; t < kTeam; ++t) ranges[t] = range(0, kPer); // each owner's blocks from 0
        std::vector<std::vector<int64_t>> got(kTeam);
        std::vector<std::thread> threads;
        for (int t = 0; t < kTeam; ++t)
            threads.emplace_back([&, t] {
                int owner = -1;
                for (int64_t b; (b = take_block(ranges, kTeam, t, &owner)) >= 0;) {
                    if (owner < 0 || owner >= kTeam) got[size_t(t)].push_back(-1);
                    got[size_t(t)].push_back(owner * kPer + b);
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
