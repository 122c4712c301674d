// The kernel instantiations (tile variants for each precision and math mode, every transpose)
// and the choice among them: large tiles once the product has a tile for every multiprocessor.
#include "kernels.hpp"

#include <strings.h>

#include <cstdlib>

#include "dmma_gemm.cuh"
#include "simt_gemm.cuh"
#include "smem_opt_in.cuh"
#include "tf32_gemm.cuh"
#include "wgmma_gemm.hpp"

namespace tessera::cuda {

namespace {

// Launches `kernel` on ceil(m/BM)·ceil(n/BN) blocks with `smem` bytes of dynamic shared memory.
template <typename T, auto kernel>
cudaError_t launch(int bm, int bn, int threads, int smem, cudaStream_t stream, GemmParams<T> p) {
    if (cudaError_t attr = opt_in_shared_memory<kernel>(smem); attr != cudaSuccess) return attr;
    p.tiles_m = (p.m + bm - 1) / bm;
    p.tiles_n = (p.n + bn - 1) / bn;
    // Every tile, the first p.blocks of them, or the stream-K launch's p.sk_blocks spans.
    const int64_t blocks = p.sk_blocks > 0 ? p.sk_blocks
                           : p.blocks > 0  ? p.blocks
                                           : p.tiles_m * p.tiles_n;
    if (blocks > 0x7fffffff || p.splits > 65535) return cudaErrorInvalidConfiguration;
    kernel<<<dim3(unsigned(blocks), unsigned(p.splits > 1 ? p.splits : 1)), threads, smem,
             stream>>>(p);
    return cudaGetLastError();
}

// Launches Ops<TA, TB>::kernel (with Ops<TA, TB>::smem bytes of shared memory) for the
// transposes asked: every kernel family below is instantiated for all four.
template <typename T, template <bool, bool> class Ops>
cudaError_t launch_ops(int bm, int bn, int threads, cudaStream_t stream, bool ta, bool tb,
                       const GemmParams<T> &p) {
    if (!ta && !tb)
        return launch<T, Ops<false, false>::kernel>(bm, bn, threads, Ops<false, false>::smem,
                                                    stream, p);
    if (!ta && tb)
        return launch<T, Ops<false, true>::kernel>(bm, bn, threads, Ops<false, true>::smem, stream,
                                                   p);
    if (ta && !tb)
        return launch<T, Ops<true, false>::kernel>(bm, bn, threads, Ops<true, false>::smem, stream,
                                                   p);
    return launch<T, Ops<true, true>::kernel>(bm, bn, threads, Ops<true, true>::smem, stream, p);
}

// SK: the stream-K instantiations (p.sk_blocks > 0), built for the tiles stream_k_tile names.
template <typename T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int GM, int GN, int STAGES,
          int MIN_BLOCKS, bool SK>
struct Simt {
    template <bool TA, bool TB> struct Ops {
        static constexpr auto kernel = simt_gemm_kernel<T, BM, BN, BK, WARPS_M, WARPS_N, GM, GN,
                                                        STAGES, MIN_BLOCKS, TA, TB, SK>;
        static constexpr int smem =
            STAGES * BK * (BM + BN + 2 * (16 / int(sizeof(T)))) * int(sizeof(T));
    };
};

template <typename T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int GM, int GN, int STAGES,
          int MIN_BLOCKS, bool SK = false>
cudaError_t simt(cudaStream_t stream, bool ta, bool tb, const GemmParams<T> &p) {
    using S = Simt<T, BM, BN, BK, WARPS_M, WARPS_N, GM, GN, STAGES, MIN_BLOCKS, SK>;
    return launch_ops<T, S::template Ops>(BM, BN, WARPS_M * WARPS_N * 32, stream, ta, tb, p);
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int KS, bool SK>
struct Dmma {
    template <bool TA, bool TB> struct Ops {
        static constexpr auto kernel =
            dmma_gemm_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS, TA, TB, SK>;
        static constexpr int smem = frag_smem_bytes<double, BM, BN, BK, STAGES, TA, TB>();
    };
};

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int KS, bool SK = false>
cudaError_t dmma(cudaStream_t stream, bool ta, bool tb, const GemmParams<double> &p) {
    using D = Dmma<BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS, SK>;
    return launch_ops<double, D::template Ops>(BM, BN, WARPS_M * WARPS_N * 32, stream, ta, tb, p);
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int TERMS, int MIN_BLOCKS>
struct Tf32 {
    template <bool TA, bool TB> struct Ops {
        static constexpr auto kernel =
            tf32_gemm_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, TERMS, MIN_BLOCKS, TA, TB>;
        static constexpr int smem = frag_smem_bytes<float, BM, BN, BK, STAGES, TA, TB>();
    };
};

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int TERMS, int MIN_BLOCKS>
cudaError_t tf32(cudaStream_t stream, bool ta, bool tb, const GemmParams<float> &p) {
    using F = Tf32<BM, BN, BK, WARPS_M, WARPS_N, STAGES, TERMS, MIN_BLOCKS>;
    return launch_ops<float, F::template Ops>(BM, BN, WARPS_M * WARPS_N * 32, stream, ta, tb, p);
}

bool large_tiles(const DeviceInfo &dev, int64_t m, int64_t n) {
    return ((m + 127) / 128) * ((n + 127) / 128) >= dev.sm_count;
}

template <typename T>
__global__ void scale_kernel(int64_t m, int64_t n, T beta, T *C, int64_t ldc) {
    const int64_t total = m * n;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
         e += int64_t(gridDim.x) * blockDim.x) {
        T *c = C + (e % m) + (e / m) * ldc;
        *c = beta == T(0) ? T(0) : beta * *c;
    }
}

// The names of each enum's values, in its order, as the environment spells them.
const char *const kSgemmTiles[] = {"auto",      "128x128", "128x128r1", "128x256", "256x128",
                                   "128x128w4", "64x64",   "64x256",    "256x64"};
const char *const kDgemmKernels[] = {"auto", "simt", "128x128", "64x64"};
const char *const kSgemmMaths[] = {"fp32", "tf32", "tf32x3"};

// C = alpha·Σ_s W_s + beta·C, one thread per element of C (m fastest: coalesced).
template <typename T>
__global__ void split_sum_kernel(int slices, int64_t m, int64_t n, T alpha, const T *W, int64_t ldw,
                                 T beta, T *C, int64_t ldc) {
    const int64_t total = m * n, slab = ldw * n;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
         e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t i = e % m, j = e / m;
        T sum = T(0);
        for (int s = 0; s < slices; ++s) sum += W[s * slab + i + j * ldw];
        T *c = C + i + j * ldc;
        *c = beta == T(0) ? alpha * sum : alpha * sum + beta * *c;
    }
}

template <typename E, size_t N>
bool parse_name(const char *const (&names)[N], const char *name, E *out) {
    for (size_t i = 0; i < N; ++i)
        if (name && strcasecmp(name, names[i]) == 0) {
            *out = E(i);
            return true;
        }
    return false;
}

// Automatic: 256x128 (8x16 per thread, no spills) once there is a 128x128 tile for every
// multiprocessor, else 64x64, which keeps the multiprocessors busy where large tiles would be
// too few. Below one 128x128 tile per multiprocessor, a 64-row (64-column) panel at least 1024
// long takes 64x256 (256x64) tiles, split-K filling the device: on such panels the 64x64 tile,
// not the split, was the limit, and the tall tiles give each thread twice its register tile
// (docs/journal/2026-11-cuda-gemm.md).
SgemmTile sgemm_tile(const DeviceInfo &dev, int64_t m, int64_t n, SgemmTile tile) {
    if (tile != SgemmTile::automatic) return tile;
    if (large_tiles(dev, m, n)) return SgemmTile::t256x128;
    if (m <= 64 && n >= 1024) return SgemmTile::t64x256;
    if (n <= 64 && m >= 1024) return SgemmTile::t256x64;
    return SgemmTile::t64x64;
}

// Automatic: dmma 128x128 once there is a 128x128 tile for every multiprocessor, else 64x64
// (two blocks per SM; split-K where the tiles are few). Since the fragment tiles are swizzled
// the larger tile is the faster at 4096^3 and 8192^3 and with a short k, where it also writes
// C in half as many blocks (docs/journal/2026-11-cuda-gemm.md).
DgemmKernel dgemm_kernel(const DeviceInfo &dev, int64_t m, int64_t n, DgemmKernel kernel) {
    if (kernel == DgemmKernel::simt || dev.cc_major < 8) return DgemmKernel::simt;
    if (kernel != DgemmKernel::automatic) return kernel;
    return large_tiles(dev, m, n) ? DgemmKernel::t128x128 : DgemmKernel::t64x64;
}

} // namespace

bool parse_sgemm_tile(const char *name, SgemmTile *out) {
    return parse_name(kSgemmTiles, name, out);
}
bool parse_dgemm_kernel(const char *name, DgemmKernel *out) {
    return parse_name(kDgemmKernels, name, out);
}
bool parse_sgemm_math(const char *name, SgemmMath *out) {
    return parse_name(kSgemmMaths, name, out);
}
bool parse_wgmma(const char *name, bool *out) {
    if (strcasecmp(name, "auto") == 0) return *out = true, true;
    if (strcasecmp(name, "off") == 0) return *out = false, true;
    return false;
}
bool use_wgmma(const DeviceInfo &dev, const KernelChoice &choice) {
    return choice.math != SgemmMath::fp32 && choice.wgmma && wgmma_built() && dev.cc_major == 9 &&
           dev.cc_minor == 0;
}
bool parse_stream_k(const char *name, StreamK *out) {
    const char *const names[] = {"auto", "off", "on", "last"};
    return parse_name(names, name, out);
}
bool parse_split_k(const char *name, int *out) {
    if (strcasecmp(name, "auto") == 0) return *out = 0, true;
    if (strcasecmp(name, "off") == 0) return *out = 1, true;
    char *end = nullptr;
    const long v = strtol(name, &end, 10);
    if (end == name || *end != '\0' || v < 1 || v > 16) return false;
    *out = int(v);
    return true;
}

KernelTile kernel_tile(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                       const KernelChoice &choice) {
    // From the registers and shared memory in ptxas's report: two blocks per multiprocessor
    // for the 64×64 tiles and 128x128w4, one for the others.
    KernelTile t{128, 128, 1}; // the tensor-core paths and the large SIMT tiles
    if (elem_size == 4 && use_wgmma(dev, choice)) {
        t = {kWgmmaBM, wgmma_bn(choice.math == SgemmMath::tf32x3 ? 3 : 1), 1};
    } else if (elem_size == 4 && choice.math == SgemmMath::fp32) {
        switch (sgemm_tile(dev, m, n, choice.sgemm)) {
        case SgemmTile::t128x256: t.bn = 256; break;
        case SgemmTile::t256x128: t.bm = 256; break;
        case SgemmTile::t128x128w4: t.resident = 2; break;
        case SgemmTile::t64x64: t = {64, 64, 2}; break;
        case SgemmTile::t64x256: t.bm = 64, t.bn = 256; break;
        case SgemmTile::t256x64: t.bm = 256, t.bn = 64; break;
        default: break;
        }
    } else if (elem_size == 8 && dgemm_kernel(dev, m, n, choice.dgemm) != DgemmKernel::t128x128) {
        t = {64, 64, 2};
    }
    return t;
}

int split_k_slices(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                   const KernelChoice &choice) {
    if (choice.split_k > 0) return choice.split_k;
    const KernelTile t = kernel_tile(dev, elem_size, m, n, k, choice);
    const int bm = t.bm, bn = t.bn, resident = t.resident;
    const int64_t tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
    const int64_t capacity = int64_t(resident) * dev.sm_count;
    // Split only where the tiles fill less than half of the device's places: a grid nearly
    // full already (2048² on 256×128 tiles fills 128 of 132) only pays for the partial sums.
    if (2 * tiles > capacity) return 1;
    // About twice the device's places in blocks, each slice of k at least 512 deep, at most 16.
    int64_t slices = 2 * capacity / tiles;
    if (slices > k / 512) slices = k / 512;
    if (slices > 16) slices = 16;
    return slices < 2 ? 1 : int(slices);
}
// The k step (BK) of the two kernels with a stream-K form, for the plan's spans and for their
// launches alike: a plan counting other steps than its kernel would cut a tile twice.
constexpr int kSimtLargeBK = 8, kDmmaLargeBK = 16;

// Automatic: the last partial wave alone (as `last`) wherever there is one and k is at least
// 512 deep: cut into spans shorter than a tile, the last wave takes its share of a wave's time
// instead of a whole one, while the full waves before it keep their blocks in step along k,
// sharing each k tile in L2 (docs/journal/2026-11-cuda-gemm.md).
// The kernels with a stream-K form: SGEMM 256x128 and DGEMM dmma 128x128, one block per SM.
StreamKPlan stream_k_plan(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                          const KernelChoice &choice) {
    StreamKPlan plan;
    if (choice.stream_k == StreamK::off || k <= 0) return plan;
    if (elem_size == 4) {
        if (use_wgmma(dev, choice) || choice.math != SgemmMath::fp32) return plan;
        if (sgemm_tile(dev, m, n, choice.sgemm) != SgemmTile::t256x128) return plan;
    } else {
        if (dgemm_kernel(dev, m, n, choice.dgemm) != DgemmKernel::t128x128) return plan;
    }
    if (split_k_slices(dev, elem_size, m, n, k, choice) > 1) return plan;
    const KernelTile t = kernel_tile(dev, elem_size, m, n, k, choice); // the tile the launch takes
    plan.bm = t.bm, plan.bn = t.bn;
    const int64_t tiles = ((m + plan.bm - 1) / plan.bm) * ((n + plan.bn - 1) / plan.bn);
    const int64_t P = int64_t(t.resident) * dev.sm_count, waves = tiles / P, rest = tiles % P;
    const int64_t bk = elem_size == 4 ? kSimtLargeBK : kDmmaLargeBK;
    const int64_t steps = (k + bk - 1) / bk;
    if (choice.stream_k == StreamK::automatic && (waves < 1 || rest == 0 || k < 512)) return plan;
    int64_t blocks;
    if (waves >= 1 && choice.stream_k != StreamK::on) {
        if (rest == 0) return plan;
        // The last partial wave alone: P blocks, spans of about rest/P tiles (a tile has pieces
        // of two blocks or more, a block stretches of two tiles at most).
        plan.dp_tiles = waves * P, plan.sk_tiles = rest, blocks = P;
        plan.sk_iters = (rest * steps + blocks - 1) / blocks;
        // Spans in step: the launch walks its tiles G rows to a column (tile_of_block), so with
        // spans of G/q tiles, blocks b and b + q start at the same k step in tiles of one row
        // and read the same k tile of A together, as a wave's blocks do; the spans' other
        // starting points are q, not P. q: the most classes with spans of at least rest/P tiles.
        // Where the last rest tiles lie in more than one group of rows, plain spans.
        const int64_t G = elem_size == 8 ? kDmmaTileGroupRows : kTileGroupRows;
        const int64_t tiles_m = (m + plan.bm - 1) / plan.bm, tiles_n = (n + plan.bn - 1) / plan.bn;
        const int64_t rows = tiles_m - (tiles_m - 1) / G * G; // rows of the last group
        const int64_t q = rows * P / rest;
        if (rest <= rows * tiles_n && q >= 1) {
            plan.sk_iters = (rows * steps + q - 1) / q;
            blocks = (rest * steps + plan.sk_iters - 1) / plan.sk_iters;
        }
        plan.sk_blocks = int(blocks);
        return plan;
    } else if (waves >= 1) {
        plan.dp_tiles = (waves - 1) * P, plan.sk_tiles = P + rest, blocks = P;
    } else { // forced on a product of fewer tiles than multiprocessors: two spans for every three
             // tiles
        plan.dp_tiles = 0, plan.sk_tiles = tiles, blocks = 2 * tiles / 3 > 1 ? 2 * tiles / 3 : 1;
    }
    plan.sk_iters = (plan.sk_tiles * steps + blocks - 1) / blocks;
    plan.sk_blocks = int(blocks);
    return plan;
}

const char *sgemm_tile_names() {
    return "auto, 128x128, 128x128r1, 128x256, 256x128, 128x128w4, 64x64, 64x256, 256x64";
}
const char *dgemm_kernel_names() { return "auto, simt, 128x128, 64x64"; }
const char *sgemm_math_names() { return "fp32, tf32, tf32x3"; }

// SIMT template arguments: T, BM, BN, BK, WARPS_M, WARPS_N, GM, GN (4×4 groups per thread),
// STAGES, MIN_BLOCKS (blocks per multiprocessor the register budget is cut for). The 8×16
// register tiles (128 accumulators) take 8-deep k steps: with 16 the compiler's hoisted
// shared-memory reads and the copies' addresses no longer fit 255 registers. The panel tiles
// 64x256 and 256x64 have 8 warps of 64x32 (8x8 per thread, one block per SM): with 4 warps of
// 64x64 each thread's share of the copies' addresses spilled.
cudaError_t launch_sgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb,
                         GemmParams<float> p, const KernelChoice &choice, const void *panels) {
    if (use_wgmma(dev, choice))
        return launch_wgmma_tf32(stream, p, choice.math == SgemmMath::tf32x3 ? 3 : 1, panels);
    // The tensor-core paths (opt-in): 128×128 tiles, 2×4 warps of 64×32, one block per
    // multiprocessor; TF32 32-deep k steps in 3 stages, 3xTF32 16-deep (its sums restart from
    // zero every k tile) in 4.
    if (choice.math == SgemmMath::tf32) return tf32<128, 128, 32, 2, 4, 3, 1, 1>(stream, ta, tb, p);
    if (choice.math == SgemmMath::tf32x3)
        return tf32<128, 128, 16, 2, 4, 4, 3, 1>(stream, ta, tb, p);
    switch (sgemm_tile(dev, p.m, p.n, choice.sgemm)) {
    case SgemmTile::t128x128r1:
        return simt<float, 128, 128, 16, 2, 4, 2, 2, 4, 1>(stream, ta, tb, p);
    case SgemmTile::t128x256: return simt<float, 128, 256, 8, 2, 4, 2, 4, 5, 1>(stream, ta, tb, p);
    case SgemmTile::t256x128:
        if (p.sk_blocks > 0)
            return simt<float, 256, 128, kSimtLargeBK, 4, 2, 2, 4, 5, 1, true>(stream, ta, tb, p);
        return simt<float, 256, 128, kSimtLargeBK, 4, 2, 2, 4, 5, 1>(stream, ta, tb, p);
    case SgemmTile::t128x128w4:
        return simt<float, 128, 128, 8, 2, 2, 2, 4, 5, 2>(stream, ta, tb, p);
    case SgemmTile::t64x64: return simt<float, 64, 64, 16, 2, 2, 1, 2, 4, 1>(stream, ta, tb, p);
    case SgemmTile::t64x256: return simt<float, 64, 256, 16, 1, 8, 2, 2, 4, 1>(stream, ta, tb, p);
    case SgemmTile::t256x64: return simt<float, 256, 64, 16, 4, 2, 2, 2, 4, 1>(stream, ta, tb, p);
    case SgemmTile::t128x128:
    case SgemmTile::automatic: break;
    }
    return simt<float, 128, 128, 16, 2, 4, 2, 2, 4, 2>(stream, ta, tb, p);
}

