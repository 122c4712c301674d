// Helpers of the CUDA tests: whether a device is present (else the test skips with the
// reason), and device copies of the oracle's matrices.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <strings.h>

#include <cstdlib>
#include <string>

#include "gemm_oracle.hpp"

namespace tessera::test {

// True when the environment variable `name` is `value` (without regard to case).
inline bool env_is(const char *name, const char *value) {
    const char *v = std::getenv(name);
    return v && strcasecmp(v, value) == 0;
}

// Whether kernels.cu's rules choose the gemm kernels in this process: the tuning tables are
// off, or a kernel setting is forced (which the tables never override).
inline bool rules_choose_kernels() {
    return env_is("TESSERA_CUDA_TUNING", "off") || std::getenv("TESSERA_CUDA_SGEMM") ||
           std::getenv("TESSERA_CUDA_DGEMM") || std::getenv("TESSERA_CUDA_SPLITK") ||
           std::getenv("TESSERA_CUDA_STREAMK") || std::getenv("TESSERA_CUDA_MATH");
}

// Empty when the CUDA backend can run here, else why not.
std::string cuda_unavailable();

#define TSR_REQUIRE_CUDA()                                                                         \
    do {                                                                                           \
        if (std::string why = ::tessera::test::cuda_unavailable(); !why.empty())                   \
            GTEST_SKIP() << "no CUDA device: " << why;                                             \
    } while (0)

// A device copy of a host vector, freed on destruction.
template <typename T> struct DeviceArray {
    T *ptr = nullptr;
    size_t count = 0;
    explicit DeviceArray(const std::vector<T> &host) : count(host.size()) {
        EXPECT_EQ(cudaMalloc(&ptr, std::max<size_t>(1, count) * sizeof(T)), cudaSuccess);
        if (count)
            EXPECT_EQ(cudaMemcpy(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice),
                      cudaSuccess);
    }
    ~DeviceArray() { cudaFree(ptr); }
    void to_host(std::vector<T> &host) const {
        if (count)
            EXPECT_EQ(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost),
                      cudaSuccess);
    }
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
};

} // namespace tessera::test
