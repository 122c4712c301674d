// The SIMT gemm kernel (SGEMM, and DGEMM where the FP64 tensor cores are missing): block tile
// in a multi-stage cp.async pipeline, warp tiles, per-thread register tiles of 4-wide groups.
#pragma once

#include "tile_load.cuh"

namespace tessera::cuda {

// Four consecutive shared-memory elements in as few 16-byte loads as they take.
template <typename T> __device__ __forceinline__ void lds4(const T *p, T (&v)[4]) {
    if constexpr (sizeof(T) == 4) {
        const float4 x = *reinterpret_cast<const float4 *>(p);
        v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    } else {
        const double2 x = *reinterpret_cast<const double2 *>(p);
        const double2 y = *reinterpret_cast<const double2 *>(p + 2);
        v[0] = x.x, v[1] = x.y, v[2] = y.x, v[3] = y.y;
    }
}

// G groups of four consecutive shared-memory elements, STEP elements apart, into out.
template <int G, int STEP, typename T>
__device__ __forceinline__ void lds_groups(const T *p, T (&out)[4 * G]) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
        T v[4];
        lds4(p + g * STEP, v);
#pragma unroll
        for (int r = 0; r < 4; ++r) out[g * 4 + r] = v[r];
    }
}

// The order of a step's FMAs: column by column of the thread's tile, down the rows for even
// columns and up for odd ones, so that each FMA shares an operand with the one before (the
// operand reuse cache then supplies it). ptxas allocates the registers after that order, and
// the register-file conflicts that follow (Nsight Compute's dispatch stalls) depend on it in
// ways no simple bank model predicted, so for 8-row tiles the rows go in a measured order:
// the best of 56 orders of this kernel timed on an H100 (256x128 at 4096^3; the orders and how
// they compared are in docs/journal/2026-11-cuda-gemm.md).
// The eight rows' order as the digits of one number (a build may define another to time it).
#ifndef TESSERA_SIMT_ROWS8
#define TESSERA_SIMT_ROWS8 23547601
#endif
template <int ROWS> __device__ constexpr int fma_row(int column, int n) {
    const int r = column % 2 == 0 ? n : ROWS - 1 - n;
    constexpr int o = TESSERA_SIMT_ROWS8;
    constexpr int kEight[8] = {o / 10000000 % 10, o / 1000000 % 10, o / 100000 % 10, o / 10000 % 10,
                               o / 1000 % 10,     o / 100 % 10,     o / 10 % 10,     o % 10};
    return ROWS == 8 ? kEight[r] : r;
}

template <typename T> __device__ __forceinline__ void stg4(T *p, const T (&v)[4]) {
    if constexpr (sizeof(T) == 4) {
        *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
        *reinterpret_cast<double2 *>(p) = make_double2(v[0], v[1]);
        *reinterpret_cast<double2 *>(p + 2) = make_double2(v[2], v[3]);
    }
}

// The block's BM×BN tile at (m0, n0) of op(A)·op(B) over p.k, into acc (zeroed here). A warp
// holds 8×4 threads (m fastest); a thread owns GM×GN groups of 4×4 elements, its groups 32 rows
// and 16 columns apart, so that a warp's 16-byte shared-memory reads are contiguous (no bank
// conflicts) and its stores to C are coalesced. Shared rows are padded by 16 bytes so that the
// transposing copies of k-contiguous operands hit two banks at most.
template <typename T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int GM, int GN, int STAGES,
          bool TA, bool TB>
