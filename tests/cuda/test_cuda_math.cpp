// SGEMM under each TESSERA_CUDA_MATH mode (fp32, and the opt-in tf32 and tf32x3; the plugin
// reads it once, so CTest runs this file once per mode) against the float64 oracle with that
// mode's error bound, and the kernel that TESSERA_CUDA_SGEMM / _DGEMM / _MATH chose in the log.
#include <gtest/gtest.h>
#include <strings.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_support.hpp"
#include "gemm_tiles.hpp"

namespace tessera::test {
namespace {

enum class Math { fp32, tf32, tf32x3 };

Math math_mode() {
    if (env_is("TESSERA_CUDA_MATH", "tf32")) return Math::tf32;
    if (env_is("TESSERA_CUDA_MATH", "tf32x3")) return Math::tf32x3;
    return Math::fp32;
}

const char *math_name(Math m) {
    return m == Math::tf32 ? "tf32" : m == Math::tf32x3 ? "tf32x3" : "fp32";
}

// |C − C_ref| ≤ product·|α|·(|A||B|) + scale·|β|·|C₀| element by element, hence also in the
// Frobenius norm. docs/accuracy.md derives the constants:
//   fp32   2(k+2)·2^-24 for both terms (the bound of every classical gemm test)
//   tf32   2^-10 + 2^-20 (inputs rounded to TF32, u = 2^-11) + (k+2)·2^-22 (sums in the tensor
//          core, which may truncate); 2^-21 for the beta term
//   tf32x3 2^-16 (dropped lo·lo terms 3·2^-22, one k tile's sum in the tensor core) +
//          (k+2)·2^-27 (the FP32 sum of the tiles); 2^-21 for the beta term
struct Bound {
    double product, scale;
};

Bound bound_of(Math m, int64_t k) {
    const double k2 = double(k + 2);
    switch (m) {
    case Math::tf32:
        return {std::ldexp(1.0, -10) + std::ldexp(1.0, -20) + k2 * std::ldexp(1.0, -22),
                std::ldexp(1.0, -21)};
    case Math::tf32x3:
        return {std::ldexp(1.0, -16) + k2 * std::ldexp(1.0, -27), std::ldexp(1.0, -21)};
    case Math::fp32: break;
    }
    return {2.0 * k2 * std::ldexp(1.0, -24), 2.0 * k2 * std::ldexp(1.0, -24)};
}

// Checks C against the float64 oracle from A, B and C0 (the poison the library must not read
// already replaced by zeros): padding untouched, NaN exactly where the oracle has NaN, every
// element within the bound, and the normwise error within the normwise bound.
::testing::AssertionResult check_bound(const GemmCase &c, const Matrix<float> &A,
                                       const Matrix<float> &B, const Matrix<float> &C0,
                                       const Matrix<float> &C, Bound b) {
    for (size_t idx = 0; idx < C.data.size(); ++idx)
        if (C.is_padding(idx) && std::memcmp(&C.data[idx], &C0.data[idx], sizeof(float)) != 0)
            return ::testing::AssertionFailure()
                   << "padding element " << idx << " of C was written; " << describe(c);
    const bool product = c.k > 0 && c.alpha != 0;
    double err2 = 0, mag2 = 0, cmag2 = 0, worst = 0;
    int reported = 0;
    ::testing::AssertionResult result = ::testing::AssertionSuccess();
    auto fail = [&]() -> ::testing::AssertionResult & {
        if (result) result = ::testing::AssertionFailure() << describe(c);
        return result;
    };
    for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = 0; i < c.m; ++i) {
            double sum = 0, abs_sum = 0;
            if (product)
                for (int64_t l = 0; l < c.k; ++l) {
                    const double p = double(op_at(A, c.ta, i, l)) * double(op_at(B, c.tb, l, j));
                    sum += p;
                    abs_sum += std::fabs(p);
                }
            const double c0 = c.beta != 0 ? double(C0.at(i, j)) : 0.0;
            const double want = c.alpha * sum + c.beta * c0;
            const double mag = std::fabs(c.alpha) * abs_sum,
                         cmag = std::fabs(c.beta) * std::fabs(c0);
            const double got = C.at(i, j), bound = b.product * mag + b.scale * cmag;
            const bool ok = std::isnan(want) ? std::isnan(got)
                                             : (!std::isnan(got) && std::fabs(got - want) <= bound);
            if (!ok && reported++ < 5)
                fail() << "\n  C(" << i << "," << j << ") = " << got << ", oracle " << want
                       << ", bound " << bound;
            if (std::isfinite(want) && std::isfinite(got)) {
                const double e = got - want;
                err2 += e * e, mag2 += mag * mag, cmag2 += cmag * cmag;
                if (bound > 0) worst = std::max(worst, std::fabs(e) / bound);
            }
        }
    if (reported > 5) fail() << "\n  ... " << reported << " elements out of bound";
    const double norm_bound = b.product * std::sqrt(mag2) + b.scale * std::sqrt(cmag2);
    if (std::sqrt(err2) > norm_bound)
        fail() << "\n  normwise error " << std::sqrt(err2) << " > bound " << norm_bound;
    if (!result)
        result << "\n  (worst element at " << worst << " of its bound; mode "
               << math_name(math_mode()) << ")";
    return result;
}

// The operands of `c` (padding NaN in A and B, -7.25 in C; A and B all NaN when alpha == 0 and C
// NaN when beta == 0, since they must not be read), and copies for the oracle with that poison
// zeroed.
struct Operands {
    Matrix<float> A, B, C, A0, B0, C0;
};

Operands operands(const GemmCase &c, int64_t pad) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const bool an = c.ta == TSR_OP_N, bn = c.tb == TSR_OP_N;
    Operands o;
    o.A = random_matrix<float>(an ? c.m : c.k, an ? c.k : c.m, c.layout, pad, nan);
    o.B = random_matrix<float>(bn ? c.k : c.n, bn ? c.n : c.k, c.layout, pad, nan);
    o.C = random_matrix<float>(c.m, c.n, c.layout, pad, -7.25f);
    o.A0 = o.A, o.B0 = o.B, o.C0 = o.C;
    if (c.alpha == 0) {
        std::fill(o.A.data.begin(), o.A.data.end(), nan);
        std::fill(o.B.data.begin(), o.B.data.end(), nan);
    }
    if (c.beta == 0)
        for (size_t i = 0; i < o.C.data.size(); ++i)
            if (!o.C.is_padding(i)) o.C.data[i] = nan, o.C0.data[i] = 0.0f;
    return o;
}

