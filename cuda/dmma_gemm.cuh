// The DGEMM kernel on the FP64 tensor cores: mma.sync m16n8k4/k8/k16 on sm_90 (Hopper's FP64
// tensor-core shapes), the same fragments as pairs of m8n8k4 on sm_80; the cp.async pipeline of
// the other gemm kernels, each warp a grid of 16×8 accumulator fragments.
#pragma once

#include "launch.cuh"
#include "tile_load.cuh"

namespace tessera::cuda {

// acc (16×8) += a (16×KS) · b (KS×8), KS ∈ {4, 8, 16}. Lane (g, t) = (lane / 4, lane % 4)
// holds a[i] = A(g + 8·(i % 2), t + 4·(i / 2)), b[i] = B(t + 4·i, g), and acc[h·2 + c] =
// C(g + 8·h, 2t + c). On sm_80, which has only m8n8k4 in FP64, each 4-deep slice is two of
// those (rows g and g + 8): same fragments, same products, same order of additions per slice.
template <int KS>
__device__ __forceinline__ void dmma_16x8(double (&acc)[4], const double (&a)[KS / 2],
                                          const double (&b)[KS / 4]) {
    static_assert(KS == 4 || KS == 8 || KS == 16, "FP64 mma shapes m16n8k4, k8, k16");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (KS == 4)
        asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
            "{%0, %1, %2, %3};\n"
            : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
            : "d"(a[0]), "d"(a[1]), "d"(b[0]));
    else if constexpr (KS == 8)
        asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
            : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
              "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
    for (int q = 0; q < KS / 4; ++q) {
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
            : "+d"(acc[0]), "+d"(acc[1])
            : "d"(a[2 * q]), "d"(b[q]));
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
            : "+d"(acc[2]), "+d"(acc[3])
            : "d"(a[2 * q + 1]), "d"(b[q]));
    }
#else
    (void)acc, (void)a, (void)b;
    __trap(); // never launched: the host picks the SIMT kernel below sm_80
#endif
}

// The copies of the block's BM×BN tile's operands at (m0, n0) into the pipeline's stages: op(A)
// and op(B) land in shared memory as FragTile lays them out (16-byte copies along whichever of
// m/n and k the stored matrix runs). Blocks wholly inside the matrix copy full k tiles with
// addresses worked out once (the copiers, starting at k tile k0 / BK); the others, and a last
// partial k tile, through the bounds-checked copies.
template <int BM, int BN, int BK, int THREADS, int STAGES, bool TA, bool TB> struct DmmaStages {
    using TileA = FragTile<double, BM, BK, TA>; // op(A) is m×k; stored transposed it runs along k
    using TileB =
        FragTile<double, BN, BK, !TB>; // op(B) is k×n; stored untransposed it runs along k
    static constexpr int STAGE = TileA::SIZE + TileB::SIZE;
    const GemmParams<double> &p;
    int64_t m0, n0;
    double *smem;
    typename TileA::template Copier<THREADS> copy_a;
    typename TileB::template Copier<THREADS> copy_b;
    bool inside;

    __device__ __forceinline__ DmmaStages(const GemmParams<double> &p_, int64_t m0_, int64_t n0_,
                                          double *smem_, int64_t k0)
        : p(p_), m0(m0_), n0(n0_), smem(smem_), copy_a(p_.A, p_.lda, m0_, k0),
          copy_b(p_.B, p_.ldb, n0_, k0), inside(m0_ + BM <= p_.m && n0_ + BN <= p_.n) {}
    // Starts the copies of the k tile at k0 (the copiers' next one) into stage `stage`.
    __device__ __forceinline__ void load(int stage, int64_t k0) {
        double *As = smem + stage * STAGE;
        double *Bs = As + TileA::SIZE;
        copy_stage(inside && k0 + BK <= p.k, copy_a, copy_b, As, Bs, p, [&] {
            TileA::template load<THREADS>(As, p.A, p.lda, m0, k0, p.m, p.k, p.vec_a);
            TileB::template load<THREADS>(Bs, p.B, p.ldb, n0, k0, p.n, p.k, p.vec_b);
        });
    }
    // The pipeline's first STAGES - 1 k tiles, a commit group each (empty past k).
    __device__ __forceinline__ void prologue() {
        const int64_t ktiles = (p.k + BK - 1) / BK;
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < ktiles) load(s, int64_t(s) * BK);
            cp_async_commit();
        }
    }
};

// The block's BM×BN tile at (m0, n0) of op(A)·op(B) over p.k, into acc (zeroed here), the
// operands STAGES deep in shared memory (DmmaStages); a warp computes a WM×WN tile as MT×NT
// fragments of 16×8, reading per KS-deep step its A and B fragments from shared memory. With
// ISSUED the caller has started the pipeline's first stages already (DmmaStages::prologue, the
// shared memory free of earlier reads) and they need only be waited for.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int KS, bool TA, bool TB,
          bool ISSUED = false>
