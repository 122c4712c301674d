// The SIMD register-tile micro-kernel, written once over a small vector-traits type: an
// (2·lanes)×NR tile of C in 2·NR vector registers, one FMA per register per step of k.
// Included only by the ISA files (avx512.cpp, avx2.cpp), each compiled for its own ISA.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// Ask for every cache line of a C tile now (a column of 2·L elements spans two or three
// lines), so they arrive while the k loop runs instead of stalling the stores at the end.
template <typename V, int NR> inline void prefetch_tile(const typename V::T *c, int64_t ldc) {
    constexpr int L = V::lanes;
    for (int j = 0; j < NR; ++j) {
        __builtin_prefetch(c + j * ldc, 1, 3);
        __builtin_prefetch(c + j * ldc + L, 1, 3);
        __builtin_prefetch(c + j * ldc + 2 * L - 1, 1, 3);
    }
}

// The k loop: c0/c1 (rows 0..L-1 and L..2L-1 of the tile) += a·b over kc steps.
template <typename V, int NR>
inline __attribute__((always_inline)) void tile_product(int64_t kc,
                                                         const typename V::T *__restrict a,
                                                         const typename V::T *__restrict b,
                                                         typename V::Vec (&c0)[NR],
                                                         typename V::Vec (&c1)[NR]) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
#pragma GCC unroll 32
    for (int j = 0; j < NR; ++j) c0[j] = c1[j] = V::zero();

    int64_t l = 0;
    for (; l + 4 <= kc; l += 4) {
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) {
            __builtin_prefetch(a + 2 * L * 8, 0, 3);
            const Vec a0 = V::load(a), a1 = V::load(a + L);
#pragma GCC unroll 32
            for (int j = 0; j < NR; ++j) {
                const Vec bj = V::set1(b[j]);
                c0[j] = V::fma(a0, bj, c0[j]);
                c1[j] = V::fma(a1, bj, c1[j]);
            }
            a += 2 * L;
            b += NR;
        }
    }
    for (; l < kc; ++l) {
        const Vec a0 = V::load(a), a1 = V::load(a + L);
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j) {
            const Vec bj = V::set1(b[j]);
            c0[j] = V::fma(a0, bj, c0[j]);
            c1[j] = V::fma(a1, bj, c1[j]);
        }
        a += 2 * L;
        b += NR;
    }
}

// V: traits with T, Vec, lanes, zero(), load(aligned), loadu(), storeu(), set1(), fma(), mul().
template <typename V, int NR>
void register_tile_kernel(int64_t kc, const typename V::T *__restrict a,
                          const typename V::T *__restrict b, typename V::T *__restrict c,
                          int64_t ldc, typename V::T alpha, typename V::T beta) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
    prefetch_tile<V, NR>(c, ldc);
    Vec c0[NR], c1[NR];
    tile_product<V, NR>(kc, a, b, c0, c1);

    const Vec va = V::set1(alpha);
    if (beta == typename V::T(0)) { // C is not read
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j) {
            V::storeu(c + j * ldc, V::mul(va, c0[j]));
            V::storeu(c + j * ldc + L, V::mul(va, c1[j]));
        }
    } else {
        const Vec vb = V::set1(beta);
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j) {
            V::storeu(c + j * ldc, V::fma(vb, V::loadu(c + j * ldc), V::mul(va, c0[j])));
            V::storeu(c + j * ldc + L, V::fma(vb, V::loadu(c + j * ldc + L), V::mul(va, c1[j])));
        }
    }
}

// For Strassen's products: the same tile added into several blocks of C,
// C_t += scale[t]·(a·b), straight from the registers.
template <typename V, int NR>
void register_tile_kernel_multi(int64_t kc, const typename V::T *__restrict a,
                                const typename V::T *__restrict b, int count,
                                typename V::T *const *c, const typename V::T *scale, int64_t ldc) {
    using Vec = typename V::Vec;
    constexpr int L = V::lanes;
    for (int t = 0; t < count; ++t) prefetch_tile<V, NR>(c[t], ldc);
    Vec c0[NR], c1[NR];
    tile_product<V, NR>(kc, a, b, c0, c1);
    for (int t = 0; t < count; ++t) {
        const Vec s = V::set1(scale[t]);
        typename V::T *ct = c[t];
#pragma GCC unroll 32
        for (int j = 0; j < NR; ++j) {
            V::storeu(ct + j * ldc, V::fma(s, c0[j], V::loadu(ct + j * ldc)));
            V::storeu(ct + j * ldc + L, V::fma(s, c1[j], V::loadu(ct + j * ldc + L)));
        }
    }
}

} // namespace tessera::cpu
