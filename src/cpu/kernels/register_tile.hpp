// The SIMD register-tile micro-kernel, written once over a small vector-traits type: an
// (MV·lanes)×NR tile of C in MV·NR vector registers, one FMA per register per step of k.
// Included only by the ISA files (avx512.cpp, avx2.cpp), each compiled for its own ISA.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// Ask for every cache line of a C tile now (a column of MV·L elements spans MV or MV+1
// lines), so they arrive while the k loop runs instead of stalling the stores at the end.
template <typename V, int MV, int NR> inline void prefetch_tile(const typename V::T *c, int64_t ldc) {
    constexpr int L = V::lanes;
    for (int j = 0; j < NR; ++j) {
        for (int v = 0; v < MV; ++v) __builtin_prefetch(c + j * ldc + v * L, 1, 3);
        __builtin_prefetch(c + j * ldc + MV * L - 1, 1, 3);
    }
}

// The k loop: acc[v][j] (rows v·L .. v·L+L-1, column j of the tile) += a·b over kc steps.
template <typename V, int MV, int NR>
inline __attribute__((always_inline)) void tile_product(int64_t kc,
                                                         const typename V::T *__restrict a,
                                                         const typename V::T *__restrict b,
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

} // namespace tessera::cpu