__device__ __forceinline__ void simt_tile(const GemmParams<T> &p, int64_t m0, int64_t n0, T *smem,
                                          T (&acc)[GM * 4][GN * 4]) {
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = 32 * GM, WN = 16 * GN;
    static_assert(WM * WARPS_M == BM && WN * WARPS_N == BN, "warp tiles must cover the block tile");
    constexpr int PAD = 16 / int(sizeof(T));
    constexpr int LDA = BM + PAD, LDB = BN + PAD;
    constexpr int STAGE = BK * (LDA + LDB);

    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int wm0 = (warp % WARPS_M) * WM, wn0 = (warp / WARPS_M) * WN;
    const int lm = (lane % 8) * 4, ln = (lane / 8) * 4;

    // op(A) is m×k: not transposed it runs along m (CONTIG_MN); op(B) is k×n: transposed it runs
    // along n. Blocks wholly inside the matrix copy full k tiles with precomputed addresses.
    using CopyA = TileCopier<T, BM, BK, LDA, THREADS, TA ? Copy::elem_k : Copy::contig_mn>;
    using CopyB = TileCopier<T, BN, BK, LDB, THREADS, TB ? Copy::contig_mn : Copy::elem_k>;
    CopyA copy_a(p.A, p.lda, m0, 0);
    CopyB copy_b(p.B, p.ldb, n0, 0);
    const bool inside = m0 + BM <= p.m && n0 + BN <= p.n;
    auto load_stage = [&](int stage, int64_t k0) {
        T *As = smem + stage * STAGE;
        T *Bs = As + BK * LDA;
        copy_stage(inside && k0 + BK <= p.k, copy_a, copy_b, As, Bs, p, [&] {
            load_tile<T, BM, BK, LDA, THREADS, !TA>(As, p.A, p.lda, m0, k0, p.m, p.k, p.vec_a);
            load_tile<T, BN, BK, LDB, THREADS, TB>(Bs, p.B, p.ldb, n0, k0, p.n, p.k, p.vec_b);
        });
    };

#pragma unroll
    for (int i = 0; i < GM * 4; ++i)
#pragma unroll
        for (int j = 0; j < GN * 4; ++j) acc[i][j] = T(0);

    // Fragments in two register buffers: a step's FMAs run while the next step's fragments
    // load, and the last step of a k tile waits for the next tile (and loads its first
    // fragments) before its FMAs, so no warp starts a tile with its shared-memory reads
    // outstanding.
    T a[2][GM * 4], b[2][GN * 4];
    auto load_fragments = [&](int buf, int stage, int kk) {
        const T *As = smem + stage * STAGE;
        const T *Bs = As + BK * LDA;
        lds_groups<GM, 32>(As + kk * LDA + wm0 + lm, a[buf]);
        lds_groups<GN, 16>(Bs + kk * LDB + wn0 + ln, b[buf]);
    };

    const int64_t ktiles = (p.k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_stage(s, int64_t(s) * BK);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads(); // tile 0 has landed
    load_fragments(0, 0, 0);
    static_assert(BK % 2 == 0, "an even number of steps per k tile keeps the buffers' parity");
    int stage = 0; // kt % STAGES
    for (int64_t kt = 0; kt < ktiles; ++kt) {
        const int following = stage == STAGES - 1 ? 0 : stage + 1;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            if (kk == BK - 1) {
                // Every warp is past the last barrier, so done with tile kt - 1's stage: refill
                // it with tile kt + STAGES - 1; then wait for tile kt + 1.
                const int64_t next = kt + STAGES - 1;
                if (next < ktiles) load_stage(stage == 0 ? STAGES - 1 : stage - 1, next * BK);
                cp_async_commit();
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                if (kt + 1 < ktiles) load_fragments((kk + 1) % 2, following, 0);
            } else {
                load_fragments((kk + 1) % 2, stage, kk + 1);
            }
#pragma unroll
            for (int j = 0; j < GN * 4; ++j)
#pragma unroll
                for (int n = 0; n < GM * 4; ++n) {
                    const int i = fma_row<GM * 4>(j, n);
                    acc[i][j] = fma(a[kk % 2][i], b[kk % 2][j], acc[i][j]);
                }
        }
        stage = following;
    }
    cp_async_wait<0>();
}

