// The ymm vector traits of the AVX2 kernels (and, with AVX-512VL masks, of the AVX-512 file's
// half-width tiles). Included only by the ISA files: each one gets its own copy (an unnamed
// namespace), compiled for that file's instruction set.
#pragma once

#include <immintrin.h>

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
    using Mask = __m256i;
    static Mask mask(int n) {
        return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    static Vec maskload(const T *p, Mask m) { return _mm256_maskload_ps(p, m); }
    static void maskstore(T *p, Mask m, Vec v) { _mm256_maskstore_ps(p, m, v); }
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
    using Mask = __m256i;
    static Mask mask(int n) {
        return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
    }
    static Vec maskload(const T *p, Mask m) { return _mm256_maskload_pd(p, m); }
    static void maskstore(T *p, Mask m, Vec v) { _mm256_maskstore_pd(p, m, v); }
};

} // namespace
} // namespace tessera::cpu