// dmma template arguments: BM, BN, BK, WARPS_M, WARPS_N, STAGES, KS (the mma's k: m16n8k4, k8
// or k16 on sm_90, pairs of m8n8k4 on sm_80). 128×128 tiles: 2×4 warps of 64×32 with m16n8k4,
// four 16-deep stages (128 KiB of shared memory, one block per SM); 64×64: 2×2 warps of 32×32
// with m16n8k8, four stages (64 KiB, two blocks per SM).
cudaError_t launch_dgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb,
                         GemmParams<double> p, const KernelChoice &choice) {
    switch (dgemm_kernel(dev, p.m, p.n, choice.dgemm)) {
    case DgemmKernel::simt: return simt<double, 64, 64, 16, 2, 2, 1, 2, 3, 1>(stream, ta, tb, p);
    case DgemmKernel::t64x64: return dmma<64, 64, 16, 2, 2, 4, 8>(stream, ta, tb, p);
    case DgemmKernel::t128x128:
    case DgemmKernel::automatic: break;
    }
    if (p.sk_blocks > 0) return dmma<128, 128, kDmmaLargeBK, 2, 4, 4, 4, true>(stream, ta, tb, p);
    return dmma<128, 128, kDmmaLargeBK, 2, 4, 4, 4>(stream, ta, tb, p);
}

