// The unpacked ("direct") path for small and short-wide products: C tiles of up to 4 vectors
// × NR columns in registers, op(A) read in place as columns (masked at the bottom edge, so
// nothing past the matrix is touched) and op(B) broadcast from any strides. No packing of B.
// Included only by the ISA files, each compiled for its own ISA.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "cpu/kernels/microkernel.hpp"

namespace tessera::cpu {

// One tile: rows = (MV-1)·L + last_rows, NC columns, the whole k loop in registers.
// a: op(A) column-major (element (i, l) at a[i + l*lda]); b: element (l, j) at
// b[l*b_rs + j*b_cs]; C column-major. beta == 0 never reads C. With Full, the last vector is
// whole (last_rows = L): plain loads and stores, which, unlike masked stores, forward to the
// loads of a next product on the same C. With S > 1, S sets of accumulators take the columns
// of op(A) in turns and are summed at the end: a tile of few accumulators is otherwise held
// by the latency of its FMA chains.
template <typename V, int MV, int NC, bool Full = false, int S = 1>
void direct_tile(int64_t k, const typename V::T *__restrict a, int64_t lda,
                 const typename V::T *__restrict b, int64_t b_rs, int64_t b_cs,
                 typename V::T *__restrict c, int64_t ldc, typename V::T alpha, typename V::T beta,
                 int last_rows) {
    using Vec = typename V::Vec;
    const typename V::Mask last = V::mask(last_rows);
    constexpr int L = V::lanes;
    Vec acc[S][MV][NC];
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s)
#pragma GCC unroll 64
        for (int v = 0; v < MV; ++v)
#pragma GCC unroll 16
            for (int j = 0; j < NC; ++j) acc[s][v][j] = V::zero();
    auto step = [&](int64_t l, Vec(&sum)[MV][NC]) __attribute__((always_inline)) {
        // Indexed, not stepped: a pointer advanced past the last column could leave the address
        // space (lda near INT64_MAX with k = 1), which is undefined even if never read.
        const typename V::T *al = a + l * lda;
        Vec av[MV];
#pragma GCC unroll 4
        for (int v = 0; v + 1 < MV; ++v) av[v] = V::loadu(al + v * L);
        if constexpr (Full) av[MV - 1] = V::loadu(al + (MV - 1) * L);
        else av[MV - 1] = V::maskload(al + (MV - 1) * L, last);
        const typename V::T *bl = b + l * b_rs;
#pragma GCC unroll 16
        for (int j = 0; j < NC; ++j) {
            const Vec bj = V::set1(bl[j * b_cs]);
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) sum[v][j] = V::fma(av[v], bj, sum[v][j]);
        }
    };
    int64_t l = 0;
    if constexpr (S > 1)
        for (; l + S <= k; l += S)
#pragma GCC unroll 4
            for (int s = 0; s < S; ++s) step(l + s, acc[s]);
    for (; l < k; ++l) step(l, acc[0]);
#pragma GCC unroll 4
    for (int s = 1; s < S; ++s)
#pragma GCC unroll 64
        for (int v = 0; v < MV; ++v)
#pragma GCC unroll 16
            for (int j = 0; j < NC; ++j) acc[0][v][j] = V::add(acc[0][v][j], acc[s][v][j]);
    const Vec va = V::set1(alpha);
    auto store = [&](int j, int v, Vec r) {
        typename V::T *p = c + j * ldc + v * L;
        if (Full || v + 1 < MV) V::storeu(p, r);
        else V::maskstore(p, last, r);
    };
    if (beta == typename V::T(0)) { // C is not read
#pragma GCC unroll 16
        for (int j = 0; j < NC; ++j)
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) store(j, v, V::mul(va, acc[0][v][j]));
        return;
    }
    // Column j + 1 of C is read before column j is written: with a leading dimension shorter
    // than the tile's vectors (m = 4 floats, ldc = 4), the masked store of column j covers the
    // first elements of column j + 1, and a load after it would wait for that store to retire
    // (masked stores do not forward to loads).
    const Vec vb = V::set1(beta);
    auto load = [&](int j, int v) {
        const typename V::T *p = c + j * ldc + v * L;
        return Full || v + 1 < MV ? V::loadu(p) : V::maskload(p, last);
    };
    Vec cur[MV];
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) cur[v] = load(0, v);
#pragma GCC unroll 16
    for (int j = 0; j < NC; ++j) {
        Vec next[MV];
        if (j + 1 < NC)
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) next[v] = load(j + 1, v);
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v) store(j, v, V::fma(vb, cur[v], V::mul(va, acc[0][v][j])));
        if (j + 1 < NC)
