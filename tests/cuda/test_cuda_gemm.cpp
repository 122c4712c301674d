// The gemm property sweep on the CUDA backend with host operands (staged through pinned
// buffers): shapes around every tile edge, both layouts, all ops, padded ld, alpha and beta.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_support.hpp"
#include "kernels.hpp" // kDgemmShortK, kDgemmThinSide, kDgemmThin32Side

namespace tessera::test {
namespace {

struct Shape {
    int64_t m, n, k;
};

// 0, 1, primes, and sizes around the 64 and 128 tiles and the 16-deep k steps.
std::vector<Shape> shapes() {
    std::vector<Shape> s;
    for (int64_t m : {1, 3, 17, 64, 67})
        for (int64_t n : {1, 2, 31, 65})
            for (int64_t k : {0, 1, 13, 16, 33}) s.push_back({m, n, k});
    for (Shape x :
         {Shape{0, 5, 5}, Shape{5, 0, 5}, Shape{127, 129, 15}, Shape{128, 128, 17},
          Shape{129, 127, 255}, Shape{255, 257, 64}, Shape{1000, 3, 70}, Shape{3, 1000, 70},
          Shape{1031, 1543, 47}, Shape{2048, 1536, 33}, Shape{4, 4, 5000}})
        s.push_back(x);
    return s;
}

enum class Dtype { f32, f64 };

class CudaGemm : public ::testing::TestWithParam<Dtype> {
protected:
    void SetUp() override {
        TSR_REQUIRE_CUDA();
        ASSERT_EQ(tsr_create(&handle_), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(handle_, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    }
    void TearDown() override {
        if (handle_) tsr_destroy(handle_);
    }
    ::testing::AssertionResult run(const GemmCase &c, int64_t pad) {
        return GetParam() == Dtype::f32 ? run_and_check<float>(handle_, c, pad)
                                        : run_and_check<double>(handle_, c, pad);
    }
    tsr_handle handle_ = nullptr;
};

TEST_P(CudaGemm, ShapesLayoutsOpsScalars) {
    int pad = 0;
    for (const Shape &s : shapes())
        for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
            for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
                for (tsr_op tb : {TSR_OP_N, TSR_OP_C}) {
                    const bool small = s.m * s.n * s.k <= 20000;
                    std::vector<std::pair<double, double>> scalars =
                        small ? std::vector<std::pair<double, double>>{{1, 0},
                                                                       {0, -0.61},
                                                                       {-1, 1},
                                                                       {0.37, -0.61},
                                                                       {0, 0}}
                              : std::vector<std::pair<double, double>>{{0.37, -0.61}};
                    for (auto [alpha, beta] : scalars) {
                        GemmCase c{layout, ta, tb, s.m, s.n, s.k, alpha, beta};
                        ASSERT_TRUE(run(c, pad)) << "pad " << pad;
                        pad = (pad + 1) % 4; // ld = rows .. rows+3: aligned and unaligned paths
                    }
                }
}

TEST_P(CudaGemm, LargeSquare) {
    for (int64_t n : {1024, 1537}) {
        GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, n, n, n, 1.0, 0.5};
        ASSERT_TRUE(run(c, 0));
        c = {TSR_COL_MAJOR, TSR_OP_T, TSR_OP_T, n, n, n, -0.5, 0.0};
        ASSERT_TRUE(run(c, 1));
    }
}

// Few tiles and a deep k: split-K (automatic here, or forced by TESSERA_CUDA_SPLITK), with
// alpha and beta applied once to the sum of the slices, on every transpose; with
// TESSERA_VERBOSE=1 the log says that k was sliced.
TEST_P(CudaGemm, SkinnySplitK) {
    const bool verbose = env_is("TESSERA_VERBOSE", "1") && !env_is("TESSERA_CUDA_SPLITK", "off");
    if (verbose) ::testing::internal::CaptureStderr();
    int pad = 0;
    for (Shape s : {Shape{40, 1024, 4096}, Shape{1000, 24, 3001}, Shape{5, 7, 2049}})
        for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
            for (tsr_op tb : {TSR_OP_N, TSR_OP_T}) {
                GemmCase c{TSR_COL_MAJOR, ta, tb, s.m, s.n, s.k, 0.75, ta == tb ? 0.0 : -0.5};
                ASSERT_TRUE(run(c, pad)) << "pad " << pad;
                pad = (pad + 1) % 4;
            }
    if (verbose) {
        const std::string log = ::testing::internal::GetCapturedStderr();
        EXPECT_NE(log.find("slices for"), std::string::npos) << log;
    }
}

// NaN and Inf in the operands propagate; beta == 0 drops a NaN in C (run_and_check poisons C).
TEST_P(CudaGemm, NanInfPropagate) {
    const int64_t n = 70;
    auto one = [&](auto zero) {
        using T = decltype(zero);
        auto A = random_matrix<T>(n, n, TSR_COL_MAJOR, 0, T(0));
        auto B = random_matrix<T>(n, n, TSR_COL_MAJOR, 0, T(0));
        auto C = random_matrix<T>(n, n, TSR_COL_MAJOR, 0, T(0));
        A.at(5, 3) = std::numeric_limits<T>::quiet_NaN();
        B.at(2, 9) = std::numeric_limits<T>::infinity();
        GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, n, n, n, 1.0, 0.0};
        ASSERT_EQ(run_gemm(handle_, c, A, B, C), TSR_SUCCESS);
        for (int64_t j = 0; j < n; ++j) EXPECT_TRUE(std::isnan(C.at(5, j))) << j;
        for (int64_t i = 0; i < n; ++i)
            if (i != 5) EXPECT_TRUE(std::isinf(C.at(i, 9)) || std::isnan(C.at(i, 9))) << i;
        EXPECT_TRUE(std::isfinite(C.at(7, 7)));
    };
    if (GetParam() == Dtype::f32) one(0.0f);
    else one(0.0);
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaGemm, ::testing::Values(Dtype::f32, Dtype::f64),
                         [](const auto &info) {
                             return std::string(info.param == Dtype::f32 ? "sgemm" : "dgemm");
                         });

// Small integers -4 .. 4 from a start drawn from the test's seed (products of them sum exactly).
struct SmallInts {
    uint32_t x;
    int next() { return x = x * 1664525u + 1013904223u, int((x >> 24) % 9) - 4; }
};

// Operands a and b of small integers, and C (ldc × n) likewise but NaN in rows m .. ldc - 1,
// to catch writes past the matrix.
template <typename T> struct ExactOperands {
    std::vector<T> a, b, c0;
    ExactOperands(SmallInts &g, size_t a_size, size_t b_size, int64_t m, int64_t n, int64_t ldc)
        : a(a_size), b(b_size), c0(size_t(ldc * n)) {
        for (std::vector<T> *v : {&a, &b, &c0})
            for (T &e : *v) e = T(g.next());
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = m; i < ldc; ++i)
                c0[size_t(i + j * ldc)] = std::numeric_limits<T>::quiet_NaN();
    }
    // C = alpha·op(A)·op(B) + beta·C0 (column-major) on device copies of the operands, through
    // tsr_sgemm / tsr_dgemm; C comes back in c.
    ::testing::AssertionResult run(tsr_handle h, tsr_op oa, tsr_op ob, int64_t m, int64_t n,
                                   int64_t k, T alpha, int64_t lda, int64_t ldb, T beta,
                                   int64_t ldc, std::vector<T> &c) const {
        DeviceArray<T> da(a), db(b), dc(c0);
        tsr_status st;
        if constexpr (sizeof(T) == 4)
            st = tsr_sgemm(h, TSR_COL_MAJOR, oa, ob, m, n, k, alpha, da.ptr, lda, db.ptr, ldb, beta,
                           dc.ptr, ldc);
        else
            st = tsr_dgemm(h, TSR_COL_MAJOR, oa, ob, m, n, k, alpha, da.ptr, lda, db.ptr, ldb, beta,
                           dc.ptr, ldc);
        if (st != TSR_SUCCESS)
            return ::testing::AssertionFailure() << "status " << st << ": " << tsr_last_error();
        if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
            return ::testing::AssertionFailure() << cudaGetErrorString(e);
        c.resize(c0.size());
        dc.to_host(c);
        return ::testing::AssertionSuccess();
    }
};

// The products the fringe rule (cuda/gemm.cu, fringe_split; TESSERA_CUDA_FRINGE) makes of an
// m×n product on bm×bn tiles with `places` blocks at once: a last row (else column) of tiles at
// most a quarter full runs on its own where the rest then takes fewer waves of places than the
// whole grid (auto), wherever the grid fills a wave (split), or never (off).
std::vector<std::string> fringe_parts(int64_t m, int64_t n, int64_t bm, int64_t bn, int64_t places,
                                      const std::string &rule) {
    auto saves = [&](int64_t rest, int64_t whole) {
        return rule == "split" || (rest + places - 1) / places < (whole + places - 1) / places;
    };
    auto part = [](int64_t r, int64_t c) {
        return "m=" + std::to_string(r) + " n=" + std::to_string(c) + " ";
    };
    const int64_t tm = (m + bm - 1) / bm, tn = (n + bn - 1) / bn, rm = m % bm, rn = n % bn;
    std::vector<std::string> parts;
    if (rule != "off" && tm * tn >= places && m > bm && rm > 0 && 4 * rm <= bm &&
        saves((tm - 1) * tn, tm * tn)) {
        parts = fringe_parts(m - rm, n, bm, bn, places, rule);
        parts.push_back(part(rm, n));
    } else if (rule != "off" && tm * tn >= places && n > bn && rn > 0 && 4 * rn <= bn &&
               saves(tm * (tn - 1), tm * tn)) {
        parts = fringe_parts(m, n - rn, bm, bn, places, rule);
        parts.push_back(part(m, rn));
    } else {
        parts.push_back(part(m, n));
    }
    return parts;
}

// A last row or column of tiles nearly empty (4097² sgemm on 256×128 tiles, 1409² dgemm on
// 128×128, one block per multiprocessor; 5121×3713 sgemm, whose fringes save no wave on 132
// multiprocessors) runs as a product of its own after the full tiles where the rule says so:
// device operands, small integers (every sum exact), C poisoned beyond the matrix, beta != 0;
// with TESSERA_VERBOSE=1 and the automatic kernels (CTest: cuda_gemm_fringe, and
// cuda_gemm_fringe_split and _off under TESSERA_CUDA_FRINGE) the log names the products
// fringe_parts expects under the rule in force. Returns how many products ran (0 without the
// log).
template <typename T>
size_t fringe_case(tsr_handle h, int64_t m, int64_t n, const std::string &main_tile, int64_t bm,
                   int64_t bn) {
    const int64_t k = 8, ldc = m + 3;
    SmallInts g{uint32_t(test_rng("/" + std::to_string(m) + "x" + std::to_string(n))())};
    const ExactOperands<T> ops(g, size_t(m * k), size_t(k * n), m, n, ldc);
    const std::vector<T> &a = ops.a, &b = ops.b, &c0 = ops.c0;
    const bool verbose = env_is("TESSERA_VERBOSE", "1");
    if (verbose) ::testing::internal::CaptureStderr();
    std::vector<T> c;
    const bool ran = ops.run(h, TSR_OP_N, TSR_OP_T, m, n, k, T(1), m, n, T(0.5), ldc, c);
    const std::string log = verbose ? ::testing::internal::GetCapturedStderr() : "";
    EXPECT_TRUE(ran);
    if (!ran) return 0;
    int64_t bad = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < ldc; ++i) {
            const size_t at = size_t(i + j * ldc);
            if (i >= m) { // padding: still the poison
                bad += !std::isnan(c[at]);
                continue;
            }
            T want = T(0.5) * c0[at];
            for (int64_t l = 0; l < k; ++l) want += a[size_t(i + l * m)] * b[size_t(j + l * n)];
            if (c[at] != want && bad++ < 5)
                ADD_FAILURE() << "C(" << i << "," << j << ") = " << c[at] << ", want " << want;
        }
    EXPECT_EQ(bad, 0) << "wrong or written elements, " << m << "x" << n;
    if (!verbose) return 0;
    const char r = sizeof(T) == 4 ? 's' : 'd';
    int sms = 0;
    EXPECT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    const char *env = std::getenv("TESSERA_CUDA_FRINGE");
    const std::string rule = env ? env : "auto";
    const std::vector<std::string> parts = fringe_parts(m, n, bm, bn, sms, rule);
    const std::string product = std::string(" for ") + r + "gemm NT ";
    size_t logged = 0;
    for (size_t at = log.find(product); at != std::string::npos; at = log.find(product, at + 1))
        ++logged;
    EXPECT_EQ(logged, parts.size()) << "products under TESSERA_CUDA_FRINGE=" << rule << " in:\n"
                                    << log;
    for (const std::string &part : parts)
        EXPECT_NE(log.find(product + part), std::string::npos)
            << part << " under TESSERA_CUDA_FRINGE=" << rule << " in:\n"
            << log;
    // Under split the rest of a product split twice may choose a smaller tile of its own.
    if (rule != "split")
        EXPECT_NE(log.find("tessera: cuda kernel " + main_tile + product), std::string::npos)
            << log;
    return parts.size();
}

