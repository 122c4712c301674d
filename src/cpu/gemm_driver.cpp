// The CPU gemm: BLIS-style five loops (jc over NC, pc over KC, ic over MC in packed_loops.hpp;
// jr over NR, ir over MR in the macro-kernel) around a register micro-kernel, with packed A and
// B and OpenMP threads over (ic, jr); the direct path for small products; Strassen's method
// (strassen.cpp) where it is asked for.
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "cpu/backend.hpp"
#include "cpu/isa.hpp"
#include "cpu/kernels/microkernel.hpp"
#include "cpu/pack.hpp"
#include "cpu/packed_loops.hpp"
#include "cpu/strassen.hpp"

namespace tessera::cpu {

namespace {

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
    const auto run = uk.run;
    const int64_t ldc = g.ldc, a_step = kc * mr, full_rows = mc - mc % mr;
    const T alpha = g.alpha;
    // The C tile four tiles down is asked for while this one is computed (beta != 0), where a
    // tile's column spans four cache lines or more (the AVX-512 tiles). The AVX2 tiles' columns
    // are one line: four tiles down is four lines, which the hardware's stream prefetch has
    // already asked for, and the extra prefetches cost a rank-32 update 2-8% on Zen 3.
    const bool ask_ahead = beta != T(0) && mr * int(sizeof(T)) >= 256;
    const int64_t ahead = ask_ahead ? 4 * int64_t(mr) : mc;
    // Where the kernel asks for it and the packed B block comes from L3 (over twice the L2), the
    // next panel of B is asked into L2 a slice before each tile, so that its first tile does not
    // wait on L3 for it: the hardware's stream prefetch does not run ahead into the next panel
    // soon enough there. A block that fits L2 gains nothing and pays for the instructions; nor
    // where a block has so few tiles that the slices are long: a burst of more than kNextBLines
    // requests before a tile holds up the tile's own loads.
    constexpr int64_t kNextBLines = 16;
    const int64_t panel_bytes = kc * nr * int64_t(sizeof(T)), tiles = (mc + mr - 1) / mr;
    const int64_t slice = ((panel_bytes + 63) / 64 + tiles - 1) / tiles * 64;
    const bool ask_b = uk.blocks.ask_next_b && slice <= kNextBLines * 64 &&
                       (jr1 - jr0) * kc * int64_t(sizeof(T)) > 2 * l2_bytes();
    alignas(64) T edge[32 * 32]; // mr·nr <= 1024
    for (int64_t jr = jr0; jr < jr1; jr += nr) {
        const int cols = int(std::min<int64_t>(nr, nc - jr));
        const T *b = pb + (jr / nr) * kc * nr;
        const T *a = pa;
        T *c = g.C + ic + (jc + jr) * ldc;
        const char *const next_b =
            ask_b && jr + nr < jr1 ? reinterpret_cast<const char *>(b + kc * nr) : nullptr;
        int64_t asked = 0; // bytes of the next panel asked for
        auto ask_next_b = [&] {
            if (!next_b) return;
            for (const int64_t end = std::min(asked + slice, panel_bytes); asked < end; asked += 64)
                __builtin_prefetch(next_b + asked, 0, 2);
        };
        int64_t ir = 0;
        if (cols == nr) {
            for (; ir < full_rows; ir += mr, a += a_step, c += mr) {
                if (ir + ahead < mc)
                    prefetch_c(c + ahead, int(std::min<int64_t>(mr, mc - ir - ahead)), cols, ldc);
                ask_next_b();
                run(kc, a, b, c, ldc, alpha, beta);
            }
        }
        for (; ir < mc; ir += mr, a += a_step, c += mr) {
            const int rows = int(std::min<int64_t>(mr, mc - ir));
            if (ir + ahead < mc)
                prefetch_c(c + ahead, int(std::min<int64_t>(mr, mc - ir - ahead)), cols, ldc);
            ask_next_b();
            if (rows == mr && cols == nr) {
                run(kc, a, b, c, ldc, alpha, beta);
            } else if (uk.direct) { // partial tile: the unpacked path's tiles, on the panels
                uk.direct(rows, cols, kc, alpha, a, mr, b, nr, 1, beta, c, ldc);
            } else { // partial tile: compute into a local tile, write only what exists
                run(kc, a, b, edge, mr, T(1), T(0));
                for (int j = 0; j < cols; ++j)
                    for (int i = 0; i < rows; ++i) {
                        T &cij = c[i + j * ldc];
                        T v = alpha * edge[i + j * mr];
                        cij = beta == T(0) ? v : v + beta * cij;
                    }
            }
        }
    }
}

// The classical product's step of the loops: op(B)'s panels and op(A)'s blocks packed as they
// are, one MC×NC block of C from them. A last row panel of at most MR/4 rows (257 = 4·64 + 1 in
// float) is shared out by columns among all the threads after their full panels: given whole to
// one thread it cost that thread up to a sixth of a panel's time more than the others.
template <typename T> struct PlainStep {
    const MicroKernel<T> &uk;
    const core::GemmArgs<T> &g;
    int64_t m_main, fringe;

    void pack_b(int64_t pc, int64_t kc, int64_t jc, int64_t nc, int64_t q0, int64_t q1,
                T *pb) const {
        pack_b_panels(g, pc, kc, jc, nc, q0, q1, uk.blocks.nr, pb, uk.pack_b6);
    }
    void block(T *pa, const T *pb, int64_t ic, int64_t mc, const LoopStep &at, T beta) const {
        pack_a(g, ic, mc, at.pc, at.kc, uk.blocks.mr, pa, uk.pack_a_trans);
        macro_kernel(uk, g, pa, pb, ic, mc, at.jc, at.jr0, at.jr1, at.nc, at.kc, beta);
    }
    void after(T *pa, const T *pb, const LoopStep &at, T beta) const {
        if (fringe == 0) return;
        const int nr = uk.blocks.nr;
        const int64_t f0 = std::min(at.nc, at.panels * at.thread / at.team * nr);
        const int64_t f1 = std::min(at.nc, at.panels * (at.thread + 1) / at.team * nr);
        if (f1 <= f0) return;
        pack_a(g, m_main, fringe, at.pc, at.kc, uk.blocks.mr, pa, uk.pack_a_trans);
        macro_kernel(uk, g, pa, pb, m_main, fringe, at.jc, f0, f1, at.nc, at.kc, beta);
    }
};

} // namespace