class CudaMath : public ::testing::Test {
protected:
    void SetUp() override {
        TSR_REQUIRE_CUDA();
        ASSERT_EQ(tsr_create(&handle_), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(handle_, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    }
    void TearDown() override {
        if (handle_) tsr_destroy(handle_);
    }

    // Host operands (staged by the library into tight device copies).
    ::testing::AssertionResult host_case(const GemmCase &c, int64_t pad) {
        Operands o = operands(c, pad);
        if (tsr_status s = run_gemm(handle_, c, o.A, o.B, o.C); s != TSR_SUCCESS)
            return ::testing::AssertionFailure()
                   << tsr_status_string(s) << ": " << tsr_last_error() << "; " << describe(c);
        return check_bound(c, o.A0, o.B0, o.C0, o.C, bound_of(math_mode(), c.k));
    }

    // Device operands in place, their leading dimensions as given, each matrix `shift`
    // elements past a 256-byte boundary (1: not 16-byte aligned, so no vector copies).
    ::testing::AssertionResult device_case(const GemmCase &c, int64_t pad, int shift) {
        Operands o = operands(c, pad);
        auto shifted = [&](const Matrix<float> &x) {
            std::vector<float> v(size_t(shift), 0.0f);
            v.insert(v.end(), x.data.begin(), x.data.end());
            return v;
        };
        DeviceArray<float> dA(shifted(o.A)), dB(shifted(o.B)), dC(shifted(o.C));
        tsr_status s =
            tsr_sgemm(handle_, c.layout, c.ta, c.tb, c.m, c.n, c.k, float(c.alpha), dA.ptr + shift,
                      o.A.ld, dB.ptr + shift, o.B.ld, float(c.beta), dC.ptr + shift, o.C.ld);
        if (s != TSR_SUCCESS)
            return ::testing::AssertionFailure()
                   << tsr_status_string(s) << ": " << tsr_last_error() << "; " << describe(c);
        if (cudaDeviceSynchronize() != cudaSuccess)
            return ::testing::AssertionFailure() << "device error; " << describe(c);
        std::vector<float> back(dC.count);
        dC.to_host(back);
        Matrix<float> C = o.C;
        std::copy(back.begin() + shift, back.end(), C.data.begin());
        return check_bound(c, o.A0, o.B0, o.C0, C, bound_of(math_mode(), c.k));
    }

    tsr_handle handle_ = nullptr;
};

const std::pair<double, double> kScalars[] = {{1, 0},     {0.37, -0.61}, {-1, 1},
                                              {0, -0.61}, {2.5, 0},      {0, 0}};

// Every m, n, k of {1, 7, 33, 129, 257} (edges of the 16×8 fragments, the 128 tiles and the
// 16- and 32-deep k steps), all four transposes, both layouts in turn, alpha/beta in turn.
TEST_F(CudaMath, EdgesEveryTranspose) {
    const int64_t sizes[] = {1, 7, 33, 129, 257};
    int turn = 0;
    for (int64_t m : sizes)
        for (int64_t n : sizes)
            for (int64_t k : sizes)
                for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
                    for (tsr_op tb : {TSR_OP_N, TSR_OP_T}) {
                        const auto [alpha, beta] = kScalars[turn % 6];
                        const tsr_layout layout = (turn / 6) % 2 ? TSR_ROW_MAJOR : TSR_COL_MAJOR;
                        GemmCase c{layout, ta, tb, m, n, k, alpha, beta};
                        ASSERT_TRUE(host_case(c, turn % 3)) << "pad " << turn % 3;
                        ++turn;
                    }
}

// Device pointers with leading dimensions beyond the rows and bases off 16 bytes: the 16-byte
// copies (along m and along k) and their element-by-element fallbacks at every edge.
TEST_F(CudaMath, DeviceOperandsAlignedAndNot) {
    struct Shape {
        int64_t m, n, k;
    };
    int turn = 0;
    for (Shape s : {Shape{128, 128, 64}, Shape{130, 67, 45}, Shape{256, 260, 100},
                    Shape{33, 129, 257}, Shape{5, 3, 1}})
        for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
            for (tsr_op tb : {TSR_OP_N, TSR_OP_T})
                for (int64_t pad : {0, 1, 4})
                    for (int shift : {0, 1}) {
                        const auto [alpha, beta] = kScalars[turn % 6];
                        GemmCase c{turn % 2 ? TSR_ROW_MAJOR : TSR_COL_MAJOR,
                                   ta,
                                   tb,
                                   s.m,
                                   s.n,
                                   s.k,
                                   alpha,
                                   beta};
                        ASSERT_TRUE(device_case(c, pad, shift))
                            << "pad " << pad << " shift " << shift;
                        ++turn;
                    }
}

// Products with many k tiles (the per-tile sums of 3xTF32 added up hundreds of times), square
// ones large enough for a full grid, and tall, wide and deep ones (the oracle runs on one core:
// about 10^9 multiply-adds in all).
TEST_F(CudaMath, LargeAndDeep) {
    const GemmCase cases[] = {
        {TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 512, 512, 512, 1.0, 0.5},
        {TSR_COL_MAJOR, TSR_OP_T, TSR_OP_T, 384, 640, 1024, -0.5, 0.0},
        {TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 300, 400, 3000, 1.0, 0.0},
        {TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_T, 2049, 130, 513, 0.25, 2.0},
        {TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 4, 4, 20000, 1.0, 1.0},
        {TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 3000, 2, 300, 1.0, 0.0},
    };
    for (const GemmCase &c : cases) ASSERT_TRUE(host_case(c, 1));
}

// A NaN in A makes its row of C NaN; an Inf in B makes its column ±Inf (or NaN: in tf32x3 the
// split Inf − Inf is NaN); the other entries stay finite.
TEST_F(CudaMath, NanInfPropagate) {
    const int64_t n = 70;
    auto A = random_matrix<float>(n, n, TSR_COL_MAJOR, 0, 0.0f);
    auto B = random_matrix<float>(n, n, TSR_COL_MAJOR, 0, 0.0f);
    auto C = random_matrix<float>(n, n, TSR_COL_MAJOR, 0, 0.0f);
    A.at(5, 3) = std::numeric_limits<float>::quiet_NaN();
    B.at(2, 9) = std::numeric_limits<float>::infinity();
    GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, n, n, n, 1.0, 0.0};
    ASSERT_EQ(run_gemm(handle_, c, A, B, C), TSR_SUCCESS);
    for (int64_t j = 0; j < n; ++j) EXPECT_TRUE(std::isnan(C.at(5, j))) << j;
    for (int64_t i = 0; i < n; ++i)
        if (i != 5) EXPECT_TRUE(std::isinf(C.at(i, 9)) || std::isnan(C.at(i, 9))) << i;
    EXPECT_TRUE(std::isfinite(C.at(7, 7)));
}

// Where the device has no memory left for the wgmma path's panels (TF32 modes on compute
// capability 9.0), the product still runs, on the mma.sync kernel, within the mode's bound.
TEST_F(CudaMath, PanelsWithoutMemoryFallBack) {
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    if (math_mode() == Math::fp32 || prop.major != 9 || prop.minor != 0 ||
        env_is("TESSERA_CUDA_WGMMA", "off"))
        GTEST_SKIP() << "the wgmma path runs only for the TF32 modes on compute capability 9.0";
    // 64×64 with k = 65536: 32 MiB of operands, and panels of 96 MiB (tf32) or 128 MiB (tf32x3).
    const GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 64, 64, 65536, 1.0, 0.5};
    Operands o = operands(c, 0);
    DeviceArray<float> dA(o.A.data), dB(o.B.data), dC(o.C.data);
    std::vector<void *> hog;
    for (size_t chunk = size_t(1) << 30; chunk >= (size_t(1) << 20);) {
        size_t free = 0, total = 0;
        ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
        if (free < (size_t(48) << 20)) break;
        void *p = nullptr;
        if (cudaMalloc(&p, chunk) == cudaSuccess) hog.push_back(p);
        else (void)cudaGetLastError(), chunk /= 2;
    }
    ::testing::internal::CaptureStderr();
    const tsr_status s = tsr_sgemm(handle_, c.layout, c.ta, c.tb, c.m, c.n, c.k, float(c.alpha),
                                   dA.ptr, o.A.ld, dB.ptr, o.B.ld, float(c.beta), dC.ptr, o.C.ld);
    const std::string why = tsr_last_error();
    const cudaError_t sync = cudaDeviceSynchronize();
    const std::string log = ::testing::internal::GetCapturedStderr();
    for (void *p : hog) cudaFree(p);
    ASSERT_EQ(s, TSR_SUCCESS) << why;
    ASSERT_EQ(sync, cudaSuccess);
    std::vector<float> back(dC.count);
    dC.to_host(back);
    Matrix<float> C = o.C;
    std::copy(back.begin(), back.end(), C.data.begin());
    EXPECT_TRUE(check_bound(c, o.A0, o.B0, o.C0, C, bound_of(math_mode(), c.k)));
    if (env_is("TESSERA_VERBOSE", "1")) {
        const char *mma = math_mode() == Math::tf32 ? "tf32-f32-128x128" : "tf32x3-f32-128x128";
        EXPECT_NE(log.find(std::string("tessera: cuda kernel ") + mma), std::string::npos) << log;
    }
}

