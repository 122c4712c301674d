// The TF32 SGEMM paths on Hopper's warpgroup MMA (wgmma.mma_async, sm_90a). Compiled for sm_90a
// only (cuda/CMakeLists.txt); elsewhere the kernels are empty and never launched.
//
// Two steps. A pack kernel writes op(A) and op(B) as TF32 panels: rows of 32 k-contiguous values
// (128 bytes), zero beyond the matrix, one 128×32 (A) or BN×32 (B) tile after another along k,
// each row's 16-byte chunks XOR-swizzled (chunk c of row r at c ^ (r mod 8)) so that one bulk
// copy puts a tile in shared memory exactly as wgmma's 128-byte swizzle reads it. For 3xTF32 it
// also writes the low parts, lo = tf32(x − tf32(x)). Then the product kernel: one warpgroup
// copying tiles (cp.async.bulk, completing on mbarriers) and two multiplying, each a 64×BN half
// of the block's 128×BN tile of C. 3xTF32 is a TF32 product with k three times as deep (lo_a·hi_b,
// then hi_a·lo_b, then hi_a·hi_b). The tensor cores' own sums lose low bits as they go (over a
// long k, to several times FP32's error), so 3xTF32 sums each 32-deep tile from zero
// and adds it to FP32 accumulators of its own: 64 accumulators and 64 partial sums per thread
// fit where 128 of each would not, hence its 128×128 tile against plain TF32's 128×256.
#include "wgmma_gemm.hpp"

#include "smem_opt_in.cuh"
#include "tf32_gemm.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSERA_WGMMA_DEVICE 1
#else
#define TESSERA_WGMMA_DEVICE 0
#endif

