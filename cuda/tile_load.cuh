// Asynchronous global-to-shared tile copies (cp.async) with zero fill outside the matrix: the
// operand tiles of every gemm kernel, stored k-major ([k][m or n], padded rows) in shared memory,
// or for the tensor-core kernels' k-contiguous operands also k-contiguous ([m or n][k]).
#pragma once

#include <cstdint>
#include <type_traits>

namespace tessera::cuda {

__device__ __forceinline__ unsigned smem_addr(const void *p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Copies one element (4 or 8 bytes), or writes zero when `valid` is false (src is not read).
template <typename T>
__device__ __forceinline__ void cp_async_elem(T *dst, const T *src, bool valid) {
    const int bytes = valid ? int(sizeof(T)) : 0;
    if constexpr (sizeof(T) == 4)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)),
                     "l"(src), "r"(bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_addr(dst)),
                     "l"(src), "r"(bytes));
}

// Copies 16 bytes; both addresses 16-byte aligned.
__device__ __forceinline__ void cp_async_16(void *dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Where 16-byte chunk c of a shared-memory row goes under the XOR swizzle of the FP64 fragment
// tiles (FragTile): chunk c ^ 2·(row % 4), which moves it within its group of eight chunks only.
template <bool SWZ> __device__ __forceinline__ int chunk_at(int c, int row) {
    return SWZ ? c ^ (2 * (row & 3)) : c;
}

// One operand tile: ROWS entries along m (or n) by BK along k, from the column-major matrix g
// (leading dimension ld) whose op() is MN×K, starting at (mn0, k0). In shared memory it lands
// as s[kk * LDS + r]. CONTIG_MN: the stored matrix runs along m/n (A not transposed, B
// transposed), so four floats (two doubles) go in one 16-byte copy when `vec` says the matrix
// is 16-byte aligned with ld a multiple of the vector; otherwise it runs along k and each
// element is its own copy, consecutive threads walking k for coalesced reads. SWZ: the chunks
// of each k row are swizzled (chunk_at).
template <typename T, int ROWS, int BK, int LDS, int THREADS, bool CONTIG_MN, bool SWZ = false>
__device__ __forceinline__ void load_tile(T *s, const T *g, int64_t ld, int64_t mn0, int64_t k0,
                                          int64_t MN, int64_t K, bool vec) {
    constexpr int VEC = 16 / int(sizeof(T));
    static_assert(!SWZ || CONTIG_MN, "only whole chunks are swizzled");
    if constexpr (CONTIG_MN) {
        constexpr int PER_ROW = ROWS / VEC;
        constexpr int CHUNKS = PER_ROW * BK;
        static_assert(CHUNKS % THREADS == 0, "tile chunks must divide among the threads");
#pragma unroll
        for (int it = 0; it < CHUNKS / THREADS; ++it) {
            const int c = it * THREADS + int(threadIdx.x);
            const int kk = c / PER_ROW, r = (c % PER_ROW) * VEC;
            const int64_t gm = mn0 + r, gk = k0 + kk;
            T *dst = s + kk * LDS + chunk_at<SWZ>(r / VEC, kk) * VEC;
            const bool kin = gk < K;
            if (vec && kin && gm + VEC <= MN) {
                cp_async_16(dst, g + gm + gk * ld);
            } else {
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    const bool ok = kin && gm + v < MN;
                    cp_async_elem(dst + v, ok ? g + (gm + v) + gk * ld : g, ok);
                }
            }
        }
    } else {
        constexpr int ELEMS = ROWS * BK;
        static_assert(ELEMS % THREADS == 0, "tile elements must divide among the threads");
#pragma unroll
        for (int it = 0; it < ELEMS / THREADS; ++it) {
            const int e = it * THREADS + int(threadIdx.x);
            const int kk = e % BK, r = e / BK;
            const int64_t gm = mn0 + r, gk = k0 + kk;
            const bool ok = gm < MN && gk < K;
            cp_async_elem(s + kk * LDS + r, ok ? g + gk + gm * ld : g, ok);
        }
    }
}

