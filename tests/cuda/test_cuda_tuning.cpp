// The CUDA gemm's tuning table: its text form (parsed, formatted, malformed lines refused with
// their number), the nearest-shape lookup, the built-in tables, and — on a device, with
// TESSERA_CUDA_TUNING naming tests/cuda/tuning_test.tsv — products running the kernel the table
// names, correctly, on unaligned leading dimensions too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuda_support.hpp"
#include "tuning.hpp"

namespace tessera::test {
namespace {

using cuda::TuningPick;
using cuda::TuningTable;

const char *const kTable = "# a comment\n"
                           "tessera-cuda-tuning 1\n"
                           "device sm=132 cc=9.0 NVIDIA H100 80GB HBM3\n"
                           "candidate s 256x128/1/off\n"
                           "candidate s 64x64/4/off   # split-K\n"
                           "candidate d 128x128/1/last\n"
                           "row s NN 4096 4096 4096 0:1 1:1.4\n"
                           "row s NT 300 200 5000 1:1 0:1.2\n"
                           "row d TT 1000 1000 64 2:1\n"
                           "row s NT 300 200 5000 aligned 0:1 1:1.3\n";

TEST(CudaTuning, ParsesAndFormatsTheSameTable) {
    TuningTable t;
    std::string why;
    ASSERT_TRUE(cuda::parse_tuning(kTable, &t, &why)) << why;
    EXPECT_EQ(t.sm_count, 132);
    EXPECT_EQ(t.cc_major, 9);
    EXPECT_EQ(t.cc_minor, 0);
    EXPECT_EQ(t.device, "NVIDIA H100 80GB HBM3");
    ASSERT_EQ(t.candidates.size(), 3u);
    EXPECT_EQ(t.candidates[1].kernel, "64x64");
    EXPECT_EQ(t.candidates[1].split_k, 4);
    EXPECT_EQ(t.candidates[2].stream_k, 1);
    EXPECT_EQ(t.candidates[2].precision, 'd');
    ASSERT_EQ(t.rows.size(), 4u);
    EXPECT_FALSE(t.rows[1].aligned);
    EXPECT_TRUE(t.rows[3].aligned);
    EXPECT_EQ(t.rows[3].ratios.size(), 2u);
    EXPECT_TRUE(t.rows[1].tb);
    EXPECT_FALSE(t.rows[1].ta);
    EXPECT_EQ(t.rows[1].k, 5000);
    EXPECT_DOUBLE_EQ(t.rows[1].ratios[1].second, 1.2);
    TuningTable again;
    ASSERT_TRUE(cuda::parse_tuning(cuda::format_tuning(t), &again, &why)) << why;
    EXPECT_EQ(cuda::format_tuning(again), cuda::format_tuning(t));
}

TEST(CudaTuning, MalformedTablesAreRefusedWithTheLine) {
    const std::string head = "tessera-cuda-tuning 1\ndevice sm=132 cc=9.0 X\n"
                             "candidate s 64x64/1/off\n";
    const struct {
        std::string text;
        const char *line;
    } bad[] = {
        {"", "line 0"},
        {"tessera-cuda-tuning 2\n", "line 1"},
        {"tessera-cuda-tuning 1\n", "no 'device'"},
        {"tessera-cuda-tuning 1\ndevice sm=0 cc=9.0 X\n", "line 2"},
        {"tessera-cuda-tuning 1\ndevice sm=132 cc=9 X\n", "line 2"},
        {head + "candidate s 64x64/33/off\n", "line 4"},
        {head + "candidate s 64x64/1/sometimes\n", "line 4"},
        {head + "candidate q 64x64/1/off\n", "line 4"},
        {head + "row s NN 10 10 10\n", "line 4"},
        {head + "row s NN 10 10 10 aligned\n", "line 4"},
        {head + "row s NN 10 10 10 0:1 aligned\n", "line 4"},
        {head + "row s NX 10 10 10 0:1\n", "line 4"},
        {head + "row s NN 10 0 10 0:1\n", "line 4"},
        {head + "row s NN 10 10 10 1:1\n", "line 4"},
        {head + "row s NN 10 10 10 0:0.5\n", "line 4"},
        {head + "row d NN 10 10 10 0:1\n", "line 4"},
        {head + "something else\n", "line 4"},
    };
    for (const auto &b : bad) {
        TuningTable t;
        t.sm_count = 7;
        std::string why;
        EXPECT_FALSE(cuda::parse_tuning(b.text, &t, &why)) << b.text;
        EXPECT_NE(why.find(b.line), std::string::npos) << why << " for:\n" << b.text;
        EXPECT_EQ(t.sm_count, 7) << "a refused table leaves the output as it was";
    }
}

TEST(CudaTuning, LookupTakesTheNearestShapesOfItsPrecision) {
    TuningTable t;
    std::string why;
    ASSERT_TRUE(cuda::parse_tuning(kTable, &t, &why)) << why;
    TuningPick p = cuda::tuning_lookup(t, 's', false, false, 4000, 4200, 4096);
    EXPECT_EQ(p.candidate, 0);
    EXPECT_EQ(p.nearest, 0);
    p = cuda::tuning_lookup(t, 's', false, true, 310, 190, 5100);
    EXPECT_EQ(p.candidate, 1);
    EXPECT_EQ(p.nearest, 1);
    // Transposes differing cost distance, not the answer, when nothing else is near.
    p = cuda::tuning_lookup(t, 's', true, true, 300, 200, 5000);
    EXPECT_EQ(p.candidate, 1);
    // Out of reach: the rules decide.
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 16, 16, 16).candidate, -1);
    EXPECT_EQ(cuda::tuning_lookup(t, 'd', false, false, 4096, 4096, 4096).candidate, -1);
    EXPECT_EQ(cuda::tuning_lookup(t, 'd', true, true, 1000, 1000, 64).candidate, 2);
    // A row left out (the tuner's leave-one-out check) is not its own neighbour.
    EXPECT_EQ(cuda::tuning_lookup(t, 'd', true, true, 1000, 1000, 64, false, 2).candidate, -1);
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 0, 10, 10).candidate, -1);
}