__device__ __forceinline__ void dmma_tile(const GemmParams<double> &p, int64_t m0, int64_t n0,
                                          double *smem,
                                          double (&acc)[BM / WARPS_M / 16][BN / WARPS_N / 8][4]) {
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
    constexpr int MT = WM / 16, NT = WN / 8;
    static_assert(MT * 16 * WARPS_M == BM && NT * 8 * WARPS_N == BN && BK % KS == 0,
                  "fragments tile the block");
    using Stages = DmmaStages<BM, BN, BK, THREADS, STAGES, TA, TB>;
    using TileA = typename Stages::TileA;
    using TileB = typename Stages::TileB;
    constexpr int STAGE = Stages::STAGE;
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int wm0 = (warp % WARPS_M) * WM, wn0 = (warp / WARPS_M) * WN;
    const int g = lane / 4, t = lane % 4;

    // The copiers start past the stages the prologue fills.
    Stages stages(p, m0, n0, smem, ISSUED ? int64_t(STAGES - 1) * BK : 0);

#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.0;

    // Fragments in two register buffers: a step's MMAs run while the next step's fragments load,
    // and the last step of a k tile waits for the next tile (and loads its first fragments)
    // before its MMAs, so no warp starts a tile with its shared-memory reads outstanding.
    constexpr int NKS = BK / KS;
    static_assert(NKS % 2 == 0, "an even number of steps per k tile keeps the buffers' parity");
    double a[2][MT][KS / 2], b[2][NT][KS / 4];
    const typename TileA::Reader read_a(wm0 + g, t);
    const typename TileB::Reader read_b(wn0 + g, t);
    auto load_fragments = [&](int buf, int stage, int ks) {
        const double *As = smem + stage * STAGE;
        const double *Bs = As + TileA::SIZE;
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int q = 0; q < KS / 2; ++q)
                a[buf][i][q] = read_a.at(As, i * 16 + 8 * (q % 2), ks + 4 * (q / 2));
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int q = 0; q < KS / 4; ++q) b[buf][j][q] = read_b.at(Bs, j * 8, ks + 4 * q);
    };

    const int64_t ktiles = (p.k + BK - 1) / BK;
    if constexpr (!ISSUED) stages.prologue();
    cp_async_wait<STAGES - 2>();
    __syncthreads(); // tile 0 has landed
    load_fragments(0, 0, 0);
    for (int64_t kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int ks = 0; ks < NKS; ++ks) {
            if (ks == NKS - 1) {
                // Every warp is past the last barrier, so done with tile kt - 1's stage: refill
                // it with tile kt + STAGES - 1; then wait for tile kt + 1.
                const int64_t next = kt + STAGES - 1;
                if (next < ktiles) stages.load(int(next % STAGES), next * BK);
                cp_async_commit();
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                if (kt + 1 < ktiles) load_fragments((ks + 1) % 2, int((kt + 1) % STAGES), 0);
            } else {
                load_fragments((ks + 1) % 2, int(kt % STAGES), (ks + 1) * KS);
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) dmma_16x8<KS>(acc[i][j], a[ks % 2][i], b[ks % 2][j]);
        }
    }
    cp_async_wait<0>();
}

// The persistent grid's tile of C in shared memory, beside the pipeline's stages: BN columns of
// BM rows, kStagedPad elements apart more than BM. With a stride of BM + 2 doubles, a warp's
// fragment writes (rows g and g + 8, columns 2t and 2t + 1) meet each bank pair twice, the
// fewest for 256 bytes, and each column starts 16-byte aligned for the reads.
inline constexpr int kStagedPad = 2;
template <int BM, int BN> constexpr int staged_tile_bytes() {
    return BN * (BM + kStagedPad) * int(sizeof(double));
}