// How an operand tile is copied: 16-byte chunks along m/n into [k][m] rows (load_tile with
// CONTIG_MN), single elements walking k into [k][m] rows (load_tile without), or 16-byte chunks
// along k into [m][k] rows (load_tile_k).
enum class Copy { contig_mn, elem_k, contig_k };

// Those copies for a tile wholly inside the matrix (rows mn0 .. mn0+ROWS-1 exist, the k tile is
// full), with this thread's addresses worked out once per block: its copies lie a fixed stride
// apart (THREADS is a multiple of the chunks or elements of a row), and one k tile lies
// advance() elements after the previous one. They land where load_tile's / load_tile_k's
// land; blocks on an edge of the matrix, and a last partial k tile, go through those.
template <typename T, int ROWS, int BK, int LDS, int THREADS, Copy MODE, bool SWZ = false>
struct TileCopier {
    static constexpr int VEC = MODE == Copy::elem_k ? 1 : 16 / int(sizeof(T));
    // Copies per row of the shared tile ([k][m]: a k row of ROWS; [m][k]: an m row of BK).
    static constexpr int PER_ROW = MODE == Copy::contig_mn ? ROWS / VEC
                                   : MODE == Copy::elem_k  ? BK
                                                           : BK / VEC;
    static_assert(THREADS % PER_ROW == 0, "a thread's copies share their offset within a row");
    static constexpr int ITERS = ROWS * BK / VEC / THREADS;
    static constexpr int ROWS_PER_ITER = THREADS / PER_ROW;
    static constexpr int DST_STEP = MODE == Copy::elem_k ? ROWS_PER_ITER : ROWS_PER_ITER * LDS;
    // Swizzled rows: a thread's copies keep their row modulo 4, hence their chunk's place.
    static_assert(!SWZ || (MODE != Copy::elem_k && ROWS_PER_ITER % 4 == 0),
                  "swizzled copies stay in place");
    // The next k tile's first copy reads src[next]. The offset, not the pointer, moves on: a
    // cp.async reads its address registers late, and a pointer stepped right after the copies
    // made the step wait for them (Nsight Compute: long-scoreboard stalls on that add).
    const T *src; // the first copy's element of the first k tile
    int64_t next; // elements from src to the first copy's element of the next k tile
    int64_t ld;   // the matrix's leading dimension
    int dst;      // the first copy's offset in the shared tile (a thread's copies: DST_STEP apart)

    __device__ __forceinline__ TileCopier(const T *g, int64_t ld_, int64_t mn0, int64_t k0)
        : next(0), ld(ld_) {
        const int tid = int(threadIdx.x);
        if constexpr (MODE ==
                      Copy::contig_mn) { // chunk c: k row c / PER_ROW, m offset (c % PER_ROW)·VEC
            const int kk = tid / PER_ROW, r = (tid % PER_ROW) * VEC;
            src = g + (mn0 + r) + (k0 + kk) * ld;
            dst = kk * LDS + chunk_at<SWZ>(r / VEC, kk) * VEC;
        } else { // element or chunk c: m row c / PER_ROW, k offset (c % PER_ROW)·VEC
            const int r = tid / PER_ROW, kk = (tid % PER_ROW) * VEC;
            src = g + (k0 + kk) + (mn0 + r) * ld;
            dst = MODE == Copy::elem_k ? kk * LDS + r : r * LDS + chunk_at<SWZ>(kk / VEC, r) * VEC;
        }
    }
    // Elements from one k tile to the next.
    __device__ __forceinline__ int64_t advance() const {
        return MODE == Copy::contig_mn ? BK * ld : BK;
    }
    // Starts this thread's copies of the next k tile into s and moves on to the one after.
    // Without `vec` (the matrix or ld not 16-byte aligned) each chunk goes element by element.
    __device__ __forceinline__ void copy(T *s, bool vec) {
        const T *first = src + next;
        next += advance();
        const int64_t stride = ROWS_PER_ITER * ld; // between a thread's copies
#pragma unroll
        for (int it = 0; it < ITERS; ++it) {
            const T *g = first + it * stride;
            T *d = s + dst + it * DST_STEP;
            if (MODE != Copy::elem_k && vec) {
                cp_async_16(d, g);
            } else {
#pragma unroll
                for (int v = 0; v < VEC; ++v) cp_async_elem(d + v, g + v, true);
            }
        }
    }
    // Moves on without copying (the tile went through load_tile).
    __device__ __forceinline__ void skip() { next += advance(); }
};