TEST(CudaGemmFringe, RunsAsItsOwnProduct) {
    TSR_REQUIRE_CUDA();
    if (std::getenv("TESSERA_CUDA_SGEMM") || std::getenv("TESSERA_CUDA_DGEMM") ||
        std::getenv("TESSERA_CUDA_MATH") || std::getenv("TESSERA_CUDA_SPLITK"))
        GTEST_SKIP() << "the fringe rule is checked with the automatic kernels";
    if (!rules_choose_kernels())
        GTEST_SKIP() << "the fringe rule is checked with the rules (TESSERA_CUDA_TUNING=off)";
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    const char *env = std::getenv("TESSERA_CUDA_FRINGE");
    const bool automatic = !env || std::string(env) == "auto";
    const size_t f32 = fringe_case<float>(h, 4097, 4097, "simt-f32-256x128", 256, 128);
    const size_t f64 = fringe_case<double>(h, 1409, 1409, "dmma-f64-128x128", 128, 128); // k = 8
    fringe_case<float>(h, 5121, 3713, "simt-f32-256x128", 256, 128);
    if (env_is("TESSERA_VERBOSE", "1") && automatic) {
        EXPECT_GE(f32, 2u) << "4097² on this device's multiprocessors splits none";
        EXPECT_GE(f64, 2u) << "1409² on this device's multiprocessors splits none";
    }
    tsr_destroy(h);
}