// The mode in effect, from its arithmetic: a = 1 + 2^-13 + 2^-20 times 1, summed 8 times. TF32
// rounds a to 1 (C = 8); 3xTF32 keeps 2^-13 + 2^-20 in the low part, and FP32 keeps a (C = 8a,
// exact in both).
TEST_F(CudaMath, ModeInEffect) {
    const float a = 1.0f + std::ldexp(1.0f, -13) + std::ldexp(1.0f, -20);
    const int64_t m = 20, n = 12, k = 8;
    for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
        for (tsr_op tb : {TSR_OP_N, TSR_OP_T}) {
            Matrix<float> A = random_matrix<float>(ta == TSR_OP_N ? m : k, ta == TSR_OP_N ? k : m,
                                                   TSR_COL_MAJOR, 0, 0.0f);
            Matrix<float> B = random_matrix<float>(tb == TSR_OP_N ? k : n, tb == TSR_OP_N ? n : k,
                                                   TSR_COL_MAJOR, 0, 0.0f);
            Matrix<float> C = random_matrix<float>(m, n, TSR_COL_MAJOR, 0, 0.0f);
            std::fill(A.data.begin(), A.data.end(), a);
            std::fill(B.data.begin(), B.data.end(), 1.0f);
            GemmCase c{TSR_COL_MAJOR, ta, tb, m, n, k, 1.0, 0.0};
            ASSERT_EQ(run_gemm(handle_, c, A, B, C), TSR_SUCCESS) << tsr_last_error();
            const float want = math_mode() == Math::tf32 ? 8.0f : 8.0f * a;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i)
                    ASSERT_EQ(C.at(i, j), want) << "mode " << math_name(math_mode()) << " C(" << i
                                                << "," << j << ") " << describe(c);
        }
}