// One stage of a kernel's pipeline: the copiers' copies when `fast` (the block inside the
// matrix, the k tile full; 16-byte copies where p allows them), else `edge()` (the
// bounds-checked copies); the copiers move on to the next k tile either way.
template <typename T, typename CopyA, typename CopyB, typename Params, typename Edge>
__device__ __forceinline__ void copy_stage(bool fast, CopyA &a, CopyB &b, T *As, T *Bs,
                                           const Params &p, Edge edge) {
    if (fast) {
        a.copy(As, p.vec_a);
        b.copy(Bs, p.vec_b);
        return;
    }
    edge();
    a.skip();
    b.skip();
}

// One operand tile of a k-contiguous matrix (A transposed, B not transposed) kept k-contiguous
// in shared memory: ROWS rows along m (or n) of BK elements, s[r * LDK + kk], so that 16 bytes
// of consecutive k go in one copy (when `vec`: g 16-byte aligned, ld a multiple of the vector)
// and a warp reads whole 128-byte rows of the global matrix. Edges are zero-filled element by
// element. For the tensor-core kernels, whose fragments read along m and along k alike.
template <typename T, int ROWS, int BK, int LDK, int THREADS, bool SWZ = false>
__device__ __forceinline__ void load_tile_k(T *s, const T *g, int64_t ld, int64_t mn0, int64_t k0,
                                            int64_t MN, int64_t K, bool vec) {
    constexpr int VEC = 16 / int(sizeof(T));
    static_assert(BK % VEC == 0 && LDK % VEC == 0, "rows of 16-byte chunks");
    constexpr int PER_ROW = BK / VEC;
    constexpr int CHUNKS = ROWS * PER_ROW;
    static_assert(CHUNKS % THREADS == 0, "tile chunks must divide among the threads");
#pragma unroll
    for (int it = 0; it < CHUNKS / THREADS; ++it) {
        const int c = it * THREADS + int(threadIdx.x);
        const int r = c / PER_ROW, kk = (c % PER_ROW) * VEC;
        const int64_t gm = mn0 + r, gk = k0 + kk;
        T *dst = s + r * LDK + chunk_at<SWZ>(kk / VEC, r) * VEC;
        const bool rin = gm < MN;
        if (vec && rin && gk + VEC <= K) {
            cp_async_16(dst, g + gk + gm * ld);
        } else {
#pragma unroll
            for (int v = 0; v < VEC; ++v) {
                const bool ok = rin && gk + v < K;
                cp_async_elem(dst + v, ok ? g + (gk + v) + gm * ld : g, ok);
            }
        }
    }
}