namespace tessera::cuda {

namespace {

constexpr int BM = kWgmmaBM, BK = kWgmmaBK, THREADS = 384;
constexpr int A_TILE = BM * BK; // floats per tile of A

// Plain TF32: 128×256 tiles of C, a stage holding one 32-deep tile of A and of B, four stages.
// 3xTF32: 128×128, a stage holding the high and the low parts of both, three stages. 192 KiB of
// shared memory either way.
template <int TERMS> struct Config {
    static constexpr int BN = TERMS == 3 ? 128 : 256;
    static constexpr int STAGES = TERMS == 3 ? 3 : 4;
    static constexpr int PARTS = TERMS == 3 ? 2 : 1;
    static constexpr int B_TILE = BN * BK;
    // In a stage: A's high part, A's low part, B's high part, B's low part (the parts it has).
    static constexpr int STAGE_BYTES = PARTS * (A_TILE + B_TILE) * 4;
    // The stages, 1024 bytes of slack to align them to the swizzle's 1024-byte pattern, and the
    // full and empty barrier of each stage.
    static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024 + 2 * STAGES * 8;
};

struct Panels {
    const float *a_hi, *a_lo, *b_hi, *b_lo;
    int64_t ktiles; // tiles of 32 along k
};

struct Layout {
    int64_t tiles_m, tiles_n, ktiles;
    size_t a_floats, b_floats; // of each part
};

Layout layout_of(int64_t m, int64_t n, int64_t k, int terms) {
    const int bn = wgmma_bn(terms);
    Layout l;
    l.tiles_m = (m + BM - 1) / BM, l.tiles_n = (n + bn - 1) / bn, l.ktiles = (k + BK - 1) / BK;
    l.a_floats = size_t(l.tiles_m) * size_t(l.ktiles) * A_TILE;
    l.b_floats = size_t(l.tiles_n) * size_t(l.ktiles) * size_t(bn) * BK;
    return l;
}

// Panels of op(X) (rows × k): element (r, l) at src[l + r·ld] when the stored matrix runs along k
// (kcontig), else at src[r + l·ld]. One block per RB×32 tile: read coalesced into shared memory,
// written out in panel order (contiguous, swizzled) with the split into high and low parts.
template <int RB>
__global__ void __launch_bounds__(256)
    pack_kernel(const float *src, int64_t ld, bool kcontig, int64_t rows, int64_t k, int64_t ktiles,
                float *hi, float *lo) {
    __shared__ float s[RB][BK + 1];
    const int64_t rt = blockIdx.y, kt = blockIdx.x;
    const int64_t r0 = rt * RB, l0 = kt * BK;
    for (int e = int(threadIdx.x); e < RB * BK; e += 256) {
        const int r = kcontig ? e / BK : e % RB, l = kcontig ? e % BK : e / RB;
        const int64_t gr = r0 + r, gl = l0 + l;
        float v = 0.0f;
        if (gr < rows && gl < k) v = kcontig ? src[gl + gr * ld] : src[gr + gl * ld];
        s[r][l] = v;
    }
    __syncthreads();
    const int64_t base = (rt * ktiles + kt) * int64_t(RB * BK);
    for (int o = int(threadIdx.x); o < RB * BK; o += 256) {
        const int r = o / BK, at = o % BK;
        const float x = s[r][((at / 4) ^ (r & 7)) * 4 + at % 4];
        const uint32_t h = tf32_of(x);
        hi[base + o] = __uint_as_float(h);
        if (lo) lo[base + o] = __uint_as_float(tf32_of(x - __uint_as_float(h)));
    }
}

#if TESSERA_WGMMA_DEVICE
// wgmma's shared-memory matrix descriptor: start address, leading offset (unused by k-major
// swizzled tiles: 16 bytes), 1024 bytes between groups of eight rows, 128-byte swizzle.
__device__ __forceinline__ uint64_t descriptor(uint32_t addr) {
    return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t(16 >> 4) << 16) |
           (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ void mbar_init(uint32_t bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, int bytes) {
    asm volatile(
        "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::
            "r"(bar),
        "r"(bytes)
        : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar)
                 : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n.reg .pred done;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
// `bytes` from global memory to shared memory, counted against the barrier's transactions.
__device__ __forceinline__ void bulk_copy(uint32_t dst, const void *src, int bytes, uint32_t bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];\n" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

// d (64×N per warpgroup: row 16·warp + lane/4 (+8), columns 8j + 2·(lane%4) (+1) in d[j][0..3])
// = a (64×8, descriptor) · b (8×N, stored N×8 k-major, descriptor) (+ d when ACCUMULATE).
template <bool ACCUMULATE>
__device__ __forceinline__ void wgmma_n256(float (&d)[32][4], uint64_t desc_a, uint64_t desc_b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
                 "%110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "
                 "%125, %126, %127"
                 "}, %128, %129, p, 1, 1;\n}\n"
                 : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]),
                   "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]),
                   "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]),
                   "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]),
                   "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), "+f"(d[6][0]),
                   "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]),
                   "+f"(d[7][2]), "+f"(d[7][3]), "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]),
                   "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
                   "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]),
                   "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]), "+f"(d[12][0]), "+f"(d[12][1]),
                   "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]),
                   "+f"(d[13][3]), "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]),
                   "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3]), "+f"(d[16][0]),
                   "+f"(d[16][1]), "+f"(d[16][2]), "+f"(d[16][3]), "+f"(d[17][0]), "+f"(d[17][1]),
                   "+f"(d[17][2]), "+f"(d[17][3]), "+f"(d[18][0]), "+f"(d[18][1]), "+f"(d[18][2]),
                   "+f"(d[18][3]), "+f"(d[19][0]), "+f"(d[19][1]), "+f"(d[19][2]), "+f"(d[19][3]),
                   "+f"(d[20][0]), "+f"(d[20][1]), "+f"(d[20][2]), "+f"(d[20][3]), "+f"(d[21][0]),
                   "+f"(d[21][1]), "+f"(d[21][2]), "+f"(d[21][3]), "+f"(d[22][0]), "+f"(d[22][1]),
                   "+f"(d[22][2]), "+f"(d[22][3]), "+f"(d[23][0]), "+f"(d[23][1]), "+f"(d[23][2]),
                   "+f"(d[23][3]), "+f"(d[24][0]), "+f"(d[24][1]), "+f"(d[24][2]), "+f"(d[24][3]),
                   "+f"(d[25][0]), "+f"(d[25][1]), "+f"(d[25][2]), "+f"(d[25][3]), "+f"(d[26][0]),
                   "+f"(d[26][1]), "+f"(d[26][2]), "+f"(d[26][3]), "+f"(d[27][0]), "+f"(d[27][1]),
                   "+f"(d[27][2]), "+f"(d[27][3]), "+f"(d[28][0]), "+f"(d[28][1]), "+f"(d[28][2]),
                   "+f"(d[28][3]), "+f"(d[29][0]), "+f"(d[29][1]), "+f"(d[29][2]), "+f"(d[29][3]),
                   "+f"(d[30][0]), "+f"(d[30][1]), "+f"(d[30][2]), "+f"(d[30][3]), "+f"(d[31][0]),
                   "+f"(d[31][1]), "+f"(d[31][2]), "+f"(d[31][3])
                 : "l"(desc_a), "l"(desc_b), "n"(int(ACCUMULATE)));
}

template <bool ACCUMULATE>
__device__ __forceinline__ void wgmma_n128(float (&d)[16][4], uint64_t desc_a, uint64_t desc_b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p, 1, 1;\n}\n"
                 : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]),
                   "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]),
                   "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]),
                   "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]),
                   "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), "+f"(d[6][0]),
                   "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]),
                   "+f"(d[7][2]), "+f"(d[7][3]), "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]),
                   "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
                   "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]),
                   "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]), "+f"(d[12][0]), "+f"(d[12][1]),
                   "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]),
                   "+f"(d[13][3]), "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]),
                   "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
                 : "l"(desc_a), "l"(desc_b), "n"(int(ACCUMULATE)));
}

