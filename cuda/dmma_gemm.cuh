// The DGEMM kernel on the FP64 tensor cores (mma.sync m8n8k4, sm_80 and later): the same
// cp.async pipeline as the SIMT kernel, each warp a grid of 8×8 accumulator tiles.
#pragma once

#include "tile_load.cuh"

namespace tessera::cuda {

// acc (8×8, two per lane) += a (8×4, one per lane) · b (4×8, one per lane).
__device__ __forceinline__ void dmma_8x8x4(double (&acc)[2], double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(acc[0]), "+d"(acc[1])
                 : "d"(a), "d"(b));
#else
    (void)acc, (void)a, (void)b;
    __trap(); // never launched: the host picks the SIMT kernel below sm_80
#endif
}

// A lane holds row lane/4 and column lane%4 of an 8×4 A fragment, row lane%4 and column lane/4
// of a 4×8 B fragment, and row lane/4, columns 2·(lane%4)+{0,1} of the 8×8 accumulator. The
// shared rows are padded to a length ≡ 4 (mod 16) doubles, so the four k rows a fragment
// read touches fall in distinct banks.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, bool TA, bool TB>
__global__ void __launch_bounds__(WARPS_M *WARPS_N * 32)
    dmma_gemm_kernel(const GemmParams<double> p) {
    using T = double;
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
    constexpr int MT = WM / 8, NT = WN / 8;
    constexpr int LDA = BM + 4, LDB = BN + 4;
    static_assert(LDA % 16 == 4 && LDB % 16 == 4, "padding keeps fragment reads conflict-free");
    constexpr int STAGE = BK * (LDA + LDB);

    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *smem = reinterpret_cast<T *>(smem_raw);

    int64_t tm, tn;
    tile_of_block(blockIdx.x, p.tiles_m, p.tiles_n, tm, tn);
    const int64_t m0 = tm * BM, n0 = tn * BN;
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int wm0 = (warp % WARPS_M) * WM, wn0 = (warp / WARPS_M) * WN;
    const int fr = lane / 4, fk = lane % 4;

    auto load_stage = [&](int stage, int64_t k0) {
        T *As = smem + stage * STAGE;
        T *Bs = As + BK * LDA;
        load_tile<T, BM, BK, LDA, THREADS, !TA>(As, p.A, p.lda, m0, k0, p.m, p.k, p.vec_a);
        load_tile<T, BN, BK, LDB, THREADS, TB>(Bs, p.B, p.ldb, n0, k0, p.n, p.k, p.vec_b);
    };

    double acc[MT][NT][2];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;

    const int64_t ktiles = (p.k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_stage(s, int64_t(s) * BK);
        cp_async_commit();
    }
    for (int64_t t = 0; t < ktiles; ++t) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int64_t next = t + STAGES - 1;
        if (next < ktiles) load_stage(int(next % STAGES), next * BK);
        cp_async_commit();

        const T *As = smem + int(t % STAGES) * STAGE;
        const T *Bs = As + BK * LDA;
#pragma unroll
        for (int k4 = 0; k4 < BK; k4 += 4) {
            double a[MT], b[NT];
#pragma unroll
            for (int i = 0; i < MT; ++i) a[i] = As[(k4 + fk) * LDA + wm0 + i * 8 + fr];
#pragma unroll
            for (int j = 0; j < NT; ++j) b[j] = Bs[(k4 + fk) * LDB + wn0 + j * 8 + fr];
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) dmma_8x8x4(acc[i][j], a[i], b[j]);
        }
    }
    cp_async_wait<0>();

    const bool read_c = p.beta != 0.0;
#pragma unroll
    for (int i = 0; i < MT; ++i) {
        const int64_t row = m0 + wm0 + i * 8 + fr;
        if (row >= p.m) continue;
#pragma unroll
        for (int j = 0; j < NT; ++j) {
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int64_t col = n0 + wn0 + j * 8 + fk * 2 + c;
                if (col >= p.n) continue;
                T *cp = p.C + row + col * p.ldc;
                const T v = p.alpha * acc[i][j][c];
                *cp = read_c ? v + p.beta * *cp : v;
            }
        }
    }
}

} // namespace tessera::cuda
