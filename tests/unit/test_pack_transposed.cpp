// The SIMD packings (src/cpu/kernels/pack_transposed.hpp) against the portable loops'
// definitions: a transposed A block for every panel height the AVX2 and AVX-512 kernels use
// (the AVX-512 file runs the same ymm code with taller panels), and a column-major B panel of
// 6 columns; on fresh random blocks with odd row counts, depths and leading dimensions, into a
// poisoned buffer. Compiled for AVX2 and skipped on a CPU without it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cpu/kernels/pack_transposed.hpp"

namespace tessera::test {
namespace {

template <typename T> void check_heights(std::initializer_list<int> heights) {
    if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "the CPU has no AVX2";
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int mr : heights)
        for (int trial = 0; trial < 40; ++trial) {
            const int64_t mc = 1 + int64_t(rng() % uint64_t(3 * mr + 5));
            const int64_t kc = 1 + int64_t(rng() % 70);
            const int64_t lda = kc + int64_t(rng() % 9);
            std::vector<T> a(size_t(mc * lda));
            for (T &x : a) x = T(u(rng));
            const int64_t panels = (mc + mr - 1) / mr;
            // One poisoned element past the panels: nothing is written beyond them.
            std::vector<T> got(size_t(panels * kc * mr + 1), T(NAN));
            cpu::pack_a_transposed(a.data(), lda, mc, kc, mr, got.data());
            for (int64_t p = 0; p < panels; ++p)
                for (int64_t l = 0; l < kc; ++l)
                    for (int r = 0; r < mr; ++r) {
                        const int64_t i = p * mr + r;
                        const T want = i < mc ? a[size_t(i * lda + l)] : T(0);
                        const T have = got[size_t(p * kc * mr + l * mr + r)];
                        ASSERT_EQ(have, want)
                            << "mr " << mr << " mc " << mc << " kc " << kc << " lda " << lda
                            << " at row " << i << " column " << l;
                    }
            EXPECT_TRUE(std::isnan(got.back())) << "written past the panels, mr " << mr;
        }
}

template <typename T> void check_b_panels() {
    if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "the CPU has no AVX2";
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int trial = 0; trial < 100; ++trial) {
        const int64_t kc = 1 + int64_t(rng() % 70);
        const int64_t ldb = kc + int64_t(rng() % 9);
        std::vector<T> b(size_t(6 * ldb));
        for (T &x : b) x = T(u(rng));
        std::vector<T> got(size_t(kc * 6 + 1), T(NAN));
        cpu::pack_b_cols6(b.data(), ldb, kc, got.data());
        for (int64_t l = 0; l < kc; ++l)
            for (int j = 0; j < 6; ++j)
                ASSERT_EQ(got[size_t(l * 6 + j)], b[size_t(l + j * ldb)])
                    << "kc " << kc << " ldb " << ldb << " at row " << l << " column " << j;
        EXPECT_TRUE(std::isnan(got.back())) << "written past the panel, kc " << kc;
    }
}

TEST(PackTransposed, FloatBPanelsOfSixColumns) { check_b_panels<float>(); }

TEST(PackTransposed, DoubleBPanelsOfSixColumns) { check_b_panels<double>(); }

TEST(PackTransposed, FloatPanelsOfEveryHeight) { check_heights<float>({8, 16, 32, 64}); }

TEST(PackTransposed, DoublePanelsOfEveryHeight) { check_heights<double>({4, 8, 16, 32}); }

} // namespace
} // namespace tessera::test