// One operand's tile in shared memory for the tensor-core kernels, whose fragments read along
// m (or n) and along k alike. A stored matrix that runs along m (or n) lands as [k][m] rows
// (16-byte copies along m, load_tile); one that runs along k lands as [m][k] rows (16-byte
// copies along k, load_tile_k). A fragment read — lane (g, t) = (lane / 4, lane % 4) takes row
// g along m or n and column t along k — must be conflict-free.
// - Floats: padded rows, 32 distinct banks (t·LD + g with LD ≡ 8 mod 32, or g·LD + t with LD
//   an odd multiple of 4).
// - Doubles, read in two half-warps (g < 4, g ≥ 4): unpadded rows whose 16-byte chunks are
//   XOR-swizzled (chunk_at: chunk c of row w at c ^ 2·(w % 4)). In a half-warp the four rows
//   t (of [k][m]) or g (of [m][k]) then take four disjoint pairs of chunks, 16 distinct
//   words. Padding did that too (LD ≡ 4 mod 16), but it shifted every row off the 128-byte
//   lines: each eighth of a warp's 16-byte copies then straddled two lines, 7 shared-memory
//   wavefronts per copy instruction where 4 do (Nsight Compute, DGEMM 64×64 at 4096³).
template <typename T, int ROWS, int BK, bool K_CONTIG> struct FragTile {
    static constexpr bool SWZ = sizeof(T) == 8;
    static constexpr int LD = SWZ ? (K_CONTIG ? BK : ROWS) : K_CONTIG ? BK + 4 : ROWS + 8;
    static constexpr int SIZE = K_CONTIG ? ROWS * LD : BK * LD; // elements
    static_assert(SWZ ? LD % 16 == 0 : (K_CONTIG ? LD % 8 == 4 : LD % 32 == 8),
                  "fragment reads must be conflict-free");
    template <int THREADS>
    using Copier =
        TileCopier<T, ROWS, BK, LD, THREADS, K_CONTIG ? Copy::contig_k : Copy::contig_mn, SWZ>;
    __device__ static __forceinline__ T at(const T *s, int r, int kk) {
        if constexpr (SWZ) {
            if constexpr (K_CONTIG) return s[r * LD + chunk_at<true>(kk / 2, r) * 2 + kk % 2];
            else return s[kk * LD + chunk_at<true>(r / 2, kk) * 2 + r % 2];
        } else {
            if constexpr (K_CONTIG) return s[r * LD + kk];
            else return s[kk * LD + r];
        }
    }
    // A lane's fragment reads at (r0 + rc, t + kc), r0 and t this lane's, rc and kc known when
    // compiled (rc a multiple of 8, kc of 4): the lane's offsets are worked out once, as at
    // most four bases, so that each read is a base plus a constant (swizzled: the XOR touches
    // only bits the base holds).
    struct Reader {
        int base[4];
        __device__ __forceinline__ Reader(int r0, int t) {
            if constexpr (!SWZ) {
                base[0] = K_CONTIG ? r0 * LD + t : t * LD + r0;
            } else if constexpr (K_CONTIG) { // chunk (kc/2 | t/2) of row r0 + rc, r0 % 4 == (r0 +
                                             // rc) % 4
#pragma unroll
                for (int v = 0; v < 4; ++v) base[v] = r0 * LD + chunk_at<true>(2 * v, r0) * 2 + t;
            } else { // chunk (r0 + rc)/2 of k row t + kc, whose swizzle is 2·t
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int r = r0 + 8 * h, c = r / 2;
                    base[h] = t * LD + ((c & ~7) | chunk_at<true>(c & 7, t)) * 2 + r % 2;
                }
            }
        }
        __device__ __forceinline__ T at(const T *s, int rc, int kc) const {
            if constexpr (!SWZ) return s[base[0] + (K_CONTIG ? rc * LD + kc : kc * LD + rc)];
            else if constexpr (K_CONTIG)
                return s[base[(kc / 2 & 7) / 2] + rc * LD + (kc / 2 & ~7) * 2];
            else return s[base[rc / 8 % 2] + kc * LD + rc - 8 * (rc / 8 % 2)];
        }
    };
    // Starts the copies of rows [mn0, mn0 + ROWS) × columns [k0, k0 + BK) of the operand g.
    // Edge blocks' bounds-checked copies. For doubles (the DGEMM kernels) a function of its
    // own, not inlined into the main loop: inlined, its addresses and predicates are live
    // beside the accumulators and crowd the main loop's registers, and the DGEMM kernels run
    // faster with the call. The SIMT SGEMM kernel, whose FMA order was tuned to its register
    // allocation, ran slower that way, so it and the float kernels keep their copies inlined
    // (docs/journal/2026-11-cuda-gemm.md).
    template <int THREADS>
    __device__ static __forceinline__ void load(T *s, const T *g, int64_t ld, int64_t mn0,
                                                int64_t k0, int64_t MN, int64_t K, bool vec) {
        if constexpr (SWZ) load_apart<THREADS>(s, g, ld, mn0, k0, MN, K, vec);
        else load_inline<THREADS>(s, g, ld, mn0, k0, MN, K, vec);
    }
    template <int THREADS>
    __device__ static __forceinline__ void load_inline(T *s, const T *g, int64_t ld, int64_t mn0,
                                                       int64_t k0, int64_t MN, int64_t K,
                                                       bool vec) {
        if constexpr (K_CONTIG)
            load_tile_k<T, ROWS, BK, LD, THREADS, SWZ>(s, g, ld, mn0, k0, MN, K, vec);
        else load_tile<T, ROWS, BK, LD, THREADS, true, SWZ>(s, g, ld, mn0, k0, MN, K, vec);
    }
    template <int THREADS>
    __device__ static __noinline__ void load_apart(T *s, const T *g, int64_t ld, int64_t mn0,
                                                   int64_t k0, int64_t MN, int64_t K, bool vec) {
        load_inline<THREADS>(s, g, ld, mn0, k0, MN, K, vec);
    }
};

