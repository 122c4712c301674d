// The opt-in SGEMM kernels on the TF32 tensor cores (mma.sync m16n8k8, sm_80 and later): plain
// TF32, and 3xTF32, which splits each float into a high and a low TF32 part for FP32 accuracy.
#pragma once

#include <cstdint>

#include "tile_load.cuh"

namespace tessera::cuda {

// x rounded to TF32 (10 fraction bits, FP32's exponent range), to nearest with ties away from
// zero; the low 13 bits of the result are zero, so it is also the float it stands for.
__device__ __forceinline__ uint32_t tf32_of(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
#else
    return __float_as_uint(x); // never launched: the plugin needs sm_80
#endif
}

// d (16×8, four per lane) += a (16×8, four per lane) · b (8×8, two per lane), products exact,
// sums in FP32 inside the tensor core. ZERO: d = a·b, whatever d held.
template <bool ZERO = false>
__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4],
                                         const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (ZERO) {
        const float z = 0.0f;
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, "
                     "{%8, %9}, {%10, %10, %10, %10};\n"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(z));
    } else {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
#else
    (void)d, (void)a, (void)b;
    __trap(); // never launched: the plugin needs sm_80
#endif
}

// C = alpha·op(A)·op(B) + beta·C (column-major, any m, n, k) for one BM×BN tile per block, on
// the same cp.async pipeline as the SIMT kernel. A warp computes a WM×WN tile as MT×NT
// accumulator fragments of 16×8; per 8-deep k step it reads its A and B fragments from shared
// memory and rounds them to TF32 (cvt.rna).
//   TERMS == 1: acc += tf32(a)·tf32(b)                     (TF32: 2^-11 unit roundoff inputs)
//   TERMS == 3: hi = tf32(x), lo = tf32(x − hi) (x − hi is exact), and per k tile
//               part = Σ lo_a·hi_b + hi_a·lo_b + hi_a·hi_b (small terms first, from zero),
//               acc += part in FP32 with round-to-nearest; lo_a·lo_b (≤ 2^-22·|ab|) is dropped.
// The tensor core's own additions truncate; starting each k tile's sum from zero keeps what
// they lose relative to one tile's partial sum, not the whole dot product's.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int TERMS, int MIN_BLOCKS,
          bool TA, bool TB>
__global__ void __launch_bounds__(WARPS_M *WARPS_N * 32, MIN_BLOCKS)
    tf32_gemm_kernel(const GemmParams<float> whole) {
    const GemmParams<float> p = k_slice<float, TA, TB>(whole);
    static_assert(TERMS == 1 || TERMS == 3, "plain TF32 or 3xTF32");
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
    constexpr int MT = WM / 16, NT = WN / 8;
    static_assert(MT * 16 * WARPS_M == BM && NT * 8 * WARPS_N == BN && BK % 8 == 0,
                  "fragments tile the block");
    using TileA = FragTile<float, BM, BK, TA>;  // op(A) is m×k; stored transposed it runs along k
    using TileB = FragTile<float, BN, BK, !TB>; // op(B) is k×n; stored untransposed it runs along k
    constexpr int STAGE = TileA::SIZE + TileB::SIZE;

    extern __shared__ __align__(16) unsigned char smem_raw[];
    float *smem = reinterpret_cast<float *>(smem_raw);

    int64_t tm, tn;
    tile_of_block(blockIdx.x, p.tiles_m, p.tiles_n, tm, tn);
    const int64_t m0 = tm * BM, n0 = tn * BN;
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int wm0 = (warp % WARPS_M) * WM, wn0 = (warp / WARPS_M) * WN;
    const int g = lane / 4, t = lane % 4;

    // Blocks wholly inside the matrix copy full k tiles with precomputed addresses.
    typename TileA::template Copier<THREADS> copy_a(p.A, p.lda, m0, 0);
    typename TileB::template Copier<THREADS> copy_b(p.B, p.ldb, n0, 0);
    const bool inside = m0 + BM <= p.m && n0 + BN <= p.n;
    auto load_stage = [&](int stage, int64_t k0) {
        float *As = smem + stage * STAGE;
        float *Bs = As + TileA::SIZE;
        copy_stage(inside && k0 + BK <= p.k, copy_a, copy_b, As, Bs, p, [&] {
            TileA::template load<THREADS>(As, p.A, p.lda, m0, k0, p.m, p.k, p.vec_a);
            TileB::template load<THREADS>(Bs, p.B, p.ldb, n0, k0, p.n, p.k, p.vec_b);
        });
    };

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.0f;

    const int64_t ktiles = (p.k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_stage(s, int64_t(s) * BK);
        cp_async_commit();
    }

    for (int64_t kt = 0; kt < ktiles; ++kt) {
        cp_async_wait<STAGES - 2>();
        __syncthreads(); // tile kt has landed; everyone is done with the stage refilled below
        const int64_t next = kt + STAGES - 1;
        if (next < ktiles) load_stage(int(next % STAGES), next * BK);
        cp_async_commit();

        const float *As = smem + int(kt % STAGES) * STAGE;
        const float *Bs = As + TileA::SIZE;
        [[maybe_unused]] float part[TERMS == 3 ? MT : 1][TERMS == 3 ? NT : 1][4];
#pragma unroll
        for (int ks = 0; ks < BK; ks += 8) {
            uint32_t ah[MT][4], bh[NT][2];
            [[maybe_unused]] uint32_t al[TERMS == 3 ? MT : 1][4], bl[TERMS == 3 ? NT : 1][2];
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                const int r = wm0 + i * 16 + g;
                const float x[4] = {TileA::at(As, r, ks + t), TileA::at(As, r + 8, ks + t),
                                    TileA::at(As, r, ks + t + 4), TileA::at(As, r + 8, ks + t + 4)};
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    ah[i][q] = tf32_of(x[q]);
                    if constexpr (TERMS == 3) al[i][q] = tf32_of(x[q] - __uint_as_float(ah[i][q]));
                }
            }
#pragma unroll
            for (int j = 0; j < NT; ++j) {
                const int c = wn0 + j * 8 + g;
                const float y[2] = {TileB::at(Bs, c, ks + t), TileB::at(Bs, c, ks + t + 4)};
#pragma unroll
                for (int q = 0; q < 2; ++q) {
                    bh[j][q] = tf32_of(y[q]);
                    if constexpr (TERMS == 3) bl[j][q] = tf32_of(y[q] - __uint_as_float(bh[j][q]));
                }
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    if constexpr (TERMS == 1) {
                        mma_tf32(acc[i][j], ah[i], bh[j]);
                    } else {
                        if (ks == 0) mma_tf32<true>(part[i][j], al[i], bh[j]);
                        else mma_tf32(part[i][j], al[i], bh[j]);
                        mma_tf32(part[i][j], ah[i], bl[j]);
                        mma_tf32(part[i][j], ah[i], bh[j]);
                    }
                }
        }
        if constexpr (TERMS == 3) {
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j)
#pragma unroll
                    for (int q = 0; q < 4; ++q) acc[i][j][q] += part[i][j][q];
        }
    }
    cp_async_wait<0>();

    store_fragments(p, acc, m0 + wm0, n0 + wn0, g, t);
}

} // namespace tessera::cuda