template <typename T>
tsr_status gemm_blocked(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int threads) {
    const Blocking &bs = uk.blocks;
    const int mr = bs.mr;
    const int64_t fringe =
        threads > 1 && g.m > mr && g.m % mr != 0 && g.m % mr <= mr / 4 ? g.m % mr : 0;
    PlainStep<T> step{uk, g, g.m - fringe, fringe};
    // A rank-k update (k of 64 or less, where moving C costs as much as the products) leaves
    // the A block small: it grows in rows to the bytes an MC×KC block has (up to 8 MC), so each
    // column of C is read and written in longer runs. Deeper products keep MC: there the larger
    // block measured slower (8906×45×131).
    auto mc_max = [&](int64_t kc_max) {
        return kc_max <= 64 ? std::min<int64_t>(8 * bs.mc, bs.mc * bs.kc / kc_max) : bs.mc;
    };
    return packed_loops<T>(g, bs, threads, g.m - fringe, mc_max, step);
}

template tsr_status gemm_blocked<float>(const MicroKernel<float> &, const core::GemmArgs<float> &,
                                        int);
template tsr_status gemm_blocked<double>(const MicroKernel<double> &,
                                         const core::GemmArgs<double> &, int);

namespace {

// Products up to this volume (m·n·k) skip packing altogether.
constexpr double kDirectMaxVolume = 96.0 * 96.0 * 96.0;

// Threads only pay off when each has enough work to cover the cost of waking it (about a
// microsecond for an OpenMP region of two threads): below 3·10^5 flops per thread, about 3 µs
// of one core's work, fewer threads run. Two threads start just above a 64³ product; the tiny
// products up to 64³ stay on one thread (tiny_direct).
constexpr double kMinFlopsPerThread = 300000.0;

int useful_threads(int requested, int64_t m, int64_t n, int64_t k) {
    const double flops = 2.0 * double(m) * double(n) * double(std::max<int64_t>(k, 1));
    if (requested <= 1 || flops < 2.0 * kMinFlopsPerThread) return 1; // no division on small calls
    const double useful = flops / kMinFlopsPerThread;
    return int(std::min<double>(std::max(1, requested), useful));
}

// Rows [i0, i0 + rows) of op(A) = A^T (element (i, l) at A[l + i*lda], contiguous in l) into
// dst column-major with leading dimension rows: one packed panel of all those rows, which the
// ISA's transposing packing writes a block of vectors at a time.
template <typename T>
void copy_rows_of_transposed_a(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int64_t i0,
                               int64_t rows, T *dst) {
    const T *src = g.A + i0 * g.lda;
    if (uk.pack_a_trans) return uk.pack_a_trans(src, g.lda, rows, g.k, int(rows), dst);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t l = 0; l < g.k; ++l) dst[i + l * rows] = src[l + i * g.lda];
}

