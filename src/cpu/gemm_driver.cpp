// The CPU gemm: BLIS-style five loops (jc over NC, pc over KC, ic over MC, jr over NR, ir over
// MR) around a register micro-kernel, with packed A and B and OpenMP threads over (ic, jr).
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "cpu/isa.hpp"
#include "cpu/kernels/microkernel.hpp"
#include "cpu/pack.hpp"
#include "cpu/strassen.hpp"

namespace tessera::cpu {

namespace {

// A 64-byte aligned scratch buffer kept per thread and grown on demand; nullptr when out of
// memory (nothing may throw inside an OpenMP region).
template <typename T> T *scratch(int slot, size_t count) {
    struct Buffer {
        void *p = nullptr;
        size_t bytes = 0;
        ~Buffer() { std::free(p); }
    };
    thread_local Buffer buffers[2];
    Buffer &b = buffers[slot];
    size_t want = (count * sizeof(T) + 63) / 64 * 64;
    if (b.bytes < want) {
        std::free(b.p);
        b.p = std::aligned_alloc(64, want);
        b.bytes = b.p ? want : 0;
    }
    return static_cast<T *>(b.p);
}

// C = beta·C without reading A or B (alpha == 0 or k == 0); beta == 0 writes zeros.
template <typename T> void scale_c(const core::GemmArgs<T> &g, int threads) {
    if (g.m * g.n <= 65536) threads = 1;
#pragma omp parallel for num_threads(threads) if (threads > 1)
    for (int64_t j = 0; j < g.n; ++j) {
        T *c = g.C + j * g.ldc;
        if (g.beta == T(0))
            for (int64_t i = 0; i < g.m; ++i) c[i] = T(0);
        else
            for (int64_t i = 0; i < g.m; ++i) c[i] *= g.beta;
    }
}

// One MC×NC block of C from packed A (this thread's) and packed B (shared), tiles jr0..jr1.
// How the threads share the work under one packed B panel: a grid of tm × tn threads, tm
// over contiguous ranges of MR-row panels of C (each thread packs only its own rows of A),
// tn over NR-column tiles (only when there are too few row panels for every thread).
struct ThreadGrid {
    int tm, tn;
};

// Columns of C per jc block: n in as few blocks as NC allows, with an eighth of slack, in equal
// parts of whole NR tiles. Every jc block packs all of A again, so a last block of a few columns
// (4096 = 2·2040 + 16 in double, 4096 = 4092 + 4 in float) would cost a whole pass over A for them.
int64_t column_block(int64_t n, int64_t nc, int nr) {
    const int64_t blocks = std::max<int64_t>(1, (8 * n + 9 * nc - 1) / (9 * nc));
    return ((n + blocks - 1) / blocks + nr - 1) / nr * nr;
}

ThreadGrid thread_grid(int threads, int64_t row_panels) {
    for (int tm = threads; tm > 1; --tm)
        if (threads % tm == 0 && row_panels >= 2 * int64_t(tm)) return {tm, threads / tm};
    return {1, threads};
}

// The same for one of Strassen's products: each tile is computed once and added, with its
// sign, into every block of C the product belongs to (C was scaled by beta beforehand).
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

// Asks for a tile of C the macro-kernel will read (beta != 0) four tiles down the same columns:
// with a short k (rank-k updates, as PBLAS issues with k = 32) the micro-kernel's own prefetch,
// as it starts, leaves it waiting on memory.
template <typename T> inline void prefetch_c(const T *c, int rows, int cols, int64_t ldc) {
    constexpr int per_line = 64 / int(sizeof(T));
    for (int j = 0; j < cols; ++j) {
        const T *col = c + j * ldc;
        for (int i = 0; i < rows; i += per_line) __builtin_prefetch(col + i, 1, 2);
        __builtin_prefetch(col + rows - 1, 1, 2);
    }
}

template <typename T>
void macro_kernel(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, const T *pa, const T *pb,
                  int64_t ic, int64_t mc, int64_t jc, int64_t jr0, int64_t jr1, int64_t nc,
                  int64_t kc, T beta) {
    const int mr = uk.blocks.mr, nr = uk.blocks.nr;
    alignas(64) T edge[32 * 32]; // mr·nr <= 1024
    for (int64_t jr = jr0; jr < jr1; jr += nr) {
        const int cols = int(std::min<int64_t>(nr, nc - jr));
        const T *b = pb + (jr / nr) * kc * nr;
        for (int64_t ir = 0; ir < mc; ir += mr) {
            const int rows = int(std::min<int64_t>(mr, mc - ir));
            const T *a = pa + (ir / mr) * kc * mr;
            T *c = g.C + (ic + ir) + (jc + jr) * g.ldc;
            if (beta != T(0) && ir + 4 * mr < mc)
                prefetch_c(c + 4 * mr, int(std::min<int64_t>(mr, mc - ir - 4 * mr)), cols, g.ldc);
            if (rows == mr && cols == nr) {
                uk.run(kc, a, b, c, g.ldc, g.alpha, beta);
            } else if (uk.direct) { // partial tile: the unpacked path's tiles, on the panels
                uk.direct(rows, cols, kc, g.alpha, a, mr, b, nr, 1, beta, c, g.ldc);
            } else { // partial tile: compute into a local tile, write only what exists
                uk.run(kc, a, b, edge, mr, T(1), T(0));
                for (int j = 0; j < cols; ++j)
                    for (int i = 0; i < rows; ++i) {
                        T &cij = c[i + j * g.ldc];
                        T v = g.alpha * edge[i + j * mr];
                        cij = beta == T(0) ? v : v + beta * cij;
                    }
            }
        }
    }
}

} // namespace

template <typename T>
tsr_status gemm_blocked(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int threads,
                        const Combination<T> *comb) {
    // Strassen's products add each tile into up to four blocks of C: a deeper KC (and an MC
    // that keeps the A block in L2) makes fewer of those passes over C.
    Blocking bs = uk.blocks;
    if (comb) bs.kc = bs.strassen_kc, bs.mc = bs.strassen_mc;
    const int mr = bs.mr, nr = bs.nr;
    // A last row panel of at most MR/4 rows (257 = 4·64 + 1 in float) is shared out by columns
    // among all the threads, after their full panels: given whole to one thread it cost that
    // thread up to a sixth of a panel's time more than the others.
    const int64_t fringe =
        !comb && threads > 1 && g.m > mr && g.m % mr != 0 && g.m % mr <= mr / 4 ? g.m % mr : 0;
    const int64_t m_main = g.m - fringe;
    const int64_t row_panels = (m_main + mr - 1) / mr;
    const int64_t kc_max = std::min<int64_t>(bs.kc, g.k);
    const int64_t nc_block = column_block(g.n, bs.nc, nr);
    const int64_t nc_max = std::min<int64_t>(nc_block, (g.n + nr - 1) / nr * nr);
    T *pb = scratch<T>(0, size_t(kc_max) * size_t(nc_max));
    if (!pb) return core::fail(TSR_ERR_OUT_OF_MEMORY, "gemm: cannot allocate the packed B panel");
    bool out_of_memory = false;

#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        // The team may be smaller than asked (OMP_THREAD_LIMIT, OMP_DYNAMIC): the work is shared
        // among the threads there are, or rows of C would be left unwritten.
        const int team = threads > 1 ? omp_get_num_threads() : 1;
        const int t = threads > 1 ? omp_get_thread_num() : 0;
        const ThreadGrid grid = thread_grid(team, row_panels);
        const int ti = t / grid.tn, tj = t % grid.tn;
        // This thread's rows of C, split into equal blocks of at most MC rows.
        const int64_t r0 = std::min(m_main, row_panels * ti / grid.tm * mr);
        const int64_t r1 = std::min(m_main, row_panels * (ti + 1) / grid.tm * mr);
        // A rank-k update (k of 64 or less, where moving C costs as much as the products)
        // leaves the A block small: it grows in rows to the bytes an MC×KC block has (up to
        // 8 MC), so each column of C is read and written in longer runs. Deeper products keep
        // MC: there the larger block measured slower (8906×45×131).
        const int64_t mc_max =
            kc_max <= 64 ? std::min<int64_t>(8 * bs.mc, bs.mc * bs.kc / kc_max) : bs.mc;
        const int64_t blocks = std::max<int64_t>(1, (r1 - r0 + mc_max - 1) / mc_max);
        const int64_t mc = ((r1 - r0 + blocks - 1) / blocks + mr - 1) / mr * mr;
        T *pa = scratch<T>(1, size_t(kc_max) * size_t(std::max<int64_t>(mc, mr)));
        if (!pa) {
#pragma omp atomic write
            out_of_memory = true;
        }
#pragma omp barrier
        bool skip;
#pragma omp atomic read
        skip = out_of_memory;
        if (!skip)
            for (int64_t jc = 0; jc < g.n; jc += nc_block) {
                const int64_t nc = std::min<int64_t>(nc_block, g.n - jc);
                const int64_t panels = (nc + nr - 1) / nr;
                const int64_t jr0 = std::min(nc, panels * tj / grid.tn * nr);
                const int64_t jr1 = std::min(nc, panels * (tj + 1) / grid.tn * nr);
                for (int64_t pc = 0; pc < g.k; pc += bs.kc) {
                    const int64_t kc = std::min<int64_t>(bs.kc, g.k - pc);
                    const T beta = pc == 0 ? g.beta : T(1);
#pragma omp for schedule(static)
                    for (int64_t p = 0; p < panels; ++p) {
                        const int cols = int(std::min<int64_t>(nr, nc - p * nr));
                        T *dst = pb + p * kc * nr;
                        if (!comb) {
                            pack_b_panel(g, pc, kc, jc + p * nr, cols, nr, dst);
                            continue;
                        }
                        pack_b_panel_sum(
                            g, PackSources<T>{comb->b.count, comb->b.ptr, comb->b.coef, uk.sum}, pc,
                            kc, jc + p * nr, cols, nr, dst);
                    }
                    // implicit barrier: B is packed
                    for (int64_t ic = r0; ic < r1 && jr1 > jr0; ic += mc) {
                        const int64_t mcur = std::min<int64_t>(mc, r1 - ic);
                        if (!comb) {
                            pack_a(g, ic, mcur, pc, kc, mr, pa);
                            macro_kernel(uk, g, pa, pb, ic, mcur, jc, jr0, jr1, nc, kc, beta);
                            continue;
                        }
                        pack_a_sum(g,
                                   PackSources<T>{comb->a.count, comb->a.ptr, comb->a.coef, uk.sum},
                                   ic, mcur, pc, kc, mr, pa);
                        macro_kernel_sum(uk, g, comb->c, pa, pb, ic, mcur, jc, jr0, jr1, nc, kc);
                    }
                    if (fringe > 0) { // the fringe rows, this thread's share of the column tiles
                        const int64_t f0 = std::min(nc, panels * t / team * nr);
                        const int64_t f1 = std::min(nc, panels * (t + 1) / team * nr);
                        if (f1 > f0) {
                            pack_a(g, m_main, fringe, pc, kc, mr, pa);
                            macro_kernel(uk, g, pa, pb, m_main, fringe, jc, f0, f1, nc, kc, beta);
                        }
                    }
#pragma omp barrier
                    // every thread is done with B: it may be repacked
                }
            }
    }
    if (out_of_memory)
        return core::fail(TSR_ERR_OUT_OF_MEMORY, "gemm: cannot allocate a packed A block");
    return TSR_SUCCESS;
}

