// The loops of the CPU sparse × dense product, written once and compiled per ISA (the
// spmm_<isa>.cpp files include this with their own flags and vector width): plain C++ over
// blocks of columns of a fixed width, which the compiler keeps in vector registers.
//
// Row-major X: a row of Y is a sum of rows of X scaled by the row's entries; for each block of
// W columns, every entry adds W contiguous elements of one row of X, with two sets of vector
// accumulators so that consecutive entries do not wait on one another.
// Column-major X: for each block of up to 8 columns, every entry reads one element of each of
// them, so that the entry's index and value are loaded once per 8 columns (where a product per
// column would read A k times).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu/spmm_kernels.hpp"

namespace tessera::cpu::spmm_loops {

template <typename V, typename I>
inline void store_row(const SpmmRows<V, I> &a, V *y, int64_t step, const V *acc, int W) {
    if (a.beta == V(0))
        for (int j = 0; j < W; ++j) y[j * step] = a.alpha * acc[j];
    else
        for (int j = 0; j < W; ++j) y[j * step] = a.alpha * acc[j] + a.beta * y[j * step];
}

// Rows [r0, r1), columns [j0, j0 + W) of a row-major X, W below two vectors of 8 bytes: plain
// scalars (a few of them stay in registers).
template <int W, typename V, typename I>
void row_major_scalar(const SpmmRows<V, I> &a, int64_t r0, int64_t r1, int64_t j0) {
    for (int64_t i = r0; i < r1; ++i) {
        V s[W] = {};
        const int64_t end = a.row_ptr[i + 1];
        for (int64_t p = a.row_ptr[i]; p < end; ++p) {
            const V v = a.val[p];
            const V *x = a.X + int64_t(a.col[p]) * a.ldx + j0;
            for (int j = 0; j < W; ++j) s[j] += v * x[j];
        }
        if (a.y_row_major) store_row(a, a.Y + i * a.ldy + j0, 1, s, W);
        else store_row(a, a.Y + i + j0 * a.ldy, a.ldy, s, W);
    }
}

// The same with the W columns in N vectors of VB bytes (GCC's vector types, so that the two
// sets of accumulators are registers, not an array on the stack).
template <int W, int VB, typename V, typename I>
void row_major_vectors(const SpmmRows<V, I> &a, int64_t r0, int64_t r1, int64_t j0) {
    constexpr int L = VB / int(sizeof(V)), N = W / L;
    static_assert(N * L == W && N >= 1, "W is a whole number of vectors");
    typedef V vec __attribute__((vector_size(VB)));
    auto load = [](const V *p) {
        vec t;
        std::memcpy(&t, p, VB);
        return t;
    };
    for (int64_t i = r0; i < r1; ++i) {
        vec s0[N], s1[N];
        for (int n = 0; n < N; ++n) s0[n] = s1[n] = vec{} + V(0);
        int64_t p = a.row_ptr[i];
        const int64_t end = a.row_ptr[i + 1];
        for (; p + 1 < end; p += 2) {
            const V v0 = a.val[p], v1 = a.val[p + 1];
            const V *x0 = a.X + int64_t(a.col[p]) * a.ldx + j0;
            const V *x1 = a.X + int64_t(a.col[p + 1]) * a.ldx + j0;
            for (int n = 0; n < N; ++n) {
                s0[n] += v0 * load(x0 + n * L);
                s1[n] += v1 * load(x1 + n * L);
            }
        }
        if (p < end) {
            const V v0 = a.val[p];
            const V *x0 = a.X + int64_t(a.col[p]) * a.ldx + j0;
            for (int n = 0; n < N; ++n) s0[n] += v0 * load(x0 + n * L);
        }
        if (!a.y_row_major) { // a column-major Y: element by element, down its columns
            V r[W];
            for (int n = 0; n < N; ++n) {
                const vec t = s0[n] + s1[n];
                std::memcpy(r + n * L, &t, VB);
            }
            store_row(a, a.Y + i + j0 * a.ldy, a.ldy, r, W);
            continue;
        }
        V *y = a.Y + i * a.ldy + j0;
        for (int n = 0; n < N; ++n) {
            vec r = a.alpha * (s0[n] + s1[n]);
            if (a.beta != V(0)) r += a.beta * load(y + n * L);
            std::memcpy(y + n * L, &r, VB);
        }
    }
}

// Rows [r0, r1), columns [j0, j0 + W) of a row-major X, in vectors of up to VB bytes.
template <int W, int VB, typename V, typename I>
void row_major_block(const SpmmRows<V, I> &a, int64_t r0, int64_t r1, int64_t j0) {
    constexpr int bytes = W * int(sizeof(V));
    if constexpr (bytes < 16) row_major_scalar<W>(a, r0, r1, j0);
    else row_major_vectors<W, (bytes < VB ? bytes : VB)>(a, r0, r1, j0);
}

// Rows [r0, r1), columns [j0, j0 + W) of a column-major X.
template <int W, typename V, typename I>
void col_major_block(const SpmmRows<V, I> &a, int64_t r0, int64_t r1, int64_t j0) {
    const V *X = a.X + j0 * a.ldx;
    const int64_t ldx = a.ldx;
    for (int64_t i = r0; i < r1; ++i) {
        V s[W] = {};
        const int64_t end = a.row_ptr[i + 1];
        for (int64_t p = a.row_ptr[i]; p < end; ++p) {
            const V v = a.val[p];
            const V *x = X + int64_t(a.col[p]);
            for (int j = 0; j < W; ++j) s[j] += v * x[j * ldx];
        }
        store_row(a, a.Y + i + j0 * a.ldy, a.ldy, s, W);
    }
}

// Every column of rows [r0, r1) in [j0, k): blocks of the widest width that fits, from Wide
// down to 1, in vectors of VB bytes.
template <int Wide, int VB, typename V, typename I>
void columns(const SpmmRows<V, I> &a, int64_t r0, int64_t r1) {
    int64_t j0 = 0;
    auto run = [&](auto width) {
        constexpr int w = decltype(width)::value;
        for (; a.k - j0 >= w; j0 += w) {
            if (a.row_major) row_major_block<w, VB>(a, r0, r1, j0);
            else if constexpr (w <= 8) col_major_block<w>(a, r0, r1, j0);
            else
                for (int h = 0; h < w; h += 8) col_major_block<8>(a, r0, r1, j0 + h);
        }
    };
    if constexpr (Wide >= 64) run(std::integral_constant<int, 64>{});
    if constexpr (Wide >= 32) run(std::integral_constant<int, 32>{});
    if constexpr (Wide >= 16) run(std::integral_constant<int, 16>{});
    run(std::integral_constant<int, 8>{});
    run(std::integral_constant<int, 4>{});
    run(std::integral_constant<int, 2>{});
    run(std::integral_constant<int, 1>{});
}

// Rows [r0, r1), a few rows at a time through all their column blocks: the blocks of one row of
// X that a row's entries name are read close together in time (one pass of column blocks over
// all the rows would walk X and Y with a stride of their whole rows, once per block).
inline constexpr int64_t kRowsPerStep = 16;
template <int Wide, int VB, typename V, typename I>
void rows(const SpmmRows<V, I> &a, int64_t r0, int64_t r1) {
    if (!a.row_major || a.k <= Wide) {
        columns<Wide, VB>(a, r0, r1);
        return;
    }
    for (int64_t i = r0; i < r1; i += kRowsPerStep)
        columns<Wide, VB>(a, i, std::min(r1, i + kRowsPerStep));
}

} // namespace tessera::cpu::spmm_loops

// The kernels of one ISA: vectors of `vector_bytes`, and blocks of up to `wide_f32` floats
// (`wide_f64` doubles) in two sets of accumulators.
#define TESSERA_SPMM_KERNELS(isa, vector_bytes, wide_f32, wide_f64)                                \
    namespace tessera::cpu {                                                                       \
    template <typename V, typename I> const SpmmKernels<V, I> &spmm_##isa() {                      \
        static const SpmmKernels<V, I> k{                                                          \
            #isa, spmm_loops::rows < sizeof(V) == 4 ? wide_f32 : wide_f64, vector_bytes, V, I > }; \
        return k;                                                                                  \
    }                                                                                              \
    template const SpmmKernels<float, int32_t> &spmm_##isa<float, int32_t>();                      \
    template const SpmmKernels<float, int64_t> &spmm_##isa<float, int64_t>();                      \
    template const SpmmKernels<double, int32_t> &spmm_##isa<double, int32_t>();                    \
    template const SpmmKernels<double, int64_t> &spmm_##isa<double, int64_t>();                    \
    }
