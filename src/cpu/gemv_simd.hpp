// The gemv kernels written once over a vector type V (the traits of kernels/*_traits.hpp, or a
// one-lane scalar stand-in): each ISA's file instantiates them compiled for its instruction set.
// Included only by those files; everything here is in an unnamed namespace.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace tessera::cpu {
namespace {

// Columns per pass: each pass streams this many columns of A at once, sharing one load and
// store of y (op N) or one load of x (op T) among them.
constexpr int kGemvColumns = 8;
// Rows of y per block for op N: the block of y stays in L1 while every column of A passes
// over it.
constexpr int64_t kGemvRowBlockBytes = 16 * 1024;
// How far ahead of its loads each column stream of A is prefetched.
constexpr int64_t kGemvPrefetchBytes = 1024;

// y[i] += Σ_c A(i, c)·xs[c] over NC columns for rows [0, m), vectors first, then single rows.
template <typename V, int NC>
inline void axpy_columns(int64_t m, const typename V::T *const *col, const typename V::T *xs,
                         typename V::T *y) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
    Vec xv[NC];
    for (int c = 0; c < NC; ++c) xv[c] = V::set1(xs[c]);
    int64_t i = 0;
    for (; i + 2 * L <= m; i += 2 * L) {
        Vec y0 = V::loadu(y + i), y1 = V::loadu(y + i + L);
        for (int c = 0; c < NC; ++c) {
            y0 = V::fma(V::loadu(col[c] + i), xv[c], y0);
            y1 = V::fma(V::loadu(col[c] + i + L), xv[c], y1);
        }
        V::storeu(y + i, y0);
        V::storeu(y + i + L, y1);
    }
    for (; i + L <= m; i += L) {
        Vec y0 = V::loadu(y + i);
        for (int c = 0; c < NC; ++c) y0 = V::fma(V::loadu(col[c] + i), xv[c], y0);
        V::storeu(y + i, y0);
    }
    if (i < m) { // the last rows, in masked vectors: no scalar loop
        const auto mk = V::mask(int(m - i));
        Vec y0 = V::maskload(y + i, mk);
        for (int c = 0; c < NC; ++c) y0 = V::fma(V::maskload(col[c] + i, mk), xv[c], y0);
        V::maskstore(y + i, mk, y0);
    }
}

template <typename V>
void gemv_n(int64_t m, int64_t n, typename V::T alpha, const typename V::T *A, int64_t lda,
            const typename V::T *x, typename V::T *y) {
    using T = typename V::T;
    constexpr int NC = kGemvColumns;
    const int64_t block = kGemvRowBlockBytes / int64_t(sizeof(T));
    for (int64_t i0 = 0; i0 < m; i0 += block) {
        const int64_t mb = std::min(block, m - i0);
        const T *col[NC];
        T xs[NC];
        int64_t j = 0;
        for (; j + NC <= n; j += NC) {
            for (int c = 0; c < NC; ++c) {
                col[c] = A + i0 + (j + c) * lda;
                xs[c] = alpha * x[j + c];
            }
            axpy_columns<V, NC>(mb, col, xs, y + i0);
        }
        for (; j + 2 <= n; j += 2) {
            for (int c = 0; c < 2; ++c) {
                col[c] = A + i0 + (j + c) * lda;
                xs[c] = alpha * x[j + c];
            }
            axpy_columns<V, 2>(mb, col, xs, y + i0);
        }
        if (j < n) {
            col[0] = A + i0 + j * lda;
            xs[0] = alpha * x[j];
            axpy_columns<V, 1>(mb, col, xs, y + i0);
        }
    }
}

// The horizontal sum of a vector: a shuffle tree where the file's ISA has one, else the lanes
// in order.
#if defined(__AVX__)
inline float vector_sum(__m256 v) {
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}
inline double vector_sum(__m256d v) {
    __m128d h = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}
