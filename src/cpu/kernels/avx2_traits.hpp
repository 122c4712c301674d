// The ymm vector traits of the AVX2 kernels, gemm's and DIA's (and, with AVX-512VL masks, of the
// AVX-512 file's half-width tiles). Included only by the ISA files: each one gets its own copy (an
// unnamed namespace), compiled for that file's instruction set.
#pragma once

#include <immintrin.h>

namespace tessera::cpu {
namespace {

// The first n lanes of a ymm vector: the lanes as a vmaskmov mask (for loads) and their count.
// Stores of part of a vector go out in whole 128-, 64- and 32-bit pieces instead of through
// vmaskmov, which AMD cores before Zen 4 run as a long microcoded sequence.
struct Avx2Mask {
    __m256i bits;
    int n;
};

inline void store_first(float *p, int n, __m256 v) {
    __m128 x = _mm256_castps256_ps128(v);
    if (n >= 4) {
        _mm_storeu_ps(p, x);
        if (n == 4) return;
        x = _mm256_extractf128_ps(v, 1);
        p += 4;
        n -= 4;
    }
    if (n >= 2) {
        _mm_storel_pi(reinterpret_cast<__m64 *>(p), x);
        x = _mm_movehl_ps(x, x);
        p += 2;
        n -= 2;
    }
    if (n) _mm_store_ss(p, x);
}

inline void store_first(double *p, int n, __m256d v) {
    __m128d x = _mm256_castpd256_pd128(v);
    if (n >= 2) {
        _mm_storeu_pd(p, x);
        if (n == 2) return;
        x = _mm256_extractf128_pd(v, 1);
        p += 2;
        n -= 2;
    }
    if (n) _mm_store_sd(p, x);
}

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
    static Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
    // x where a is not zero (or is NaN), else 0.
    static Vec where_nonzero(Vec a, Vec x) {
        return _mm256_and_ps(_mm256_cmp_ps(a, zero(), _CMP_NEQ_UQ), x);
    }
    using Mask = Avx2Mask;
    static Mask mask(int n) {
        return {_mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
                n};
    }
    static Vec maskload(const T *p, Mask m) { return _mm256_maskload_ps(p, m.bits); }
    static void maskstore(T *p, Mask m, Vec v) {
        if (m.n >= lanes) storeu(p, v);
        else store_first(p, m.n, v);
    }
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
    static Vec add(Vec a, Vec b) { return _mm256_add_pd(a, b); }
    // x where a is not zero (or is NaN), else 0.
    static Vec where_nonzero(Vec a, Vec x) {
        return _mm256_and_pd(_mm256_cmp_pd(a, zero(), _CMP_NEQ_UQ), x);
    }
    using Mask = Avx2Mask;
    static Mask mask(int n) {
        return {_mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3)), n};
    }
    static Vec maskload(const T *p, Mask m) { return _mm256_maskload_pd(p, m.bits); }
    static void maskstore(T *p, Mask m, Vec v) {
        if (m.n >= lanes) storeu(p, v);
        else store_first(p, m.n, v);
    }
};

} // namespace
} // namespace tessera::cpu