const char *gemm_kernel_name(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                             const KernelChoice &choice) {
    if (elem_size == 4) {
        if (use_wgmma(dev, choice))
            return choice.math == SgemmMath::tf32 ? "tf32-wgmma-128x256" : "tf32x3-wgmma-128x128";
        if (choice.math == SgemmMath::tf32) return "tf32-f32-128x128";
        if (choice.math == SgemmMath::tf32x3) return "tf32x3-f32-128x128";
        switch (sgemm_tile(dev, m, n, choice.sgemm)) {
        case SgemmTile::t128x128r1: return "simt-f32-128x128r1";
        case SgemmTile::t128x256: return "simt-f32-128x256";
        case SgemmTile::t256x128: return "simt-f32-256x128";
        case SgemmTile::t128x128w4: return "simt-f32-128x128w4";
        case SgemmTile::t64x64: return "simt-f32-64x64";
        case SgemmTile::t64x256: return "simt-f32-64x256";
        case SgemmTile::t256x64: return "simt-f32-256x64";
        case SgemmTile::t128x128:
        case SgemmTile::automatic: break;
        }
        return "simt-f32-128x128";
    }
    switch (dgemm_kernel(dev, m, n, choice.dgemm)) {
    case DgemmKernel::simt: return "simt-f64-64x64";
    case DgemmKernel::t64x64: return "dmma-f64-64x64";
    case DgemmKernel::t128x128:
    case DgemmKernel::automatic: break;
    }
    return "dmma-f64-128x128";
}

