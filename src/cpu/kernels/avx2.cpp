// AVX2+FMA micro-kernels (compiled with -mavx2 -mfma, run only where CPUID says so):
// float 16×6 and double 8×6 register tiles, 12 of the 16 ymm registers as accumulators.
#include <immintrin.h>

#include "cpu/kernels/microkernel.hpp"
#include "cpu/kernels/register_tile.hpp"

namespace tessera::cpu {

namespace {

struct Avx2F32 {
    using T = float;
    using Vec = __m256;
    static constexpr int lanes = 8;
    static Vec zero() { return _mm256_setzero_ps(); }
    static Vec load(const T *p) { return _mm256_load_ps(p); }
    static Vec loadu(const T *p) { return _mm256_loadu_ps(p); }
    static void storeu(T *p, Vec v) { _mm256_storeu_ps(p, v); }
    static Vec set1(T x) { return _mm256_set1_ps(x); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
    static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
};

struct Avx2F64 {
    using T = double;
    using Vec = __m256d;
    static constexpr int lanes = 4;
    static Vec zero() { return _mm256_setzero_pd(); }
    static Vec load(const T *p) { return _mm256_load_pd(p); }
    static Vec loadu(const T *p) { return _mm256_loadu_pd(p); }
    static void storeu(T *p, Vec v) { _mm256_storeu_pd(p, v); }
    static Vec set1(T x) { return _mm256_set1_pd(x); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_pd(a, b, c); }
    static Vec mul(Vec a, Vec b) { return _mm256_mul_pd(a, b); }
};

} // namespace

const MicroKernel<float> &avx2_kernel_f32() {
    static const MicroKernel<float> k{"avx2", register_tile_kernel<Avx2F32, 6>,
                                      {16, 6, 192, 256, 4092}};
    return k;
}

const MicroKernel<double> &avx2_kernel_f64() {
    static const MicroKernel<double> k{"avx2", register_tile_kernel<Avx2F64, 6>,
                                       {8, 6, 96, 256, 2040}};
    return k;
}

} // namespace tessera::cpu