#pragma GCC unroll 4
            for (int v = 0; v < MV; ++v) cur[v] = next[v];
    }
}

// C[0:m, 0:n] = alpha·op(A)·op(B) + beta·C over tiles: with Wide, blocks of 4 vectors × NR/2
// columns while more than two vectors of rows remain, then 1–2 vectors × NR columns; without,
// every block is 1–2 vectors × NR columns; rows of one vector take up to NS columns a tile.
// A tile's accumulators, its column of op(A) and a broadcast of op(B) must fit the ISA's vector
// registers, or op(A) is reloaded for every FMA: 16 ymm registers hold a 2 × 6 tile (15) and a
// 1 × 12 one (15 with its mask) but not a 4 × 3 one (17). One vector of rows by NR columns
// leaves the FMAs waiting on their latency (six chains where the core's two FMA pipes of four
// cycles want eight); by NS (2·NR unless the ISA's file says otherwise) it keeps them busy;
// NSM columns where that vector is masked (a part of one).
template <typename V, int NR, bool Wide = true, int NS = 2 * NR, int NSM = NS> struct DirectGemm {
    static_assert(NSM <= NS);
    using T = typename V::T;
    static constexpr int64_t kChunk = 256;
    using TileFn = void (*)(int64_t, const T *, int64_t, const T *, int64_t, int64_t, T *, int64_t,
                            T, T, int);

    template <int MV, bool Full, size_t... J> static constexpr auto row(std::index_sequence<J...>) {
        return std::array<TileFn, sizeof...(J)>{&direct_tile<V, MV, int(J) + 1, Full>...};
    }

    // One tile of MV vectors × NC columns as a whole product (DirectGemmFn): m fills the last
    // vector in part (all of it with Full), n is NC, k at most kChunk. Tiles of at most four
    // accumulators take k in two halves (direct_tile's S).
    template <int MV, int NC, bool Full>
    static void one_tile(int64_t m, int64_t, int64_t k, T alpha, const T *a, int64_t lda,
                         const T *b, int64_t b_rs, int64_t b_cs, T beta, T *c, int64_t ldc) {
        direct_tile<V, MV, NC, Full, (MV * NC <= 4 ? 2 : 1)>(
            k, a, lda, b, b_rs, b_cs, c, ldc, alpha, beta, int(m - int64_t(MV - 1) * V::lanes));
    }
    template <int MV, bool Full, size_t... J>
    static constexpr auto whole(std::index_sequence<J...>) {
        return std::array<DirectGemmFn<T>, sizeof...(J)>{&one_tile<MV, int(J) + 1, Full>...};
    }
    // Two tiles of two vectors side by side as a whole product: n of NR + 1 to 2·NR columns,
    // split as run() splits them, without run()'s loop (a third of an 8×8×8 dgemm's time).
    template <int N, bool Full>
    static void two_tiles(int64_t m, int64_t, int64_t k, T alpha, const T *a, int64_t lda,
                          const T *b, int64_t b_rs, int64_t b_cs, T beta, T *c, int64_t ldc) {
        constexpr int first = N < NR + 3 ? (N + 1) / 2 : NR, second = N - first;
        const int last = int(m - V::lanes);
        direct_tile<V, 2, first, Full, (first <= 2 ? 2 : 1)>(k, a, lda, b, b_rs, b_cs, c, ldc,
                                                             alpha, beta, last);
        direct_tile<V, 2, second, Full, (second <= 2 ? 2 : 1)>(
            k, a, lda, b + first * b_cs, b_rs, b_cs, c + first * ldc, ldc, alpha, beta, last);
    }
    template <bool Full, size_t... J> static constexpr auto pairs(std::index_sequence<J...>) {
        return std::array<DirectGemmFn<T>, sizeof...(J)>{&two_tiles<NR + 1 + int(J), Full>...};
    }

    // The kernel run() would run an m×n×k product on: one tile's own where the product is one
    // tile, else run itself.
    static DirectGemmFn<T> pick(int64_t m, int64_t n, int64_t k) {
        constexpr int L = V::lanes;
        using Seq = std::make_index_sequence<NR>;
        using Single = std::make_index_sequence<NS>;
        static constexpr auto part1 = whole<1, false>(Single{});
        static constexpr auto full1 = whole<1, true>(Single{});
        static constexpr auto part2 = whole<2, false>(Seq{}), full2 = whole<2, true>(Seq{});
        static constexpr auto part_pair = pairs<false>(Seq{}), full_pair = pairs<true>(Seq{});
        if (m < 1 || n < 1 || k < 1 || m > 2 * L || k > kChunk) return &run;
        const bool full = m % L == 0;
        if (m > L && n > NR && n <= 2 * NR) return (full ? full_pair : part_pair)[n - NR - 1];
        if (n > (m > L ? NR : full ? NS : NSM)) return &run;
        if (m > L) return (full ? full2 : part2)[n - 1];
        return (full ? full1 : part1)[n - 1];
    }

    static void run(int64_t m, int64_t n, int64_t k, T alpha, const T *a, int64_t lda, const T *b,
                    int64_t b_rs, int64_t b_cs, T beta, T *c, int64_t ldc) {
        constexpr int L = V::lanes, NW = NR / 2;
        // Each tile in two forms: its last vector whole (plain loads and stores) or in part.
        using Single = std::make_index_sequence<NS>;
        using Narrow = std::make_index_sequence<NR>;
        using Wide_ = std::make_index_sequence<NW>;
        static constexpr std::array<TileFn, NS> single_tiles[2] = {row<1, false>(Single{}),
                                                                   row<1, true>(Single{})};
        static constexpr std::array<TileFn, NR> pair_tiles[2] = {row<2, false>(Narrow{}),
                                                                 row<2, true>(Narrow{})};
        static constexpr std::array<TileFn, NW> wide_tiles[2][2] = {
            {row<3, false>(Wide_{}), row<3, true>(Wide_{})},
            {row<4, false>(Wide_{}), row<4, true>(Wide_{})}};
        if (m <= 2 * L && n <= (m > L ? NR : m == L ? NS : NSM) && k <= kChunk) { // one tile
            const int last = int(m > L ? m - L : m);
            (m > L ? pair_tiles[last == L][n - 1] : single_tiles[last == L][n - 1])(
                k, a, lda, b, b_rs, b_cs, c, ldc, alpha, beta, last);
            return;
        }
        for (int64_t i0 = 0; i0 < m;) {
            const int64_t rows = m - i0;
            const bool wide = Wide && rows > 2 * L;
            const int mv = wide ? (rows > 3 * L ? 4 : 3) : (rows > L ? 2 : 1);
            const int64_t take = std::min<int64_t>(rows, int64_t(mv) * L);
            const int last = int(take - int64_t(mv - 1) * L);
            const int nr = wide ? NW : mv > 1 ? NR : last == L ? NS : NSM;
            // Full tiles, but a last tile of one or two columns (too few accumulators to cover
            // the FMA latency) shares the columns with the one before: 8 = 4 + 4, not 6 + 2.
            for (int64_t j0 = 0, nc = 0; j0 < n; j0 += nc) {
                const int64_t rest = n - j0;
                nc = rest <= nr ? rest : (rest < nr + 3 ? (rest + 1) / 2 : nr);
                const bool full = last == L;
                const TileFn f = mv > 2    ? wide_tiles[mv - 3][full][nc - 1]
                                 : mv == 2 ? pair_tiles[full][nc - 1]
                                           : single_tiles[full][nc - 1];
                // k in chunks, each added to C: shorter running sums keep the rounding error
                // of long products like that of the packed path (which sums KC at a time).
                for (int64_t l0 = 0; l0 < k; l0 += kChunk)
                    f(std::min(kChunk, k - l0), a + i0 + l0 * lda, lda, b + j0 * b_cs + l0 * b_rs,
                      b_rs, b_cs, c + i0 + j0 * ldc, ldc, alpha, l0 == 0 ? beta : T(1), last);
            }
            i0 += take;
        }
    }
};

} // namespace tessera::cpu