TEST(CudaTuning, AlignedProductsPreferRowsMeasuredAligned) {
    // The same shape measured both ways, with different winners; a product takes the
    // winner of its own alignment, and the other row's where its own is left out.
    const std::string text = "tessera-cuda-tuning 1\ndevice sm=132 cc=9.0 X\n"
                             "candidate s 64x64/1/off\ncandidate s 256x128/1/off\n"
                             "row s NN 2000 2000 2000 0:1 1:1.3\n"
                             "row s NN 2000 2000 2000 aligned 1:1 0:1.3\n";
    TuningTable t;
    std::string why;
    ASSERT_TRUE(cuda::parse_tuning(text, &t, &why)) << why;
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 2100, 1900, 2000, false).candidate, 0);
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 2100, 1900, 2000, true).candidate, 1);
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 2000, 2000, 2000, true, 1).candidate, 0);
    const cuda::TuningIndex index(t);
    EXPECT_TRUE(index.has_aligned('s'));
    EXPECT_FALSE(index.has_aligned('d'));
    // Without the penalty both rows are as near, and their votes cancel to the lower index.
    cuda::TuningIndex flat(t);
    flat.set_align_penalty(0.0);
    EXPECT_EQ(flat.lookup('s', false, false, 2000, 2000, 2000, true).candidate, 0);
}

TEST(CudaTuning, NeighboursVoteByTheirTimes) {
    // Two rows near the product: candidate 0 best on one by a little, candidate 1 on the
    // other by much; together candidate 1 costs less.
    const std::string text = "tessera-cuda-tuning 1\ndevice sm=132 cc=9.0 X\n"
                             "candidate s 64x64/1/off\ncandidate s 128x128/1/off\n"
                             "row s NN 1000 1000 1000 0:1 1:1.05\n"
                             "row s NN 1100 1100 1100 1:1 0:1.45\n"
                             "row s NN 9000 9000 9000 0:1 1:1.45\n";
    TuningTable t;
    std::string why;
    ASSERT_TRUE(cuda::parse_tuning(text, &t, &why)) << why;
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 1040, 1040, 1040).candidate, 1);
    // Even right on the first row: its best wins there by 5%, the other loses 45% next door.
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 1000, 1000, 1000).candidate, 1);
    // Rows out of reach do not vote; near the third row alone, its best.
    EXPECT_EQ(cuda::tuning_lookup(t, 's', false, false, 8500, 8500, 8500).candidate, 0);
}

