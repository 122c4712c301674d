// Property sweep of gemm on every backend in this library: shapes (0, 1, primes, odd sizes,
// sizes around the CPU block boundaries), both layouts, all ops, padded leading dimensions,
// alpha and beta in {0, 1, -1, other}, against the oracle of gemm_oracle.hpp.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "gemm_oracle.hpp"

namespace tessera::test {
namespace {

struct Shape {
    int64_t m, n, k;
};

// Small shapes: 0, 1, primes and odd sizes up to 67, all combinations of a few.
std::vector<Shape> small_shapes() {
    std::vector<Shape> s;
    const int64_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 33, 64, 67};
    for (int64_t m : {0, 1, 3, 7, 17, 33, 67})
        for (int64_t n : {0, 1, 2, 5, 16, 31, 64})
            for (int64_t k : {0, 1, 8, 13, 67}) s.push_back({m, n, k});
    for (int64_t x : sizes) s.push_back({x, x, x});
    return s;
}

// Around the CPU blocking boundaries of every micro-kernel: MR (4, 8, 16, 32, 64), NR (4, 6, 12),
// MC (96, 128, 192, 256, 384), KC (256, 384), NC (2040, 2048, 4092, 4096; a second column
// block only beyond 9/8 of NC), and the split of rows and column tiles between threads.
std::vector<Shape> boundary_shapes() {
    return {{127, 9, 255},
            {128, 12, 256},
            {129, 5, 257},
            {255, 7, 31},
            {256, 3, 513},
            {257, 33, 17},
            {513, 5, 9},
            {3, 2047, 5},
            {5, 2048, 3},
            {2, 2049, 2},
            {3, 4095, 4},
            {4, 4096, 3},
            {2, 4097, 257},
            {9, 4, 1025},
            {96, 100, 300},
            {301, 299, 67},
            {4, 8, 1},
            {8, 4, 1},
            {12, 12, 12},
            {31, 11, 383},
            {32, 12, 384},
            {33, 13, 385},
            {191, 25, 97},
            {192, 6, 40},
            {193, 7, 769},
            {383, 5, 21},
            {384, 24, 11},
            {385, 13, 5},
            {97, 2039, 3},
            {3, 2040, 5},
            {5, 2041, 2},
            {2, 4091, 3},
            {3, 4092, 2},
            {2, 4093, 387},
            {16, 6, 7},
            {17, 7, 9},
            {15, 5, 255},
            // each side of direct_m (the unpacked path for short-wide products): 48, 96, 128
            {47, 301, 263},
            {49, 299, 257},
            {95, 300, 259},
            {97, 263, 301},
            {128, 263, 257},
            {129, 257, 263},
            // packed, around the 64-row panels of the AVX-512 float kernel
            {129, 131, 300},
            {191, 47, 385},
            {257, 13, 769},
            // few columns (at most 32) against columns of A of at most 8 KiB: the unpacked path,
            // its rows split over the threads; each side of both limits (1024 doubles, 2048
            // floats), deep enough for two threads
            {1024, 32, 301},
            {1025, 31, 263},
            {2048, 9, 700},
            {2049, 33, 150},
            {700, 24, 513},
            {333, 5, 2500},
            // two column blocks of equal width (packed, past every kernel's direct_m)
            {97, 2297, 3},
            {129, 4605, 3},
            {5, 4609, 2},
            {3, 2305, 4}};
}

enum class Dtype { f32, f64 };

using Param = std::tuple<Dtype, tsr_backend>;

class GemmProperties : public ::testing::TestWithParam<Param> {
protected:
    void SetUp() override {
        ASSERT_EQ(tsr_create(&handle_), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(handle_, std::get<1>(GetParam())), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_num_threads(handle_, 2), TSR_SUCCESS);
    }
    void TearDown() override { tsr_destroy(handle_); }

    ::testing::AssertionResult run(const GemmCase &c, int64_t pad) {
        return std::get<0>(GetParam()) == Dtype::f32 ? run_and_check<float>(handle_, c, pad)
                                                     : run_and_check<double>(handle_, c, pad);
    }

    // Every layout × op pair × (alpha, beta) in `pairs` for one shape.
    void sweep(const Shape &s, const std::vector<std::pair<double, double>> &pairs) {
        int pad = 0;
        for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
            for (tsr_op ta : {TSR_OP_N, TSR_OP_T, TSR_OP_C})
                for (tsr_op tb : {TSR_OP_N, TSR_OP_T, TSR_OP_C})
                    for (auto [alpha, beta] : pairs) {
                        GemmCase c{layout, ta, tb, s.m, s.n, s.k, alpha, beta};
                        ASSERT_TRUE(run(c, pad)) << "pad " << pad;
                        pad = (pad + 1) % 4; // ld = rows, rows+1, rows+2, rows+3
                    }
    }