// C = alpha·acc + beta·C for the block's tile at (m0, n0), with beta == 0 never reading C.
template <typename T, int BM, int BN, int WARPS_M, int WARPS_N, int GM, int GN>
__device__ __forceinline__ void simt_store(const GemmParams<T> &p, int64_t m0, int64_t n0,
                                           const T (&acc)[GM * 4][GN * 4]) {
    constexpr int WM = 32 * GM, WN = 16 * GN;
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int wm0 = (warp % WARPS_M) * WM, wn0 = (warp / WARPS_M) * WN;
    const int lm = (lane % 8) * 4, ln = (lane / 8) * 4;
    const bool read_c = p.beta != T(0);
#pragma unroll
    for (int h = 0; h < GN; ++h) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int64_t j = n0 + wn0 + h * 16 + ln + c;
            if (j >= p.n) continue;
#pragma unroll
            for (int g = 0; g < GM; ++g) {
                const int64_t i = m0 + wm0 + g * 32 + lm;
                T *cp = p.C + i + j * p.ldc;
                if (p.vec_c && i + 4 <= p.m) {
                    T out[4];
                    if (read_c) {
                        T old[4];
                        if constexpr (sizeof(T) == 4) {
                            const float4 x = *reinterpret_cast<const float4 *>(cp);
                            old[0] = x.x, old[1] = x.y, old[2] = x.z, old[3] = x.w;
                        } else {
                            const double2 x = *reinterpret_cast<const double2 *>(cp);
                            const double2 y = *reinterpret_cast<const double2 *>(cp + 2);
                            old[0] = x.x, old[1] = x.y, old[2] = y.x, old[3] = y.y;
                        }
#pragma unroll
                        for (int r = 0; r < 4; ++r)
                            out[r] = p.alpha * acc[g * 4 + r][h * 4 + c] + p.beta * old[r];
                    } else {
#pragma unroll
                        for (int r = 0; r < 4; ++r) out[r] = p.alpha * acc[g * 4 + r][h * 4 + c];
                    }
                    stg4(cp, out);
                } else {
#pragma unroll
                    for (int r = 0; r < 4; ++r) {
                        if (i + r >= p.m) break;
                        const T v = p.alpha * acc[g * 4 + r][h * 4 + c];
                        cp[r] = read_c ? v + p.beta * cp[r] : v;
                    }
                }
            }
        }
    }
}

// simt_store for a C whose columns are not 16-byte aligned (!p.vec_c), through shared memory:
// each thread's four rows would go in four 4-byte stores, each a quarter of every 32-byte
// sector it touches. Instead each warp puts 16 columns of its tile at a time into its own
// slice of `smem` (the pipeline's stages, free once every warp is past the main loop), and
// writes them back with lane l on row l of 32, each store instruction 128 consecutive bytes.
template <typename T, int BM, int BN, int WARPS_M, int WARPS_N, int GM, int GN>
__device__ __forceinline__ void simt_store_staged(const GemmParams<T> &p, int64_t m0, int64_t n0,
                                                  const T (&acc)[GM * 4][GN * 4], T *smem) {
    constexpr int WM = 32 * GM, WN = 16 * GN;
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int wm0 = (warp % WARPS_M) * WM, wn0 = (warp / WARPS_M) * WN;
    const int lm = (lane % 8) * 4, ln = (lane / 8) * 4;
    T *slice = smem + warp * (WM * 16);
    const bool read_c = p.beta != T(0);
    __syncthreads(); // every warp is done reading the stages
#pragma unroll
    for (int h = 0; h < GN; ++h) {
#pragma unroll
        for (int c = 0; c < 4; ++c)
#pragma unroll
            for (int g = 0; g < GM; ++g) {
                T v[4];
#pragma unroll
                for (int r = 0; r < 4; ++r) v[r] = acc[g * 4 + r][h * 4 + c];
                stg4(slice + (ln + c) * WM + g * 32 + lm, v); // 16-byte aligned: WM, lm % 4 == 0
            }
        __syncwarp();
        // C's old values first, all 16·GM loads in flight at once: loads and stores to C
        // interleaved would each wait for the one before (the compiler keeps their order).
        T old[16][GM];
        const int64_t j0 = n0 + wn0 + h * 16;
#pragma unroll
        for (int col = 0; col < 16; ++col)
#pragma unroll
            for (int t = 0; t < GM; ++t) {
                const int64_t i = m0 + wm0 + t * 32 + lane;
                old[col][t] =
                    read_c && i < p.m && j0 + col < p.n ? p.C[i + (j0 + col) * p.ldc] : T(0);
            }
#pragma unroll
        for (int col = 0; col < 16; ++col)
#pragma unroll
            for (int t = 0; t < GM; ++t) {
                const int64_t i = m0 + wm0 + t * 32 + lane;
                if (i >= p.m || j0 + col >= p.n) continue;
                const T v = p.alpha * slice[col * WM + t * 32 + lane];
                p.C[i + (j0 + col) * p.ldc] = read_c ? v + p.beta * old[col][t] : v;
            }
        __syncwarp(); // the slice is read before the next group overwrites it
    }
}

