// AVX-512F sparse kernels: CSR rows with gathers, ELL blocks of 16 rows with masked loads
// and gathers (padding is never loaded), DIA rows with masked FMAs. Compiled with -mavx512f only.
#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <type_traits>

#include "cpu/kernels/avx512_traits.hpp"
#include "cpu/spmv_simd.hpp"

namespace tessera::cpu {

namespace {

// One SIMD step of a row: acc += val[0..n) · x[col[0..n)], n = Lanes::n or fewer (masked).
template <typename V, typename I> struct Lanes;

template <> struct Lanes<double, int32_t> {
    static constexpr int n = 8;
    using Acc = __m512d;
    static Acc zero() { return _mm512_setzero_pd(); }
    static Acc step(Acc acc, const double *val, const int32_t *col, const double *x) {
        __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(col));
        return _mm512_fmadd_pd(_mm512_loadu_pd(val), _mm512_i32gather_pd(idx, x, 8), acc);
    }
    static Acc tail(Acc acc, const double *val, const int32_t *col, const double *x, int count) {
        __mmask8 m = __mmask8((1u << count) - 1);
        __m256i idx = _mm512_castsi512_si256(_mm512_maskz_loadu_epi32(__mmask16(m), col));
        __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, x, 8);
        return _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, val), g, acc);
    }
    static double sum(Acc a) { return _mm512_reduce_add_pd(a); }
    static Acc add(Acc a, Acc b) { return _mm512_add_pd(a, b); }
};

template <> struct Lanes<double, int64_t> {
    static constexpr int n = 8;
    using Acc = __m512d;
    static Acc zero() { return _mm512_setzero_pd(); }
    static Acc step(Acc acc, const double *val, const int64_t *col, const double *x) {
        __m512i idx = _mm512_loadu_si512(col);
        return _mm512_fmadd_pd(_mm512_loadu_pd(val), _mm512_i64gather_pd(idx, x, 8), acc);
    }
    static Acc tail(Acc acc, const double *val, const int64_t *col, const double *x, int count) {
        __mmask8 m = __mmask8((1u << count) - 1);
        __m512i idx = _mm512_maskz_loadu_epi64(m, col);
        __m512d g = _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m, idx, x, 8);
        return _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, val), g, acc);
    }
    static double sum(Acc a) { return _mm512_reduce_add_pd(a); }
    static Acc add(Acc a, Acc b) { return _mm512_add_pd(a, b); }
};

template <> struct Lanes<float, int32_t> {
    static constexpr int n = 16;
    using Acc = __m512;
    static Acc zero() { return _mm512_setzero_ps(); }
    static Acc step(Acc acc, const float *val, const int32_t *col, const float *x) {
        __m512i idx = _mm512_loadu_si512(col);
        return _mm512_fmadd_ps(_mm512_loadu_ps(val), _mm512_i32gather_ps(idx, x, 4), acc);
    }
    static Acc tail(Acc acc, const float *val, const int32_t *col, const float *x, int count) {
        __mmask16 m = __mmask16((1u << count) - 1);
        __m512i idx = _mm512_maskz_loadu_epi32(m, col);
        __m512 g = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, x, 4);
        return _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, val), g, acc);
    }
    static float sum(Acc a) { return _mm512_reduce_add_ps(a); }
    static Acc add(Acc a, Acc b) { return _mm512_add_ps(a, b); }
};

// Eight floats at a time (a gather of 64-bit indices yields eight), kept in a 512-bit
// register's lower half so the FMA stays AVX-512F.
template <> struct Lanes<float, int64_t> {
    static constexpr int n = 8;
    using Acc = __m512;
    static Acc zero() { return _mm512_setzero_ps(); }
    static __m512 widen(__m256 v) { return _mm512_castps256_ps512(v); }
    static Acc step(Acc acc, const float *val, const int64_t *col, const float *x) {
        __m512i idx = _mm512_loadu_si512(col);
        __m512 g = widen(_mm512_i64gather_ps(idx, x, 4));
        return _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(0xFF, val), g, acc, 0xFF);
    }
    static Acc tail(Acc acc, const float *val, const int64_t *col, const float *x, int count) {
        __mmask8 m = __mmask8((1u << count) - 1);
        __m512i idx = _mm512_maskz_loadu_epi64(m, col);
        __m512 g = widen(_mm512_mask_i64gather_ps(_mm256_setzero_ps(), m, idx, x, 4));
        return _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(__mmask16(m), val), g, acc, 0xFF);
    }
    static float sum(Acc a) { return _mm512_mask_reduce_add_ps(0xFF, a); }
    static Acc add(Acc a, Acc b) { return _mm512_add_ps(a, b); }
};

} // namespace

