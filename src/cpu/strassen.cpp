// Strassen's method, one or two levels, fused into packing: each product's operands are sums
// of blocks that pack_a_sum / pack_b_panel_sum form while packing, and the macro-kernel adds the
// result into every block of C it belongs to. No temporary matrices; fringes run classically, and
// so does a product whose A or B holds Inf or NaN.
#include "cpu/strassen.hpp"

#include <algorithm>
#include <vector>

#include "cpu/pack.hpp"
#include "cpu/packed_loops.hpp"

namespace tessera::cpu {

namespace {

// A block (row, column) of a 2^L × 2^L partition, with a sign.
struct Term {
    int r, c, sign;
};
struct Product {
    std::vector<Term> a, b, c;
};

// Strassen's seven products on 2×2 blocks (the first A and B term of each is +1):
// M1 = (A11+A22)(B11+B22), M2 = (A21+A22)B11, M3 = A11(B12−B22), M4 = A22(B21−B11),
// M5 = (A11+A12)B22, M6 = (A21−A11)(B11+B12), M7 = (A12−A22)(B21+B22);
// C11 = M1+M4−M5+M7, C12 = M3+M5, C21 = M2+M4, C22 = M1−M2+M3+M6.
const std::vector<Product> &one_level() {
    static const std::vector<Product> p = {
        {{{0, 0, 1}, {1, 1, 1}}, {{0, 0, 1}, {1, 1, 1}}, {{0, 0, 1}, {1, 1, 1}}},
        {{{1, 0, 1}, {1, 1, 1}}, {{0, 0, 1}}, {{1, 0, 1}, {1, 1, -1}}},
        {{{0, 0, 1}}, {{0, 1, 1}, {1, 1, -1}}, {{0, 1, 1}, {1, 1, 1}}},
        {{{1, 1, 1}}, {{1, 0, 1}, {0, 0, -1}}, {{0, 0, 1}, {1, 0, 1}}},
        {{{0, 0, 1}, {0, 1, 1}}, {{1, 1, 1}}, {{0, 0, -1}, {0, 1, 1}}},
        {{{1, 0, 1}, {0, 0, -1}}, {{0, 0, 1}, {0, 1, 1}}, {{1, 1, 1}}},
        {{{0, 1, 1}, {1, 1, -1}}, {{1, 0, 1}, {1, 1, 1}}, {{0, 0, 1}}},
    };
    return p;
}

// Two levels: each product of the outer level is itself split into seven, so a term of the
// 4×4 partition is the pair of an outer and an inner term (signs multiply).
std::vector<Term> compose(const std::vector<Term> &outer, const std::vector<Term> &inner) {
    std::vector<Term> out;
    for (const Term &o : outer)
        for (const Term &i : inner) out.push_back({o.r * 2 + i.r, o.c * 2 + i.c, o.sign * i.sign});
    return out;
}

std::vector<Product> products(int levels) {
    if (levels == 1) return one_level();
    std::vector<Product> out;
    for (const Product &o : one_level())
        for (const Product &i : one_level())
            out.push_back({compose(o.a, i.a), compose(o.b, i.b), compose(o.c, i.c)});
    return out;
}

// Where block (r, c) of op(X) starts in X's storage, blocks of rows × cols elements.
template <typename T>
const T *block(const T *x, bool trans, int64_t ld, int r, int c, int64_t rows, int64_t cols) {
    const int64_t i0 = r * rows, j0 = c * cols;
    return trans ? x + j0 + i0 * ld : x + i0 + j0 * ld;
}

template <typename T> void scale(T *c, int64_t ldc, int64_t m, int64_t n, T beta, int threads) {
    if (beta == T(1)) return;
#pragma omp parallel for num_threads(threads) if (threads > 1)
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            c[i + j * ldc] = beta == T(0) ? T(0) : beta * c[i + j * ldc];
}

// Whether every element of a rows × cols matrix is finite. x − x is 0 for a finite x and NaN
// for Inf or NaN: a test the compiler vectorises, one pass over the operand.
template <typename T>
bool all_finite(const T *x, int64_t ld, int64_t rows, int64_t cols, int threads) {
    bool bad = false;
#pragma omp parallel for num_threads(threads) if (threads > 1) reduction(|| : bad)
    for (int64_t j = 0; j < cols; ++j) {
        bool col_bad = false;
        for (int64_t i = 0; i < rows; ++i) col_bad |= !(x[i + j * ld] - x[i + j * ld] == T(0));
        bad = bad || col_bad;
    }
    return !bad;
}

// One product's macro-kernel: each tile is computed once and added, with its sign, into every
// block of C the product belongs to (C was scaled by beta beforehand).
template <typename T>
void macro_kernel_sum(const MicroKernel<T> &uk, const core::GemmArgs<T> &g,
                      const BlockTargets<T> &targets, const T *pa, const T *pb, int64_t ic,
                      int64_t mc, int64_t jc, int64_t jr0, int64_t jr1, int64_t nc, int64_t kc) {
    const int mr = uk.blocks.mr, nr = uk.blocks.nr;
    alignas(64) T tile[32 * 32]; // mr·nr <= 1024
    T scale[4];
    for (int t = 0; t < targets.count; ++t) scale[t] = g.alpha * targets.coef[t];
    for (int64_t jr = jr0; jr < jr1; jr += nr) {
        const int cols = int(std::min<int64_t>(nr, nc - jr));
        const T *b = pb + (jr / nr) * kc * nr;
        for (int64_t ir = 0; ir < mc; ir += mr) {
            const int rows = int(std::min<int64_t>(mr, mc - ir));
            if (rows == mr && cols == nr && uk.multi) {
                T *c[4];
                for (int t = 0; t < targets.count; ++t)
                    c[t] = targets.ptr[t] + (ic + ir) + (jc + jr) * g.ldc;
                uk.multi(kc, pa + (ir / mr) * kc * mr, b, targets.count, c, scale, g.ldc);
                continue;
            }
            uk.run(kc, pa + (ir / mr) * kc * mr, b, tile, mr, T(1), T(0));
            for (int t = 0; t < targets.count; ++t) {
                T *c = targets.ptr[t] + (ic + ir) + (jc + jr) * g.ldc;
                for (int j = 0; j < cols; ++j)
                    for (int i = 0; i < rows; ++i) c[i + j * g.ldc] += scale[t] * tile[i + j * mr];
            }
        }
    }
}

// One product's step of the packed loops: the sums of A's and of B's blocks formed while
// packing, each tile added into the product's blocks of C.
template <typename T> struct SumStep {
    const MicroKernel<T> &uk;
    const core::GemmArgs<T> &g; // the product's shape, alpha and op; its A, B and C unused
    const Combination<T> &comb;

    void pack_b(int64_t pc, int64_t kc, int64_t jc, int64_t nc, int64_t q0, int64_t q1,
                T *pb) const {
        const int nr = uk.blocks.nr;
        for (int64_t q = q0; q < q1; ++q)
            pack_b_panel_sum(g, PackSources<T>{comb.b.count, comb.b.ptr, comb.b.coef, uk.sum}, pc,
                             kc, jc + q * nr, int(std::min<int64_t>(nr, nc - q * nr)), nr,
                             pb + q * kc * nr);
    }
    void block(T *pa, const T *pb, int64_t ic, int64_t mc, const LoopStep &at, T) const {
        pack_a_sum(g, PackSources<T>{comb.a.count, comb.a.ptr, comb.a.coef, uk.sum}, ic, mc, at.pc,
                   at.kc, uk.blocks.mr, pa);
        macro_kernel_sum(uk, g, comb.c, pa, pb, ic, mc, at.jc, at.jr0, at.jr1, at.nc, at.kc);
    }
    void after(T *, const T *, const LoopStep &, T) const {}
};

// C_t += alpha·coef_t·(sum of A blocks)(sum of B blocks) for one of Strassen's products, whose
// tiles update C more often than a classical product's do: a deeper KC (and an MC that keeps
// the A block in L2) makes fewer of those passes over C.
template <typename T>
tsr_status product(const MicroKernel<T> &uk, const core::GemmArgs<T> &part, int threads,
                   const Combination<T> &comb) {
    Blocking bs = uk.blocks;
    bs.kc = bs.strassen_kc, bs.mc = bs.strassen_mc;
    SumStep<T> step{uk, part, comb};
    return packed_loops<T>(
        part, bs, threads, part.m, [&](int64_t) { return bs.mc; }, step);
}

} // namespace

int strassen_levels_for(int64_t m, int64_t n, int64_t k, int levels, int64_t min_block) {
    const int64_t smallest = std::min({m, n, k});
    while (levels > 0 && (smallest >> levels) < min_block) --levels;
    return levels;
}

template <typename T>
tsr_status strassen_gemm(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int threads,
                         int levels) {
    // Strassen's sums mix blocks: an Inf in A11 would reach C12 and C22 through the products
    // that share it, and Inf − Inf makes NaN where the classical product has Inf. With any
    // non-finite operand the classical product runs instead, so IEEE semantics hold exactly.
    const bool finite =
        all_finite(g.A, g.lda, g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, threads) &&
        all_finite(g.B, g.ldb, g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, threads);
    if (!finite) return gemm_blocked<T>(uk, g, threads);
    const int64_t s = int64_t(1) << levels;
    const int64_t ms = g.m / s * s, ns = g.n / s * s, ks = g.k / s * s;
    const int64_t mb = ms / s, nb = ns / s, kb = ks / s;
    auto sub = [&](int64_t i0, int64_t j0, int64_t l0, int64_t m, int64_t n, int64_t k, T beta) {
        core::GemmArgs<T> r = g;
        r.m = m, r.n = n, r.k = k, r.beta = beta;
        r.A = g.trans_a ? g.A + l0 + i0 * g.lda : g.A + i0 + l0 * g.lda;
        r.B = g.trans_b ? g.B + j0 + l0 * g.ldb : g.B + l0 + j0 * g.ldb;
        r.C = g.C + i0 + j0 * g.ldc;
        return r;
    };

    // Fringes outside the 2^L-divisible part: the last rows, then the last columns.
    if (g.m > ms) {
        tsr_status st = gemm_blocked<T>(uk, sub(ms, 0, 0, g.m - ms, g.n, g.k, g.beta), threads);
        if (st != TSR_SUCCESS) return st;
    }
    if (g.n > ns) {
        tsr_status st = gemm_blocked<T>(uk, sub(0, ns, 0, ms, g.n - ns, g.k, g.beta), threads);
        if (st != TSR_SUCCESS) return st;
    }

    // The main part: C = beta·C, then every product added in, then the last k columns of op(A).
    scale(g.C, g.ldc, ms, ns, g.beta, threads);
    core::GemmArgs<T> part = g;
    part.m = mb, part.n = nb, part.k = kb, part.beta = T(1);
    for (const Product &p : products(levels)) {
        Combination<T> comb;
        for (const Term &t : p.a) {
            comb.a.ptr[comb.a.count] = block(g.A, g.trans_a, g.lda, t.r, t.c, mb, kb);
            comb.a.coef[comb.a.count++] = T(t.sign);
        }
        for (const Term &t : p.b) {
            comb.b.ptr[comb.b.count] = block(g.B, g.trans_b, g.ldb, t.r, t.c, kb, nb);
            comb.b.coef[comb.b.count++] = T(t.sign);
        }
        for (const Term &t : p.c) {
            comb.c.ptr[comb.c.count] = g.C + t.r * mb + t.c * nb * g.ldc;
            comb.c.coef[comb.c.count++] = T(t.sign);
        }
        tsr_status st = product<T>(uk, part, threads, comb);
        if (st != TSR_SUCCESS) return st;
    }
    if (g.k > ks) return gemm_blocked<T>(uk, sub(0, 0, ks, ms, ns, g.k - ks, T(1)), threads);
    return TSR_SUCCESS;
}

template tsr_status strassen_gemm<float>(const MicroKernel<float> &, const core::GemmArgs<float> &,
                                         int, int);
template tsr_status strassen_gemm<double>(const MicroKernel<double> &,
                                          const core::GemmArgs<double> &, int, int);

} // namespace tessera::cpu