// The kernel the environment asked for, named in the verbose log (TESSERA_VERBOSE=1; the
// CTest entries of each variant set it): one sgemm and one dgemm large enough for big tiles.
TEST_F(CudaMath, KernelInLog) {
    if (!env_is("TESSERA_VERBOSE", "1")) GTEST_SKIP() << "needs TESSERA_VERBOSE=1";
    std::string sgemm = "simt-f32-";
    // The TF32 modes run on wgmma on devices of compute capability 9.0 unless turned off.
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    const bool wgmma = prop.major == 9 && prop.minor == 0 && !env_is("TESSERA_CUDA_WGMMA", "off");
    if (math_mode() == Math::tf32) sgemm = wgmma ? "tf32-wgmma-128x256" : "tf32-f32-128x128";
    else if (math_mode() == Math::tf32x3)
        sgemm = wgmma ? "tf32x3-wgmma-128x128" : "tf32x3-f32-128x128";
    else
        for (const cuda::SimtTile &tile : cuda::kSgemmTiles)
            if (env_is("TESSERA_CUDA_SGEMM", tile.name)) sgemm += tile.name;
    std::string dgemm = "dmma-f64-";
    if (env_is("TESSERA_CUDA_DGEMM", "simt")) dgemm = "simt-f64-64x64";
    else
        for (const char *tile : {"128x128", "64x64", "128x32", "32x128", "128x64", "64x128"})
            if (env_is("TESSERA_CUDA_DGEMM", tile)) dgemm += tile;
    // auto: k = 8 is short and the tiles are many: the rules' 128x128, which a tuning table does
    // not override there (dgemm_short_k)
    if (dgemm == "dmma-f64-") dgemm += "128x128";

    const int64_t n = 2048; // 256 tiles of 128×128, more than any device's multiprocessors: auto
                            // picks large tiles
    std::vector<float> hs(size_t(n) * 8, 0.5f);
    std::vector<double> hd(size_t(n) * 8, 0.5);
    DeviceArray<float> sa(hs), sb(hs);
    DeviceArray<double> da(hd), db(hd);
    std::vector<float> hsc(size_t(n) * n);
    std::vector<double> hdc(size_t(n) * n);
    DeviceArray<float> sc(hsc);
    DeviceArray<double> dc(hdc);
    ::testing::internal::CaptureStderr();
    ASSERT_EQ(tsr_sgemm(handle_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, n, n, 8, 1.0f, sa.ptr, n,
                        sb.ptr, n, 0.0f, sc.ptr, n),
              TSR_SUCCESS);
    ASSERT_EQ(tsr_dgemm(handle_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, n, n, 8, 1.0, da.ptr, n, db.ptr,
                        n, 0.0, dc.ptr, n),
              TSR_SUCCESS);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("tessera: cuda kernel " + sgemm), std::string::npos)
        << "want " << sgemm << " in:\n"
        << log;
    EXPECT_NE(log.find("tessera: cuda kernel " + dgemm), std::string::npos)
        << "want " << dgemm << " in:\n"
        << log;
    EXPECT_NE(log.find(" for sgemm NT m=2048 n=2048 k=8"), std::string::npos) << log;
}

} // namespace
} // namespace tessera::test
