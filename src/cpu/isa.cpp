// Run-time choice of the CPU micro-kernels from CPUID (one binary for every x86-64, no
// -march=native), with TESSERA_CPU_ISA as an override for tests and benchmarks, and
// TESSERA_CPU_BLOCKS for the gemm's block sizes.
#include "cpu/isa.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include <unistd.h>

#include "core/config.hpp"

namespace tessera::cpu {

bool isa_supported(Isa isa) {
    switch (isa) {
    case Isa::generic: return true;
#if defined(__x86_64__) || defined(__i386__)
    case Isa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
    default: return false;
#endif
    }
    return false;
}

const char *isa_name(Isa isa) {
    switch (isa) {
    case Isa::generic: return "generic";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    }
    return "?";
}

namespace {

Isa choose_isa() {
    Isa best = isa_supported(Isa::avx512) ? Isa::avx512
               : isa_supported(Isa::avx2) ? Isa::avx2
                                          : Isa::generic;
    Isa chosen = best;
    const char *forced = core::config().cpu_isa;
    for (Isa isa : {Isa::generic, Isa::avx2, Isa::avx512}) {
        if (std::strcmp(forced, isa_name(isa)) != 0) continue;
        if (isa_supported(isa)) chosen = isa;
        else
            std::fprintf(stderr,
                         "tessera: warning: TESSERA_CPU_ISA=%s is not supported by this CPU; "
                         "using %s\n",
                         forced, isa_name(best));
    }
    return chosen;
}

} // namespace

Isa active_isa() {
    static const Isa chosen = choose_isa(); // once per process, thread-safe
    return chosen;
}

int64_t l2_bytes() {
    static const int64_t bytes = [] {
#ifdef _SC_LEVEL2_CACHE_SIZE
        const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#else
        const long l2 = 0;
#endif
        return l2 > 0 ? int64_t(l2) : int64_t(512) * 1024;
    }();
    return bytes;
}

namespace {

const MicroKernel<float> &isa_kernel_f32() {
    switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::avx512: return avx512_kernel_f32();
    case Isa::avx2: return avx2_kernel_f32();
#endif
    default: return generic_kernel_f32();
    }
}

const MicroKernel<double> &isa_kernel_f64() {
    switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::avx512: return avx512_kernel_f64();
    case Isa::avx2: return avx2_kernel_f64();
#endif
    default: return generic_kernel_f64();
    }
}

// The kernel with TESSERA_CPU_BLOCKS's MC (a whole number of MR), KC and NC (of NR).
template <typename T> MicroKernel<T> with_blocks(MicroKernel<T> k) {
    const core::Config &c = core::config();
    k.blocks.mc = std::max<int64_t>(k.blocks.mr, c.cpu_mc / k.blocks.mr * k.blocks.mr);
    k.blocks.kc = c.cpu_kc;
    k.blocks.nc = std::max<int64_t>(k.blocks.nr, c.cpu_nc / k.blocks.nr * k.blocks.nr);
    return k;
}

} // namespace

// The ISA and the configuration are fixed for the process: the kernel is looked up once (a
// tiny product's call reads it every time).
template <> const MicroKernel<float> &active_kernel<float>() {
    static const MicroKernel<float> *const k = [] {
        if (core::config().cpu_mc == 0) return &isa_kernel_f32();
        static const MicroKernel<float> blocked = with_blocks(isa_kernel_f32());
        return &blocked;
    }();
    return *k;
}

template <> const MicroKernel<double> &active_kernel<double>() {
    static const MicroKernel<double> *const k = [] {
        if (core::config().cpu_mc == 0) return &isa_kernel_f64();
        static const MicroKernel<double> blocked = with_blocks(isa_kernel_f64());
        return &blocked;
    }();
    return *k;
}

} // namespace tessera::cpu