// The bytes of op(A) the direct path reads for each column tile of C. op(A) is read again for
// every tile, so it must stay in L2: deeper products run in slices of k that hold at most
// half of the smallest L2 we target (Zen 3's 512 KiB), and C is updated once per slice
// (docs/journal/2026-11-cpu-gemm.md, "few rows").
constexpr double kDirectABytes = 256.0 * 1024.0;

// uk.direct over C[0:m, 0:n], in slices of k of at most kDirectABytes of op(A) (and at
// least 256 deep, where a few rows would otherwise update C every few dozen steps).
template <typename T>
void direct_sliced(const MicroKernel<T> &uk, int64_t m, int64_t n, int64_t k, T alpha, const T *a,
                   int64_t lda, const T *b, int64_t b_rs, int64_t b_cs, T beta, T *c, int64_t ldc) {
    const int64_t depth = std::max<int64_t>(256, int64_t(kDirectABytes / double(m * sizeof(T))));
    if (k <= depth + depth / 2)
        return uk.direct(m, n, k, alpha, a, lda, b, b_rs, b_cs, beta, c, ldc);
    const int64_t slices = (k + depth - 1) / depth;
    for (int64_t s = 0; s < slices; ++s) {
        const int64_t l0 = k * s / slices, l1 = k * (s + 1) / slices;
        uk.direct(m, n, l1 - l0, alpha, a + l0 * lda, lda, b + l0 * b_rs, b_rs, b_cs,
                  s == 0 ? beta : T(1), c, ldc);
    }
}

// Rows of C per thread block where the direct path splits rows: a multiple of every ISA's
// vector length, so that only the last block has a partial vector.
constexpr int64_t kDirectRowBlock = 16;

// With both operands transposed, C^T = B·A is a product of two untransposed operands: where
// C (m·n) is smaller than op(A) (m·k), C^T is computed into a scratch block and added into C
// transposed, instead of copying op(A) across. One thread (the scratch block is its own).
template <typename T> bool transpose_c_instead(const core::GemmArgs<T> &g, int threads) {
    return g.trans_a && g.trans_b && threads <= 1 && g.n < g.k;
}