    tsr_handle handle_ = nullptr;
};

const std::vector<std::pair<double, double>> kAllScalars = [] {
    std::vector<std::pair<double, double>> v;
    for (double a : {0.0, 1.0, -1.0, 0.37})
        for (double b : {0.0, 1.0, -1.0, -0.61}) v.push_back({a, b});
    return v;
}();
const std::vector<std::pair<double, double>> kSomeScalars = {
    {1.0, 0.0}, {-0.37, 1.0}, {0.7, -0.61}};

TEST_P(GemmProperties, SmallShapesAllScalars) {
    for (const Shape &s : small_shapes()) {
        sweep(s, s.m * s.n * s.k <= 4096 ? kAllScalars : kSomeScalars);
        if (HasFatalFailure()) return;
    }
}

TEST_P(GemmProperties, BlockBoundaries) {
    const bool reference = std::get<1>(GetParam()) == TSR_BACKEND_REFERENCE;
    for (const Shape &s : boundary_shapes()) {
        if (reference && s.m * s.n * s.k > 400000) continue; // the oracle backend is slow
        sweep(s, {{0.37, -0.61}});
        if (HasFatalFailure()) return;
    }
}

// Larger products with several threads, where the threads split rows and column tiles.
TEST_P(GemmProperties, ThreadedBlocks) {
    if (std::get<1>(GetParam()) == TSR_BACKEND_REFERENCE) GTEST_SKIP() << "reference is serial";
    for (int threads : {1, 2, 3}) {
        ASSERT_EQ(tsr_set_num_threads(handle_, threads), TSR_SUCCESS);
        // 1100 rows: several row blocks per thread, which the threads take from each other.
        for (Shape s : {Shape{300, 290, 280}, Shape{37, 520, 300}, Shape{520, 23, 270},
                        Shape{1100, 70, 300}}) {
            GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, s.m, s.n, s.k, 1.25, -0.5};
            ASSERT_TRUE(run(c, 3)) << "threads " << threads;
            c = {TSR_ROW_MAJOR, TSR_OP_T, TSR_OP_N, s.m, s.n, s.k, -1.0, 0.0};
            ASSERT_TRUE(run(c, 1)) << "threads " << threads;
        }
        // Unpacked products with op(A) transposed, large enough for two threads: the threads
        // split the rows of C in blocks of 16 (the last one short: 17 = 16 + 1).
        for (Shape s : {Shape{62, 40, 300}, Shape{45, 70, 250}, Shape{17, 90, 400}})
            for (tsr_op tb : {TSR_OP_N, TSR_OP_T}) {
                GemmCase c{TSR_COL_MAJOR, TSR_OP_T, tb, s.m, s.n, s.k, 0.75, -1.5};
                ASSERT_TRUE(run(c, 2)) << "threads " << threads;
            }
        // Few rows and a deep k: the unpacked path runs in slices of k (beta on the first
        // only); with op(B) transposed the packed path, its B panel narrowed to a few hundred
        // columns (800 columns: several column blocks).
        for (Shape s : {Shape{120, 30, 2500}, Shape{90, 41, 1700}, Shape{70, 800, 400}})
            for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
                for (tsr_op tb : {TSR_OP_N, TSR_OP_T}) {
                    GemmCase c{TSR_COL_MAJOR, ta, tb, s.m, s.n, s.k, -0.5, 0.75};
                    ASSERT_TRUE(run(c, 1)) << "threads " << threads;
                }
        // Row panels that split unevenly between threads (289 = 4·64 + 33 in float, 161 =
        // 5·32 + 1 in double): the threads split columns instead.
        for (Shape s : {Shape{289, 200, 150}, Shape{161, 150, 120}}) {
            GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, s.m, s.n, s.k, 1.5, -1.0};
            ASSERT_TRUE(run(c, 2)) << "threads " << threads;
        }
    }
}

std::string name(const ::testing::TestParamInfo<Param> &info) {
    const char *dt = std::get<0>(info.param) == Dtype::f32 ? "sgemm" : "dgemm";
    const char *be = std::get<1>(info.param) == TSR_BACKEND_CPU ? "cpu" : "reference";
    return std::string(dt) + "_" + be;
}

INSTANTIATE_TEST_SUITE_P(Backends, GemmProperties,
                         ::testing::Combine(::testing::Values(Dtype::f32, Dtype::f64),
                                            ::testing::Values(TSR_BACKEND_CPU,
                                                              TSR_BACKEND_REFERENCE)),
                         name);

} // namespace
} // namespace tessera::test
