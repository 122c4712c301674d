// The zmm vector traits of the AVX-512 gemm kernels and of the AVX-512 sparse kernels.
// Included only by files compiled for AVX-512F: each one gets its own copy (an unnamed
// namespace), compiled for that file's instruction set.
#pragma once

#include <immintrin.h>

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
    static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
    using Mask = __mmask16;
    static Mask mask(int n) { return Mask((1u << n) - 1u); }
    static Vec maskload(const T *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
    static void maskstore(T *p, Mask m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
    // The lanes of m whose value is not zero (NaN counts as not zero).
    static Mask nonzero(Mask m, Vec v) {
        return _mm512_mask_cmp_ps_mask(m, v, zero(), _CMP_NEQ_UQ);
    }
    // a·b + c in the lanes of m, c in the others.
    static Vec mask_fma(Vec a, Vec b, Vec c, Mask m) { return _mm512_mask3_fmadd_ps(a, b, c, m); }
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
    static Vec add(Vec a, Vec b) { return _mm512_add_pd(a, b); }
    using Mask = __mmask8;
    static Mask mask(int n) { return Mask((1u << n) - 1u); }
    static Vec maskload(const T *p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
    static void maskstore(T *p, Mask m, Vec v) { _mm512_mask_storeu_pd(p, m, v); }
    // The lanes of m whose value is not zero (NaN counts as not zero).
    static Mask nonzero(Mask m, Vec v) {
        return _mm512_mask_cmp_pd_mask(m, v, zero(), _CMP_NEQ_UQ);
    }
    // a·b + c in the lanes of m, c in the others.
    static Vec mask_fma(Vec a, Vec b, Vec c, Mask m) { return _mm512_mask3_fmadd_pd(a, b, c, m); }
};

} // namespace
} // namespace tessera::cpu