// The staged epilogue: C = alpha·acc + beta·C for the block's BM×BN tile through shared memory
// `cs` (staged_tile_bytes). The warps leave their fragments there (stage_fragments); after a
// barrier each warp stores whole columns (store_staged), 16 bytes a lane where C allows it
// (p.vec_c), so that each store writes four whole 128-byte lines instead of four halves of a
// line at eight bytes a lane. With beta != 0 the old values of eight pairs per thread are
// loaded before any of them is stored. No thread may still read `cs` for an earlier tile when
// the fragments are written (a barrier since).
template <int BM, int MT, int NT>
__device__ __forceinline__ void stage_fragments(const double (&acc)[MT][NT][4], double *cs, int wm0,
                                                int wn0, int g, int t) {
    constexpr int LD = BM + kStagedPad;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q)
                cs[(wn0 + j * 8 + 2 * t + q % 2) * LD + wm0 + i * 16 + (q / 2) * 8 + g] =
                    acc[i][j][q];
}
template <int BM, int BN, int THREADS>
__device__ __forceinline__ void store_staged(const GemmParams<double> &p, const double *cs,
                                             int64_t m0, int64_t n0) {
    constexpr int LD = BM + kStagedPad, PAIRS = BM / 2, ITEMS = BN * PAIRS / THREADS, BATCH = 8;
    static_assert((BN * PAIRS) % THREADS == 0 && ITEMS % BATCH == 0 && PAIRS % 32 == 0,
                  "whole batches; a warp's pairs in one column");
    const bool read_c = p.beta != 0.0;
#pragma unroll 1
    for (int i0 = 0; i0 < ITEMS; i0 += BATCH) {
        double2 old[BATCH];
        if (read_c) {
#pragma unroll
            for (int b = 0; b < BATCH; ++b) {
                const int e = (i0 + b) * THREADS + int(threadIdx.x);
                const int64_t row = m0 + 2 * (e % PAIRS), col = n0 + e / PAIRS;
                const double *c = p.C + row + col * p.ldc;
                old[b] = make_double2(0.0, 0.0);
                if (col >= p.n || row >= p.m) continue;
                if (p.vec_c && row + 1 < p.m) {
                    old[b] = *reinterpret_cast<const double2 *>(c);
                } else {
                    old[b].x = c[0];
                    if (row + 1 < p.m) old[b].y = c[1];
                }
            }
        }
#pragma unroll
        for (int b = 0; b < BATCH; ++b) {
            const int e = (i0 + b) * THREADS + int(threadIdx.x);
            const int r = 2 * (e % PAIRS), cl = e / PAIRS;
            const int64_t row = m0 + r, col = n0 + cl;
            if (col >= p.n || row >= p.m) continue;
            const double2 a = *reinterpret_cast<const double2 *>(cs + cl * LD + r);
            double2 v = make_double2(p.alpha * a.x, p.alpha * a.y);
            if (read_c) v.x += p.beta * old[b].x, v.y += p.beta * old[b].y;
            double *c = p.C + row + col * p.ldc;
            if (p.vec_c && row + 1 < p.m) {
                *reinterpret_cast<double2 *>(c) = v;
            } else {
                c[0] = v.x;
                if (row + 1 < p.m) c[1] = v.y;
            }
        }
    }
}

// Products up to this deep ask L2 for their tile of C before the main loop when beta != 0
// (prefetch_c_tile): the loop is then too short to hide the epilogue's loads.
inline constexpr int64_t kDmmaPrefetchDepth = 256;

// How a dmma kernel's blocks meet the tiles of C: one tile per block (its slice of k under
// split-K); the stream-K launch, each block its span of the tiles' k steps (GemmParams); or
// persistent, p.blocks blocks (at most one per tile) each taking every p.blocks-th tile from its
// own, in the order one tile per block would run them, and starting the copies of its next tile's
// first k steps before it stores the tile it has;
// persistent_staged: the same with the staged epilogue (store_staged).
enum class DmmaGrid { tiles, stream_k, persistent, persistent_staged };

// C = alpha·op(A)·op(B) + beta·C (column-major, any m, n, k) over the grid GRID. MIN_BLOCKS:
// the blocks per multiprocessor the registers are cut for.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int KS, bool TA, bool TB,
          DmmaGrid GRID = DmmaGrid::tiles, int MIN_BLOCKS = 1>
