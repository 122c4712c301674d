// Host and device operands on the CUDA backend: device pointers computed in place on the
// handle's stream, mixed host/device operands, a user stream, and calls from several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "cuda_support.hpp"

namespace tessera::test {
namespace {

class CudaPointers : public ::testing::Test {
protected:
    void SetUp() override {
        TSR_REQUIRE_CUDA();
        ASSERT_EQ(tsr_create(&handle_), TSR_SUCCESS);
        // Under TESSERA_BACKEND=auto the handle stays on auto: device pointers must route to CUDA.
        const char *env = std::getenv("TESSERA_BACKEND");
        if (!env || std::strcmp(env, "auto") != 0)
            ASSERT_EQ(tsr_set_backend(handle_, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    }
    void TearDown() override {
        if (handle_) tsr_destroy(handle_);
    }
    tsr_handle handle_ = nullptr;
};

// Runs `c` with each operand on the device where `on_device` says so (bits A=1, B=2, C=4),
// on the handle's stream, then checks against the oracle.
template <typename T>
::testing::AssertionResult run_placed(tsr_handle h, const GemmCase &c, int on_device, int64_t pad,
                                      cudaStream_t stream = nullptr) {
    const bool an = c.ta == TSR_OP_N, bn = c.tb == TSR_OP_N;
    auto A = random_matrix<T>(an ? c.m : c.k, an ? c.k : c.m, c.layout, pad, T(0));
    auto B = random_matrix<T>(bn ? c.k : c.n, bn ? c.n : c.k, c.layout, pad, T(0));
    auto C = random_matrix<T>(c.m, c.n, c.layout, pad, T(-7));
    auto C0 = C;
    DeviceArray<T> dA(A.data), dB(B.data), dC(C.data);
    const T *pa = on_device & 1 ? dA.ptr : A.data.data();
    const T *pb = on_device & 2 ? dB.ptr : B.data.data();
    T *pc = on_device & 4 ? dC.ptr : C.data.data();
    tsr_status s;
    if constexpr (sizeof(T) == 4)
        s = tsr_sgemm(h, c.layout, c.ta, c.tb, c.m, c.n, c.k, float(c.alpha), pa, A.ld, pb, B.ld,
                      float(c.beta), pc, C.ld);
    else
        s = tsr_dgemm(h, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, pa, A.ld, pb, B.ld, c.beta,
                      pc, C.ld);
    if (s != TSR_SUCCESS)
        return ::testing::AssertionFailure()
               << tsr_status_string(s) << ": " << tsr_last_error() << "; " << describe(c);
    if (cudaStreamSynchronize(stream) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
        return ::testing::AssertionFailure() << "device error after " << describe(c);
    if (on_device & 4) dC.to_host(C.data);
    return check_gemm(c, A, B, C0, C);
}

TEST_F(CudaPointers, DeviceOperandsEveryOpAndLayout) {
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
        for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
            for (tsr_op tb : {TSR_OP_N, TSR_OP_T})
                for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{77, 45, 130},
                                       {300, 257, 96},
                                       {5, 3, 1}}) {
                    GemmCase c{layout, ta, tb, m, n, k, 0.75, -0.5};
                    ASSERT_TRUE(run_placed<float>(handle_, c, 7, 1));
                    ASSERT_TRUE(run_placed<double>(handle_, c, 7, 0));
                }
}

// Operands in pageable host memory of many staging chunks (8 MiB a pinned half), the last one
// part full, with padded leading dimensions: A of 134 MiB sent up, then C of 134 MiB up
// (beta != 0) and back, and a row-major float C of 134 MiB written whole (beta = 0).
TEST_F(CudaPointers, LargePageableOperandsInChunks) {
    GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 4099, 70, 4100, 1.0, 0.5};
    ASSERT_TRUE(run_placed<double>(handle_, c, 0, 2));
    c = {TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 4099, 4100, 16, -1.0, 0.25};
    ASSERT_TRUE(run_placed<double>(handle_, c, 0, 1));
    c = {TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_T, 4101, 8195, 8, 0.5, 0.0};
    ASSERT_TRUE(run_placed<float>(handle_, c, 0, 3));
}

TEST_F(CudaPointers, MixedHostAndDevice) {
    for (int placed = 0; placed < 8; ++placed) {
        GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 131, 67, 45, 1.5, 0.25};
        ASSERT_TRUE(run_placed<float>(handle_, c, placed, 2)) << "placement " << placed;
        ASSERT_TRUE(run_placed<double>(handle_, c, placed, 3)) << "placement " << placed;
    }
}

TEST_F(CudaPointers, ScalingOnlyOnDevice) { // alpha == 0 and k == 0: C = beta·C on the device
    GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 40, 30, 20, 0.0, -2.0};
    ASSERT_TRUE(run_placed<float>(handle_, c, 7, 1));
    c = {TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 40, 30, 0, 1.0, 0.0};
    ASSERT_TRUE(run_placed<double>(handle_, c, 7, 1));
}

