// Packing of op(A) and op(B) blocks into the contiguous micro-panels the micro-kernel reads;
// transposes fold in here, and partial panels are zero-filled (never read past the matrix).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/backend.hpp"
#include "cpu/kernels/microkernel.hpp"

namespace tessera::cpu {

// Asks for the cache lines of n elements from p.
template <typename T> inline void prefetch_run(const T *p, int64_t n) {
    for (int64_t i = 0; i < n; i += 64 / int64_t(sizeof(T))) __builtin_prefetch(p + i, 0, 3);
}

// Column-major op(A), the plain block and Strassen's sums alike: the kc columns' mc contiguous
// rows are dealt to ceil(mc/mr) panels a column at a time (one long run per column, which the
// prefetchers follow, instead of mr rows of every column per panel), with the lines of the
// column `ahead` further asked for first. run(d, l, i, n) writes rows i .. i+n-1 of column l to
// d; ask(l) prefetches column l. MR > 0 is mr known at compile time, so that a full panel's run
// is a few vector moves; the rows of a partial panel past mc are zeroed.
template <int MR, typename T, typename Run, typename Ask>
void deal_columns_mr(int64_t mc, int64_t kc, int mr, T *dst, Run run, Ask ask) {
    constexpr int64_t ahead = 8;
    const int height = MR > 0 ? MR : mr;
    const int64_t full = mc / height;
    const int tail = int(mc - full * height);
    for (int64_t l = 0; l < kc; ++l) {
        if (l + ahead < kc) ask(l + ahead);
        for (int64_t p = 0; p < full; ++p)
            run(dst + p * kc * height + l * height, l, p * height, height);
        if (tail) {
            T *d = dst + full * kc * height + l * height;
            run(d, l, full * height, tail);
            for (int i = tail; i < height; ++i) d[i] = T(0);
        }
    }
}

template <typename T, typename Run, typename Ask>
void deal_columns(int64_t mc, int64_t kc, int mr, T *dst, Run run, Ask ask) {
    switch (mr) { // the panel heights of the kernels in kernels/*.cpp
    case 64: return deal_columns_mr<64>(mc, kc, mr, dst, run, ask);
    case 32: return deal_columns_mr<32>(mc, kc, mr, dst, run, ask);
    case 16: return deal_columns_mr<16>(mc, kc, mr, dst, run, ask);
    case 8: return deal_columns_mr<8>(mc, kc, mr, dst, run, ask);
    default: return deal_columns_mr<0>(mc, kc, mr, dst, run, ask);
    }
}

// op(A)[i0 : i0+mc, p0 : p0+kc] into ceil(mc/mr) panels of kc columns × mr rows; rows of a
// partial panel past the matrix are zero. `trans`: the ISA's packing of a transposed A (the
// micro-kernel's pack_a_trans), nullptr for the portable loop.
template <typename T>
void pack_a(const core::GemmArgs<T> &g, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int mr,
            T *dst, PackTransposedFn<T> trans = nullptr) {
    if (!g.trans_a) { // column-major A: rows of a column are contiguous
        const T *a = g.A + i0 + p0 * g.lda;
        const int64_t lda = g.lda;
        return deal_columns(
            mc, kc, mr, dst,
            [a, lda](T *d, int64_t l, int64_t i, int n) {
                const T *src = a + i + l * lda;
                for (int r = 0; r < n; ++r) d[r] = src[r];
            },
            [a, lda, mc](int64_t l) { prefetch_run(a + l * lda, mc); });
    }
    if (trans) return trans(g.A + p0 + i0 * g.lda, g.lda, mc, kc, mr, dst);
    for (int64_t ir = 0; ir < mc; ir += mr, dst += kc * mr) {
        const int rows = int(std::min<int64_t>(mr, mc - ir));
        // op(A) = A^T: element (i, l) is A[l + i*lda], contiguous in l
        for (int i = 0; i < rows; ++i) {
            const T *src = g.A + p0 + (i0 + ir + i) * g.lda;
            for (int64_t l = 0; l < kc; ++l) dst[l * mr + i] = src[l];
        }
        for (int i = rows; i < mr; ++i)
            for (int64_t l = 0; l < kc; ++l) dst[l * mr + i] = T(0);
    }
}

// One panel of op(B)[p0 : p0+kc, j0 : j0+cols] (cols <= nr) as kc rows × nr columns; columns
// past the matrix are zero.
template <typename T>
void pack_b_panel(const core::GemmArgs<T> &g, int64_t p0, int64_t kc, int64_t j0, int cols, int nr,
                  T *dst) {
    if (!g.trans_b) {            // column-major B: element (l, j) is B[l + j*ldb], contiguous in l
        constexpr int ahead = 4; // columns whose lines are asked for while this one is copied
        for (int j = 0; j < cols; ++j) {
            const T *src = g.B + p0 + (j0 + j) * g.ldb;
            if (j0 + j + ahead < g.n) prefetch_run(src + ahead * g.ldb, kc);
            for (int64_t l = 0; l < kc; ++l) dst[l * nr + j] = src[l];
        }
    } else { // op(B) = B^T: element (l, j) is B[j + l*ldb], contiguous in j
        for (int64_t l = 0; l < kc; ++l) {
            const T *src = g.B + j0 + (p0 + l) * g.ldb;
            for (int j = 0; j < cols; ++j) dst[l * nr + j] = src[j];
        }
    }
    for (int j = cols; j < nr; ++j)
        for (int64_t l = 0; l < kc; ++l) dst[l * nr + j] = T(0);
}

// Panels q0..q1-1 of op(B)[p0 : p0+kc, j0 : j0+nc] (panel q: columns j0 + q*nr onwards, at
// dst + q*kc*nr). A transposed B is read a row of op(B) at a time across all the panels (one
// long run per row, which the prefetchers follow, instead of nr elements of every row per
// panel); a column-major B a panel at a time, each of its columns one run.
// `six`: the ISA's packing of a full column-major panel of 6 columns (the micro-kernel's
// pack_b6, its NR then 6), nullptr for the portable loop.
template <typename T>
void pack_b_panels(const core::GemmArgs<T> &g, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                   int64_t q0, int64_t q1, int nr, T *dst, PackBPanel6Fn<T> six = nullptr) {
    if (q1 <= q0) return;
    if (!g.trans_b) {
        for (int64_t q = q0; q < q1; ++q) {
            const int cols = int(std::min<int64_t>(nr, nc - q * nr));
            const T *src = g.B + p0 + (j0 + q * nr) * g.ldb;
            if (six && cols == 6) {
                if (q + 1 < q1) // the next panel's columns, asked for while this one is packed
                    for (int j = 0; j < 6; ++j) prefetch_run(src + (6 + j) * g.ldb, kc);
                six(src, g.ldb, kc, dst + q * kc * nr);
            } else {
                pack_b_panel(g, p0, kc, j0 + q * nr, cols, nr, dst + q * kc * nr);
            }
        }
        return;
    }
    // op(B) = B^T: element (l, j) is B[j + l*ldb], contiguous in j. Full panels first.
    const int64_t full = std::min(q1, nc / nr);
    const int64_t ahead = 4; // rows whose lines are asked for while this one is dealt
    for (int64_t l = 0; l < kc; ++l) {
        const T *src = g.B + j0 + (p0 + l) * g.ldb;
        if (l + ahead < kc) prefetch_run(src + ahead * g.ldb + q0 * nr, (q1 - q0) * nr);
        T *d = dst + l * nr;
        if (nr == 6) {
            for (int64_t q = q0; q < full; ++q)
                std::memcpy(d + q * kc * 6, src + q * 6, 6 * sizeof(T));
        } else {
            for (int64_t q = q0; q < full; ++q)
                std::memcpy(d + q * kc * nr, src + q * nr, size_t(nr) * sizeof(T));
        }
        for (int64_t q = std::max(q0, full); q < q1; ++q) { // the last, partial panel
            const int cols = int(std::min<int64_t>(nr, nc - q * nr));
            for (int j = 0; j < cols; ++j) d[q * kc * nr + j] = src[q * nr + j];
            for (int j = cols; j < nr; ++j) d[q * kc * nr + j] = T(0);
        }
    }
}

// Sums of up to four blocks of op(A) or op(B) packed in one pass (Strassen's operands):
// element = Σ coef[t]·op(X_t)(i, l), padding zero as above. `sum` is the ISA's vectorised
// sum of contiguous runs (MicroKernel::sum), or nullptr for the portable loop.
template <typename T> struct PackSources {
    int count;
    const T *const *ptr;
    const T *coef;
    BlockSumFn<T> sum;
};

// The sources' pointers at offset `off` (nullptr past s.count).
template <typename T>
inline void sources_at(const PackSources<T> &s, int64_t off, const T *(&x)[4]) {
    for (int t = 0; t < 4; ++t) x[t] = t < s.count ? s.ptr[t] + off : nullptr;
}

// d[i·ds] = Σ_t coef[t]·src[t][off + i] (coef[0] = 1) for i < n. Runs long enough to pay for a
// call go through the ISA's sum, straight into d when it is contiguous and through a small
// buffer otherwise (a panel's stride); the rest in a loop per term count that the compiler
// vectorises, the coefficients copied first (d could alias them as far as it knows).
template <typename T>
inline void combine(T *d, int64_t ds, const PackSources<T> &s, int64_t off, int64_t n) {
    const T *x[4];
    sources_at(s, off, x);
    if (s.sum && n >= 16) {
        if (ds == 1) return s.sum(d, s.count, x, s.coef, n);
        constexpr int64_t chunk = 256;
        alignas(64) T buf[chunk];
        for (int64_t i0 = 0; i0 < n; i0 += chunk) {
            const int64_t len = std::min(chunk, n - i0);
            const T *xc[4];
            sources_at(s, off + i0, xc);
            s.sum(buf, s.count, xc, s.coef, len);
            T *di = d + i0 * ds;
            for (int64_t i = 0; i < len; ++i) di[i * ds] = buf[i];
        }
        return;
    }
    const T c1 = s.count > 1 ? s.coef[1] : T(0), c2 = s.count > 2 ? s.coef[2] : T(0),
            c3 = s.count > 3 ? s.coef[3] : T(0);
    const T *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
    switch (s.count) {
    case 1:
        for (int64_t i = 0; i < n; ++i) d[i * ds] = x0[i];
        break;
    case 2:
        for (int64_t i = 0; i < n; ++i) d[i * ds] = x0[i] + c1 * x1[i];
        break;
    case 3:
        for (int64_t i = 0; i < n; ++i) d[i * ds] = x0[i] + c1 * x1[i] + c2 * x2[i];
        break;
    default:
        for (int64_t i = 0; i < n; ++i) d[i * ds] = x0[i] + c1 * x1[i] + c2 * x2[i] + c3 * x3[i];
    }
}

// Asks for the lines of n elements at offset `off` of every source.
template <typename T>
inline void prefetch_sources(const PackSources<T> &s, int64_t off, int64_t n) {
    for (int t = 0; t < s.count; ++t) prefetch_run(s.ptr[t] + off, n);
}

template <typename T>
void pack_a_sum(const core::GemmArgs<T> &g, const PackSources<T> &s, int64_t i0, int64_t mc,
                int64_t p0, int64_t kc, int mr, T *dst) {
    if (!g.trans_a) {
        const int64_t lda = g.lda, base = i0 + p0 * g.lda;
        return deal_columns(
            mc, kc, mr, dst,
            [&s, lda, base](T *d, int64_t l, int64_t i, int n) {
                combine(d, 1, s, base + i + l * lda, n);
            },
            [&s, lda, base, mc](int64_t l) { prefetch_sources(s, base + l * lda, mc); });
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
    constexpr int ahead = 4; // columns whose lines are asked for while this one is summed
    constexpr int max_nr = 8;
    if (!g.trans_b && s.sum && nr <= max_nr) {
        // Runs of `chunk` rows of every column summed by the ISA into a small buffer, then
        // dealt out row by row: the panel is written in order, whole lines at a time, instead
        // of one strided pass per column.
        constexpr int64_t chunk = 256;
        alignas(64) T buf[max_nr * chunk];
        for (int j = 0; j < cols; ++j)
            if (j0 + j + ahead < g.n) prefetch_sources(s, p0 + (j0 + j + ahead) * g.ldb, kc);
        for (int64_t l0 = 0; l0 < kc; l0 += chunk) {
            const int64_t len = std::min(chunk, kc - l0);
            for (int j = 0; j < cols; ++j) {
                const T *x[4];
                sources_at(s, p0 + l0 + (j0 + j) * g.ldb, x);
                s.sum(buf + j * chunk, s.count, x, s.coef, len);
            }
            T *d = dst + l0 * nr;
            for (int64_t l = 0; l < len; ++l)
                for (int j = 0; j < cols; ++j) d[l * nr + j] = buf[j * chunk + l];
        }
    } else if (!g.trans_b) {
        for (int j = 0; j < cols; ++j) {
            if (j0 + j + ahead < g.n) prefetch_sources(s, p0 + (j0 + j + ahead) * g.ldb, kc);
            combine(dst + j, nr, s, p0 + (j0 + j) * g.ldb, kc);
        }
    } else {
        for (int64_t l = 0; l < kc; ++l) combine(dst + l * nr, 1, s, j0 + (p0 + l) * g.ldb, cols);
    }
    for (int j = cols; j < nr; ++j)
        for (int64_t l = 0; l < kc; ++l) dst[l * nr + j] = T(0);
}

} // namespace tessera::cpu