__global__ void __launch_bounds__(WARPS_M *WARPS_N * 32, MIN_BLOCKS)
    dmma_gemm_kernel(const GemmParams<double> whole) {
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
    constexpr int MT = WM / 16, NT = WN / 8;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    double *smem = reinterpret_cast<double *>(smem_raw);
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int wm0 = (warp % WARPS_M) * WM, wn0 = (warp / WARPS_M) * WN;
    const int g = lane / 4, t = lane % 4;
    // Tile rows walked in groups of 16, so that the blocks running at once share A's and B's
    // panels in L2; of 4 to 32, 16 timed best (docs/journal/2026-11-cuda-gemm.md).
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    if constexpr (GRID == DmmaGrid::persistent || GRID == DmmaGrid::persistent_staged) {
        // A block's stores of one tile drain while the copies of its next tile's operands run:
        // with one block per multiprocessor and a short k, a block per tile would wait for its
        // stores to leave before the next block could start its copies.
        const int64_t tiles = whole.tiles_m * whole.tiles_n;
        int64_t b = blockIdx.x, tm, tn;
        if (b >= tiles) return;
        const bool prefetch = whole.beta != 0.0 && whole.k <= kDmmaPrefetchDepth;
        tile_of_block<kDmmaTileGroupRows>(b, whole.tiles_m, whole.tiles_n, tm, tn);
        if (prefetch) prefetch_c_tile<double, BM, BN, THREADS>(whole, tm * BM, tn * BN);
        DmmaStages<BM, BN, BK, THREADS, STAGES, TA, TB>(whole, tm * BM, tn * BN, smem, 0)
            .prologue();
        double *cs = smem + STAGES * DmmaStages<BM, BN, BK, THREADS, STAGES, TA, TB>::STAGE;
        for (;;) {
            double acc[MT][NT][4];
            dmma_tile<BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS, TA, TB, true>(whole, tm * BM,
                                                                              tn * BN, smem, acc);
            constexpr bool STAGED = GRID == DmmaGrid::persistent_staged;
            // The staged tile's reads of the tile before came before this tile's main loop and
            // its barriers.
            if constexpr (STAGED) stage_fragments<BM>(acc, cs, wm0, wn0, g, t);
            const int64_t m0 = tm * BM, n0 = tn * BN;
            b += gridDim.x;
            const bool more = b < tiles;
            if (STAGED || more)
                __syncthreads(); // every warp is done reading the stages (and has staged its
                                 // fragments)
            if (more) {
                tile_of_block<kDmmaTileGroupRows>(b, whole.tiles_m, whole.tiles_n, tm, tn);
                if (prefetch) prefetch_c_tile<double, BM, BN, THREADS>(whole, tm * BM, tn * BN);
                DmmaStages<BM, BN, BK, THREADS, STAGES, TA, TB>(whole, tm * BM, tn * BN, smem, 0)
                    .prologue();
            }
            if constexpr (STAGED) store_staged<BM, BN, THREADS>(whole, cs, m0, n0);
            else store_fragments(whole, acc, m0 + wm0, n0 + wn0, g, t);
            if (!more) break;
        }
    } else if constexpr (GRID == DmmaGrid::tiles) {
        const GemmParams<double> p = k_slice<double, TA, TB>(whole);
        int64_t tm, tn;
        tile_of_block<kDmmaTileGroupRows>(blockIdx.x, p.tiles_m, p.tiles_n, tm, tn);
        if (p.beta != 0.0 && p.k <= kDmmaPrefetchDepth)
            prefetch_c_tile<double, BM, BN, THREADS>(p, tm * BM, tn * BN);
        double acc[MT][NT][4];
        dmma_tile<BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS, TA, TB>(p, tm * BM, tn * BN, smem, acc);
        store_fragments(p, acc, tm * BM + wm0, tn * BN + wn0, g, t);
    } else {
        const int64_t steps = (whole.k + BK - 1) / BK;
        stream_k_units(whole, steps, int(blockIdx.x), [&](int64_t i) {
            int64_t tm, tn;
            StreamKUnit u = stream_k_unit(whole, steps, int(blockIdx.x), i);
            tile_of_block<kDmmaTileGroupRows>(whole.sk_first + u.tile, whole.tiles_m, whole.tiles_n,
                                              tm, tn);
            double acc[MT][NT][4];
            dmma_tile<BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS, TA, TB>(
                k_range<double, TA, TB, BK>(whole, u), tm * BM, tn * BN, smem, acc);
            u = stream_k_unit(whole, (whole.k + BK - 1) / BK, int(blockIdx.x), opaque(i));
            tile_of_block<kDmmaTileGroupRows>(whole.sk_first + u.tile, whole.tiles_m, whole.tiles_n,
                                              tm, tn);
            const bool cut = u.cut();
            store_fragments<1>(cut ? stream_k_slot(whole, u, BM, BN) : whole, acc,
                               (cut ? 0 : tm * BM) + wm0, (cut ? 0 : tn * BN) + wn0, g, t);
            __syncthreads(); // the next stretch's copies go into stages this one's warps may still
                             // read
        });
    }
}

// The launch of dmma_gemm_kernel with these template arguments, for the transposes asked
// (launch_ops); the kernels are instantiated in the compilation unit that calls run.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int KS, DmmaGrid GRID,
          int MIN_BLOCKS = 1>
struct DmmaLaunch {
    template <bool TA, bool TB> struct Ops {
        static constexpr auto kernel =
            dmma_gemm_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS, TA, TB, GRID, MIN_BLOCKS>;
        static constexpr int smem =
            frag_smem_bytes<double, BM, BN, BK, STAGES, TA, TB>() +
            (GRID == DmmaGrid::persistent_staged ? staged_tile_bytes<BM, BN>() : 0);
    };
    static cudaError_t run(cudaStream_t stream, bool ta, bool tb, const GemmParams<double> &p) {
        return launch_ops<double, Ops>(BM, BN, WARPS_M * WARPS_N * 32, stream, ta, tb, p);
    }
};

} // namespace tessera::cuda