// The lookup as its definition reads (tuning.hpp), row by row over the table itself: every
// training shape's distance, the nearest within reach, each candidate that one of them lists
// scored by its weighted log ratios.
int plain_lookup(const TuningTable &t, char precision, bool ta, bool tb, int64_t m, int64_t n,
                 int64_t k, bool aligned) {
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {0, 0, 0}, volume = 0;
    for (const cuda::TuningRow &r : t.rows) {
        if (r.precision != precision) continue;
        const double d[3] = {double(r.m), double(r.n), double(r.k)};
        for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], d[i]), hi[i] = std::max(hi[i], d[i]);
        volume = std::max(volume, d[0] * d[1] * d[2]);
    }
    const double q[3] = {double(m), double(n), double(k)};
    for (int i = 0; i < 3; ++i)
        if (q[i] > cuda::kTuningBeyond * hi[i] || q[i] * cuda::kTuningBeyond < lo[i]) return -1;
    if (q[0] * q[1] * q[2] > cuda::kTuningBeyond * cuda::kTuningBeyond * volume) return -1;
    std::vector<std::pair<double, size_t>> near;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const cuda::TuningRow &r = t.rows[i];
        if (r.precision != precision) continue;
        const double dm = std::log(double(r.m) / q[0]), dn = std::log(double(r.n) / q[1]),
                     dk = std::log(double(r.k) / q[2]);
        const double d = std::sqrt(dm * dm + dn * dn + dk * dk) +
                         cuda::kTuningTransposePenalty * (int(r.ta != ta) + int(r.tb != tb)) +
                         (r.aligned != aligned ? cuda::kTuningAlignPenalty : 0.0);
        if (d <= cuda::kTuningReach) near.emplace_back(d, i);
    }
    std::stable_sort(near.begin(), near.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    if (near.size() > size_t(cuda::kTuningNeighbours)) near.resize(cuda::kTuningNeighbours);
    int best = -1;
    double best_score = 0;
    for (size_t c = 0; c < t.candidates.size(); ++c) {
        bool listed = false;
        double score = 0;
        for (const auto &[d, i] : near) {
            double lr = std::log(cuda::kListedRatio);
            for (const auto &[index, ratio] : t.rows[i].ratios)
                if (size_t(index) == c) lr = std::log(ratio), listed = true;
            score += lr / (cuda::kTuningWeightFloor + d);
        }
        if (listed && (best < 0 || score < best_score - 1e-12)) best = int(c), best_score = score;
    }
    return best;
}

TEST(CudaTuning, IndexPicksWhatAPlainSearchPicks) {
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> side(std::log(8.0), std::log(40000.0));
    for (int i = 0; i < cuda::kBuiltinTuningCount; ++i) {
        TuningTable t;
        std::string why;
        ASSERT_TRUE(cuda::parse_tuning(cuda::kBuiltinTuning[i], &t, &why)) << why;
        const cuda::TuningIndex index(t);
        int picked = 0;
        for (int trial = 0; trial < 2000; ++trial) {
            const char precision = trial % 2 ? 'd' : 's';
            const bool ta = rng() & 1, tb = rng() & 1, aligned = rng() & 1;
            const auto m = int64_t(std::exp(side(rng))), n = int64_t(std::exp(side(rng))),
                       k = int64_t(std::exp(side(rng)));
            const int want = plain_lookup(t, precision, ta, tb, m, n, k, aligned);
            const TuningPick got = index.lookup(precision, ta, tb, m, n, k, aligned);
            ASSERT_EQ(got.candidate, want)
                << precision << (ta ? 'T' : 'N') << (tb ? 'T' : 'N') << " " << m << "x" << n << "x"
                << k << (aligned ? " aligned" : "");
            picked += want >= 0;
        }
        EXPECT_GT(picked, 500) << "most random shapes fall within the table's reach";
    }
}

