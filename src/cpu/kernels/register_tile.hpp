// The SIMD register-tile micro-kernel, written once over a small vector-traits type: an
// (MV·lanes)×NR tile of C in MV·NR vector registers, one FMA per register per step of k.
// Included only by the ISA files (avx512.cpp, avx2.cpp), each compiled for its own ISA.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// Ask for every cache line of a C tile now (a column of MV·L elements spans MV or MV+1
// lines), so they arrive while the k loop runs instead of stalling the stores at the end.
template <typename V, int MV, int NR>
inline void prefetch_tile(const typename V::T *c, int64_t ldc) {
    constexpr int L = V::lanes;
    for (int j = 0; j < NR; ++j) {
        for (int v = 0; v < MV; ++v) __builtin_prefetch(c + j * ldc + v * L, 1, 3);
        __builtin_prefetch(c + j * ldc + MV * L - 1, 1, 3);
    }
}

// The k loop: acc[v][j] (rows v·L .. v·L+L-1, column j of the tile) += a·b over kc steps.
template <typename V, int MV, int NR>
inline __attribute__((always_inline)) void
tile_product(int64_t kc, const typename V::T *__restrict a, const typename V::T *__restrict b,
             typename V::Vec (&acc)[MV][NR]) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
#pragma GCC unroll 32
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v) acc[v][j] = V::zero();

    auto step = [&] {
        Vec av[MV];
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v) av[v] = V::load(a + v * L);
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j) {
            const Vec bj = V::set1(b[j]);
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) acc[v][j] = V::fma(av[v], bj, acc[v][j]);
        }
        a += MV * L;
        b += NR;
    };
    int64_t l = 0;
    for (; l + 4 <= kc; l += 4) {
        step();
        step();
        step();
        step();
    }
    for (; l < kc; ++l) step();
}

// V: traits with T, Vec, lanes, zero(), load(aligned), loadu(), storeu(), set1(), fma(), mul().
template <typename V, int MV, int NR>
void register_tile_kernel(int64_t kc, const typename V::T *__restrict a,
                          const typename V::T *__restrict b, typename V::T *__restrict c,
                          int64_t ldc, typename V::T alpha, typename V::T beta) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
    prefetch_tile<V, MV, NR>(c, ldc);
    Vec acc[MV][NR];
    tile_product<V, MV, NR>(kc, a, b, acc);

    const Vec va = V::set1(alpha);
    if (beta == typename V::T(0)) { // C is not read
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) V::storeu(c + j * ldc + v * L, V::mul(va, acc[v][j]));
    } else {
        const Vec vb = V::set1(beta);
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) {
                typename V::T *cj = c + j * ldc + v * L;
                V::storeu(cj, V::fma(vb, V::loadu(cj), V::mul(va, acc[v][j])));
            }
    }
}

// For Strassen's products: the same tile added into several blocks of C,
// C_t += scale[t]·(a·b), straight from the registers.
template <typename V, int MV, int NR>
void register_tile_kernel_multi(int64_t kc, const typename V::T *__restrict a,
                                const typename V::T *__restrict b, int count,
                                typename V::T *const *c, const typename V::T *scale, int64_t ldc) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
    for (int t = 0; t < count; ++t) prefetch_tile<V, MV, NR>(c[t], ldc);
    Vec acc[MV][NR];
    tile_product<V, MV, NR>(kc, a, b, acc);
    for (int t = 0; t < count; ++t) {
        const Vec s = V::set1(scale[t]);
        typename V::T *ct = c[t];
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) {
                typename V::T *cj = ct + j * ldc + v * L;
                V::storeu(cj, V::fma(s, acc[v][j], V::loadu(cj)));
            }
    }
}

// Strassen's operand sums (pack_a_sum / pack_b_panel_sum): d[i] = x[0][i] + Σ_t coef[t]·x[t][i]
// for i < n, coef = ±1, so that each fma is the exact sum or difference the portable loop
// forms (same results on every ISA). C terms fixed at compile time; a masked tail.
template <typename V, int C>
void block_sum_terms(typename V::T *d, const typename V::T *const *x, const typename V::T *coef,
                     int64_t n) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
    Vec c[C];
    for (int t = 1; t < C; ++t) c[t] = V::set1(coef[t]);
    auto at = [&](int64_t i, auto load) {
        Vec s = load(x[0] + i);
#pragma GCC unroll 4
        for (int t = 1; t < C; ++t) s = V::fma(c[t], load(x[t] + i), s);
        return s;
    };
    auto loadu = [](const typename V::T *p) { return V::loadu(p); };
    int64_t i = 0;
    for (; i + 2 * L <= n; i += 2 * L) {
        const Vec s0 = at(i, loadu), s1 = at(i + L, loadu);
        V::storeu(d + i, s0);
        V::storeu(d + i + L, s1);
    }
    for (; i + L <= n; i += L) V::storeu(d + i, at(i, loadu));
    if (i < n) {
        const auto m = V::mask(int(n - i));
        V::maskstore(d + i, m, at(i, [m](const typename V::T *p) { return V::maskload(p, m); }));
    }
}

template <typename V>
void block_sum(typename V::T *d, int count, const typename V::T *const *x,
               const typename V::T *coef, int64_t n) {
    switch (count) {
    case 1: return block_sum_terms<V, 1>(d, x, coef, n);
    case 2: return block_sum_terms<V, 2>(d, x, coef, n);
    case 3: return block_sum_terms<V, 3>(d, x, coef, n);
    default: return block_sum_terms<V, 4>(d, x, coef, n);
    }
}

} // namespace tessera::cpu