template <BetaMode B, bool VectorRows, typename V, typename I>
void csr_segment_avx512(const sparse::Csr<V, I> &a, const CsrSegment &s, const SpmvVectors<V> &v,
                        V *carry) {
    using L = Lanes<V, I>;
    const int64_t nnz = a.nnz();
    const I *rp = a.row_ptr.data();
    const I *col = a.col.data();
    const V *val = a.val.data();
    const V *x = v.x;
    int64_t j = s.nz_begin;
    for (int64_t i = s.row_begin; i < s.row_end; ++i) {
        const int64_t end = rp[i + 1];
        V sum;
        if (VectorRows && end - j >= L::n) {
            typename L::Acc acc0 = L::zero(), acc1 = L::zero();
            for (; j + 2 * L::n <= end; j += 2 * L::n) {
                prefetch_ahead(val, col, j, nnz);
                acc0 = L::step(acc0, val + j, col + j, x);
                acc1 = L::step(acc1, val + j + L::n, col + j + L::n, x);
            }
            if (j + L::n <= end) {
                acc0 = L::step(acc0, val + j, col + j, x);
                j += L::n;
            }
            if (j < end) {
                acc1 = L::tail(acc1, val + j, col + j, x, int(end - j));
                j = end;
            }
            sum = L::sum(L::add(acc0, acc1));
        } else {
            sum = csr_row_sum(val, col, x, j, end, nnz);
        }
        store<B>(v.y, i, v.alpha, sum, v.beta);
    }
    V c = 0;
    for (; j < s.nz_end; ++j) c += val[j] * x[col[j]];
    *carry = c;
}

namespace {

// y[r0 .. r0+16) (only the `valid` rows) = alpha·acc + beta·y, for 8 or 16 lanes at `lane0`.
template <BetaMode B>
void finish_lanes(double *y, __mmask8 valid, __m512d acc, double alpha, double beta) {
    __m512d r = _mm512_mul_pd(_mm512_set1_pd(alpha), acc);
    if constexpr (B == BetaMode::one) r = _mm512_add_pd(r, _mm512_maskz_loadu_pd(valid, y));
    if constexpr (B == BetaMode::scale)
        r = _mm512_fmadd_pd(_mm512_set1_pd(beta), _mm512_maskz_loadu_pd(valid, y), r);
    _mm512_mask_storeu_pd(y, valid, r);
}
template <BetaMode B>
void finish_lanes(float *y, __mmask16 valid, __m512 acc, float alpha, float beta) {
    __m512 r = _mm512_mul_ps(_mm512_set1_ps(alpha), acc);
    if constexpr (B == BetaMode::one) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(valid, y));
    if constexpr (B == BetaMode::scale)
        r = _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(valid, y), r);
    _mm512_mask_storeu_ps(y, valid, r);
}

} // namespace