// d (+)= one 32-deep tile's product: four k steps of 8 (32 bytes along the descriptors' rows);
// ACCUMULATE false: the first step starts d from zero.
template <bool ACCUMULATE, int NT>
__device__ __forceinline__ void tile_mma(float (&d)[NT][4], uint64_t da, uint64_t db) {
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) {
        if constexpr (NT == 32) {
            if (kk == 0 && !ACCUMULATE) wgmma_n256<false>(d, da, db);
            else wgmma_n256<true>(d, da + 2 * kk, db + 2 * kk);
        } else {
            if (kk == 0 && !ACCUMULATE) wgmma_n128<false>(d, da, db);
            else wgmma_n128<true>(d, da + 2 * kk, db + 2 * kk);
        }
    }
}

// Keeps the compiler from moving reads or writes of the accumulators across the asynchronous
// MMAs (which own them between wgmma.fence and wgmma.wait_group).
template <int NT> __device__ __forceinline__ void fence_operands(float (&d)[NT][4]) {
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int q = 0; q < 4; ++q) asm volatile("" : "+f"(d[j][q])::"memory");
}
#endif

template <int TERMS>
__global__ void __launch_bounds__(THREADS, 1)
    wgmma_tf32_kernel(const GemmParams<float> p, const Panels panels) {
#if TESSERA_WGMMA_DEVICE
    using K = Config<TERMS>;
    constexpr int BN = K::BN, STAGES = K::STAGES, B_TILE = K::B_TILE, STAGE_BYTES = K::STAGE_BYTES,
                  NT = BN / 8;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t base = (smem_addr(smem_raw) + 1023u) & ~1023u;
    const uint32_t bars = base + STAGES * STAGE_BYTES;
    // Part h (0 high, 1 low) of stage s's tile of A, of B.
    auto a_part = [&](int s, int h) { return base + uint32_t(s * STAGE_BYTES + h * A_TILE * 4); };
    auto b_part = [&](int s, int h) {
        return base + uint32_t(s * STAGE_BYTES + K::PARTS * A_TILE * 4 + h * B_TILE * 4);
    };
    auto full = [&](int s) { return bars + uint32_t(8 * s); };
    auto empty = [&](int s) { return bars + uint32_t(8 * (STAGES + s)); };
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) mbar_init(full(s), 1), mbar_init(empty(s), 256);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();

    int64_t tm, tn;
    tile_of_block(blockIdx.x, p.tiles_m, p.tiles_n, tm, tn);
    const int64_t KT = panels.ktiles;
    int64_t kt0 = 0, kt1 = KT;
    float *C = p.C;
    if (p.splits > 1) { // this block's slice of k, into its slab
        kt0 = int64_t(blockIdx.y) * (p.k_split / BK);
        kt1 = kt0 + p.k_split / BK < KT ? kt0 + p.k_split / BK : KT;
        C += int64_t(blockIdx.y) * p.ldc * p.n;
    }
    const int64_t span = kt1 - kt0;
    const int wg = int(threadIdx.x) / 128;

    if (wg == 0) { // the copying warpgroup: one thread issues every stage's bulk copies
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            const float *ah = panels.a_hi + tm * KT * A_TILE, *bh = panels.b_hi + tn * KT * B_TILE;
            const float *al = panels.a_lo + tm * KT * A_TILE, *bl = panels.b_lo + tn * KT * B_TILE;
            for (int64_t t = 0; t < span; ++t) {
                const int s = int(t % STAGES);
                if (t >= STAGES) mbar_wait(empty(s), uint32_t((t / STAGES - 1) & 1));
                const int64_t kt = kt0 + t;
                mbar_expect_tx(full(s), STAGE_BYTES);
                bulk_copy(a_part(s, 0), ah + kt * A_TILE, A_TILE * 4, full(s));
                bulk_copy(b_part(s, 0), bh + kt * B_TILE, B_TILE * 4, full(s));
                if constexpr (K::PARTS == 2) {
                    bulk_copy(a_part(s, 1), al + kt * A_TILE, A_TILE * 4, full(s));
                    bulk_copy(b_part(s, 1), bl + kt * B_TILE, B_TILE * 4, full(s));
                }
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int half = wg - 1; // rows 64·half .. 64·half + 63 of the block's tile
    const uint32_t a_half = uint32_t(half * 64 * 128);
    float acc[1][NT][4];
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[0][j][q] = 0.0f;
    fence_operands(acc[0]);
    if constexpr (TERMS == 1) {
        // One chain of sums in the tensor cores; the tile before is released once the MMAs
        // of this one are issued and those of that one are done.
        for (int64_t t = 0; t < span; ++t) {
            const int s = int(t % STAGES);
            mbar_wait(full(s), uint32_t((t / STAGES) & 1));
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
            tile_mma<true>(acc[0], descriptor(a_part(s, 0) + a_half), descriptor(b_part(s, 0)));
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            if (t > 0) mbar_arrive(empty(int((t - 1) % STAGES)));
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    } else {
        // Each k tile's lo_a·hi_b + hi_a·lo_b + hi_a·hi_b from zero in a partial sum, which is
        // then added to acc in FP32 (round to nearest). While one warpgroup adds, the other's
        // MMAs keep the tensor cores busy. (Two partial sums in turn, to overlap the two within
        // a warpgroup, made ptxas serialize the MMAs: C7514.)
        float part[NT][4];
        for (int64_t t = 0; t < span; ++t) {
            const int s = int(t % STAGES);
            mbar_wait(full(s), uint32_t((t / STAGES) & 1));
            const uint64_t a_hi = descriptor(a_part(s, 0) + a_half),
                           a_lo = descriptor(a_part(s, 1) + a_half);
            const uint64_t b_hi = descriptor(b_part(s, 0)), b_lo = descriptor(b_part(s, 1));
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
            tile_mma<false>(part, a_lo, b_hi);
            tile_mma<true>(part, a_hi, b_lo);
            tile_mma<true>(part, a_hi, b_hi);
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
            fence_operands(part);
            mbar_arrive(empty(s));
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q) acc[0][j][q] += part[j][q];
        }
    }
    fence_operands(acc[0]);
    GemmParams<float> q = p;
    q.C = C;
    const int warp = (int(threadIdx.x) % 128) / 32, lane = int(threadIdx.x) % 32;
    store_fragments(q, acc, tm * BM + half * 64 + warp * 16, tn * BN, lane / 4, lane % 4);
#else
    (void)p, (void)panels;
#endif
}

template <int TERMS> cudaError_t set_smem() {
    return opt_in_shared_memory<wgmma_tf32_kernel<TERMS>>(Config<TERMS>::SMEM_BYTES);
}

} // namespace