// C = alpha·op(A)·op(B) + beta·C, one BM×BN tile per block (its slice of k under split-K);
// with SK, the stream-K launch: each block its span of the tiles' k steps (GemmParams). STAGED:
// the form for a C whose columns are not 16-byte aligned (simt_store_staged). It is a kernel of
// its own because the staged store's registers, present in the same kernel, cost the main loop
// of the large tiles (256x128 at 4096³) about 8% on aligned products that never run it.
template <typename T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int GM, int GN, int STAGES,
          int MIN_BLOCKS, bool TA, bool TB, bool SK = false, bool STAGED = false>
__global__ void __launch_bounds__(WARPS_M *WARPS_N * 32, MIN_BLOCKS)
    simt_gemm_kernel(const GemmParams<T> whole) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *smem = reinterpret_cast<T *>(smem_raw);
    static_assert(WARPS_M * WARPS_N * 32 * GM * 16 <= STAGES * BK * (BM + BN),
                  "the staged store's slices fit in the pipeline's stages");
    static_assert(!(SK && STAGED), "the stream-K launch keeps the plain store");
    if constexpr (!SK) {
        const GemmParams<T> p = k_slice<T, TA, TB>(whole);
        int64_t tm, tn;
        tile_of_block(blockIdx.x, p.tiles_m, p.tiles_n, tm, tn);
        T acc[GM * 4][GN * 4];
        simt_tile<T, BM, BN, BK, WARPS_M, WARPS_N, GM, GN, STAGES, TA, TB>(p, tm * BM, tn * BN,
                                                                           smem, acc);
        if constexpr (STAGED)
            simt_store_staged<T, BM, BN, WARPS_M, WARPS_N, GM, GN>(p, tm * BM, tn * BN, acc, smem);
        else simt_store<T, BM, BN, WARPS_M, WARPS_N, GM, GN>(p, tm * BM, tn * BN, acc);
    } else {
        const int64_t steps = (whole.k + BK - 1) / BK;
        stream_k_units(whole, steps, int(blockIdx.x), [&](int64_t i) {
            int64_t tm, tn;
            StreamKUnit u = stream_k_unit(whole, steps, int(blockIdx.x), i);
            tile_of_block(whole.sk_first + u.tile, whole.tiles_m, whole.tiles_n, tm, tn);
            T acc[GM * 4][GN * 4];
            simt_tile<T, BM, BN, BK, WARPS_M, WARPS_N, GM, GN, STAGES, TA, TB>(
                k_range<T, TA, TB, BK>(whole, u), tm * BM, tn * BN, smem, acc);
            u = stream_k_unit(whole, (whole.k + BK - 1) / BK, int(blockIdx.x), opaque(i));
            tile_of_block(whole.sk_first + u.tile, whole.tiles_m, whole.tiles_n, tm, tn);
            const bool cut = u.cut();
            simt_store<T, BM, BN, WARPS_M, WARPS_N, GM, GN>(
                cut ? stream_k_slot(whole, u, BM, BN) : whole, cut ? 0 : tm * BM, cut ? 0 : tn * BN,
                acc);
            __syncthreads(); // the next stretch's copies go into stages this one's warps may still
                             // read
        });
    }
}

} // namespace tessera::cuda