// Pageable C with beta != 0 does not go up: the device computes alpha·op(A)·op(B) alone and
// beta is applied on the host as C comes back (staging's beta_on_host). Infinities and NaN in C
// must come out as an epilogue on the device gives them, the padding between C's columns
// untouched, alpha = 0 must still leave A and B unread; pinned C, which goes up, the same.
template <typename T> void beta_on_the_host(tsr_handle h, bool pinned, double alpha) {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const GemmCase c{TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 517, 130, 70, alpha, -0.75};
    auto A = random_matrix<T>(c.k, c.m, c.layout, 3, nan);
    auto B = random_matrix<T>(c.k, c.n, c.layout, 1, nan);
    auto C = random_matrix<T>(c.m, c.n, c.layout, 5, T(-7.25));
    if (alpha == 0)
        std::fill(A.data.begin(), A.data.end(), nan), std::fill(B.data.begin(), B.data.end(), nan);
    C.at(3, 4) = inf, C.at(10, 100) = -inf, C.at(516, 129) = nan;
    const auto C0 = C;
    T *pc = C.data.data();
    if (pinned) ASSERT_EQ(cudaMallocHost(&pc, C.data.size() * sizeof(T)), cudaSuccess);
    std::copy(C.data.begin(), C.data.end(), pc);
    tsr_status st;
    if constexpr (sizeof(T) == 4)
        st = tsr_sgemm(h, c.layout, c.ta, c.tb, c.m, c.n, c.k, float(c.alpha), A.data.data(), A.ld,
                       B.data.data(), B.ld, float(c.beta), pc, C.ld);
    else
        st = tsr_dgemm(h, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, A.data.data(), A.ld,
                       B.data.data(), B.ld, c.beta, pc, C.ld);
    if (pinned) std::copy(pc, pc + C.data.size(), C.data.begin()), cudaFreeHost(pc);
    ASSERT_EQ(st, TSR_SUCCESS) << tsr_last_error() << "; " << describe(c);
    EXPECT_EQ(C.at(3, 4), -inf) << describe(c); // beta < 0 turns the signs over
    EXPECT_EQ(C.at(10, 100), inf) << describe(c);
    EXPECT_TRUE(std::isnan(C.at(516, 129))) << describe(c);
    // The checked copies: the infinities as NaN on both sides (the oracle's NaN rule), A and B
    // as the zeros they count as when alpha = 0.
    auto C0c = C0, Cc = C;
    C0c.at(3, 4) = C0c.at(10, 100) = Cc.at(3, 4) = Cc.at(10, 100) = nan;
    if (alpha == 0)
        std::fill(A.data.begin(), A.data.end(), T(0)),
            std::fill(B.data.begin(), B.data.end(), T(0));
    EXPECT_TRUE(check_gemm(c, A, B, C0c, Cc)) << (pinned ? "pinned C" : "pageable C");
}

TEST_F(CudaPointers, BetaAppliedToPageableCOnTheHost) {
    for (bool pinned : {false, true})
        for (double alpha : {1.25, 0.0}) {
            beta_on_the_host<float>(handle_, pinned, alpha);
            beta_on_the_host<double>(handle_, pinned, alpha);
        }
}

TEST_F(CudaPointers, UserStream) {
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(tsr_set_cuda_stream(handle_, stream), TSR_SUCCESS) << tsr_last_error();
    for (int placed : {7, 0, 3}) {
        GemmCase c{TSR_ROW_MAJOR, TSR_OP_T, TSR_OP_N, 200, 150, 99, -1.0, 1.0};
        ASSERT_TRUE(run_placed<float>(handle_, c, placed, 0, stream));
        ASSERT_TRUE(run_placed<double>(handle_, c, placed, 1, stream));
    }
    ASSERT_EQ(tsr_set_cuda_stream(handle_, nullptr), TSR_SUCCESS);
    cudaStreamDestroy(stream);
}

