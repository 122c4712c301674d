// A handle over several GPUs (tsr_set_cuda_devices, TESSERA_CUDA_DEVICES): host-operand products
// spread over the devices against the float64 oracle, device operands kept on their device,
// and bad device lists refused with nothing changed. Parts that need two devices skip on one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_support.hpp"

namespace tessera::test {
namespace {

int device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return (void)cudaGetLastError(), 0;
    return n;
}

class CudaDevices : public ::testing::Test {
protected:
    void SetUp() override {
        TSR_REQUIRE_CUDA();
        ASSERT_EQ(tsr_create(&handle_), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_backend(handle_, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    }
    void TearDown() override {
        if (handle_) tsr_destroy(handle_);
    }
    tsr_handle handle_ = nullptr;
};

// Host operands (pageable, and pinned when `pinned`) on every layout, op pair and beta, with
// sizes that cut into uneven blocks.
void host_products(tsr_handle h, int64_t pad) {
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
        for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
            for (tsr_op tb : {TSR_OP_N, TSR_OP_T})
                for (auto [m, n, k, beta] :
                     {std::tuple<int64_t, int64_t, int64_t, double>{301, 77, 129, 0.0},
                      {45, 263, 64, -0.5},
                      {517, 515, 33, 1.0},
                      {3, 2, 5, 0.25}}) {
                    GemmCase c{layout, ta, tb, m, n, k, 1.25, beta};
                    ASSERT_TRUE(run_and_check<float>(h, c, pad));
                    ASSERT_TRUE(run_and_check<double>(h, c, pad));
                }
}

TEST_F(CudaDevices, EveryDeviceOfTheHost) {
    ASSERT_EQ(tsr_set_cuda_devices(handle_, 0, nullptr), TSR_SUCCESS) << tsr_last_error();
    host_products(handle_, 0);
    host_products(handle_, 3);
}

TEST_F(CudaDevices, ListedDevicesInAnyOrder) {
    std::vector<int> ids;
    for (int d = device_count() - 1; d >= 0; --d) ids.push_back(d);
    ASSERT_EQ(tsr_set_cuda_devices(handle_, int(ids.size()), ids.data()), TSR_SUCCESS)
        << tsr_last_error();
    host_products(handle_, 1);
    const int first = 0;
    ASSERT_EQ(tsr_set_cuda_devices(handle_, 1, &first), TSR_SUCCESS) << tsr_last_error();
    host_products(handle_, 0);
}

TEST_F(CudaDevices, PinnedHostOperands) {
    ASSERT_EQ(tsr_set_cuda_devices(handle_, 0, nullptr), TSR_SUCCESS) << tsr_last_error();
    const int64_t m = 700, n = 300, k = 257;
    auto A = random_matrix<double>(m, k, TSR_COL_MAJOR, 0, 0.0);
    auto B = random_matrix<double>(k, n, TSR_COL_MAJOR, 0, 0.0);
    auto C = random_matrix<double>(m, n, TSR_COL_MAJOR, 0, 0.0);
    auto C0 = C;
    double *pa = nullptr, *pb = nullptr, *pc = nullptr;
    ASSERT_EQ(cudaMallocHost(&pa, A.data.size() * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&pb, B.data.size() * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&pc, C.data.size() * sizeof(double)), cudaSuccess);
    std::copy(A.data.begin(), A.data.end(), pa);
    std::copy(B.data.begin(), B.data.end(), pb);
    std::copy(C.data.begin(), C.data.end(), pc);
    const tsr_status s = tsr_dgemm(handle_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 0.5, pa,
                                   A.ld, pb, B.ld, -1.5, pc, C.ld);
    std::copy(pc, pc + C.data.size(), C.data.begin());
    cudaFreeHost(pa), cudaFreeHost(pb), cudaFreeHost(pc);
    ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    EXPECT_TRUE(
        check_gemm(GemmCase{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 0.5, -1.5}, A, B, C0, C));
}

// Operands in the last device's memory: that device runs the product (without peer access, a
// kernel on another device could not read them).
TEST_F(CudaDevices, DeviceOperandsStayOnTheirDevice) {
    const int count = device_count();
    if (count < 2) GTEST_SKIP() << "one CUDA device here: nothing to spread over";
    ASSERT_EQ(tsr_set_cuda_devices(handle_, 0, nullptr), TSR_SUCCESS) << tsr_last_error();
    const int64_t m = 190, n = 170, k = 150;
    auto A = random_matrix<float>(m, k, TSR_COL_MAJOR, 0, 0.0f);
    auto B = random_matrix<float>(k, n, TSR_COL_MAJOR, 0, 0.0f);
    auto C = random_matrix<float>(m, n, TSR_COL_MAJOR, 0, 0.0f);
    auto C0 = C;
    ASSERT_EQ(cudaSetDevice(count - 1), cudaSuccess);
    {
        DeviceArray<float> dA(A.data), dB(B.data), dC(C.data);
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        ASSERT_EQ(tsr_sgemm(handle_, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 1.0f, dA.ptr, A.ld,
                            dB.ptr, B.ld, 0.5f, dC.ptr, C.ld),
                  TSR_SUCCESS)
            << tsr_last_error();
        ASSERT_EQ(cudaSetDevice(count - 1), cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        dC.to_host(C.data);
    }
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_TRUE(
        check_gemm(GemmCase{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 1.0, 0.5}, A, B, C0, C));
}

// A product on `device`'s memory through `h`: its status, and on success whether C is right.
::testing::AssertionResult on_device(tsr_handle h, int device, tsr_status *status) {
    const int64_t m = 66, n = 35, k = 20;
    auto A = random_matrix<double>(m, k, TSR_COL_MAJOR, 0, 0.0);
    auto B = random_matrix<double>(k, n, TSR_COL_MAJOR, 0, 0.0);
    auto C = random_matrix<double>(m, n, TSR_COL_MAJOR, 0, 0.0);
    auto C0 = C;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device);
    {
        DeviceArray<double> dA(A.data), dB(B.data), dC(C.data);
        *status = tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 2.0, dA.ptr, A.ld,
                            dB.ptr, B.ld, 1.0, dC.ptr, C.ld);
        cudaDeviceSynchronize();
        dC.to_host(C.data);
    }
    cudaSetDevice(previous);
    if (*status != TSR_SUCCESS) return ::testing::AssertionSuccess();
    return check_gemm(GemmCase{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, m, n, k, 2.0, 1.0}, A, B, C0, C);
}

// Under a launcher (OMPI_COMM_WORLD_LOCAL_RANK and the like), a handle's device is the local
// rank modulo the device count: products on that device's memory run, others are refused.
TEST_F(CudaDevices, DefaultDeviceFollowsLocalRank) {
    const char *rank = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!rank || std::getenv("TESSERA_CUDA_DEVICE") || std::getenv("TESSERA_CUDA_DEVICES"))
        GTEST_SKIP() << "set OMPI_COMM_WORLD_LOCAL_RANK alone to run this test";
    const int count = device_count(), mine = std::atoi(rank) % count;
    tsr_status s = TSR_SUCCESS;
    EXPECT_TRUE(on_device(handle_, mine, &s));
    EXPECT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    if (count > 1) {
        EXPECT_TRUE(on_device(handle_, (mine + 1) % count, &s));
        EXPECT_EQ(s, TSR_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(tsr_last_error()).find("but the handle runs on device"),
                  std::string::npos)
            << tsr_last_error();
    }
}

TEST_F(CudaDevices, BadListsChangeNothing) {
    const int count = device_count();
    const int none_such = count, twice[2] = {0, 0}, one = 0;
    EXPECT_EQ(tsr_set_cuda_devices(nullptr, 1, &one), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_cuda_devices(handle_, -1, nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_cuda_devices(handle_, 1, nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_cuda_devices(handle_, 0, &one), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_cuda_devices(handle_, 1, &none_such), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("does not exist"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(tsr_set_cuda_devices(handle_, 2, twice), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("named twice"), std::string::npos)
        << tsr_last_error();
    // The handle still runs on its device.
    ASSERT_TRUE(run_and_check<double>(
        handle_, GemmCase{TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 65, 33, 17, 1.0, 1.0}, 1));
}

} // namespace
} // namespace tessera::test
