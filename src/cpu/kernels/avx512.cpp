// AVX-512 micro-kernels (compiled with -mavx512f -mfma, run only where CPUID says so):
// float 32×12 and double 16×12 register tiles (24 of the 32 zmm registers as accumulators),
// and the unpacked direct path with masked edges.
#include <immintrin.h>

#include "cpu/kernels/direct_tile.hpp"
#include "cpu/kernels/microkernel.hpp"
#include "cpu/kernels/register_tile.hpp"

namespace tessera::cpu {

namespace {

struct Avx512F32 {
    using T = float;
    using Vec = __m512;
    static constexpr int lanes = 16;
    static Vec zero() { return _mm512_setzero_ps(); }
    static Vec load(const T *p) { return _mm512_load_ps(p); }
    static Vec loadu(const T *p) { return _mm512_loadu_ps(p); }
    static void storeu(T *p, Vec v) { _mm512_storeu_ps(p, v); }
    static Vec set1(T x) { return _mm512_set1_ps(x); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
    static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
    using Mask = __mmask16;
    static Mask mask(int n) { return Mask((1u << n) - 1u); }
    static Vec maskload(const T *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
    static void maskstore(T *p, Mask m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
};

struct Avx512F64 {
    using T = double;
    using Vec = __m512d;
    static constexpr int lanes = 8;
    static Vec zero() { return _mm512_setzero_pd(); }
    static Vec load(const T *p) { return _mm512_load_pd(p); }
    static Vec loadu(const T *p) { return _mm512_loadu_pd(p); }
    static void storeu(T *p, Vec v) { _mm512_storeu_pd(p, v); }
    static Vec set1(T x) { return _mm512_set1_pd(x); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_pd(a, b, c); }
    static Vec mul(Vec a, Vec b) { return _mm512_mul_pd(a, b); }
    using Mask = __mmask8;
    static Mask mask(int n) { return Mask((1u << n) - 1u); }
    static Vec maskload(const T *p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
    static void maskstore(T *p, Mask m, Vec v) { _mm512_mask_storeu_pd(p, m, v); }
};

} // namespace

const MicroKernel<float> &avx512_kernel_f32() {
    static const MicroKernel<float> k{"avx512", register_tile_kernel<Avx512F32, 12>,
                                      {32, 12, 384, 384, 4092, 128}, DirectGemm<Avx512F32, 12>::run,
                                      register_tile_kernel_multi<Avx512F32, 12>};
    return k;
}

const MicroKernel<double> &avx512_kernel_f64() {
    static const MicroKernel<double> k{"avx512", register_tile_kernel<Avx512F64, 12>,
                                       {16, 12, 192, 384, 2040, 96}, DirectGemm<Avx512F64, 12>::run,
                                       register_tile_kernel_multi<Avx512F64, 12>};
    return k;
}

} // namespace tessera::cpu
