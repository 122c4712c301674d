// Asynchronous global-to-shared tile copies (cp.async) with zero fill outside the matrix: the
// operand tiles of every gemm kernel, stored k-major ([k][m or n], padded rows) in shared memory,
// or for the tensor-core kernels' k-contiguous operands also k-contiguous ([m or n][k]).
#pragma once

#include <cstdint>

namespace tessera::cuda {

__device__ __forceinline__ unsigned smem_addr(const void *p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Copies one element (4 or 8 bytes), or writes zero when `valid` is false (src is not read).
template <typename T> __device__ __forceinline__ void cp_async_elem(T *dst, const T *src, bool valid) {
    const int bytes = valid ? int(sizeof(T)) : 0;
    if constexpr (sizeof(T) == 4)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                     "r"(bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                     "r"(bytes));
}

// Copies 16 bytes; both addresses 16-byte aligned.
__device__ __forceinline__ void cp_async_16(void *dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// One operand tile: ROWS entries along m (or n) by BK along k, from the column-major matrix g
// (leading dimension ld) whose op() is MN×K, starting at (mn0, k0). In shared memory it lands
// as s[kk * LDS + r]. CONTIG_MN: the stored matrix runs along m/n (A not transposed, B
// transposed), so four floats (two doubles) go in one 16-byte copy when `vec` says the matrix
// is 16-byte aligned with ld a multiple of the vector; otherwise it runs along k and each
// element is its own copy, consecutive threads walking k for coalesced reads.
template <typename T, int ROWS, int BK, int LDS, int THREADS, bool CONTIG_MN>
__device__ __forceinline__ void load_tile(T *s, const T *g, int64_t ld, int64_t mn0, int64_t k0,
                                          int64_t MN, int64_t K, bool vec) {
    constexpr int VEC = 16 / int(sizeof(T));
    if constexpr (CONTIG_MN) {
        constexpr int PER_ROW = ROWS / VEC;
        constexpr int CHUNKS = PER_ROW * BK;
        static_assert(CHUNKS % THREADS == 0, "tile chunks must divide among the threads");
#pragma unroll
        for (int it = 0; it < CHUNKS / THREADS; ++it) {
            const int c = it * THREADS + int(threadIdx.x);
            const int kk = c / PER_ROW, r = (c % PER_ROW) * VEC;
            const int64_t gm = mn0 + r, gk = k0 + kk;
            T *dst = s + kk * LDS + r;
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

// One operand tile of a k-contiguous matrix (A transposed, B not transposed) kept k-contiguous
// in shared memory: ROWS rows along m (or n) of BK floats, s[r * LDK + kk], so that four
// consecutive k go in one 16-byte copy (when `vec`: g 16-byte aligned, ld a multiple of 4) and
// a warp reads whole 128-byte rows of the global matrix. Edges are zero-filled element by
// element. For the tensor-core kernels, whose fragments read along m and along k alike.
template <int ROWS, int BK, int LDK, int THREADS>
__device__ __forceinline__ void load_tile_k(float *s, const float *g, int64_t ld, int64_t mn0, int64_t k0,
                                            int64_t MN, int64_t K, bool vec) {
    static_assert(BK % 4 == 0 && LDK % 4 == 0, "rows of 16-byte chunks");
    constexpr int PER_ROW = BK / 4;
    constexpr int CHUNKS = ROWS * PER_ROW;
    static_assert(CHUNKS % THREADS == 0, "tile chunks must divide among the threads");
#pragma unroll
    for (int it = 0; it < CHUNKS / THREADS; ++it) {
        const int c = it * THREADS + int(threadIdx.x);
        const int r = c / PER_ROW, kk = (c % PER_ROW) * 4;
        const int64_t gm = mn0 + r, gk = k0 + kk;
        float *dst = s + r * LDK + kk;
        const bool rin = gm < MN;
        if (vec && rin && gk + 4 <= K) {
            cp_async_16(dst, g + gk + gm * ld);
        } else {
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const bool ok = rin && gk + v < K;
                cp_async_elem(dst + v, ok ? g + (gk + v) + gm * ld : g, ok);
            }
        }
    }
}

// Which tile (tm, tn) block `b` of a tiles_m × tiles_n grid computes: groups of eight tile
// rows are walked column by column so that blocks running together share operand panels in L2.
__device__ __forceinline__ void tile_of_block(int64_t b, int64_t tiles_m, int64_t tiles_n, int64_t &tm,
                                              int64_t &tn) {
    constexpr int64_t GROUP = 8;
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
};

} // namespace tessera::cuda
