// Launchers of the gemm kernels: tile configuration chosen by shape and device (or forced by
// the environment), dynamic shared memory set up once per kernel, every launch checked.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::cuda {

template <typename T> struct GemmParams;
struct TuningRow;

struct DeviceInfo {
    int ordinal = 0;
    int sm_count = 1;
    int cc_major = 0, cc_minor = 0;
    char name[256] = {};
};

// Which kernels a process runs (gemm.cu reads TESSERA_CUDA_SGEMM, TESSERA_CUDA_DGEMM and
// TESSERA_CUDA_MATH once): `automatic` picks by shape and device (a tuning table, else the
// rules); a named tile runs every shape. An SGEMM SIMT tile is a row of kSgemmTiles
// (gemm_tiles.hpp), kAutoTile for automatic.
inline constexpr int kAutoTile = -1;
// DGEMM: the SIMT kernel, or dmma tiles (128x32, 32x128, 128x64, 64x128: the thin products',
// dgemm_thin).
enum class DgemmKernel { automatic, simt, t128x128, t64x64, t128x32, t32x128, t128x64, t64x128 };
// SGEMM arithmetic: FP32 (the default), or the opt-in TF32 tensor-core paths.
enum class SgemmMath { fp32, tf32, tf32x3 };

// Stream-K for the last tiles of a grid of many (stream_k_plan): automatic, never, or for
// every product its kernel has a stream-K form for (tests): `on` over the last partial wave and
// one full wave before it (spans of at least a tile), `last` over the last partial wave alone
// (spans shorter than a tile).
enum class StreamK { automatic, off, on, last };

// The persistent grid of dmma 128×128 (dgemm_persistent): automatic, never, or for every product
// that runs on that tile without split-K or stream-K (tests).
enum class Persistent { automatic, off, on };

struct KernelChoice {
    int sgemm = kAutoTile; // a row of kSgemmTiles
    DgemmKernel dgemm = DgemmKernel::automatic;
    SgemmMath math = SgemmMath::fp32;
    int split_k = 0;   // TESSERA_CUDA_SPLITK: 0 automatic, 1 never, 2..32 that many slices of k
    bool wgmma = true; // TESSERA_CUDA_WGMMA=off: the TF32 modes on mma.sync even on sm_90
    StreamK stream_k = StreamK::automatic;         // TESSERA_CUDA_STREAMK
    Persistent persistent = Persistent::automatic; // TESSERA_CUDA_PERSISTENT
    // Set where the tuning table chose the fields above for this product (gemm.cu): the
    // training shape nearest to it, for the call log; nullptr where the rules or the
    // environment chose.
    const TuningRow *tuned = nullptr;
};

// Names as the environment spells them ("auto", "128x256", "simt", "tf32x3", ...), matched
// without regard to case; false for an unknown one. *_names: the list, for warnings.
bool parse_sgemm_tile(const char *name, int *out);
bool parse_dgemm_kernel(const char *name, DgemmKernel *out);
bool parse_sgemm_math(const char *name, SgemmMath *out);
bool parse_split_k(const char *name, int *out);           // "auto", "off", or 1..32
bool parse_wgmma(const char *name, bool *out);            // "auto" (true) or "off"
bool parse_stream_k(const char *name, StreamK *out);      // "auto", "off", "on"
bool parse_persistent(const char *name, Persistent *out); // "auto", "off", "on"
const char *sgemm_tile_names();                           // "auto, 128x128, ..." from kSgemmTiles
const char *dgemm_kernel_names();
const char *sgemm_math_names();

// Whether the TF32 modes run on wgmma here: asked for (tf32 or tf32x3, not turned off), built
// for sm_90a, and a device of compute capability 9.0. Such products first pack op(A) and op(B)
// into panels (wgmma_gemm.hpp), and launch_sgemm then multiplies the panels.
bool use_wgmma(const DeviceInfo &dev, const KernelChoice &choice);

// C = alpha·op(A)·op(B) + beta·C with alpha != 0 and k > 0; all three on the device. Under
// use_wgmma, `panels` holds the packed operands (p.A and p.B are not read); else it is unused.
cudaError_t launch_sgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb,
                         GemmParams<float> p, const KernelChoice &choice,
                         const void *panels = nullptr);
cudaError_t launch_dgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb,
                         GemmParams<double> p, const KernelChoice &choice);
// The block tile (bm × bn) of the kernel launch_sgemm / launch_dgemm runs for this shape, and
// how many of its blocks a multiprocessor holds at once.
struct KernelTile {
    int bm, bn, resident;
};
KernelTile kernel_tile(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                       const KernelChoice &choice);
// Whether a DGEMM keeps the rules' kernel whatever a tuning table would pick (gemm.cu): k at
// most kDgemmShortK deep and a 128×128 tile for every multiprocessor, where the rules run dmma
// 128×128. Such products are bound by writing C; the table's neighbours there, measured on
// other shapes and alignments, pick smaller tiles or the SIMT kernel, slower there.
inline constexpr int64_t kDgemmShortK = 128;
bool dgemm_short_k(const DeviceInfo &dev, int64_t m, int64_t n, int64_t k);
// Whether launch_dgemm runs this product (p as it would be launched) on the persistent grid of
// dmma 128×128 (DmmaGrid::persistent): one block per multiprocessor, each taking every
// sm_count-th tile and copying its next tile's operands while its stores drain, C stored
// through shared memory where its columns miss 32-byte sectors and k is short
// (dmma_staged_epilogue). Automatic for the short-k products of dgemm_short_k, which a block
// per tile leaves waiting in turn on the copies and on the stores of C; never under split-K or
// stream-K, nor below sm_90 (the staged form takes 226 KiB of shared memory).
bool dgemm_persistent(const DeviceInfo &dev, const GemmParams<double> &p,
                      const KernelChoice &choice);
