// When CTest runs the gemm tests with TESSERA_CPU_ISA forcing one micro-kernel, skip them all
// (saying so) on a CPU that lacks that ISA instead of testing the fallback twice.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace {

class ForcedIsa : public ::testing::Environment {
public:
    void SetUp() override {
        const char *isa = std::getenv("TESSERA_CPU_ISA");
        if (!isa) return;
#if defined(__x86_64__)
        if (!std::strcmp(isa, "avx512") && !__builtin_cpu_supports("avx512f"))
            GTEST_SKIP() << "this CPU has no AVX-512: the avx512 kernels cannot be tested here";
        if (!std::strcmp(isa, "avx2") &&
            !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
            GTEST_SKIP() << "this CPU has no AVX2+FMA: the avx2 kernels cannot be tested here";
#else
        if (std::strcmp(isa, "generic") != 0) GTEST_SKIP() << "not an x86-64 CPU";
#endif
    }
};

const auto *const kForcedIsa = ::testing::AddGlobalTestEnvironment(new ForcedIsa);

} // namespace