template <BetaMode B, typename V, typename I>
void ell_blocks_avx512(const sparse::Ell<V, I> &a, int64_t block_begin, int64_t block_end,
                       const SpmvVectors<V> &v) {
    const int64_t stride = a.stride;
    const I *len = a.len.data();
    const I *col = a.col.data();
    const V *val = a.val.data();
    const V *x = v.x;
    for (int64_t b = block_begin; b < block_end; ++b) {
        const int64_t r0 = b * 16;
        const int64_t left = a.rows - r0;
        const __mmask16 valid = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
        if constexpr (sizeof(I) == 4) {
            const __m512i lens = _mm512_load_si512(len + r0);
            const int width = _mm512_reduce_max_epi32(lens);
            if constexpr (sizeof(V) == 8) {
                __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
                for (int k = 0; k < width; ++k) {
                    const __mmask16 m = _mm512_cmpgt_epi32_mask(lens, _mm512_set1_epi32(k));
                    const int64_t at = int64_t(k) * stride + r0;
                    const __m512i idx = _mm512_maskz_load_epi32(m, col + at);
                    const __mmask8 m0 = __mmask8(m), m1 = __mmask8(m >> 8);
                    acc0 =
                        _mm512_fmadd_pd(_mm512_maskz_load_pd(m0, val + at),
                                        _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m0,
                                                                 _mm512_castsi512_si256(idx), x, 8),
                                        acc0);
                    if (m1)
                        acc1 = _mm512_fmadd_pd(
                            _mm512_maskz_load_pd(m1, val + at + 8),
                            _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m1,
                                                     _mm512_extracti64x4_epi64(idx, 1), x, 8),
                            acc1);
                }
                finish_lanes<B>(v.y + r0, __mmask8(valid), acc0, v.alpha, v.beta);
                if (valid >> 8)
                    finish_lanes<B>(v.y + r0 + 8, __mmask8(valid >> 8), acc1, v.alpha, v.beta);
            } else {
                __m512 acc = _mm512_setzero_ps();
                for (int k = 0; k < width; ++k) {
                    const __mmask16 m = _mm512_cmpgt_epi32_mask(lens, _mm512_set1_epi32(k));
                    const int64_t at = int64_t(k) * stride + r0;
                    const __m512i idx = _mm512_maskz_load_epi32(m, col + at);
                    acc = _mm512_fmadd_ps(
                        _mm512_maskz_load_ps(m, val + at),
                        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, x, 4), acc);
                }
                finish_lanes<B>(v.y + r0, valid, acc, v.alpha, v.beta);
            }
        } else {
            const __m512i lens0 = _mm512_load_si512(len + r0),
                          lens1 = _mm512_load_si512(len + r0 + 8);
            const int64_t width =
                std::max(_mm512_reduce_max_epi64(lens0), _mm512_reduce_max_epi64(lens1));
            __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
            __m512 accf = _mm512_setzero_ps();
            for (int64_t k = 0; k < width; ++k) {
                const __m512i kk = _mm512_set1_epi64(k);
                const __mmask8 m0 = _mm512_cmpgt_epi64_mask(lens0, kk),
                               m1 = _mm512_cmpgt_epi64_mask(lens1, kk);
                const int64_t at = k * stride + r0;
                const __m512i idx0 = _mm512_maskz_load_epi64(m0, col + at);
                const __m512i idx1 = _mm512_maskz_load_epi64(m1, col + at + 8);
                if constexpr (sizeof(V) == 8) {
                    acc0 = _mm512_fmadd_pd(
                        _mm512_maskz_load_pd(m0, val + at),
                        _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m0, idx0, x, 8), acc0);
                    if (m1)
                        acc1 = _mm512_fmadd_pd(
                            _mm512_maskz_load_pd(m1, val + at + 8),
                            _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m1, idx1, x, 8), acc1);
                } else {
                    const __m256 g0 = _mm512_mask_i64gather_ps(_mm256_setzero_ps(), m0, idx0, x, 4);
                    const __m256 g1 = _mm512_mask_i64gather_ps(_mm256_setzero_ps(), m1, idx1, x, 4);
                    const __m512 g = _mm512_castpd_ps(_mm512_insertf64x4(
                        _mm512_castpd256_pd512(_mm256_castps_pd(g0)), _mm256_castps_pd(g1), 1));
                    const __mmask16 m = __mmask16(m0 | (unsigned(m1) << 8));
                    accf = _mm512_fmadd_ps(_mm512_maskz_load_ps(m, val + at), g, accf);
                }
            }
            if constexpr (sizeof(V) == 8) {
                finish_lanes<B>(v.y + r0, __mmask8(valid), acc0, v.alpha, v.beta);
                if (valid >> 8)
                    finish_lanes<B>(v.y + r0 + 8, __mmask8(valid >> 8), acc1, v.alpha, v.beta);
            } else {
                finish_lanes<B>(v.y + r0, valid, accf, v.alpha, v.beta);
            }
        }
    }
}

namespace {
template <typename V> using DiaVec = std::conditional_t<sizeof(V) == 4, Avx512F32, Avx512F64>;
} // namespace