// Stream-K: a grid of one and a half waves of the large tiles (256×128 sgemm, 128×128 dgemm)
// runs its first tiles in one launch and the rest in spans of k cut across tiles; each cut
// tile's pieces (two or more) must be added once, with alpha and beta. Device operands of small
// integers (every sum exact); C checked with two random vectors (C·x against alpha·A·(B·x) +
// beta·C0·x, exact in double) and its padding checked unwritten; k not a multiple of the k
// steps; every transpose. With TESSERA_VERBOSE=1 and the automatic choice the log says stream-K
// ran.
template <typename T>
void stream_k_case(tsr_handle h, bool ta, bool tb, int64_t bm, int64_t bn, int sms) {
    const int64_t tiles_n = (3 * int64_t(sms) / 2 + 2) / 3; // 3 × tiles_n ≈ 1.5 waves
    const int64_t m = 3 * bm - 5, n = tiles_n * bn - 3, k = 523, ldc = m + 2;
    const int64_t lda = ta ? k : m, ldb = tb ? n : k;
    SmallInts g{uint32_t(test_rng("/" + std::to_string(int(ta) * 2 + int(tb)))())};
    const ExactOperands<T> ops(g, size_t(lda * (ta ? m : k)), size_t(ldb * (tb ? k : n)), m, n,
                               ldc);
    const std::vector<T> &a = ops.a, &b = ops.b, &c0 = ops.c0;
    auto opa = [&](int64_t i, int64_t l) {
        return double(ta ? a[size_t(l + i * lda)] : a[size_t(i + l * lda)]);
    };
    auto opb = [&](int64_t l, int64_t j) {
        return double(tb ? b[size_t(j + l * ldb)] : b[size_t(l + j * ldb)]);
    };
    const T alpha = T(1), beta = T(0.5);
    std::vector<T> c;
    ASSERT_TRUE(ops.run(h, ta ? TSR_OP_T : TSR_OP_N, tb ? TSR_OP_T : TSR_OP_N, m, n, k, alpha, lda,
                        ldb, beta, ldc, c));
    int64_t written = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = m; i < ldc; ++i) written += !std::isnan(c[size_t(i + j * ldc)]);
    EXPECT_EQ(written, 0) << "padding written";
    for (int round = 0; round < 2; ++round) {
        std::vector<double> v(static_cast<size_t>(n)), bv(static_cast<size_t>(k), 0.0);
        for (double &e : v)
            e = double(g.next() + 5) * ((g.x >> 7) & 1 ? 1 : -1); // ±1 .. ±9, never 0
        for (int64_t l = 0; l < k; ++l)
            for (int64_t j = 0; j < n; ++j) bv[size_t(l)] += opb(l, j) * v[size_t(j)];
        int64_t bad = 0;
        for (int64_t i = 0; i < m; ++i) {
            double got = 0, want = 0;
            for (int64_t j = 0; j < n; ++j) {
                got += double(c[size_t(i + j * ldc)]) * v[size_t(j)];
                want += double(beta) * double(c0[size_t(i + j * ldc)]) * v[size_t(j)];
            }
            for (int64_t l = 0; l < k; ++l) want += double(alpha) * opa(i, l) * bv[size_t(l)];
            if (got != want && bad++ < 5)
                ADD_FAILURE() << "row " << i << ": C·x = " << got << ", want " << want;
        }
        EXPECT_EQ(bad, 0) << "rows of C wrong, " << (ta ? 'T' : 'N') << (tb ? 'T' : 'N')
                          << " m=" << m << " n=" << n;
    }
}