template tsr_status gemm_blocked<float>(const MicroKernel<float> &, const core::GemmArgs<float> &,
                                        int, const Combination<float> *);
template tsr_status gemm_blocked<double>(const MicroKernel<double> &,
                                         const core::GemmArgs<double> &, int,
                                         const Combination<double> *);

namespace {

// Products up to this volume (m·n·k) skip packing altogether.
constexpr double kDirectMaxVolume = 96.0 * 96.0 * 96.0;

// Threads only pay off when each has enough work to cover the cost of waking it: below
// about 2^19 flops (a 64³ product) per thread, fewer threads run.
constexpr double kMinFlopsPerThread = 524288.0;

int useful_threads(int requested, int64_t m, int64_t n, int64_t k) {
    const double flops = 2.0 * double(m) * double(n) * double(std::max<int64_t>(k, 1));
    if (requested <= 1 || flops < 2.0 * kMinFlopsPerThread) return 1; // no division on small calls
    const double useful = flops / kMinFlopsPerThread;
    return int(std::min<double>(std::max(1, requested), useful));
}

// The direct path (no packing of B): op(A) is copied only when it is transposed (m·k
// elements, cheap when m or k is small); threads split the columns of C.
template <typename T>
tsr_status gemm_direct(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int threads) {
    const T *a = g.A;
    int64_t lda = g.lda;
    if (g.trans_a) {
        T *buf = scratch<T>(1, size_t(g.m) * size_t(g.k));
        if (!buf) return core::fail(TSR_ERR_OUT_OF_MEMORY, "gemm: cannot allocate a copy of op(A)");
        for (int64_t i = 0; i < g.m; ++i) // op(A)(i, l) = A[l + i*lda], contiguous in l
            for (int64_t l = 0; l < g.k; ++l) buf[i + l * g.m] = g.A[l + i * g.lda];
        a = buf;
        lda = g.m;
    }
    const int64_t b_rs = g.trans_b ? g.ldb : 1, b_cs = g.trans_b ? 1 : g.ldb;
    const int64_t nr = uk.blocks.nr;
    const int64_t tiles = (g.n + nr - 1) / nr;
    threads = int(std::min<int64_t>(threads, tiles));
    if (threads <= 1) { // no OpenMP region at all: it costs more than a small product
        uk.direct(g.m, g.n, g.k, g.alpha, a, lda, g.B, b_rs, b_cs, g.beta, g.C, g.ldc);
        return TSR_SUCCESS;
    }
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t j0 = std::min(g.n, tiles * t / nt * nr);
        const int64_t j1 = std::min(g.n, tiles * (t + 1) / nt * nr);
        if (j1 > j0)
            uk.direct(g.m, j1 - j0, g.k, g.alpha, a, lda, g.B + j0 * b_cs, b_rs, b_cs, g.beta,
                      g.C + j0 * g.ldc, g.ldc);
    }
    return TSR_SUCCESS;
}