// Shared memory of a tensor-core kernel's STAGES stages for one pair of transposes, in bytes.
template <typename T, int BM, int BN, int BK, int STAGES, bool TA, bool TB>
constexpr int frag_smem_bytes() {
    return STAGES * (FragTile<T, BM, BK, TA>::SIZE + FragTile<T, BN, BK, !TB>::SIZE) *
           int(sizeof(T));
}

// Which tile (tm, tn) block `b` of a tiles_m × tiles_n grid computes: groups of GROUP tile
// rows are walked column by column so that blocks running together share operand panels in L2.
// The dmma kernels walk groups of 16 rows, the others of 8 (stream_k_plan counts on them).
inline constexpr int64_t kTileGroupRows = 8, kDmmaTileGroupRows = 16;
template <int64_t GROUP = kTileGroupRows>
__device__ __forceinline__ void tile_of_block(int64_t b, int64_t tiles_m, int64_t tiles_n,
                                              int64_t &tm, int64_t &tn) {
    const int64_t per_group = GROUP * tiles_n;
    const int64_t group = b / per_group;
    const int64_t first = group * GROUP;
    const int64_t rows = tiles_m - first < GROUP ? tiles_m - first : GROUP;
    const int64_t in = b % per_group;
    tm = first + in % rows;
    tn = in / rows;
}

template <typename T> struct GemmParams {
    int64_t m, n, k;
    T alpha;
    const T *A;
    int64_t lda;
    const T *B;
    int64_t ldb;
    T beta;
    T *C;
    int64_t ldc;
    int64_t tiles_m, tiles_n;
    bool vec_a, vec_b, vec_c; // 16-byte aligned with ld a multiple of the vector width
    // Split-K (splits > 1): row y of the grid takes k_split steps of k from y·k_split and
    // writes its partial product (alpha and beta as given: 1 and 0) to slab y of C, slabs
    // ldc·n elements apart; a second kernel sums the slabs into the caller's C.
    int splits;
    int64_t k_split;
    // Launch only the first `blocks` tiles (0: all of them); the stream-K launch's data-parallel
    // part.
    int64_t blocks;
    // Stream-K (the kernels instantiated with SK, one launch of sk_blocks blocks): the tiles
    // sk_first .. sk_first + sk_tiles - 1, as one run of k steps (ceil(k / BK) per tile), cut into
    // sk_blocks equal spans of sk_iters steps, a span per block. A tile cut between spans has a
    // piece from each block whose span meets it; every block leaves the partial sums of its
    // first and last stretch, where cut, in its slots 2b and 2b + 1 of sk_work (BM·BN elements
    // each), and stream_k_sum_kernel sums them.
    int64_t sk_first, sk_tiles, sk_iters;
    int sk_blocks;
    T *sk_work;
};