TEST_F(CudaPointers, ManyHostThreadsOneHandle) {
    std::vector<std::thread> threads;
    std::vector<int> failures(6, 0);
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&, t] {
            for (int rep = 0; rep < 4; ++rep) {
                GemmCase c{TSR_COL_MAJOR, t % 2 ? TSR_OP_T : TSR_OP_N,
                           TSR_OP_N,      150 + t,
                           140 + rep,     130,
                           1.0,           0.5};
                const int placed = (t + rep) % 3 == 0 ? 7 : 0;
                if (!(t % 3 ? run_placed<float>(handle_, c, placed, 1)
                            : run_placed<double>(handle_, c, placed, 1)))
                    ++failures[t];
            }
        });
    for (auto &th : threads) th.join();
    for (int t = 0; t < 6; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST_F(CudaPointers, ThreadsWithOwnHandles) {
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            tsr_handle h = nullptr;
            if (tsr_create(&h) != TSR_SUCCESS ||
                tsr_set_backend(h, TSR_BACKEND_CUDA) != TSR_SUCCESS) {
                ++failures[t];
                return;
            }
            for (int rep = 0; rep < 3; ++rep) {
                GemmCase c{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 333, 129 + t, 71, 0.5, 0.0};
                if (!run_placed<float>(h, c, rep == 1 ? 7 : 0, 0)) ++failures[t];
            }
            tsr_destroy(h);
        });
    for (auto &th : threads) th.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// Auto routing asks the loader whether the CUDA driver is loaded at most once per tick of the
// coarse clock. Run alone (each CTest entry is a process of its own), the first call here runs
// on the CPU before CUDA is loaded; device memory made right after must still reach the CUDA
// backend (the CPU backend would crash on it), for a product small enough to stay on the CPU
// with host operands.
TEST(CudaAutoRouting, DriverLoadedAfterTheFirstCall) {
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_AUTO), TSR_SUCCESS);
    std::vector<double> a(64), b(64), c(64, -7.0);
    for (int i = 0; i < 64; ++i) {
        a[size_t(i)] = double(i % 5) - 2.0;
        b[size_t(i)] = double(i % 3) + 1.0;
    }
    ASSERT_EQ(tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 8, 8, 8, 1.0, a.data(), 8, b.data(),
                        8, 0.0, c.data(), 8),
              TSR_SUCCESS);
    const std::vector<double> expected = c;
    TSR_REQUIRE_CUDA(); // loads the driver (after the call above, when run alone)
    std::vector<double> poison(64, -7.0);
    DeviceArray<double> dA(a), dB(b), dC(poison);
    ASSERT_EQ(tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 8, 8, 8, 1.0, dA.ptr, 8, dB.ptr, 8,
                        0.0, dC.ptr, 8),
              TSR_SUCCESS)
        << tsr_last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<double> back(64);
    dC.to_host(back);
    for (size_t i = 0; i < back.size(); ++i)
        EXPECT_EQ(back[i], expected[i]) << "element " << i; // small integers: exact
    tsr_destroy(h);
}

// Auto's reason in the call log (run by the CTest entry cuda_auto_routing_log, which sets
// TESSERA_VERBOSE=1): device operands; host operands too small to move; host operands large
// enough to pay for the transfers (4096³ sgemm: beyond the crossover of docs/backends.md
// for up to about 200 threads).
TEST(CudaAutoRouting, LogSaysWhy) {
    const char *v = std::getenv("TESSERA_VERBOSE");
    if (!v || std::strcmp(v, "1") != 0)
        GTEST_SKIP() << "needs TESSERA_VERBOSE=1 (the ctest cuda_auto_routing_log sets it)";
    TSR_REQUIRE_CUDA();
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_AUTO), TSR_SUCCESS);
    std::vector<double> host(64, 1.0);
    DeviceArray<double> dA(host), dB(host), dC(host);
    auto logged = [&](auto call) {
        ::testing::internal::CaptureStderr();
        EXPECT_EQ(call(), TSR_SUCCESS) << tsr_last_error();
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        return ::testing::internal::GetCapturedStderr();
    };
    std::string log = logged([&] {
        return tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 8, 8, 8, 1.0, dA.ptr, 8, dB.ptr, 8,
                         0.0, dC.ptr, 8);
    });
    EXPECT_NE(log.find("backend=cuda"), std::string::npos) << log;
    EXPECT_NE(log.find("(auto: device operands)"), std::string::npos) << log;
    std::vector<double> c(64);
    log = logged([&] {
        return tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 8, 8, 8, 1.0, host.data(), 8,
                         host.data(), 8, 0.0, c.data(), 8);
    });
    EXPECT_NE(log.find("backend=cpu"), std::string::npos) << log;
    EXPECT_NE(log.find("(auto: host operands, the CPU predicted faster)"), std::string::npos)
        << log;
    const int64_t n = 4096;
    std::vector<float> a(size_t(n * n), 1.0f), cc(size_t(n * n), -1.0f);
    log = logged([&] {
        return tsr_sgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, n, n, n, 1.0f, a.data(), n, a.data(),
                         n, 0.0f, cc.data(), n);
    });
    EXPECT_NE(log.find("backend=cuda"), std::string::npos) << log;
    EXPECT_NE(log.find("(auto: host operands, the GPU predicted faster with the transfers)"),
              std::string::npos)
        << log;
    EXPECT_EQ(cc[0], float(n)) << "ones times ones";
    EXPECT_EQ(cc[size_t(n * n - 1)], float(n));
    tsr_destroy(h);
}

