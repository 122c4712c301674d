// The CPU backend's format rules: from the structure statistics, which format and which of the
// CPU's kernel variants AUTO picks, with a one-line reason. The rules are those written in
// docs/formats.md ("CPU rules").
#pragma once

#include <cstddef>
#include <cstdint>

#include "sparse/measures.hpp"
#include "sparse/storage.hpp"

namespace tessera::cpu {

// The CPU's variants of CSR's kernel (sparse::Plan::kernel in a plan the CPU made); the other
// formats have one kernel each (0).
enum class SpmvKernel : uint8_t {
    scalar_rows = 0, // a row at a time, scalar
    simd_rows = 1,   // long rows with SIMD gathers
    tiles = 2,       // its entries in cache-sized tiles (columns scattered beyond the caches)
};

// The thresholds of the rules (the CPU measurements behind each are in docs/formats.md).
inline constexpr double kShortRowsMaxMean = 16;   // ELL or HYB only for rows this short on average
inline constexpr double kEllMinFill = 0.5;        // ELL when its 16-row blocks are this full
inline constexpr int64_t kEllSmallSlots = 8192;   // ELL this small (in L1) needs no fill test
inline constexpr double kHybMaxTail = 0.15;       // HYB when at most this share is in the COO tail,
inline constexpr double kHybMaxFewRowsTail = 0.5; // or this share when few rows hold it:
inline constexpr double kHybFewTailRows = 0.01;   // at most this share of the rows
inline constexpr double kHybMinFill = 0.65;       // and its ELL part's blocks are this full
inline constexpr double kVectorRowsMinMean = 24;  // CSR rows this long use SIMD gathers
// CSR runs on tiles when x is larger than a core's L2 (2^17 entries), most entries are more
// than a tile from the diagonal, and the tiles are not nearly empty.
inline constexpr int64_t kTilesMinCols = int64_t(1) << 17;
inline constexpr double kTilesMinFar = 0.5;
inline constexpr int64_t kTilesMinEntriesPerTile = 64;

// The plan for `requested` (TSR_FORMAT_AUTO: the rules choose the format; else only the
// kernel), where wide_simd says whether SIMD gathers are fast here (ELL and HYB pay only then).
sparse::Plan plan_format(const sparse::Structure &s, bool wide_simd, tsr_format requested,
                         size_t value_bytes, size_t index_bytes);

// CSR's kernel from the row statistics and, once analysed, the structure (tiles only where
// `s` is given: that kernel needs the tiles built at optimize).
SpmvKernel csr_kernel(const sparse::RowStats &row, const sparse::Structure *s);

// Whether CSR's tiles kernel pays for this structure (scattered columns, well-filled tiles).
bool tiles_pay(const sparse::Structure &s);

// The log's name of a CPU kernel variant of `format`.
const char *kernel_name(tsr_format format, SpmvKernel kernel);

} // namespace tessera::cpu