// The part of the product this block computes: all of it, or its slice of k under split-K.
template <typename T, bool TA, bool TB>
__device__ __forceinline__ GemmParams<T> k_slice(GemmParams<T> p) {
    if (p.splits > 1) {
        const int64_t s = blockIdx.y, l0 = s * p.k_split;
        p.A += TA ? l0 : l0 * p.lda; // op(A)(i, l): A[l + i·lda] transposed, A[i + l·lda] not
        p.B += TB ? l0 * p.ldb : l0; // op(B)(l, j): B[j + l·ldb] transposed, B[l + j·ldb] not
        p.k = p.k - l0 < p.k_split ? p.k - l0 : p.k_split;
        p.C += s * p.ldc * p.n;
    }
    return p;
}

// One stretch of a stream-K block's span: tile `tile` (of the tiles after sk_first) from k step
// `step0` to `step1` (of the tile's steps), and, where the tile is cut, which blocks have its
// pieces: first_block() .. last_block.
struct StreamKUnit {
    int64_t step0, step1;
    int tile;
    int first2;     // 2·first block + 1 where that block began its span in an earlier tile
    int last_block; // equal to the first block: the tile is whole here
    __device__ int first_block() const { return first2 >> 1; }
    __device__ bool cut() const { return first_block() != last_block; }
    // The slot of block b's piece: its second where the tile is b's last stretch but not its
    // first (the first block, when it began in an earlier tile), else its first.
    __device__ int64_t slot(int b) const {
        return 2 * int64_t(b) + (b == first_block() ? (first2 & 1) : 0);
    }
};

// The stretch of block `block`'s span that begins at step i of the run (steps: k steps per tile).
template <typename T>
__device__ __forceinline__ StreamKUnit stream_k_unit(const GemmParams<T> &p, int64_t steps,
                                                     int block, int64_t i) {
    const int64_t end0 = (int64_t(block) + 1) * p.sk_iters, total = p.sk_tiles * steps;
    const int64_t end = end0 < total ? end0 : total;
    StreamKUnit u;
    u.tile = int(i / steps);
    const int64_t t0 = u.tile * steps, t1 = t0 + steps, first = t0 / p.sk_iters;
    u.step0 = i - t0;
    u.step1 = (end < t1 ? end : t1) - t0;
    u.first2 = int(2 * first + (first * p.sk_iters != t0 ? 1 : 0));
    u.last_block = int((t1 - 1) / p.sk_iters);
    return u;
}

// The stretches of block `block`'s span, in order: `unit(i)` for each, i its first step in the
// run. The kernels work a stretch out from i before their main loop and again after it (from a
// copy the compiler cannot see through), so that little but i stays live across the loop: the
// stretch's fields held across it take registers from the main loop and slow the stream-K
// kernels (docs/journal/2026-11-cuda-gemm.md).
template <typename T, typename F>
__device__ __forceinline__ void stream_k_units(const GemmParams<T> &p, int64_t steps, int block,
                                               F unit) {
    const int64_t end0 = (int64_t(block) + 1) * p.sk_iters, total = p.sk_tiles * steps;
    const int64_t end = end0 < total ? end0 : total;
    for (int64_t i = int64_t(block) * p.sk_iters; i < end; i = (i / steps + 1) * steps) unit(i);
}