template <typename T>
cudaError_t launch_scale(cudaStream_t stream, int64_t m, int64_t n, T beta, T *C, int64_t ldc) {
    const int64_t total = m * n;
    const int64_t blocks = total / 256 + 1 < 4096 ? total / 256 + 1 : 4096;
    scale_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(m, n, beta, C, ldc);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_stream_k_sum(cudaStream_t stream, GemmParams<T> p, const StreamKPlan &plan) {
    // The tile, its k step and its walk of the one kernel with a stream-K form per type.
    constexpr int BM = sizeof(T) == 4 ? 256 : 128, BN = 128;
    constexpr int64_t BK = sizeof(T) == 4 ? kSimtLargeBK : kDmmaLargeBK;
    constexpr int64_t GROUP = sizeof(T) == 4 ? kTileGroupRows : kDmmaTileGroupRows;
    if (plan.bm != BM || plan.bn != BN || p.sk_tiles > 0x7fffffff)
        return cudaErrorInvalidConfiguration;
    p.tiles_m = (p.m + BM - 1) / BM, p.tiles_n = (p.n + BN - 1) / BN;
    stream_k_sum_kernel<T, BM, BN, GROUP, 256>
        <<<unsigned(p.sk_tiles), 256, 0, stream>>>(p, (p.k + BK - 1) / BK);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_split_sum(cudaStream_t stream, int slices, int64_t m, int64_t n, T alpha,
                             const T *W, int64_t ldw, T beta, T *C, int64_t ldc) {
    const int64_t total = m * n;
    const int64_t blocks = total / 256 + 1 < 8192 ? total / 256 + 1 : 8192;
    split_sum_kernel<T>
        <<<unsigned(blocks), 256, 0, stream>>>(slices, m, n, alpha, W, ldw, beta, C, ldc);
    return cudaGetLastError();
}

template cudaError_t launch_split_sum<float>(cudaStream_t, int, int64_t, int64_t, float,
                                             const float *, int64_t, float, float *, int64_t);
template cudaError_t launch_split_sum<double>(cudaStream_t, int, int64_t, int64_t, double,
                                              const double *, int64_t, double, double *, int64_t);

template cudaError_t launch_stream_k_sum<float>(cudaStream_t, GemmParams<float>,
                                                const StreamKPlan &);
template cudaError_t launch_stream_k_sum<double>(cudaStream_t, GemmParams<double>,
                                                 const StreamKPlan &);
template cudaError_t launch_scale<float>(cudaStream_t, int64_t, int64_t, float, float *, int64_t);
template cudaError_t launch_scale<double>(cudaStream_t, int64_t, int64_t, double, double *,
                                          int64_t);

} // namespace tessera::cuda
