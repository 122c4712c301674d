// Packing of op(A) and op(B) blocks into the contiguous micro-panels the micro-kernel reads;
// transposes fold in here, and partial panels are zero-filled (never read past the matrix).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/backend.hpp"

namespace tessera::cpu {

// Copies MR (a compile-time count, so that the copy is a few vector moves) or `n` elements.
template <int MR, typename T, typename Put>
inline void put_run(T *d, const T *s, int n, Put put) {
    if constexpr (MR > 0) {
        for (int i = 0; i < MR; ++i) put(d[i], s[i]);
    } else {
        for (int i = 0; i < n; ++i) put(d[i], s[i]);
    }
}

// Column-major op(A): for each of the kc columns, its mc contiguous rows are read in one run
// (a long stream the prefetchers follow, instead of mr rows of every column per panel) and
// dealt to the panels. MR > 0: the panel height at compile time; 0: `mr` at run time.
template <int MR, typename T, bool Accumulate, typename Put>
void pack_a_columns(const T *a, int64_t lda, int64_t mc, int64_t kc, int mr, T *dst, Put put) {
    const int64_t full = mc / mr;
    const int tail = int(mc - full * mr);
    T *const tail_dst = dst + full * kc * mr;
    constexpr int64_t ahead = 8; // columns: their lines are asked for while this one is copied
    const int64_t line = 64 / int64_t(sizeof(T));
    for (int64_t l = 0; l < kc; ++l, a += lda) {
        if (l + ahead < kc)
            for (int64_t i = 0; i < mc; i += line) __builtin_prefetch(a + ahead * lda + i, 0, 3);
        for (int64_t p = 0; p < full; ++p) put_run<MR>(dst + p * kc * mr + l * mr, a + p * mr, mr, put);
        if (tail) {
            T *d = tail_dst + l * mr;
            put_run<0>(d, a + full * mr, tail, put);
            if constexpr (!Accumulate)
                for (int i = tail; i < mr; ++i) d[i] = T(0);
        }
    }
}

// op(A)[i0 : i0+mc, p0 : p0+kc] into ceil(mc/mr) panels of kc columns × mr rows, with A at
// `a` (the call's A, or a block of it). Accumulate: add coef·op(A) to what is packed already
// (for sums of blocks, as Strassen's products need); the zero padding is left alone.
template <typename T, bool Accumulate = false>
void pack_a(const core::GemmArgs<T> &g, const T *a, int64_t i0, int64_t mc, int64_t p0,
            int64_t kc, int mr, T *dst, T coef = T(1)) {
    auto put = [coef](T &d, T v) {
        if constexpr (Accumulate) d += coef * v;
        else d = v;
    };
    if (!g.trans_a) { // column-major A: rows of a column are contiguous
        const T *src = a + i0 + p0 * g.lda;
        switch (mr) {
        case 64: return pack_a_columns<64, T, Accumulate>(src, g.lda, mc, kc, mr, dst, put);
        case 32: return pack_a_columns<32, T, Accumulate>(src, g.lda, mc, kc, mr, dst, put);
        case 16: return pack_a_columns<16, T, Accumulate>(src, g.lda, mc, kc, mr, dst, put);
        case 8: return pack_a_columns<8, T, Accumulate>(src, g.lda, mc, kc, mr, dst, put);
        default: return pack_a_columns<0, T, Accumulate>(src, g.lda, mc, kc, mr, dst, put);
        }
    }
    for (int64_t ir = 0; ir < mc; ir += mr, dst += kc * mr) {
        const int rows = int(std::min<int64_t>(mr, mc - ir));
        // op(A) = A^T: element (i, l) is A[l + i*lda], contiguous in l
        for (int i = 0; i < rows; ++i) {
            const T *src = a + (p0) + (i0 + ir + i) * g.lda;
            for (int64_t l = 0; l < kc; ++l) put(dst[l * mr + i], src[l]);
        }
        if constexpr (!Accumulate)
            for (int i = rows; i < mr; ++i)
                for (int64_t l = 0; l < kc; ++l) dst[l * mr + i] = T(0);
    }
}

template <typename T>
void pack_a(const core::GemmArgs<T> &g, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int mr,
            T *dst) {
    pack_a<T, false>(g, g.A, i0, mc, p0, kc, mr, dst);
}

// One panel of op(B)[p0 : p0+kc, j0 : j0+cols] (cols <= nr) as kc rows × nr columns, with B
// at `b`; Accumulate adds coef·op(B) as pack_a does.
template <typename T, bool Accumulate = false>
void pack_b_panel(const core::GemmArgs<T> &g, const T *b, int64_t p0, int64_t kc, int64_t j0,
                  int cols, int nr, T *dst, T coef = T(1)) {
    auto put = [coef](T &d, T v) {
        if constexpr (Accumulate) d += coef * v;
        else d = v;
    };
    if (!g.trans_b) { // column-major B: element (l, j) is B[l + j*ldb], contiguous in l
        constexpr int ahead = 4; // columns whose lines are asked for while this one is copied
        const int64_t line = 64 / int64_t(sizeof(T));
        for (int j = 0; j < cols; ++j) {
            const T *src = b + p0 + (j0 + j) * g.ldb;
            if (j0 + j + ahead < g.n)
                for (int64_t l = 0; l < kc; l += line) __builtin_prefetch(src + ahead * g.ldb + l, 0, 3);
            for (int64_t l = 0; l < kc; ++l) put(dst[l * nr + j], src[l]);
        }
    } else { // op(B) = B^T: element (l, j) is B[j + l*ldb], contiguous in j
        for (int64_t l = 0; l < kc; ++l) {
            const T *src = b + j0 + (p0 + l) * g.ldb;
            for (int j = 0; j < cols; ++j) put(dst[l * nr + j], src[j]);
        }
    }
    if constexpr (!Accumulate)
        for (int j = cols; j < nr; ++j)
            for (int64_t l = 0; l < kc; ++l) dst[l * nr + j] = T(0);
}

template <typename T>
void pack_b_panel(const core::GemmArgs<T> &g, int64_t p0, int64_t kc, int64_t j0, int cols,
                  int nr, T *dst) {
    pack_b_panel<T, false>(g, g.B, p0, kc, j0, cols, nr, dst);
}

// Sums of up to four blocks of op(A) or op(B) packed in one pass (Strassen's operands):
// element = Σ coef[t]·op(X_t)(i, l), padding zero as above.
template <typename T> struct PackSources {
    int count;
    const T *const *ptr;
    const T *coef;
};

// d[i·ds] = Σ_t coef[t]·src[t][off + i] (coef[0] = 1) for i < n, with the term count fixed per
// loop so that each one vectorises.
template <typename T>
inline void combine(T *d, int64_t ds, const PackSources<T> &s, int64_t off, int64_t n) {
    const T *x0 = s.ptr[0] + off;
    const T *x1 = s.count > 1 ? s.ptr[1] + off : nullptr;
    const T *x2 = s.count > 2 ? s.ptr[2] + off : nullptr;
    const T *x3 = s.count > 3 ? s.ptr[3] + off : nullptr;
    switch (s.count) {
    case 1:
        for (int64_t i = 0; i < n; ++i) d[i * ds] = x0[i];
        break;
    case 2:
        for (int64_t i = 0; i < n; ++i) d[i * ds] = x0[i] + s.coef[1] * x1[i];
        break;
    case 3:
        for (int64_t i = 0; i < n; ++i) d[i * ds] = x0[i] + s.coef[1] * x1[i] + s.coef[2] * x2[i];
        break;
    default:
        for (int64_t i = 0; i < n; ++i)
            d[i * ds] = x0[i] + s.coef[1] * x1[i] + s.coef[2] * x2[i] + s.coef[3] * x3[i];
    }
}

// Asks for the lines of n elements at offset `off` of every source.
template <typename T> inline void prefetch_sources(const PackSources<T> &s, int64_t off, int64_t n) {
    const int64_t line = 64 / int64_t(sizeof(T));
    for (int t = 0; t < s.count; ++t)
        for (int64_t i = 0; i < n; i += line) __builtin_prefetch(s.ptr[t] + off + i, 0, 3);
}

template <typename T>
void pack_a_sum(const core::GemmArgs<T> &g, const PackSources<T> &s, int64_t i0, int64_t mc,
                int64_t p0, int64_t kc, int mr, T *dst) {
    if (!g.trans_a) { // a column at a time, as pack_a_columns: long runs, prefetched ahead
        constexpr int64_t ahead = 8;
        const int64_t full = mc / mr;
        const int tail = int(mc - full * mr);
        for (int64_t l = 0; l < kc; ++l) {
            const int64_t off = i0 + (p0 + l) * g.lda;
            if (l + ahead < kc) prefetch_sources(s, off + ahead * g.lda, mc);
            for (int64_t p = 0; p < full; ++p) combine(dst + p * kc * mr + l * mr, 1, s, off + p * mr, mr);
            if (tail) {
                T *d = dst + full * kc * mr + l * mr;
                combine(d, 1, s, off + full * mr, tail);
                for (int i = tail; i < mr; ++i) d[i] = T(0);
            }
        }
        return;
    }
    for (int64_t ir = 0; ir < mc; ir += mr, dst += kc * mr) {
        const int rows = int(std::min<int64_t>(mr, mc - ir));
        for (int i = 0; i < rows; ++i) combine(dst + i, mr, s, p0 + (i0 + ir + i) * g.lda, kc);
        for (int i = rows; i < mr; ++i)
            for (int64_t l = 0; l < kc; ++l) dst[l * mr + i] = T(0);
    }
}

template <typename T>
void pack_b_panel_sum(const core::GemmArgs<T> &g, const PackSources<T> &s, int64_t p0, int64_t kc,
                      int64_t j0, int cols, int nr, T *dst) {
    if (!g.trans_b)
        for (int j = 0; j < cols; ++j) {
            constexpr int ahead = 4;
            if (j0 + j + ahead < g.n) prefetch_sources(s, p0 + (j0 + j + ahead) * g.ldb, kc);
            combine(dst + j, nr, s, p0 + (j0 + j) * g.ldb, kc);
        }
    else
        for (int64_t l = 0; l < kc; ++l) combine(dst + l * nr, 1, s, j0 + (p0 + l) * g.ldb, cols);
    for (int j = cols; j < nr; ++j)
        for (int64_t l = 0; l < kc; ++l) dst[l * nr + j] = T(0);
}

} // namespace tessera::cpu