// i, as a value the compiler must take as new (nothing worked out from it before is reused).
__device__ __forceinline__ int64_t opaque(int64_t i) {
    asm volatile("" : "+l"(i));
    return i;
}

// The part of the product stretch `u` computes: op(A) and op(B) from k = step0·BK, as deep as
// its steps (the last of them cut at k).
template <typename T, bool TA, bool TB, int BK>
__device__ __forceinline__ GemmParams<T> k_range(GemmParams<T> p, const StreamKUnit &u) {
    const int64_t l0 = u.step0 * BK, l1 = u.step1 * BK < p.k ? u.step1 * BK : p.k;
    p.A += TA ? l0 : l0 * p.lda;
    p.B += TB ? l0 * p.ldb : l0;
    p.k = l1 - l0;
    return p;
}

// A cut tile's pieces. Each block stores its piece with the kernel's own epilogue, into its
// slot as into a BM×BN matrix of its own (alpha 1, beta 0); a kernel after the stream-K launch
// (stream_k_sum_kernel) sums each cut tile's pieces in block order and stores the tile, so the
// result does not depend on which block finished first. The kernels' accumulators meet one
// store code either way: a second consumer of them after the main loop (the pieces stored
// straight from registers, or summed there) changed the registers' allocation in the loop and
// slowed the stream-K kernels (docs/journal/2026-11-cuda-gemm.md).
template <typename T>
__device__ __forceinline__ GemmParams<T> stream_k_slot(GemmParams<T> p, const StreamKUnit &u,
                                                       int bm, int bn) {
    p.C = p.sk_work + u.slot(int(blockIdx.x)) * bm * bn;
    p.ldc = bm, p.m = bm, p.n = bn;
    p.alpha = T(1), p.beta = T(0);
    p.vec_c = true;
    return p;
}

// One block per tile of the stream-K launch (THREADS threads): a cut tile's pieces summed in
// block order, C = alpha·sum + beta·C at the tile (beta == 0 never reads C); whole tiles were
// stored by their block.
template <typename T, int BM, int BN, int64_t GROUP, int THREADS>
__global__ void __launch_bounds__(THREADS)
    stream_k_sum_kernel(const GemmParams<T> p, int64_t steps) {
    constexpr int V = 16 / int(sizeof(T)), G = BM * BN / (V * THREADS); // 16-byte groups per thread
    constexpr int F = G < 8 ? G : 8;                                    // groups in flight at once
    static_assert(BM % V == 0 && G % F == 0 && (BM * BN) % (V * THREADS) == 0,
                  "slots in whole groups");
    using Vec = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
    const StreamKUnit u = stream_k_unit(p, steps, 0, int64_t(blockIdx.x) * steps);
    if (!u.cut()) return;
    int64_t tm, tn;
    tile_of_block<GROUP>(p.sk_first + u.tile, p.tiles_m, p.tiles_n, tm, tn);
    const bool read_c = p.beta != T(0);
    for (int g0 = 0; g0 < G; g0 += F) {
        T sum[F][V];
        for (int b = u.first_block(); b <= u.last_block; ++b) {
            const Vec *slot = reinterpret_cast<const Vec *>(p.sk_work + u.slot(b) * BM * BN);
            Vec w[F];
#pragma unroll
            for (int f = 0; f < F; ++f) w[f] = slot[(g0 + f) * THREADS + threadIdx.x];
#pragma unroll
            for (int f = 0; f < F; ++f) {
                const T *x = reinterpret_cast<const T *>(&w[f]);
#pragma unroll
                for (int q = 0; q < V; ++q)
                    sum[f][q] = b == u.first_block() ? x[q] : sum[f][q] + x[q];
            }
        }
#pragma unroll
        for (int f = 0; f < F; ++f) {
            const int e = ((g0 + f) * THREADS + int(threadIdx.x)) * V;
            const int64_t col = tn * BN + e / BM;
            if (col >= p.n) continue;
#pragma unroll
            for (int q = 0; q < V; ++q) {
                const int64_t row = tm * BM + e % BM + q;
                if (row >= p.m) continue;
                T *c = p.C + row + col * p.ldc;
                const T val = p.alpha * sum[f][q];
                *c = read_c ? val + p.beta * *c : val;
            }
        }
    }
}