bool wgmma_built() {
#if defined(TESSERA_WGMMA_BUILT)
    return true;
#else
    return false;
#endif
}

int wgmma_bn(int terms) { return terms == 3 ? Config<3>::BN : Config<1>::BN; }

bool wgmma_fits(int64_t m, int64_t n, int64_t k, int terms) {
    const Layout l = layout_of(m, n, k, terms);
    return l.tiles_m <= 65535 && l.tiles_n <= 65535 && l.ktiles <= 0x7fffffff &&
           l.tiles_m * l.tiles_n <= 0x7fffffff;
}

size_t wgmma_panel_bytes(int64_t m, int64_t n, int64_t k, int terms) {
    const Layout l = layout_of(m, n, k, terms);
    return (l.a_floats + l.b_floats) * sizeof(float) * (terms == 3 ? 2 : 1);
}

cudaError_t launch_wgmma_pack(cudaStream_t stream, bool ta, bool tb, const GemmParams<float> &p,
                              int terms, void *panels) {
    const Layout l = layout_of(p.m, p.n, p.k, terms);
    if (!wgmma_fits(p.m, p.n, p.k, terms)) return cudaErrorInvalidConfiguration;
    float *a_hi = static_cast<float *>(panels), *b_hi = a_hi + l.a_floats;
    float *a_lo = terms == 3 ? b_hi + l.b_floats : nullptr,
          *b_lo = terms == 3 ? a_lo + l.a_floats : nullptr;
    // op(A)(i, l) is A[l + i·lda] when transposed (runs along k); op(B)(l, j) is B[l + j·ldb]
    // when not transposed (B's panels hold op(B)ᵀ, n × k).
    pack_kernel<BM><<<dim3(unsigned(l.ktiles), unsigned(l.tiles_m)), 256, 0, stream>>>(
        p.A, p.lda, ta, p.m, p.k, l.ktiles, a_hi, a_lo);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    const dim3 grid_b(unsigned(l.ktiles), unsigned(l.tiles_n));
    if (terms == 3)
        pack_kernel<Config<3>::BN>
            <<<grid_b, 256, 0, stream>>>(p.B, p.ldb, !tb, p.n, p.k, l.ktiles, b_hi, b_lo);
    else
        pack_kernel<Config<1>::BN>
            <<<grid_b, 256, 0, stream>>>(p.B, p.ldb, !tb, p.n, p.k, l.ktiles, b_hi, b_lo);
    return cudaGetLastError();
}