// Under TESSERA_VERBOSE=1 the call log times a product on device operands to its end, not to
// its enqueue: the call returns with the handle's stream idle (cuda_verbose_timing sets it).
TEST(CudaVerbose, DeviceProductIsTimedToItsEnd) {
    const char *v = std::getenv("TESSERA_VERBOSE");
    if (!v || std::strcmp(v, "1") != 0)
        GTEST_SKIP() << "needs TESSERA_VERBOSE=1 (the ctest cuda_verbose_timing sets it)";
    TSR_REQUIRE_CUDA();
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(tsr_set_cuda_stream(h, stream), TSR_SUCCESS) << tsr_last_error();
    // Milliseconds of work on an H100: long past the return of a call that only queued it.
    const int64_t n = 4096;
    std::vector<float> ones(size_t(n * n), 1.0f);
    DeviceArray<float> dA(ones), dC(ones);
    ::testing::internal::CaptureStderr();
    const tsr_status s = tsr_sgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, n, n, n, 1.0f, dA.ptr, n,
                                   dA.ptr, n, 0.0f, dC.ptr, n);
    const cudaError_t idle = cudaStreamQuery(stream);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    EXPECT_EQ(idle, cudaSuccess) << "the product was still running when its line was logged";
    EXPECT_NE(log.find("backend=cuda"), std::string::npos) << log;
    std::vector<float> c(size_t(n * n));
    dC.to_host(c);
    EXPECT_EQ(c[0], float(n));
    EXPECT_EQ(c.back(), float(n));
    ASSERT_EQ(tsr_set_cuda_stream(h, nullptr), TSR_SUCCESS);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    tsr_destroy(h);
}

// Host backends never dereference device memory: a CPU handle refuses device operands, for
// gemm and for sparse products alike (one routing policy, one error: TSR_ERR_INVALID_ARGUMENT;
// test_cuda_spmv.cpp has more), with a clear error and nothing written.
TEST(CudaRefusals, HostBackendsRefuseDeviceMemory) {
    TSR_REQUIRE_CUDA();
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    std::vector<double> host(64, 1.0);
    DeviceArray<double> dA(host), dB(host), dC(host);
    EXPECT_EQ(tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 8, 8, 8, 1.0, dA.ptr, 8, dB.ptr, 8,
                        0.0, dC.ptr, 8),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(tsr_last_error(), "device memory"), nullptr) << tsr_last_error();

    const int32_t row_ptr[] = {0, 1, 2}, col_idx[] = {0, 1};
    const double values[] = {2.0, 3.0};
    tsr_sparse A;
    ASSERT_EQ(
        tsr_sparse_create_csr(h, &A, TSR_F64, TSR_INDEX_I32, 2, 2, 2, row_ptr, col_idx, values),
        TSR_SUCCESS);
    EXPECT_EQ(tsr_dspmv(h, TSR_OP_N, 1.0, A, dA.ptr, 0.0, dC.ptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(tsr_last_error(), "device memory"), nullptr) << tsr_last_error();
    std::vector<double> back(64);
    dC.to_host(back);
    for (double v : back) EXPECT_EQ(v, 1.0); // nothing written
    tsr_sparse_destroy(A);
    tsr_destroy(h);
}

} // namespace
} // namespace tessera::test