template <typename T>
tsr_status gemm_direct_transposed_c(const MicroKernel<T> &uk, const core::GemmArgs<T> &g) {
    T *t = scratch<T>(1, size_t(g.m) * size_t(g.n));
    if (!t) return core::fail(TSR_ERR_OUT_OF_MEMORY, "gemm: cannot allocate a block for C^T");
    // t (n×m, leading dimension n) = B·A: B is n×k with leading dimension ldb, A k×m with lda.
    direct_sliced(uk, g.n, g.m, g.k, g.alpha, g.B, g.ldb, g.A, int64_t(1), g.lda, T(0), t, g.n);
    // C = t^T + beta·C. The ISA's transposing pack (t read as op(A) = A^T with lda n, one panel
    // of m rows) writes t^T column-major in whole vectors: straight into C where that is all
    // there is to do, else into a second block added into C column by column.
    if (uk.pack_a_trans) {
        if (g.beta == T(0) && g.ldc == g.m) {
            uk.pack_a_trans(t, g.n, g.m, g.n, int(g.m), g.C);
            return TSR_SUCCESS;
        }
        if (T *u = scratch<T>(0, size_t(g.m) * size_t(g.n))) {
            uk.pack_a_trans(t, g.n, g.m, g.n, int(g.m), u);
            for (int64_t j = 0; j < g.n; ++j) {
                T *c = g.C + j * g.ldc;
                const T *uj = u + j * g.m;
                if (g.beta == T(0))
                    for (int64_t i = 0; i < g.m; ++i) c[i] = uj[i];
                else
                    for (int64_t i = 0; i < g.m; ++i) c[i] = uj[i] + g.beta * c[i];
            }
            return TSR_SUCCESS;
        }
    }
    for (int64_t j = 0; j < g.n; ++j) {
        T *c = g.C + j * g.ldc;
        if (g.beta == T(0))
            for (int64_t i = 0; i < g.m; ++i) c[i] = t[j + i * g.n];
        else
            for (int64_t i = 0; i < g.m; ++i) c[i] = t[j + i * g.n] + g.beta * c[i];
    }
    return TSR_SUCCESS;
}

// Few columns (n at most the ISA's direct_n, or direct_n_trans_b with op(B) transposed)
// against op(A) read in place, columns of at most kFewColumnBytes: the direct path reads each
// element of A from memory once (its tiles take the rows of a slice of k through every column
// of C while they are in L2), where packing writes and reads A again for only n multiply-adds
// per element. With longer columns each k step of a tile lands on another page, which the
// prefetchers do not follow (5000×24×2000 dgemm ran at 0.66× the packed path's speed;
// docs/journal/2026-11-cpu-gemm.md).
constexpr int64_t kFewColumnBytes = 8192;
template <typename T> bool few_columns(const MicroKernel<T> &uk, const core::GemmArgs<T> &g) {
    const int64_t most = g.trans_b ? uk.blocks.direct_n_trans_b : uk.blocks.direct_n;
    return !g.trans_a && g.n <= most && g.m * int64_t(sizeof(T)) <= kFewColumnBytes;
}

// Runs fn(i0, i1) on `threads` threads, each over its rows i0 .. i1-1 of C in whole blocks of
// kDirectRowBlock (threads at most the blocks' count).
template <typename Fn> void split_rows(int64_t m, int threads, Fn fn) {
    const int64_t blocks = (m + kDirectRowBlock - 1) / kDirectRowBlock;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t i0 = std::min(m, blocks * t / nt * kDirectRowBlock);
        const int64_t i1 = std::min(m, blocks * (t + 1) / nt * kDirectRowBlock);
        if (i1 > i0) fn(i0, i1);
    }
}