cudaError_t launch_wgmma_tf32(cudaStream_t stream, const GemmParams<float> &p, int terms,
                              const void *panels) {
    const Layout l = layout_of(p.m, p.n, p.k, terms);
    const float *a_hi = static_cast<const float *>(panels), *b_hi = a_hi + l.a_floats;
    const float *a_lo = terms == 3 ? b_hi + l.b_floats : nullptr,
                *b_lo = terms == 3 ? a_lo + l.a_floats : nullptr;
    const Panels pn{a_hi, a_lo, b_hi, b_lo, l.ktiles};
    GemmParams<float> q = p;
    q.tiles_m = l.tiles_m, q.tiles_n = l.tiles_n;
    const int64_t blocks = l.tiles_m * l.tiles_n;
    if (blocks > 0x7fffffff || q.splits > 65535) return cudaErrorInvalidConfiguration;
    const dim3 grid(unsigned(blocks), unsigned(q.splits > 1 ? q.splits : 1));
    if (terms == 3) {
        if (cudaError_t e = set_smem<3>(); e != cudaSuccess) return e;
        wgmma_tf32_kernel<3><<<grid, THREADS, Config<3>::SMEM_BYTES, stream>>>(q, pn);
    } else {
        if (cudaError_t e = set_smem<1>(); e != cudaSuccess) return e;
        wgmma_tf32_kernel<1><<<grid, THREADS, Config<1>::SMEM_BYTES, stream>>>(q, pn);
    }
    return cudaGetLastError();
}

} // namespace tessera::cuda