TEST(CudaStreamK, CutTilesSummedOnce) {
    TSR_REQUIRE_CUDA();
    if (std::getenv("TESSERA_CUDA_SGEMM") || std::getenv("TESSERA_CUDA_DGEMM") ||
        std::getenv("TESSERA_CUDA_MATH") || std::getenv("TESSERA_CUDA_SPLITK"))
        GTEST_SKIP() << "stream-K is checked with the automatic kernels";
    if (!rules_choose_kernels())
        GTEST_SKIP() << "stream-K is checked with the rules (TESSERA_CUDA_TUNING=off)";
    int dev = 0, sms = 0;
    ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), cudaSuccess);
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    const bool verbose = env_is("TESSERA_VERBOSE", "1");
    if (verbose) ::testing::internal::CaptureStderr();
    for (bool ta : {false, true})
        for (bool tb : {false, true}) {
            stream_k_case<float>(h, ta, tb, 256, 128, sms);
            stream_k_case<double>(h, ta, tb, 128, 128, sms);
        }
    tsr_destroy(h);
    if (!verbose) return;
    const std::string log = ::testing::internal::GetCapturedStderr();
    const bool off = env_is("TESSERA_CUDA_STREAMK", "off");
    for (const char *kernel : {"simt-f32-256x128, stream-K", "dmma-f64-128x128, stream-K"})
        EXPECT_EQ(log.find(kernel) != std::string::npos, !off) << kernel << " in:\n" << log;
}