// Whether a DGEMM is thin on a device with FP64 tensor cores: m or n at most kDgemmThin32Side,
// or at most kDgemmThinSide with the longer side times k at least kDgemmThin64Work. The rules
// run it on a thin dmma tile along its long side, whatever a tuning table would pick: 128x32
// (n the thin side) or 32x128 (m) where that side is at most kDgemmThin32Side, else 128x64 or
// 64x128. Such a product only streams its long operand (2·side flops per
// element read, far under the tensor cores' balance), and each block's k steps wait on their
// reads: a 64x64 tile brings 8 KiB of the long operand per step (and across a side of 32 or
// less spends half of each step on padding), the thin tiles 16 KiB with eight warps, and
// split-K spreads k over one wave of them (split_k_slices). The table's rows, measured on the
// 64x64 and 128x128 tiles, do not know them.
// Below kDgemmThin64Work a product of a side of 33 to 64 takes some microseconds, and the
// table's picks, measured there, ran as fast as the thin tiles or faster (journal).
inline constexpr int64_t kDgemmThinSide = 64;
inline constexpr int64_t kDgemmThin32Side = 32;
inline constexpr int64_t kDgemmThin64Work = int64_t(1) << 20;
bool dgemm_thin(const DeviceInfo &dev, int64_t m, int64_t n, int64_t k);
// Slices of k for split-K (1: none): automatic when the chosen kernel's tiles fill less than
// half of the blocks the device holds at once and k is deep (512 or more per slice). On the
// thin DGEMM tiles: as many slices as one wave of blocks holds, down to kThinSliceDepth deep
// (each block there is bound by the latency of its reads, not the device by its bandwidth,
// so the more blocks at once the faster).
inline constexpr int64_t kThinSliceDepth = 64;
int split_k_slices(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                   const KernelChoice &choice);
// The depth of each slice when k is split in `slices`: whole 64-deep steps (a whole number of
// every kernel's k steps), so that ceil(k / depth) slices run, at most `slices`.
inline int64_t split_k_depth(int64_t k, int64_t slices) {
    return ((k + slices - 1) / slices + 63) / 64 * 64;
}
// A tuning table's slices of k (choice.split_k > 1) refitted to this product's grid. The
// table's neighbours measured their slices on other tile counts; where the product's blocks
// overrun whole waves of the device's places by a few, the last wave runs nearly empty
// (5526×56×6434 on 256x64 tiles: 22 tiles in 8 slices are 176 blocks for 132 places, two
// waves, where 6 slices take one). For tiles of one block per multiprocessor whose blocks
// fill more than one wave: of the slices between half and twice the table's, the one with
// the fewest waves × slice depth when that is at least kWaveFitGain less than the table's
// (ties: the nearest to the table's); else the table's. Tiles of several blocks per
// multiprocessor keep the table's: there a last partial wave's blocks share their
// multiprocessors with fewer others and run faster, so a wave is no whole step of time, and
// the table's slices, measured, know that better than the count of waves.
inline constexpr double kWaveFitGain = 0.1;
int fit_split_to_waves(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                       const KernelChoice &choice);
// C = alpha·Σ_s W_s + beta·C over `slices` slabs of W (m×n, leading dimension ldw, ldw·n
// elements apart); beta == 0 never reads C.
template <typename T>
cudaError_t launch_split_sum(cudaStream_t stream, int slices, int64_t m, int64_t n, T alpha,
                             const T *W, int64_t ldw, T beta, T *C, int64_t ldc);
// Stream-K: a grid of T tiles on P multiprocessors (one block each) runs in waves of P, the
// last one only T mod P full. Instead, the first dp_tiles tiles go in a launch of their own,
// and the rest (sk_tiles) as one run of k steps cut into sk_blocks equal spans, one block each
// (GemmParams); a tile cut between spans is summed by launch_stream_k_sum. As `auto` and
// `last` plan it, the partial wave alone (spans shorter than a tile, in step along k); as `on`
// does, the last full wave with it (spans of at least a tile). sk_blocks == 0: no stream-K for
// this product (its kernel has no stream-K form, split-K takes it, or the rule says no).
struct StreamKPlan {
    int64_t dp_tiles = 0, sk_tiles = 0, sk_iters = 0;
    int sk_blocks = 0;
    int bm = 0, bn = 0;
};
StreamKPlan stream_k_plan(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                          const KernelChoice &choice);
// After a stream-K launch (p as it was launched, after `plan`): each cut tile's pieces summed in
// block order from p.sk_work, C = alpha·sum + beta·C there. A plan for another tile than the
// stream-K kernel's is refused (cudaErrorInvalidConfiguration).
template <typename T>
cudaError_t launch_stream_k_sum(cudaStream_t stream, GemmParams<T> p, const StreamKPlan &plan);

// C = beta·C (beta == 0: zeros, C not read), for alpha == 0 or k == 0.
template <typename T>
cudaError_t launch_scale(cudaStream_t stream, int64_t m, int64_t n, T beta, T *C, int64_t ldc);

// Which kernel launch_sgemm / launch_dgemm runs for this shape (for the call log, tests):
// "simt-f32-128x256", "tf32x3-f32-128x128", "dmma-f64-64x64", ...
const char *gemm_kernel_name(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, int64_t k,
                             const KernelChoice &choice);

} // namespace tessera::cuda