// Where the direct path beats packing (measured; docs/journal/2026-11-cpu-gemm.md): small
// products, and short-wide ones whose few rows make packing the large B cost as much as the
// product.
template <typename T> bool prefer_direct(const MicroKernel<T> &uk, const core::GemmArgs<T> &g) {
    if (!uk.direct) return false;
    const double volume = double(g.m) * double(g.n) * double(g.k);
    return volume <= kDirectMaxVolume || g.m <= uk.blocks.direct_m;
}

} // namespace

template <typename T> tsr_status gemm(const core::ExecContext *ctx, const core::GemmArgs<T> *g) {
    const int threads = useful_threads(ctx->num_threads, g->m, g->n, g->k);
    if (g->k == 0 || g->alpha == T(0)) {
        scale_c(*g, threads);
        return TSR_SUCCESS;
    }
    const MicroKernel<T> &uk = active_kernel<T>();
    if (prefer_direct(uk, *g)) return gemm_direct(uk, *g, threads);
    const int levels =
        strassen_levels_for(g->m, g->n, g->k, ctx->strassen_levels, ctx->strassen_min_block);
    if (levels > 0) return strassen_gemm(uk, *g, threads, levels);
    return gemm_blocked<T>(uk, *g, threads, nullptr);
}

template tsr_status gemm<float>(const core::ExecContext *, const core::GemmArgs<float> *);
template tsr_status gemm<double>(const core::ExecContext *, const core::GemmArgs<double> *);

} // namespace tessera::cpu