#endif
#if defined(__AVX512F__)
// The halves added as ymm vectors, then as above (through memory: GCC 12's 512-bit extract and
// shuffle intrinsics start from undefined registers, which -Werror refuses).
inline float vector_sum(__m512 v) {
    alignas(64) float lane[16];
    _mm512_store_ps(lane, v);
    return vector_sum(_mm256_add_ps(_mm256_load_ps(lane), _mm256_load_ps(lane + 8)));
}
inline double vector_sum(__m512d v) {
    alignas(64) double lane[8];
    _mm512_store_pd(lane, v);
    return vector_sum(_mm256_add_pd(_mm256_load_pd(lane), _mm256_load_pd(lane + 4)));
}
#endif
template <typename V> inline typename V::T lane_sum(typename V::Vec v) {
    if constexpr (requires { vector_sum(v); }) {
        return vector_sum(v);
    } else {
        typename V::T lane[V::lanes];
        V::storeu(lane, v);
        typename V::T s = lane[0];
        for (int l = 1; l < V::lanes; ++l) s += lane[l];
        return s;
    }
}

// y[j] = alpha·(A(:, j)·x) + beta·y[j] for NC columns, x loaded once for all of them.
template <typename V, int NC>
inline void dot_columns(int64_t m, const typename V::T *a, int64_t lda, const typename V::T *x,
                        typename V::T alpha, typename V::T beta, typename V::T *y) {
    using T = typename V::T;
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
    // One column alone gets two accumulators, so the FMAs do not wait on each other.
    constexpr int U = NC == 1 ? 2 : 1;
    Vec acc[NC][U];
    for (int c = 0; c < NC; ++c)
        for (int u = 0; u < U; ++u) acc[c][u] = V::zero();
    int64_t i = 0;
    for (; i + U * L <= m; i += U * L) {
        for (int u = 0; u < U; ++u) {
            const Vec xv = V::loadu(x + i + u * L);
            for (int c = 0; c < NC; ++c)
                acc[c][u] = V::fma(V::loadu(a + c * lda + i + u * L), xv, acc[c][u]);
        }
    }
    for (; i + L <= m; i += L) {
        const Vec xv = V::loadu(x + i);
        for (int c = 0; c < NC; ++c) acc[c][0] = V::fma(V::loadu(a + c * lda + i), xv, acc[c][0]);
    }
    if (i < m) { // the last rows, in masked vectors (zeros beyond m)
        const auto mk = V::mask(int(m - i));
        const Vec xv = V::maskload(x + i, mk);
        for (int c = 0; c < NC; ++c)
            acc[c][0] = V::fma(V::maskload(a + c * lda + i, mk), xv, acc[c][0]);
    }
    T s[NC];
    for (int c = 0; c < NC; ++c) {
        s[c] = lane_sum<V>(acc[c][0]);
        for (int u = 1; u < U; ++u) s[c] += lane_sum<V>(acc[c][u]);
    }
    if (beta == T(0))
        for (int c = 0; c < NC; ++c) y[c] = alpha * s[c];
    else
        for (int c = 0; c < NC; ++c) y[c] = alpha * s[c] + beta * y[c];
}

template <typename V>
void gemv_t(int64_t m, int64_t n, typename V::T alpha, const typename V::T *A, int64_t lda,
            const typename V::T *x, typename V::T beta, typename V::T *y) {
    constexpr int NC = kGemvColumns;
    int64_t j = 0;
    for (; j + NC <= n; j += NC) dot_columns<V, NC>(m, A + j * lda, lda, x, alpha, beta, y + j);
    for (; j + 4 <= n; j += 4) dot_columns<V, 4>(m, A + j * lda, lda, x, alpha, beta, y + j);
    for (; j + 2 <= n; j += 2) dot_columns<V, 2>(m, A + j * lda, lda, x, alpha, beta, y + j);
    if (j < n) dot_columns<V, 1>(m, A + j * lda, lda, x, alpha, beta, y + j);
}

} // namespace
} // namespace tessera::cpu