// The tensor-core kernels' epilogue: lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1
// of each 16×8 accumulator fragment (i, j) of the warp tile at (r0, c0) of C.
// C = alpha·acc + beta·C, with beta == 0 never reading C. With beta != 0 the old values of up to
// four fragments are all loaded before any of them is stored: the compiler keeps a load after a
// store that may alias it, so loads and stores in turn wait out a memory latency each. BATCH:
// at most that many fragments per batch (the registers of the old values).
template <int BATCH = 4, typename T, int MT, int NT>
__device__ __forceinline__ void store_fragments(const GemmParams<T> &p, const T (&acc)[MT][NT][4],
                                                int64_t r0, int64_t c0, int g, int t) {
    if (p.beta == T(0)) {
#pragma unroll
        for (int i = 0; i < MT; ++i) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int64_t row = r0 + i * 16 + h * 8 + g;
                if (row >= p.m) continue;
#pragma unroll
                for (int j = 0; j < NT; ++j) {
#pragma unroll
                    for (int c = 0; c < 2; ++c) {
                        const int64_t col = c0 + j * 8 + 2 * t + c;
                        if (col >= p.n) continue;
                        const T v = p.alpha * acc[i][j][h * 2 + c];
                        p.C[row + col * p.ldc] = v;
                    }
                }
            }
        }
        return;
    }
    constexpr int JC = NT < BATCH ? NT : BATCH; // fragments per batch of loads
    static_assert(NT % JC == 0, "whole batches");
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
        for (int j0 = 0; j0 < NT; j0 += JC) {
            T old[JC][4];
#pragma unroll
            for (int j = 0; j < JC; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    const int64_t row = r0 + i * 16 + (q / 2) * 8 + g;
                    const int64_t col = c0 + (j0 + j) * 8 + 2 * t + q % 2;
                    old[j][q] = row < p.m && col < p.n ? p.C[row + col * p.ldc] : T(0);
                }
#pragma unroll
            for (int j = 0; j < JC; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    const int64_t row = r0 + i * 16 + (q / 2) * 8 + g;
                    const int64_t col = c0 + (j0 + j) * 8 + 2 * t + q % 2;
                    const T v = p.alpha * acc[i][j0 + j][q];
                    if (row < p.m && col < p.n) p.C[row + col * p.ldc] = v + p.beta * old[j][q];
                }
        }
    }
}

// Asks L2 for the block's BM×BN tile of C at (m0, n0), which its epilogue will read: every
// 128-byte line the tile's columns touch, named by an element inside the matrix (a line is 16
// doubles, so rows m0, m0 + 16, ... and the column's last row). For a short k, whose main loop
// is too short to hide the epilogue's loads, the lines arrive while the tile is computed.
template <typename T, int BM, int BN, int THREADS>
__device__ __forceinline__ void prefetch_c_tile(const GemmParams<T> &p, int64_t m0, int64_t n0) {
    constexpr int STEP = 128 / int(sizeof(T)), PER_COL = BM / STEP + 1;
    const int64_t last = (m0 + BM < p.m ? m0 + BM : p.m) - 1;
    for (int e = int(threadIdx.x); e < BN * PER_COL; e += THREADS) {
        const int64_t col = n0 + e / PER_COL, r = m0 + int64_t(e % PER_COL) * STEP;
        if (col >= p.n) break; // e / PER_COL only grows
        const T *c = p.C + (r < last ? r : last) + col * p.ldc;
        asm volatile("prefetch.global.L2 [%0];\n" ::"l"(c));
    }
}

} // namespace tessera::cuda