template <BetaMode B, typename V>
void dia_rows_avx512(const V *val, const int64_t *vofs, const V *x, const int64_t *xofs,
                     int64_t ndiag, int64_t in_len, int64_t o0, int64_t o1, V alpha, V beta, V *y) {
    using D = DiaVec<V>;
    using Vec = typename D::Vec;
    using Mask = typename D::Mask;
    constexpr int L = D::lanes;
    const Vec va = D::set1(alpha), vb = D::set1(beta); // beta unread when zero
    auto out = [&](int64_t o, Mask m, Vec acc) {
        Vec r = D::mul(va, acc);
        if constexpr (B != BetaMode::zero)
            r = D::fma(vb, D::maskload(y + o, m), r); // beta 1 or not
        D::maskstore(y + o, m, r);
    };
    // acc += val·x in the lanes of m whose value is not zero (the fill is never multiplied);
    // lanes outside m are not loaded.
    auto add = [&](Vec acc, const V *vd, const V *xd, Mask m) {
        const Vec a = D::maskload(vd, m);
        const Mask nz = D::nonzero(m, a);
        return D::mask_fma(a, D::maskload(xd, nz), acc, nz);
    };
    // The lanes of the vector at o (of `live` lanes) whose x index o + lane + xofs[d] lies in
    // [0, in_len): diagonal d feeds outputs [-xofs[d], in_len - xofs[d]).
    auto in_range = [&](int64_t d, int64_t o, int live) {
        const int64_t lo = std::max<int64_t>(0, -xofs[d] - o);
        const int64_t hi = std::min<int64_t>(live, in_len - xofs[d] - o);
        return lo >= hi ? Mask(0) : Mask(D::mask(int(hi)) & ~D::mask(int(lo)));
    };
    const Mask all = D::mask(L);
    int64_t o = o0;
    // Four vectors of outputs at a time: four chains of FMAs. A diagonal wholly in range there
    // takes whole vectors; one that reaches past an end of x, the lanes still inside.
    for (; o + 4 * L <= o1; o += 4 * L) {
        Vec acc[4] = {D::zero(), D::zero(), D::zero(), D::zero()};
        for (int64_t d = 0; d < ndiag; ++d) {
            const V *vd = val + vofs[d] + o, *xd = x + xofs[d] + o;
            const int64_t first = -xofs[d], last = in_len - xofs[d]; // outputs d feeds
            if (o >= first && o + 4 * L <= last) {
                acc[0] = add(acc[0], vd, xd, all);
                acc[1] = add(acc[1], vd + L, xd + L, all);
                acc[2] = add(acc[2], vd + 2 * L, xd + 2 * L, all);
                acc[3] = add(acc[3], vd + 3 * L, xd + 3 * L, all);
            } else if (o + 4 * L > first && o < last) {
                for (int q = 0; q < 4; ++q)
                    if (const Mask m = in_range(d, o + q * L, L))
                        acc[q] = add(acc[q], vd + q * L, xd + q * L, m);
            }
        }
        for (int q = 0; q < 4; ++q) out(o + q * L, all, acc[q]);
    }
    for (; o < o1; o += L) {
        const int live = int(std::min<int64_t>(L, o1 - o));
        Vec acc = D::zero();
        for (int64_t d = 0; d < ndiag; ++d)
            if (const Mask m = in_range(d, o, live))
                acc = add(acc, val + vofs[d] + o, x + xofs[d] + o, m);
        out(o, D::mask(live), acc);
    }
}

#define TSR_DIA_ROWS(B, V)                                                                         \
    template void dia_rows_avx512<B, V>(const V *, const int64_t *, const V *, const int64_t *,    \
                                        int64_t, int64_t, int64_t, int64_t, V, V, V *);
TSR_DIA_ROWS(BetaMode::zero, float)
TSR_DIA_ROWS(BetaMode::one, float)
TSR_DIA_ROWS(BetaMode::scale, float)
TSR_DIA_ROWS(BetaMode::zero, double)
TSR_DIA_ROWS(BetaMode::one, double)
TSR_DIA_ROWS(BetaMode::scale, double)
#undef TSR_DIA_ROWS

#define TSR_AVX512_SEGMENT(B, R, V, I)                                                             \
    template void csr_segment_avx512<B, R, V, I>(const sparse::Csr<V, I> &, const CsrSegment &,    \
                                                 const SpmvVectors<V> &, V *);
#define TSR_AVX512_CSR(B, V, I)                                                                    \
    TSR_AVX512_SEGMENT(B, true, V, I)                                                              \
    TSR_AVX512_SEGMENT(B, false, V, I)                                                             \
    template void ell_blocks_avx512<B, V, I>(const sparse::Ell<V, I> &, int64_t, int64_t,          \
                                             const SpmvVectors<V> &);
#define TSR_AVX512_ALL(V, I)                                                                       \
    TSR_AVX512_CSR(BetaMode::zero, V, I)                                                           \
    TSR_AVX512_CSR(BetaMode::one, V, I)                                                            \
    TSR_AVX512_CSR(BetaMode::scale, V, I)
TSR_AVX512_ALL(float, int32_t)
TSR_AVX512_ALL(float, int64_t)
TSR_AVX512_ALL(double, int32_t)
TSR_AVX512_ALL(double, int64_t)
#undef TSR_AVX512_ALL
#undef TSR_AVX512_CSR
#undef TSR_AVX512_SEGMENT

} // namespace tessera::cpu

#endif // __x86_64__
