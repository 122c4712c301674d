// The choice among the gemm kernel families (kernel_families.hpp; the SGEMM SIMT tiles of
// gemm_tiles.hpp): the rules — large tiles once the product has a tile for every
// multiprocessor — split-K and stream-K plans, and the small kernels around them (scaling C,
// summing split-K slabs and stream-K pieces).
#include "kernels.hpp"

#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <array>
#include <string>
#include <utility>

#include "gemm_tiles.hpp"
#include "kernel_families.hpp"
#include "tile_load.cuh"
#include "wgmma_gemm.hpp"

namespace tessera::cuda {

namespace {

// The SGEMM SIMT launcher of each row of kSgemmTiles, by row.
using SimtLaunch = cudaError_t (*)(cudaStream_t, bool, bool, const GemmParams<float> &);
template <int... I> constexpr auto simt_launchers(std::integer_sequence<int, I...>) {
    return std::array<SimtLaunch, sizeof...(I)>{&launch_simt_sgemm_tile<I>...};
}
constexpr auto kSimtLaunch = simt_launchers(std::make_integer_sequence<int, kSgemmTileCount>());
#ifdef TESSERA_SGEMM_TILE_UNITS
static_assert(TESSERA_SGEMM_TILE_UNITS == kSgemmTileCount,
              "cuda/CMakeLists.txt builds one compilation unit per row of kSgemmTiles");
#endif

constexpr int kTile128 = sgemm_tile_index("128x128"), kTile256x128 = sgemm_tile_index("256x128"),
              kTile64 = sgemm_tile_index("64x64"), kTile64x256 = sgemm_tile_index("64x256"),
              kTile256x64 = sgemm_tile_index("256x64"), kTileSK = sgemm_stream_k_tile();
static_assert(kTile128 >= 0 && kTile256x128 >= 0 && kTile64 >= 0 && kTile64x256 >= 0 &&
                  kTile256x64 >= 0,
              "the rules' tiles are rows of kSgemmTiles");

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

// The DGEMM kernels' names, in DgemmKernel's order, as the environment spells them and as the
// call log names them.
const char *const kDgemmKernels[] = {"auto",   "simt",   "128x128", "64x64",
                                     "128x32", "32x128", "128x64",  "64x128"};
const char *const kDgemmKernelLog[] = {"",
                                       "simt-f64-64x64",
                                       "dmma-f64-128x128",
                                       "dmma-f64-64x64",
                                       "dmma-f64-128x32",
                                       "dmma-f64-32x128",
                                       "dmma-f64-128x64",
                                       "dmma-f64-64x128"};
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
int sgemm_tile(const DeviceInfo &dev, int64_t m, int64_t n, int tile) {
    if (tile != kAutoTile) return tile;
    if (large_tiles(dev, m, n)) return kTile256x128;
    if (m <= 64 && n >= 1024) return kTile64x256;
    if (n <= 64 && m >= 1024) return kTile256x64;
    return kTile64;
}

bool thin(int64_t m, int64_t n, int64_t k) {
    const int64_t side = std::min(m, n);
    return side <= kDgemmThin32Side ||
           (side <= kDgemmThinSide && std::max(m, n) * k >= kDgemmThin64Work);
}

// Automatic: a thin product (dgemm_thin) on the thin tile along its long side (128x32 or
// 128x64 where n is the shorter side, 32x128 or 64x128 where m is); else dmma 128x128 once there is
// a 128x128 tile for every multiprocessor, else 64x64 (two blocks per SM; split-K where the tiles
// are few). Since the fragment tiles are swizzled the larger tile is the faster at 4096^3 and
// 8192^3 and with a short k, where it also writes C in half as many blocks
// (docs/journal/2026-11-cuda-gemm.md).
DgemmKernel dgemm_kernel(const DeviceInfo &dev, int64_t m, int64_t n, int64_t k,
                         DgemmKernel kernel) {
    if (kernel == DgemmKernel::simt || dev.cc_major < 8) return DgemmKernel::simt;
    if (kernel != DgemmKernel::automatic) return kernel;
    if (thin(m, n, k)) {
        const bool narrow = std::min(m, n) <= kDgemmThin32Side;
        if (n <= m) return narrow ? DgemmKernel::t128x32 : DgemmKernel::t128x64;
        return narrow ? DgemmKernel::t32x128 : DgemmKernel::t64x128;
    }
    return large_tiles(dev, m, n) ? DgemmKernel::t128x128 : DgemmKernel::t64x64;
}

bool thin_tile(DgemmKernel d) {
    return d == DgemmKernel::t128x32 || d == DgemmKernel::t32x128 || d == DgemmKernel::t128x64 ||
           d == DgemmKernel::t64x128;
}

} // namespace

bool parse_sgemm_tile(const char *name, int *out) {
    if (name && strcasecmp(name, "auto") == 0) return *out = kAutoTile, true;
    for (int i = 0; i < kSgemmTileCount; ++i)
        if (name && strcasecmp(name, kSgemmTiles[i].name) == 0) return *out = i, true;
    return false;
}
bool dgemm_short_k(const DeviceInfo &dev, int64_t m, int64_t n, int64_t k) {
    return k <= kDgemmShortK &&
           dgemm_kernel(dev, m, n, k, DgemmKernel::automatic) == DgemmKernel::t128x128;
}
bool dgemm_thin(const DeviceInfo &dev, int64_t m, int64_t n, int64_t k) {
    return dev.cc_major >= 8 && thin(m, n, k);
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
bool parse_persistent(const char *name, Persistent *out) {
    const char *const names[] = {"auto", "off", "on"};
    return parse_name(names, name, out);
}
bool dgemm_persistent(const DeviceInfo &dev, const GemmParams<double> &p,
                      const KernelChoice &choice) {
    if (choice.persistent == Persistent::off || dev.cc_major < 9 || p.splits > 1 ||
        p.sk_blocks > 0 || p.blocks > 0 ||
        dgemm_kernel(dev, p.m, p.n, p.k, choice.dgemm) != DgemmKernel::t128x128)
        return false;
    return choice.persistent == Persistent::on || dgemm_short_k(dev, p.m, p.n, p.k);
}
bool parse_split_k(const char *name, int *out) {
    if (strcasecmp(name, "auto") == 0) return *out = 0, true;
    if (strcasecmp(name, "off") == 0) return *out = 1, true;
    char *end = nullptr;
    const long v = strtol(name, &end, 10);
    if (end == name || *end != '\0' || v < 1 || v > 32) return false;
    *out = int(v);
    return true;
}

KernelTile kernel_tile(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                       const KernelChoice &choice) {
    KernelTile t{128, 128, 1}; // the tensor-core paths
    if (elem_size == 4 && use_wgmma(dev, choice)) {
        t = {kWgmmaBM, wgmma_bn(choice.math == SgemmMath::tf32x3 ? 3 : 1), 1};
    } else if (elem_size == 4 && choice.math == SgemmMath::fp32) {
        const SimtTile &row = kSgemmTiles[sgemm_tile(dev, m, n, choice.sgemm)];
        t = {row.bm, row.bn, row.resident};
    } else if (elem_size == 8) {
        switch (dgemm_kernel(dev, m, n, k, choice.dgemm)) {
        case DgemmKernel::t128x32: t = {128, 32, 2}; break;
        case DgemmKernel::t32x128: t = {32, 128, 2}; break;
        case DgemmKernel::t128x64: t = {128, 64, 2}; break;
        case DgemmKernel::t64x128: t = {64, 128, 2}; break;
        case DgemmKernel::t128x128:
        case DgemmKernel::automatic: break;
        default: t = {64, 64, 2};
        }
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
    if (elem_size == 8 && thin_tile(dgemm_kernel(dev, m, n, k, choice.dgemm))) {
        // Blocks each bound by their reads' latency: as many as one wave holds, all at once.
        // No more: blocks of a second wave would start late and finish last.
        int64_t slices = capacity / tiles;
        const int64_t deepest = (k + kThinSliceDepth - 1) / kThinSliceDepth;
        if (slices > deepest) slices = deepest;
        return slices < 2 ? 1 : int(slices);
    }
    // Split only where the tiles fill less than half of the device's places: a grid nearly
    // full already (2048² on 256×128 tiles fills 128 of 132) only pays for the partial sums.
    if (2 * tiles > capacity) return 1;
    // About twice the device's places in blocks, each slice of k at least 512 deep, at most 16.
    int64_t slices = 2 * capacity / tiles;
    if (slices > k / 512) slices = k / 512;
    if (slices > 16) slices = 16;
    return slices < 2 ? 1 : int(slices);
}

int fit_split_to_waves(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                       const KernelChoice &choice) {
    const int64_t asked = choice.split_k;
    if (asked < 2) return int(asked);
    const KernelTile t = kernel_tile(dev, elem_size, m, n, k, choice);
    if (t.resident != 1) return int(asked);
    const int64_t tiles = ((m + t.bm - 1) / t.bm) * ((n + t.bn - 1) / t.bn);
    const int64_t places = dev.sm_count;
    // The time of s slices in units of a k step: the waves of blocks times each one's depth.
    auto cost = [&](int64_t s) {
        const int64_t depth = split_k_depth(k, s), slices = (k + depth - 1) / depth;
        return double((tiles * slices + places - 1) / places) * double(depth);
    };
    const int64_t depth = split_k_depth(k, asked);
    if (tiles * ((k + depth - 1) / depth) <= places) return int(asked);
    int64_t best = asked;
    for (int64_t s = (asked + 1) / 2; s <= 2 * asked && s <= k / 64; ++s) {
        const double c = cost(s), b = cost(best);
        if (c < b || (c == b && std::abs(s - asked) < std::abs(best - asked))) best = s;
    }
    return cost(best) <= (1 - kWaveFitGain) * cost(asked) ? int(best) : int(asked);
}

// The k step (BK) of the two kernels with a stream-K form, for the plan's spans and for their
// launches alike: a plan counting other steps than its kernel would cut a tile twice.
constexpr int kSimtLargeBK = kSgemmTiles[kTileSK].bk;

// Automatic: the last partial wave alone (as `last`) wherever there is one and k is at least
// 512 deep: cut into spans shorter than a tile, the last wave takes its share of a wave's time
// instead of a whole one, while the full waves before it keep their blocks in step along k,
// sharing each k tile in L2 (docs/journal/2026-11-cuda-gemm.md).
// The kernels with a stream-K form: SGEMM's row of kSgemmTiles that has one (256x128) and DGEMM
// dmma 128x128, one block per SM.
StreamKPlan stream_k_plan(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                          const KernelChoice &choice) {
    StreamKPlan plan;
    if (choice.stream_k == StreamK::off || k <= 0) return plan;
    if (elem_size == 4) {
        if (use_wgmma(dev, choice) || choice.math != SgemmMath::fp32) return plan;
        if (sgemm_tile(dev, m, n, choice.sgemm) != kTileSK) return plan;
    } else {
        if (dgemm_kernel(dev, m, n, k, choice.dgemm) != DgemmKernel::t128x128) return plan;
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
    static const std::string names = [] {
        std::string s = "auto";
        for (const SimtTile &t : kSgemmTiles) s += std::string(", ") + t.name;
        return s;
    }();
    return names.c_str();
}
const char *dgemm_kernel_names() {
    return "auto, simt, 128x128, 64x64, 128x32, 32x128, 128x64, 64x128";
}
const char *sgemm_math_names() { return "fp32, tf32, tf32x3"; }

cudaError_t launch_sgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb,
                         GemmParams<float> p, const KernelChoice &choice, const void *panels) {
    if (use_wgmma(dev, choice))
        return launch_wgmma_tf32(stream, p, choice.math == SgemmMath::tf32x3 ? 3 : 1, panels);
    if (choice.math != SgemmMath::fp32)
        return launch_tf32_mma(choice.math == SgemmMath::tf32x3 ? 3 : 1, stream, ta, tb, p);
    return kSimtLaunch[size_t(sgemm_tile(dev, p.m, p.n, choice.sgemm))](stream, ta, tb, p);
}

cudaError_t launch_dgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb,
                         GemmParams<double> p, const KernelChoice &choice) {
    switch (dgemm_kernel(dev, p.m, p.n, p.k, choice.dgemm)) {
    case DgemmKernel::simt: return launch_simt_dgemm(stream, ta, tb, p);
    case DgemmKernel::t64x64: return launch_dmma(false, false, stream, ta, tb, p);
    case DgemmKernel::t128x32: return launch_dmma_thin(128, 32, stream, ta, tb, p);
    case DgemmKernel::t32x128: return launch_dmma_thin(32, 128, stream, ta, tb, p);
    case DgemmKernel::t128x64: return launch_dmma_thin(128, 64, stream, ta, tb, p);
    case DgemmKernel::t64x128: return launch_dmma_thin(64, 128, stream, ta, tb, p);
    case DgemmKernel::t128x128:
    case DgemmKernel::automatic: break;
    }
    if (dgemm_persistent(dev, p, choice)) {
        const int64_t tiles = ((p.m + 127) / 128) * ((p.n + 127) / 128);
        p.blocks = std::min<int64_t>(tiles, dev.sm_count);
        return launch_dmma(true, true, stream, ta, tb, p);
    }
    return launch_dmma(true, false, stream, ta, tb, p);
}

const char *gemm_kernel_name(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                             const KernelChoice &choice) {
    (void)k;
    if (elem_size == 4) {
        if (use_wgmma(dev, choice))
            return choice.math == SgemmMath::tf32 ? "tf32-wgmma-128x256" : "tf32x3-wgmma-128x128";
        if (choice.math == SgemmMath::tf32) return "tf32-f32-128x128";
        if (choice.math == SgemmMath::tf32x3) return "tf32x3-f32-128x128";
        return kSgemmTiles[sgemm_tile(dev, m, n, choice.sgemm)].kernel;
    }
    DgemmKernel d = dgemm_kernel(dev, m, n, k, choice.dgemm);
    if (d == DgemmKernel::automatic) d = DgemmKernel::t128x128;
    return kDgemmKernelLog[int(d)];
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
    constexpr int BM = sizeof(T) == 4 ? kSgemmTiles[kTileSK].bm : 128;
    constexpr int BN = sizeof(T) == 4 ? kSgemmTiles[kTileSK].bn : 128;
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
