// The packings that transpose (pack.hpp's loops store them one element at a time, each to
// another row or column of the panel), with 8×8 (float) and 4×4 (double) in-register
// transposes of ymm vectors: a transposed A block (op(A) = A^T, rows of op(A) contiguous in
// A), read a group of rows at a time along k and written as whole vectors of each column's
// panel; and a column-major B panel of 6 columns, read along k and written as whole rows of
// the panel. Included by the AVX2 and AVX-512 files (both have the ymm instructions); each
// gets its own copy.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace tessera::cpu {
namespace {

// v[r] = row r of an 8×8 block in, column r of it out.
inline void transpose8(__m256 v[8]) {
    const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]),
                 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]),
                 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]),
                 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)),
                 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)),
                 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)),
                 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)),
                 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)),
                 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2)),
                 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)),
                 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    v[0] = _mm256_permute2f128_ps(s0, s4, 0x20), v[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    v[2] = _mm256_permute2f128_ps(s2, s6, 0x20), v[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    v[4] = _mm256_permute2f128_ps(s0, s4, 0x31), v[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    v[6] = _mm256_permute2f128_ps(s2, s6, 0x31), v[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// Rows r0 .. r0+7 of op(A), columns l .. l+7 (src: element (r, l) at src[r*lda + l]) into
// dst[j*mr + r] for j < 8.
inline void transpose_block(const float *src, int64_t lda, float *dst, int mr) {
    __m256 v[8];
    for (int r = 0; r < 8; ++r) v[r] = _mm256_loadu_ps(src + r * lda);
    transpose8(v);
    for (int j = 0; j < 8; ++j) _mm256_storeu_ps(dst + j * mr, v[j]);
}

// Rows r0 .. r0+3, columns l .. l+3, as above.
inline void transpose_block(const double *src, int64_t lda, double *dst, int mr) {
    const __m256d r0 = _mm256_loadu_pd(src), r1 = _mm256_loadu_pd(src + lda),
                  r2 = _mm256_loadu_pd(src + 2 * lda), r3 = _mm256_loadu_pd(src + 3 * lda);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1),
                  t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(dst, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(dst + mr, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(dst + 2 * mr, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(dst + 3 * mr, _mm256_permute2f128_pd(t1, t3, 0x31));
}

// op(A)[0 : mc, 0 : kc] with op(A) = A^T (element (i, l) at a[i*lda + l]) into ceil(mc/mr)
// panels of kc columns × mr rows, rows of a partial panel past mc zero: what pack_a's scalar
// loop writes. mr must be a multiple of the block's side (8 in float, 4 in double), or mc
// itself (one panel: op(A) column-major with leading dimension mc). Each group
// of rows is read along the whole kc before the next (as many streams as the block's side).
template <typename T>
void pack_a_transposed(const T *a, int64_t lda, int64_t mc, int64_t kc, int mr, T *dst) {
    constexpr int side = 32 / int(sizeof(T));
    const int64_t kc_blocks = kc / side * side;
    for (int64_t ir = 0; ir < mc; ir += mr, dst += kc * mr) {
        const int rows = int(std::min<int64_t>(mr, mc - ir));
        const int groups = rows / side * side;
        for (int r = 0; r < groups; r += side) {
            const T *src = a + (ir + r) * lda;
            for (int64_t l = 0; l < kc_blocks; l += side)
                transpose_block(src + l, lda, dst + l * mr + r, mr);
            for (int i = 0; i < side; ++i)
                for (int64_t l = kc_blocks; l < kc; ++l) dst[l * mr + r + i] = src[i * lda + l];
        }
        for (int i = groups; i < rows; ++i) {
            const T *src = a + (ir + i) * lda;
            for (int64_t l = 0; l < kc; ++l) dst[l * mr + i] = src[l];
        }
        for (int64_t l = 0; l < kc; ++l)
            for (int i = rows; i < mr; ++i) dst[l * mr + i] = T(0);
    }
}

// One full panel of a column-major op(B): columns 0..5 (element (l, j) at b[l + j*ldb]) into
// kc rows of 6 (dst[l*6 + j]), 8 (float) or 4 (double) rows at a time.
inline void pack_b_cols6(const float *b, int64_t ldb, int64_t kc, float *dst) {
    const int64_t blocks = kc / 8 * 8;
    for (int64_t l = 0; l < blocks; l += 8) {
        __m256 v[8];
        for (int j = 0; j < 6; ++j) v[j] = _mm256_loadu_ps(b + l + j * ldb);
        v[6] = v[7] = _mm256_setzero_ps();
        transpose8(v); // v[r]: row l + r, its columns 6 and 7 zero
        float *d = dst + l * 6;
        for (int r = 0; r < 8; ++r) {
            _mm_storeu_ps(d + r * 6, _mm256_castps256_ps128(v[r]));
            _mm_storel_pi(reinterpret_cast<__m64 *>(d + r * 6 + 4), _mm256_extractf128_ps(v[r], 1));
        }
    }
    for (int64_t l = blocks; l < kc; ++l)
        for (int j = 0; j < 6; ++j) dst[l * 6 + j] = b[l + j * ldb];
}

inline void pack_b_cols6(const double *b, int64_t ldb, int64_t kc, double *dst) {
    const int64_t blocks = kc / 4 * 4;
    for (int64_t l = 0; l < blocks; l += 4) {
        const double *s = b + l;
        const __m256d c0 = _mm256_loadu_pd(s), c1 = _mm256_loadu_pd(s + ldb),
                      c2 = _mm256_loadu_pd(s + 2 * ldb), c3 = _mm256_loadu_pd(s + 3 * ldb),
                      c4 = _mm256_loadu_pd(s + 4 * ldb), c5 = _mm256_loadu_pd(s + 5 * ldb);
        const __m256d t0 = _mm256_unpacklo_pd(c0, c1), t1 = _mm256_unpackhi_pd(c0, c1),
                      t2 = _mm256_unpacklo_pd(c2, c3), t3 = _mm256_unpackhi_pd(c2, c3),
                      u = _mm256_unpacklo_pd(c4, c5), v = _mm256_unpackhi_pd(c4, c5);
        double *d = dst + l * 6;
        _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
        _mm_storeu_pd(d + 4, _mm256_castpd256_pd128(u));
        _mm256_storeu_pd(d + 6, _mm256_permute2f128_pd(t1, t3, 0x20));
        _mm_storeu_pd(d + 10, _mm256_castpd256_pd128(v));
        _mm256_storeu_pd(d + 12, _mm256_permute2f128_pd(t0, t2, 0x31));
        _mm_storeu_pd(d + 16, _mm256_extractf128_pd(u, 1));
        _mm256_storeu_pd(d + 18, _mm256_permute2f128_pd(t1, t3, 0x31));
        _mm_storeu_pd(d + 22, _mm256_extractf128_pd(v, 1));
    }
    for (int64_t l = blocks; l < kc; ++l)
        for (int j = 0; j < 6; ++j) dst[l * 6 + j] = b[l + j * ldb];
}

} // namespace
} // namespace tessera::cpu