// DGEMM with a short k and a large C, which keeps the rules' dmma 128×128 whatever the tuning
// table would pick (cuda/kernels.cu, dgemm_short_k), and just past that k: ragged last tiles in
// m and n (1500×1501; 2049×1030, one row and six columns past whole tiles, no fringe split;
// 4001×2999), k from 1 to the limit and one past it, every transpose, beta 0 (C poisoned with
// NaN, so that reading it shows) and beta != 0 (the epilogue's batched loads of C), leading
// dimensions padded so that A, B and C take the 16-byte and the element copies, C's padding
// poisoned and checked unwritten. Device operands of small integers (every sum exact); C checked
// against the reference through C·v and uᵀ·C for random v and u (exact in double). With
// TESSERA_VERBOSE=1 (CTest: cuda_dgemm_short_k) and the automatic kernels the log must name
// dmma 128×128 without the table for every product up to that k, on its persistent grid unless
// TESSERA_CUDA_PERSISTENT=off (cuda_dgemm_persistent_off).
TEST(CudaGemmShortK, DgemmKeepsTheRules) {
    TSR_REQUIRE_CUDA();
    int dev = 0, sms = 0;
    ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), cudaSuccess);
    int major = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), cudaSuccess);
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    const bool check_log = env_is("TESSERA_VERBOSE", "1") && !std::getenv("TESSERA_CUDA_DGEMM");
    if (check_log) ::testing::internal::CaptureStderr();
    std::vector<std::string> on_rules; // the products the log must name with the rules' kernel
    const int64_t K = cuda::kDgemmShortK;
    int round = 0;
    for (Shape s : {Shape{1500, 1501, 0}, Shape{2049, 1030, 0}, Shape{4001, 2999, 0}})
        for (int64_t k : {int64_t(1), int64_t(13), int64_t(64), K, K + 1})
            for (int ops = 0; ops < 4; ++ops) {
                const bool ta = ops & 1, tb = ops & 2;
                const int64_t m = s.m, n = s.n, pad = round % 4;
                const double beta = round % 2 ? -0.5 : 0.0, alpha = round % 3 ? 1.0 : -2.0;
                ++round;
                const int64_t lda = (ta ? k : m) + pad, ldb = (tb ? n : k) + (pad + 1) % 4;
                const int64_t ldc = m + 1 + (round % 2); // one or two poisoned rows
                SmallInts g{uint32_t(test_rng("/" + std::to_string(round))())};
                ExactOperands<double> x(g, size_t(lda * (ta ? m : k)), size_t(ldb * (tb ? k : n)),
                                        m, n, ldc);
                if (beta == 0)
                    for (double &e : x.c0) e = std::numeric_limits<double>::quiet_NaN();
                const std::vector<double> &a = x.a, &b = x.b, &c0 = x.c0;
                std::vector<double> c;
                ASSERT_TRUE(x.run(h, ta ? TSR_OP_T : TSR_OP_N, tb ? TSR_OP_T : TSR_OP_N, m, n, k,
                                  alpha, lda, ldb, beta, ldc, c));
                const std::string name = std::string(ta ? "T" : "N") + (tb ? "T" : "N") +
                                         " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                         " k=" + std::to_string(k);
                if ((m + 127) / 128 * ((n + 127) / 128) >= sms && k <= K && major >= 8)
                    on_rules.push_back(name);
                auto opa = [&](int64_t i, int64_t l) {
                    return ta ? a[size_t(l + i * lda)] : a[size_t(i + l * lda)];
                };
                auto opb = [&](int64_t l, int64_t j) {
                    return tb ? b[size_t(j + l * ldb)] : b[size_t(l + j * ldb)];
                };
                auto old = [&](int64_t i, int64_t j) {
                    return beta == 0 ? 0.0 : beta * c0[size_t(i + j * ldc)];
                };
                int64_t written = 0, bad = 0;
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = m; i < ldc; ++i)
                        written += !std::isnan(c[size_t(i + j * ldc)]);
                EXPECT_EQ(written, 0) << "padding written, " << name;
                auto weights = [&](int64_t count) {
                    std::vector<double> w(static_cast<size_t>(count));
                    for (double &e : w) e = double(g.next() + 5) * ((g.x >> 7) & 1 ? 1 : -1);
                    return w;
                };
                // Rows: C·v against alpha·op(A)·(op(B)·v) + beta·C0·v.
                const std::vector<double> v = weights(n);
                std::vector<double> bv(static_cast<size_t>(k), 0.0);
                for (int64_t l = 0; l < k; ++l)
                    for (int64_t j = 0; j < n; ++j) bv[size_t(l)] += opb(l, j) * v[size_t(j)];
                for (int64_t i = 0; i < m; ++i) {
                    double got = 0, want = 0;
                    for (int64_t j = 0; j < n; ++j) {
                        got += c[size_t(i + j * ldc)] * v[size_t(j)];
                        want += old(i, j) * v[size_t(j)];
                    }
                    for (int64_t l = 0; l < k; ++l) want += alpha * opa(i, l) * bv[size_t(l)];
                    if (got != want && bad++ < 3)
                        ADD_FAILURE()
                            << name << ": row " << i << ": C·v = " << got << ", want " << want;
                }
                // Columns: uᵀ·C against alpha·(uᵀ·op(A))·op(B) + beta·uᵀ·C0.
                const std::vector<double> u = weights(m);
                std::vector<double> ua(static_cast<size_t>(k), 0.0);
                for (int64_t l = 0; l < k; ++l)
                    for (int64_t i = 0; i < m; ++i) ua[size_t(l)] += u[size_t(i)] * opa(i, l);
                for (int64_t j = 0; j < n; ++j) {
                    double got = 0, want = 0;
                    for (int64_t i = 0; i < m; ++i) {
                        got += u[size_t(i)] * c[size_t(i + j * ldc)];
                        want += u[size_t(i)] * old(i, j);
                    }
                    for (int64_t l = 0; l < k; ++l) want += alpha * ua[size_t(l)] * opb(l, j);
                    if (got != want && bad++ < 6)
                        ADD_FAILURE()
                            << name << ": column " << j << ": uᵀ·C = " << got << ", want " << want;
                }
                EXPECT_EQ(bad, 0) << "rows or columns of C wrong, " << name << " beta " << beta;
            }
    tsr_destroy(h);
    if (!check_log) return;
    const std::string log = ::testing::internal::GetCapturedStderr();
    // They run on the persistent grid unless it is turned off (dgemm_persistent).
    const std::string kernel = env_is("TESSERA_CUDA_PERSISTENT", "off")
                                   ? "dmma-f64-128x128 for dgemm "
                                   : "dmma-f64-128x128, persistent for dgemm ";
    for (const std::string &p : on_rules)
        EXPECT_NE(log.find(kernel + p + "\n"), std::string::npos) << p << " in:\n" << log;
}