TEST(CudaTuning, BuiltInTablesParse) {
    for (int i = 0; i < cuda::kBuiltinTuningCount; ++i) {
        TuningTable t;
        std::string why;
        EXPECT_TRUE(cuda::parse_tuning(cuda::kBuiltinTuning[i], &t, &why)) << i << ": " << why;
        EXPECT_FALSE(t.rows.empty());
        EXPECT_FALSE(t.candidates.empty());
    }
}

// With TESSERA_CUDA_TUNING=tests/cuda/tuning_test.tsv (its CTest entry): that table's
// candidates run near their rows, the log says so, and the products are right on leading
// dimensions of every remainder modulo 4. The table's slices are refitted to the product's
// waves (cuda/kernels.cu, fit_split_to_waves): 4351×48 on 256x64 tiles is 17 tiles, whose 8
// slices (136 blocks) overrun the 132 places of one block per multiprocessor; 7 slices take
// one wave. A 256x64 pick across a side of 32 or less runs on 128x32 tiles (cuda/gemm.cu).
TEST(CudaTuning, TableChoosesTheKernel) {
    if (!std::getenv("TESSERA_CUDA_TUNING") ||
        std::string(std::getenv("TESSERA_CUDA_TUNING")).find("tuning_test.tsv") ==
            std::string::npos)
        GTEST_SKIP() << "needs TESSERA_CUDA_TUNING=tests/cuda/tuning_test.tsv";
    if (!env_is("TESSERA_VERBOSE", "1")) GTEST_SKIP() << "needs TESSERA_VERBOSE=1";
    TSR_REQUIRE_CUDA();
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    if (prop.multiProcessorCount != 132 || prop.major != 9 || prop.minor != 0)
        GTEST_SKIP() << "the test table is for 132-SM devices of compute capability 9.0";
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    ::testing::internal::CaptureStderr();
    for (int pad = 0; pad < 4; ++pad) {
        const GemmCase s{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 300, 200, 1000, 1.5, 0.5};
        const GemmCase d{TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 80, 3000, 2000, -1.0, 0.0};
        EXPECT_TRUE(run_and_check<float>(h, s, pad)) << "pad " << pad;
        EXPECT_TRUE(run_and_check<double>(h, d, pad)) << "pad " << pad;
    }
    // m odd: A's columns are not whole vectors, so the table's unaligned rows apply.
    const GemmCase waves{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 4351, 48, 2048, 1.0, 0.5};
    EXPECT_TRUE(run_and_check<float>(h, waves, 1));
    const GemmCase thin{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 4351, 24, 2048, 1.0, 0.0};
    EXPECT_TRUE(run_and_check<float>(h, thin, 1));
    // Far from every row: the rules.
    const GemmCase far{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 20, 20, 20, 1.0, 0.0};
    EXPECT_TRUE(run_and_check<float>(h, far, 1));
    tsr_destroy(h);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("tessera: cuda kernel simt-f32-64x256, k in up to 4 slices for sgemm NT "
                       "m=300 n=200 k=1000 (tuning table, nearest NT 300x200x1000)"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("tessera: cuda kernel dmma-f64-64x64 for dgemm TN m=80 n=3000 k=2000 "
                       "(tuning table, nearest TN 80x3000x2048)"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("tessera: cuda kernel simt-f32-256x64, k in up to 7 slices for sgemm NN "
                       "m=4351 n=48 k=2048 (tuning table, nearest NN 4352x48x2048)"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("tessera: cuda kernel simt-f32-128x32, k in up to 8 slices for sgemm NN "
                       "m=4351 n=24 k=2048 (tuning table, nearest NN 4352x48x2048)"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("for sgemm NN m=20 n=20 k=20\n"), std::string::npos) << log;
}

} // namespace
} // namespace tessera::test