// The direct path (no packing of B): op(A) is copied only when it is transposed (m·k
// elements, cheap when m or k is small). Threads split the columns of C, or, with op(A)
// transposed or few columns, its rows: each thread then copies (or reads) only its own rows
// of op(A), where a copy made by one thread and read by all would cross between cores (slower
// than the product at these sizes), and few columns would have every thread read all of A.
template <typename T>
tsr_status gemm_direct(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int threads) {
    const T *a = g.A;
    int64_t lda = g.lda;
    const int64_t b_rs = g.trans_b ? g.ldb : 1, b_cs = g.trans_b ? 1 : g.ldb;
    if (transpose_c_instead(g, threads)) return gemm_direct_transposed_c(uk, g);
    const int row_threads =
        int(std::min<int64_t>(threads, (g.m + kDirectRowBlock - 1) / kDirectRowBlock));
    if (row_threads > 1 && few_columns(uk, g) && g.m > uk.blocks.direct_m) {
        split_rows(g.m, row_threads, [&](int64_t i0, int64_t i1) {
            direct_sliced(uk, i1 - i0, g.n, g.k, g.alpha, g.A + i0, g.lda, g.B, b_rs, b_cs, g.beta,
                          g.C + i0, g.ldc);
        });
        return TSR_SUCCESS;
    }
    if (g.trans_a) {
        T *buf = scratch<T>(1, size_t(g.m) * size_t(g.k));
        if (!buf) return core::fail(TSR_ERR_OUT_OF_MEMORY, "gemm: cannot allocate a copy of op(A)");
        if (row_threads > 1) {
            split_rows(g.m, row_threads, [&](int64_t i0, int64_t i1) {
                T *mine = buf + i0 * g.k;
                copy_rows_of_transposed_a(uk, g, i0, i1 - i0, mine);
                direct_sliced(uk, i1 - i0, g.n, g.k, g.alpha, mine, i1 - i0, g.B, b_rs, b_cs,
                              g.beta, g.C + i0, g.ldc);
            });
            return TSR_SUCCESS;
        }
        copy_rows_of_transposed_a(uk, g, 0, g.m, buf);
        a = buf;
        lda = g.m;
    }
    const int64_t nr = uk.blocks.nr;
    const int64_t tiles = (g.n + nr - 1) / nr;
    threads = int(std::min<int64_t>(threads, tiles));
    if (threads <= 1) { // no OpenMP region at all: it costs more than a small product
        direct_sliced(uk, g.m, g.n, g.k, g.alpha, a, lda, g.B, b_rs, b_cs, g.beta, g.C, g.ldc);
        return TSR_SUCCESS;
    }
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t j0 = std::min(g.n, tiles * t / nt * nr);
        const int64_t j1 = std::min(g.n, tiles * (t + 1) / nt * nr);
        if (j1 > j0)
            direct_sliced(uk, g.m, j1 - j0, g.k, g.alpha, a, lda, g.B + j0 * b_cs, b_rs, b_cs,
                          g.beta, g.C + j0 * g.ldc, g.ldc);
    }
    return TSR_SUCCESS;
}

// Where the direct path beats packing (measured; docs/journal/2026-11-cpu-gemm.md): small
// products, and short-wide ones whose few rows make packing the large B cost as much as the
// product, where op(B) is read down its columns. A transposed op(B) would be walked across
// B's rows a few columns at a time, a new row (and page) per step in k, which no prefetcher
// follows: packing reads those rows whole.
template <typename T> bool prefer_direct(const MicroKernel<T> &uk, const core::GemmArgs<T> &g) {
    if (!uk.direct) return false;
    const double volume = double(g.m) * double(g.n) * double(g.k);
    return volume <= kDirectMaxVolume || (g.m <= uk.blocks.direct_m && !g.trans_b) ||
           few_columns(uk, g);
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
    return gemm_blocked<T>(uk, *g, threads);
}

template <typename T> core::HostDirectFn<T> planned_direct(const core::GemmArgs<T> &g) {
    if (g.trans_a || g.m <= 0 || g.n <= 0 || g.k <= 0) return nullptr;
    if (useful_threads(std::numeric_limits<int>::max(), g.m, g.n, g.k) > 1) return nullptr;
    const MicroKernel<T> &uk = active_kernel<T>();
    if (!prefer_direct(uk, g)) return nullptr;
    return uk.direct_for ? uk.direct_for(g.m, g.n, g.k) : uk.direct;
}

template <typename T> core::HostDirectFn<T> tiny_direct(int64_t m, int64_t n, int64_t k) {
    static_assert(64.0 * 64.0 * 64.0 <= kDirectMaxVolume && 64.0 * 64.0 * 64.0 < kMinFlopsPerThread,
                  "a product of sides up to 64 runs unpacked on one thread");
    const MicroKernel<T> &uk = active_kernel<T>();
    if (!uk.direct) return nullptr;
    return uk.direct_for ? uk.direct_for(m, n, k) : uk.direct;
}

template core::HostDirectFn<float> planned_direct<float>(const core::GemmArgs<float> &);
template core::HostDirectFn<double> planned_direct<double>(const core::GemmArgs<double> &);
template core::HostDirectFn<float> tiny_direct<float>(int64_t, int64_t, int64_t);
template core::HostDirectFn<double> tiny_direct<double>(int64_t, int64_t, int64_t);
template tsr_status gemm<float>(const core::ExecContext *, const core::GemmArgs<float> *);
template tsr_status gemm<double>(const core::ExecContext *, const core::GemmArgs<double> *);

} // namespace tessera::cpu