// Thin DGEMM (dgemm_thin: m or n at most 32, or at most 64 with the longer side times k at least
// kDgemmThin64Work), which keeps the rules' thin dmma tiles whatever the tuning table would
// pick: 128x32 (n the shorter side, at most 32), 32x128 (m), 128x64 and 64x128 (the shorter
// side 33 to 64) (cuda/kernels.cu), split-K over one wave of
// blocks where k is deep: long sides ragged against the 128-wide tile, thin sides of 1 to 64
// (either side of 32 and of 64's tile edge), k from 16 to beyond a few slices
// (partial last k tiles, slices of whole 64-deep steps), every transpose, beta 0 (C poisoned
// with NaN) and beta != 0, leading dimensions padded so that A, B and C take the 16-byte and
// the element copies, C's padding poisoned and checked unwritten. Device operands of small
// integers (every sum exact), every element checked. With TESSERA_VERBOSE=1 (CTest:
// cuda_dgemm_thin) and the automatic kernels the log names the thin tile, without the table.
TEST(CudaGemmThin, DgemmRunsTheThinTiles) {
    TSR_REQUIRE_CUDA();
    int major = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    const bool check_log = env_is("TESSERA_VERBOSE", "1") && !std::getenv("TESSERA_CUDA_DGEMM") &&
                           !std::getenv("TESSERA_CUDA_SPLITK") && major >= 8;
    if (check_log) ::testing::internal::CaptureStderr();
    std::vector<std::pair<std::string, std::string>> expected; // product, kernel in the log
    const int64_t side = cuda::kDgemmThin32Side, wide = cuda::kDgemmThinSide;
    int round = 0;
    for (Shape s : {Shape{3000, 17, 2000}, Shape{129, side, 700}, Shape{1000, 1, 257},
                    Shape{31, 2500, 1500}, Shape{1, 300, 4000}, Shape{20, 28, 3000},
                    Shape{side, side, 16}, Shape{5000, 9, 1027}, Shape{2000, side + 1, 1500},
                    Shape{400, wide, 3000}, Shape{wide - 1, 1900, 700}, Shape{side + 1, 430, 2600},
                    Shape{40, 36, 30000}, Shape{wide, wide, 17000}, Shape{45, 300, 200}})
        for (int ops = 0; ops < 4; ++ops) {
            const bool ta = ops & 1, tb = ops & 2;
            const int64_t m = s.m, n = s.n, k = s.k, pad = round % 4;
            const double beta = round % 2 ? -0.5 : 0.0, alpha = round % 3 ? 1.0 : -2.0;
            ++round;
            const int64_t lda = (ta ? k : m) + pad, ldb = (tb ? n : k) + (pad + 1) % 4;
            const int64_t ldc = m + 1 + (round % 2); // one or two poisoned rows
            SmallInts g{uint32_t(test_rng("/thin" + std::to_string(round))())};
            ExactOperands<double> x(g, size_t(lda * (ta ? m : k)), size_t(ldb * (tb ? k : n)), m, n,
                                    ldc);
            if (beta == 0)
                for (double &e : x.c0) e = std::numeric_limits<double>::quiet_NaN();
            std::vector<double> c;
            ASSERT_TRUE(x.run(h, ta ? TSR_OP_T : TSR_OP_N, tb ? TSR_OP_T : TSR_OP_N, m, n, k, alpha,
                              lda, ldb, beta, ldc, c));
            const std::string name = std::string(ta ? "T" : "N") + (tb ? "T" : "N") +
                                     " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                     " k=" + std::to_string(k);
            const bool narrow = std::min(m, n) <= side;
            const bool thin = narrow || std::max(m, n) * k >= cuda::kDgemmThin64Work;
            expected.emplace_back(name, !thin ? "" // a small product: the table's or the rules'
                                        : n <= m
                                            ? (narrow ? "dmma-f64-128x32" : "dmma-f64-128x64")
                                            : (narrow ? "dmma-f64-32x128" : "dmma-f64-64x128"));
            int64_t bad = 0;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < ldc; ++i) {
                    const double got = c[size_t(i + j * ldc)];
                    if (i >= m) { // padding: still the poison
                        if (!std::isnan(got) && bad++ < 3)
                            ADD_FAILURE() << name << ": padding C(" << i << "," << j << ") written";
                        continue;
                    }
                    double want = beta == 0 ? 0.0 : beta * x.c0[size_t(i + j * ldc)];
                    for (int64_t l = 0; l < k; ++l)
                        want += alpha * (ta ? x.a[size_t(l + i * lda)] : x.a[size_t(i + l * lda)]) *
                                (tb ? x.b[size_t(j + l * ldb)] : x.b[size_t(l + j * ldb)]);
                    if (got != want && bad++ < 3)
                        ADD_FAILURE() << name << ": C(" << i << "," << j << ") = " << got
                                      << ", want " << want;
                }
            EXPECT_EQ(bad, 0) << "wrong or written elements, " << name << " beta " << beta;
        }
    tsr_destroy(h);
    if (!check_log) return;
    const std::string log = ::testing::internal::GetCapturedStderr();
    for (const auto &[product, kernel] : expected) {
        const size_t at = log.find("for dgemm " + product + (kernel.empty() ? "" : "\n"));
        EXPECT_NE(at, std::string::npos) << product << " in:\n" << log;
        if (at == std::string::npos) continue;
        const size_t line = log.rfind("tessera: cuda kernel ", at);
        if (kernel.empty()) { // not the thin rule's: a thin tile only where the table chose it
            const size_t end = log.find('\n', at);
            const std::string text = log.substr(line, end - line);
            if (text.find("(tuning table") != std::string::npos) continue;
            for (const char *tile : {"f64-128x32", "f64-32x128", "f64-128x64", "f64-64x128"})
                EXPECT_EQ(text.find(tile), std::string::npos) << product << ": " << text;
            continue;
        }
        EXPECT_EQ(log.compare(line, 21 + kernel.size(), "tessera: cuda kernel " + kernel), 0)
            << product << ": want " << kernel << " in:\n"
            << log;
    }
}

} // namespace
} // namespace tessera::test
