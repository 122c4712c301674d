// The CUDA backend's format rules (spmv_rules.cpp) and its CSR kernel variants, chosen from
// the row statistics. The rules are those written in docs/formats.md, "GPU rules".
#pragma once

#include <cstddef>
#include <cstdint>

#include "sparse/measures.hpp"
#include "sparse/storage.hpp"

namespace tessera::cuda {

using sparse::RowStats;
using sparse::Structure;

// CSR on a GPU: a thread per row; 2 to 32 lanes of a warp per row; the merge path over rows +
// nonzeros, equal work for every thread whatever the rows; or column-sorted row tiles with
// shared-memory partial sums (spmv_tiles.hpp). sparse::Plan::kernel in a plan the GPU rules made.
enum class CsrKernel : uint8_t { rows = 0, lanes2, lanes4, lanes8, lanes16, lanes32, merge, tiles };

// CSR kernels: a thread per row below this mean (a warp then reads 32 short rows in a few
// contiguous lines); else L lanes of a warp per row, L about half the mean (a lane takes two
// entries per step, two gathers in flight), 2 to 32. The merge path instead where a row needs
// more than kGpuMaxSteps steps of its warp (it would hold the warp while the rest of the
// matrix is done), where row lengths spread widely, or where columns scatter (the merge path
// keeps the most gathers of x in flight).
inline constexpr double kGpuRowsMaxMean = 6;
inline constexpr int64_t kGpuMaxSteps = 32;
inline constexpr double kGpuLanesMaxSpread = 1.0; // standard deviation / mean of the row lengths
inline constexpr double kGpuMergeMinFar = 0.5;    // share of entries beyond a tile of the diagonal
// A product of up to kGpuLaunchBoundNnz entries takes a few microseconds, most of it the launch:
// there a warp per row (one launch, nothing to join) replaces the merge path for long or
// skewed rows wherever none is longer than kGpuLaunchBoundMaxRow (16 steps of the warp). On the
// shared matrices on an H100 (docs/journal/2026-11-cuda-spmv.md) it ran rows of up to 484 entries
// in 4.4-6.0 µs against the merge path's 6.7-9.3 µs; rows of 829-1463 entries took longer in
// double.
inline constexpr int64_t kGpuLaunchBoundNnz = int64_t(1) << 18;
inline constexpr int64_t kGpuLaunchBoundMaxRow = 512;
// Format rules: ELL for short rows of nearly equal length, HYB when a few long rows would
// make ELL padding, both only where slots hold entries almost always (warps read per slot).
// Up to this many entries a product takes a few microseconds, most of it launching kernels:
// AUTO takes CSR (one launch, two on the merge path), where HYB (ELL, then the COO tail and
// its fix-up) takes three: on such matrices the launches decide, not how well a format streams
// (docs/journal/2026-11-cuda-spmv.md).
inline constexpr int64_t kGpuSmallNnz = int64_t(1) << 15;
inline constexpr double kGpuEllMaxMean = 32;
inline constexpr double kGpuEllMinFill = 0.85;
inline constexpr double kGpuHybMaxTail = 0.10;
inline constexpr double kGpuHybMinFill = 0.85;

// gpu_tiles (column-sorted row tiles, cuda/spmv_tiles.hpp) for rows of at most
// kGpuTilesMaxMean entries on average, columns scattered (half the entries far from the
// diagonal) over at least kGpuTilesMinCols columns (an x beyond what one warp's neighbouring
// gathers would share anyway). kGpuTilesAuto = false keeps this general rule off: AUTO takes
// tiles only through gpu_tiles_auto below, where it was measured to pay
// (TESSERA_CUDA_CSR_KERNEL=tiles forces it anywhere, for measurements).
inline constexpr bool kGpuTilesAuto = false;
inline constexpr int64_t kGpuTilesMinCols = int64_t(1) << 18;
inline constexpr double kGpuTilesMaxMean = 32;

// AUTO's own rule for gpu_tiles (plan_format): only without rows longer than
// kGpuTilesAutoMaxRow (no long tiles), in either type. On short rows whose columns scatter,
// the tiles' column order lets neighbouring gathers of x share L2 sectors, which no other
// kernel does. Long rows go to long tiles, whose sums are shared-memory atomics: on the
// corpus's R-MAT graphs (rows of thousands of entries) those made float products 4.7-10x
// slower than the merge path, and doubles' compare-and-swap loops cost more than the shared
// sectors save (docs/journal/2026-11-cuda-spmv.md).
inline constexpr int64_t kGpuTilesAutoMaxRow = 128;
inline bool gpu_tiles_auto(const Structure &s) {
    const RowStats &r = s.row;
    return r.max_len <= kGpuTilesAutoMaxRow && r.cols >= kGpuTilesMinCols &&
           r.mean <= kGpuTilesMaxMean && s.far_fraction() >= kGpuMergeMinFar;
}

// Lanes per row of a gpu_lanes kernel (1 for gpu_rows, 0 for the others).
inline int gpu_lanes(CsrKernel k) {
    switch (k) {
    case CsrKernel::rows: return 1;
    case CsrKernel::lanes2: return 2;
    case CsrKernel::lanes4: return 4;
    case CsrKernel::lanes8: return 8;
    case CsrKernel::lanes16: return 16;
    case CsrKernel::lanes32: return 32;
    default: return 0;
    }
}

// The CSR kernel for rows `r` (and the structure `s` once analysed, else nullptr); gpu_tiles
// only where `allow_tiles`.
inline CsrKernel gpu_csr_kernel(const RowStats &r, const Structure *s,
                                bool allow_tiles = kGpuTilesAuto) {
    if (r.nnz == 0 || r.rows == 0) return CsrKernel::rows;
    if (allow_tiles && s && r.cols >= kGpuTilesMinCols && r.mean <= kGpuTilesMaxMean &&
        s->far_fraction() >= kGpuMergeMinFar)
        return CsrKernel::tiles;
    CsrKernel k = r.mean < kGpuRowsMaxMean ? CsrKernel::rows
                  : r.mean < 8             ? CsrKernel::lanes2
                  : r.mean < 16            ? CsrKernel::lanes4
                  : r.mean < 32            ? CsrKernel::lanes8
                  : r.mean < 64            ? CsrKernel::lanes16
                                           : CsrKernel::lanes32;
    const int64_t per_step = 2 * int64_t(gpu_lanes(k));
    const bool long_rows = r.max_len > kGpuMaxSteps * per_step;
    const bool skewed = r.spread() > kGpuLanesMaxSpread;
    const bool scattered = s && s->far_fraction() >= kGpuMergeMinFar && r.mean >= kGpuRowsMaxMean;
    if ((long_rows || skewed) && r.nnz <= kGpuLaunchBoundNnz && r.max_len <= kGpuLaunchBoundMaxRow)
        return CsrKernel::lanes32;
    return long_rows || skewed || scattered ? CsrKernel::merge : k;
}

// The plan for `requested` (TSR_FORMAT_AUTO: the rules choose the format; else only the kernel).
sparse::Plan plan_format(const Structure &s, tsr_format requested, size_t value_bytes,
                         size_t index_bytes);

// The log's name of a GPU kernel variant of `format`.
const char *kernel_name(tsr_format format, CsrKernel kernel);

} // namespace tessera::cuda
