// The loop nest every packed product runs (BLIS's five loops, the two innermost in the
// macro-kernel): jc over column blocks of C, pc over KC-deep slices of k, the team packing one
// B panel together, then each thread over its own MC-row blocks of C. What is packed and how a
// block is computed is the caller's: the classical product (gemm_driver.cpp) packs op(A) and
// op(B); Strassen's (strassen.cpp) packs sums of their blocks and adds each tile into several
// blocks of C.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "cpu/kernels/microkernel.hpp"

namespace tessera::cpu {

// The classical packed product, C = alpha·op(A)·op(B) + beta·C (gemm_driver.cpp).
template <typename T>
tsr_status gemm_blocked(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int threads);

// A 64-byte aligned scratch buffer kept per thread and grown on demand; nullptr when out of
// memory (nothing may throw inside an OpenMP region). Slot 0: the packed B panel; 1: A.
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

// Columns of C per jc block: n in as few blocks as NC allows, with an eighth of slack, in equal
// parts of whole NR tiles. Every jc block packs all of A again, so a last block of a few columns
// (4096 = 2·2040 + 16 in double, 4096 = 4092 + 4 in float) would cost a whole pass over A for them.
inline int64_t column_block(int64_t n, int64_t nc, int nr) {
    const int64_t blocks = std::max<int64_t>(1, (8 * n + 9 * nc - 1) / (9 * nc));
    return ((n + blocks - 1) / blocks + nr - 1) / nr * nr;
}

// Bytes of the packed B panel per thread where C has a single block of rows: each packed
// element is then read once, by the thread that packed it, so the panel need only outlast its
// own row block in L2; NC is sized for reuse across row blocks from L3, which this product
// does not have.
constexpr double kOnceReadPanelBytes = 512.0 * 1024.0;

// NC for this product: the kernel's, or, where C has one block of rows (m up to MC), as many
// columns as keep each thread's share of the panel within kOnceReadPanelBytes.
template <typename T, typename McMax>
int64_t panel_columns(const Blocking &bs, int threads, int64_t rows, int64_t kc_max, McMax mc_max) {
    if (rows > mc_max(kc_max)) return bs.nc;
    const double per_thread = kOnceReadPanelBytes / (double(kc_max) * double(sizeof(T)));
    const int64_t nc = int64_t(per_thread) * std::max(1, threads);
    return std::clamp<int64_t>(nc, bs.nr, bs.nc);
}

// How the threads share the work under one packed B panel: a grid of tm × tn threads, tm
// over contiguous ranges of MR-row panels of C (each thread packs only its own rows of A),
// tn over NR-column tiles. Rows are split where each thread gets two panels or more, unless
// the ranges come out so uneven that splitting columns finishes sooner: 289 rows in float are
// 4 + 1 panels of 64, and two threads over rows leave one with 161 rows and the other 128,
// where over columns each has all 289 rows of half the columns.
struct ThreadGrid {
    int tm, tn;
};

// The busiest thread's work under a tm × tn grid: its rows times its column tiles.
inline double grid_cost(int tm, int tn, int64_t rows, int mr, int64_t col_tiles) {
    const int64_t row_panels = (rows + mr - 1) / mr;
    int64_t most = 0;
    for (int ti = 0; ti < tm; ++ti) {
        const int64_t r0 = std::min(rows, row_panels * ti / tm * mr);
        const int64_t r1 = std::min(rows, row_panels * (ti + 1) / tm * mr);
        most = std::max(most, r1 - r0);
    }
    return double(most) * double((col_tiles + tn - 1) / tn);
}

inline ThreadGrid thread_grid(int threads, int64_t rows, int mr, int64_t col_tiles) {
    const int64_t row_panels = (rows + mr - 1) / mr;
    ThreadGrid best{1, threads};
    for (int tm = threads; tm > 1; --tm)
        if (threads % tm == 0 && row_panels >= 2 * int64_t(tm)) {
            best = {tm, threads / tm};
            break;
        }
    double best_cost = grid_cost(best.tm, best.tn, rows, mr, col_tiles);
    for (int tm = 1; tm <= threads; ++tm) {
        if (threads % tm != 0 || tm > row_panels) continue;
        const double cost = grid_cost(tm, threads / tm, rows, mr, col_tiles);
        if (cost < 0.95 * best_cost) best = {tm, threads / tm}, best_cost = cost;
    }
    return best;
}

// The next row block for thread t: the front of its own range, else the back of another's
// (*owner: whose); -1 when every range is empty. A range is front | back << 32, blocks
// front..back-1 of its owner's rows, from 0. Only a range whose owner has begun (front > 0) is
// taken from: an owner merely late out of the barrier would otherwise find its only block
// gone while the taker computes two.
inline int64_t take_block(std::atomic<uint64_t> *ranges, int team, int t, int *owner) {
    for (int i = 0; i < team; ++i) {
        const int v = (t + i) % team;
        uint64_t r = ranges[v].load(std::memory_order_relaxed);
        for (;;) {
            const uint64_t front = r & 0xffffffffu, back = r >> 32;
            if (front >= back || (v != t && front == 0)) break;
            const uint64_t want = v == t ? r + 1 : front | (back - 1) << 32;
            if (ranges[v].compare_exchange_weak(r, want, std::memory_order_relaxed)) {
                *owner = v;
                return int64_t(v == t ? front : back - 1);
            }
        }
    }
    return -1;
}

inline constexpr int64_t kDealtBlocks = 4;

// What one jc × pc step hands a thread: the column block jc..jc+nc of C, its kc-deep slice of
// k from pc, this thread's column tiles jr0..jr1 of the block, and the beta of this slice.
struct LoopStep {
    int64_t jc, nc, pc, kc, jr0, jr1, panels;
    int thread, team;
};

// The loops over the first `rows` rows of C (the rest, if any, is the step's to do in `after`),
// with blocks of at most `mc_max(kc_max)` rows. `step` provides:
//   pack_b(pc, kc, jc, nc, q0, q1, pb): NR-wide panels q0..q1-1 of the B operand's column
//       block jc..jc+nc, packed (panel q at pb + q*kc*NR); each thread packs its share;
//   block(pa, pb, ic, mc, const LoopStep &, beta): pack this thread's rows ic..ic+mc of the A
//       operand into pa and compute them against pb;
//   after(pa, pb, const LoopStep &, beta): this thread's share of anything else in the step.
template <typename T, typename Step, typename McMax>
tsr_status packed_loops(const core::GemmArgs<T> &g, const Blocking &bs, int threads, int64_t rows,
                        McMax mc_max, Step &step) {
    const int mr = bs.mr, nr = bs.nr;
    const int64_t row_panels = (rows + mr - 1) / mr;
    const int64_t kc_max = std::min<int64_t>(bs.kc, g.k);
    const int64_t nc_block =
        column_block(g.n, panel_columns<T>(bs, threads, rows, kc_max, mc_max), nr);
    const int64_t nc_max = std::min<int64_t>(nc_block, (g.n + nr - 1) / nr * nr);
    T *pb = scratch<T>(0, size_t(kc_max) * size_t(nc_max));
    if (!pb) return core::fail(TSR_ERR_OUT_OF_MEMORY, "gemm: cannot allocate the packed B panel");
    bool out_of_memory = false;
    // Where the threads split rows alone, each thread takes its own row blocks from the front
    // of its range and, when done, the last blocks of the others' from the back: a thread slowed
    // by its core's other work leaves its last blocks to the others instead of keeping them
    // waiting at the step's end. A range is (front, back) packed in one atomic word.
    std::unique_ptr<std::atomic<uint64_t>[]> ranges(threads > 1 ? new std::atomic<uint64_t>[threads]
                                                                : nullptr);

#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        // The team may be smaller than asked (OMP_THREAD_LIMIT, OMP_DYNAMIC): the work is shared
        // among the threads there are, or rows of C would be left unwritten.
        const int team = threads > 1 ? omp_get_num_threads() : 1;
        const int t = threads > 1 ? omp_get_thread_num() : 0;
        const ThreadGrid grid = thread_grid(team, rows, mr, (nc_max + nr - 1) / nr);
        const int ti = t / grid.tn, tj = t % grid.tn;
        // Thread u's rows of C (u = ti where threads split rows alone), split into equal blocks
        // of at most mc_max rows.
        const bool dealt = team > 1 && grid.tn == 1;
        const int64_t most = mc_max(kc_max);
        auto rows_from = [&](int u) { return std::min(rows, row_panels * u / grid.tm * mr); };
        // Where blocks are dealt, a range of rows in at least kDealtBlocks blocks of two panels
        // or more, so that a thread done first has a block left to take; not where short k has
        // made the blocks taller than MC (rank-k updates: C moves in the longest runs it can).
        auto blocks_in = [&](int64_t len) {
            const int64_t by_size = std::max<int64_t>(1, (len + most - 1) / most);
            if (!dealt || most > bs.mc) return by_size;
            return std::max<int64_t>(by_size, std::min<int64_t>(kDealtBlocks, len / mr / 2));
        };
        auto block_rows = [&](int64_t len) {
            return ((len + blocks_in(len) - 1) / blocks_in(len) + mr - 1) / mr * mr;
        };
        const int64_t r0 = rows_from(ti), r1 = rows_from(ti + 1), mc = block_rows(r1 - r0);
        int64_t widest = mc; // any thread's blocks, where this one may take them
        for (int u = 0; dealt && u < team; ++u)
            widest = std::max(widest, block_rows(rows_from(u + 1) - rows_from(u)));
        T *pa = scratch<T>(1, size_t(kc_max) * size_t(std::max<int64_t>(widest, mr)));
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
                    if (dealt) // nobody takes from it before the barrier
                        ranges[t].store(uint64_t(blocks_in(r1 - r0)) << 32,
                                        std::memory_order_relaxed);
                    step.pack_b(pc, kc, jc, nc, panels * t / team, panels * (t + 1) / team, pb);
#pragma omp barrier
                    // B is packed
                    const LoopStep at{jc, nc, pc, kc, jr0, jr1, panels, t, team};
                    if (dealt) {
                        int u;
                        for (int64_t b; (b = take_block(ranges.get(), team, t, &u)) >= 0;) {
                            const int64_t u0 = rows_from(u), u1 = rows_from(u + 1);
                            const int64_t ic = u0 + b * block_rows(u1 - u0);
                            if (ic < u1)
                                step.block(pa, pb, ic,
                                           std::min<int64_t>(block_rows(u1 - u0), u1 - ic), at,
                                           beta);
                        }
                    } else {
                        for (int64_t ic = r0; ic < r1 && jr1 > jr0; ic += mc)
                            step.block(pa, pb, ic, std::min<int64_t>(mc, r1 - ic), at, beta);
                    }
                    step.after(pa, pb, at, beta);
#pragma omp barrier
                    // every thread is done with B: it may be repacked
                }
            }
    }
    if (out_of_memory)
        return core::fail(TSR_ERR_OUT_OF_MEMORY, "gemm: cannot allocate a packed A block");
    return TSR_SUCCESS;
}

} // namespace tessera::cpu
