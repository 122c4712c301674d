// The FMA loops behind the peak-FLOP measurement (see peak_kernels.hpp), as inline assembly
// in functions compiled for their instruction set, so the compiler can neither drop nor spill.
#include "peak_kernels.hpp"

namespace tessera::bench {
namespace {

#if defined(__x86_64__)

// Every accumulator is one register, updated by acc += z * z with z = 0: values never
// overflow or turn subnormal, and FMA timing does not depend on the values.

// The chains below keep one pair a line, as the registers are numbered.
// clang-format off
// One FMA on accumulator register I; both sources are the zero register SRC (zmm31 / ymm15).
#define TSR_FMA(OP, REG, SRC, I) OP " %%" SRC ", %%" SRC ", %%" REG #I "\n\t"

#define TSR_ZMM_CHAINS(OP)                                                                      \
    TSR_FMA(OP, "zmm", "zmm31", 0) TSR_FMA(OP, "zmm", "zmm31", 1)                               \
    TSR_FMA(OP, "zmm", "zmm31", 2) TSR_FMA(OP, "zmm", "zmm31", 3)                               \
    TSR_FMA(OP, "zmm", "zmm31", 4) TSR_FMA(OP, "zmm", "zmm31", 5)                               \
    TSR_FMA(OP, "zmm", "zmm31", 6) TSR_FMA(OP, "zmm", "zmm31", 7)                               \
    TSR_FMA(OP, "zmm", "zmm31", 8) TSR_FMA(OP, "zmm", "zmm31", 9)                               \
    TSR_FMA(OP, "zmm", "zmm31", 10) TSR_FMA(OP, "zmm", "zmm31", 11)                             \
    TSR_FMA(OP, "zmm", "zmm31", 12) TSR_FMA(OP, "zmm", "zmm31", 13)                             \
    TSR_FMA(OP, "zmm", "zmm31", 14) TSR_FMA(OP, "zmm", "zmm31", 15)                             \
    TSR_FMA(OP, "zmm", "zmm31", 16) TSR_FMA(OP, "zmm", "zmm31", 17)                             \
    TSR_FMA(OP, "zmm", "zmm31", 18) TSR_FMA(OP, "zmm", "zmm31", 19)                             \
    TSR_FMA(OP, "zmm", "zmm31", 20) TSR_FMA(OP, "zmm", "zmm31", 21)                             \
    TSR_FMA(OP, "zmm", "zmm31", 22) TSR_FMA(OP, "zmm", "zmm31", 23)                             \
    TSR_FMA(OP, "zmm", "zmm31", 24) TSR_FMA(OP, "zmm", "zmm31", 25)                             \
    TSR_FMA(OP, "zmm", "zmm31", 26) TSR_FMA(OP, "zmm", "zmm31", 27)                             \
    TSR_FMA(OP, "zmm", "zmm31", 28) TSR_FMA(OP, "zmm", "zmm31", 29)
constexpr int kZmmChains = 30;

#define TSR_YMM_CHAINS(OP)                                                                      \
    TSR_FMA(OP, "ymm", "ymm15", 0) TSR_FMA(OP, "ymm", "ymm15", 1)                               \
    TSR_FMA(OP, "ymm", "ymm15", 2) TSR_FMA(OP, "ymm", "ymm15", 3)                               \
    TSR_FMA(OP, "ymm", "ymm15", 4) TSR_FMA(OP, "ymm", "ymm15", 5)                               \
    TSR_FMA(OP, "ymm", "ymm15", 6) TSR_FMA(OP, "ymm", "ymm15", 7)                               \
    TSR_FMA(OP, "ymm", "ymm15", 8) TSR_FMA(OP, "ymm", "ymm15", 9)                               \
    TSR_FMA(OP, "ymm", "ymm15", 10) TSR_FMA(OP, "ymm", "ymm15", 11)                             \
    TSR_FMA(OP, "ymm", "ymm15", 12) TSR_FMA(OP, "ymm", "ymm15", 13)                             \
    TSR_FMA(OP, "ymm", "ymm15", 14)
constexpr int kYmmChains = 15; // AVX2 has 16 vector registers: 15 chains and the zero source
// clang-format on

#define TSR_ZMM_CLOBBERS                                                                           \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",       \
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",  \
        "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm31",  \
        "cc"
#define TSR_YMM_CLOBBERS                                                                           \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",       \
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"

// Zeroing all accumulators first: the FMAs then compute 0 += 0 * 0 forever.
#define TSR_MOV(REG, SRC, I) "vmovaps %%" SRC ", %%" REG #I "\n\t"
#define TSR_ZMM_ZERO                                                                               \
    "vpxord %%zmm31, %%zmm31, %%zmm31\n\t" TSR_MOV("zmm", "zmm31", 0) TSR_MOV("zmm", "zmm31", 1)   \
        TSR_MOV("zmm", "zmm31", 2) TSR_MOV("zmm", "zmm31", 3) TSR_MOV("zmm", "zmm31", 4)           \
            TSR_MOV("zmm", "zmm31", 5) TSR_MOV("zmm", "zmm31", 6) TSR_MOV("zmm", "zmm31", 7)       \
                TSR_MOV("zmm", "zmm31", 8) TSR_MOV("zmm", "zmm31", 9) TSR_MOV("zmm", "zmm31", 10)  \
                    TSR_MOV("zmm", "zmm31", 11) TSR_MOV("zmm", "zmm31", 12)                        \
                        TSR_MOV("zmm", "zmm31", 13) TSR_MOV("zmm", "zmm31", 14)                    \
                            TSR_MOV("zmm", "zmm31", 15) TSR_MOV("zmm", "zmm31", 16)                \
                                TSR_MOV("zmm", "zmm31", 17) TSR_MOV("zmm", "zmm31", 18)            \
                                    TSR_MOV("zmm", "zmm31", 19) TSR_MOV("zmm", "zmm31", 20)        \
                                        TSR_MOV("zmm", "zmm31", 21) TSR_MOV("zmm", "zmm31", 22)    \
                                            TSR_MOV("zmm", "zmm31", 23)                            \
                                                TSR_MOV("zmm", "zmm31", 24)                        \
                                                    TSR_MOV("zmm", "zmm31", 25)                    \
                                                        TSR_MOV("zmm", "zmm31", 26)                \
                                                            TSR_MOV("zmm", "zmm31", 27)            \
                                                                TSR_MOV("zmm", "zmm31", 28)        \
                                                                    TSR_MOV("zmm", "zmm31", 29)
#define TSR_YMM_ZERO                                                                               \
    "vpxor %%ymm15, %%ymm15, %%ymm15\n\t" TSR_MOV("ymm", "ymm15", 0) TSR_MOV("ymm", "ymm15", 1)    \
        TSR_MOV("ymm", "ymm15", 2) TSR_MOV("ymm", "ymm15", 3) TSR_MOV("ymm", "ymm15", 4)           \
            TSR_MOV("ymm", "ymm15", 5) TSR_MOV("ymm", "ymm15", 6) TSR_MOV("ymm", "ymm15", 7)       \
                TSR_MOV("ymm", "ymm15", 8) TSR_MOV("ymm", "ymm15", 9) TSR_MOV("ymm", "ymm15", 10)  \
                    TSR_MOV("ymm", "ymm15", 11) TSR_MOV("ymm", "ymm15", 12)                        \
                        TSR_MOV("ymm", "ymm15", 13) TSR_MOV("ymm", "ymm15", 14)

__attribute__((target("avx512f"), noinline)) void avx512_f32(std::int64_t iterations) {
    asm volatile(TSR_ZMM_ZERO "1:\n\t" TSR_ZMM_CHAINS("vfmadd231ps") "dec %[n]\n\t"
                                                                     "jnz 1b\n\t"
                                                                     "vzeroupper\n\t"
                 : [n] "+r"(iterations)
                 :
                 : TSR_ZMM_CLOBBERS);
}

__attribute__((target("avx512f"), noinline)) void avx512_f64(std::int64_t iterations) {
    asm volatile(TSR_ZMM_ZERO "1:\n\t" TSR_ZMM_CHAINS("vfmadd231pd") "dec %[n]\n\t"
                                                                     "jnz 1b\n\t"
                                                                     "vzeroupper\n\t"
                 : [n] "+r"(iterations)
                 :
                 : TSR_ZMM_CLOBBERS);
}

__attribute__((target("avx2,fma"), noinline)) void avx2_f32(std::int64_t iterations) {
    asm volatile(TSR_YMM_ZERO "1:\n\t" TSR_YMM_CHAINS("vfmadd231ps") "dec %[n]\n\t"
                                                                     "jnz 1b\n\t"
                                                                     "vzeroupper\n\t"
                 : [n] "+r"(iterations)
                 :
                 : TSR_YMM_CLOBBERS);
}

__attribute__((target("avx2,fma"), noinline)) void avx2_f64(std::int64_t iterations) {
    asm volatile(TSR_YMM_ZERO "1:\n\t" TSR_YMM_CHAINS("vfmadd231pd") "dec %[n]\n\t"
                                                                     "jnz 1b\n\t"
                                                                     "vzeroupper\n\t"
                 : [n] "+r"(iterations)
                 :
                 : TSR_YMM_CLOBBERS);
}

constexpr PeakKernel kKernels[] = {
    {PeakIsa::avx512, false, "avx512", 16, kZmmChains, avx512_f32},
    {PeakIsa::avx512, true, "avx512", 8, kZmmChains, avx512_f64},
    {PeakIsa::avx2_fma, false, "avx2+fma", 8, kYmmChains, avx2_f32},
    {PeakIsa::avx2_fma, true, "avx2+fma", 4, kYmmChains, avx2_f64},
};

#endif

} // namespace

const PeakKernel *peak_kernels(int *count) {
#if defined(__x86_64__)
    *count = int(sizeof kKernels / sizeof kKernels[0]);
    return kKernels;
#else
    *count = 0;
    return nullptr;
#endif
}

bool peak_kernel_supported(const PeakKernel &kernel) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    switch (kernel.isa) {
    case PeakIsa::avx512: return __builtin_cpu_supports("avx512f");
    case PeakIsa::avx2_fma: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
#endif
    (void)kernel;
    return false;
}

const char *peak_isa_name(PeakIsa isa) { return isa == PeakIsa::avx512 ? "avx512" : "avx2+fma"; }

} // namespace tessera::bench
