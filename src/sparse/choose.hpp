// The automatic format choice: from the structure statistics, which format (and kernel
// variant) a product should use on a given kind of backend, and a one-line reason.
// The rules are those written in docs/formats.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sparse/storage.hpp"

namespace tessera::sparse {

// What the rules are for: the CPU (cpu_simd: with wide SIMD gathers, AVX-512) or a GPU.
enum class Target { cpu, cpu_simd, gpu };

// The thresholds of the rules (CPU measurements behind each are in docs/formats.md).
inline constexpr int64_t kDiaMaxDiagonals = 64;   // above: never DIA
inline constexpr double kDiaMargin = 1.0;         // DIA when its bytes x margin <= CSR's
inline constexpr double kShortRowsMaxMean = 16;   // ELL or HYB only for rows this short on average
inline constexpr double kEllMinFill = 0.5;        // ELL when its 16-row blocks are this full
inline constexpr int64_t kEllSmallSlots = 8192;   // ELL this small (in L1) needs no fill test
inline constexpr double kHybMaxTail = 0.3;        // HYB when at most this share is in the COO tail,
inline constexpr double kHybMaxFewRowsTail = 0.5; // or this share when few rows hold it:
inline constexpr double kHybFewTailRows = 0.01;   // at most this share of the rows
inline constexpr double kHybMinFill = 0.65;       // and its ELL part's blocks are this full
inline constexpr double kVectorRowsMinMean = 24;  // CSR rows this long use SIMD gathers
// CSR runs on tiles when x is larger than a core's L2 (2^17 entries), most entries are more
// than a tile from the diagonal, and the tiles are not nearly empty.
inline constexpr int64_t kTilesMinCols = int64_t(1) << 17;
inline constexpr double kTilesMinFar = 0.5;
inline constexpr int64_t kTilesMinEntriesPerTile = 64;

// What the CPU and GPU rules both weigh: the bytes CSR and DIA stream for A per product, the
// share of entries in HYB's COO tail and how full its ELL part's blocks are.
struct FormatMeasures {
    double csr_bytes, dia_bytes, hyb_tail, hyb_fill;
};
FormatMeasures format_measures(const Structure &s, size_t value_bytes, size_t index_bytes);

// DIA pays on either target: within the padding limit, at most kDiaMaxDiagonals diagonals, and
// no more bytes than CSR.
bool dia_pays(const Structure &s, const FormatMeasures &m);

// The format AUTO picks for a matrix with structure `s`, values of `value_bytes` and indices
// of `index_bytes` bytes.
Plan choose_format(const Structure &s, Target target, size_t value_bytes, size_t index_bytes);

// The kernel variant of a format, from the row statistics and, once analysed, the structure.
Kernel choose_kernel(tsr_format format, const RowStats &row, const Structure *s, Target target);

// Whether CSR's tiles kernel pays for this structure (scattered columns, well-filled tiles).
bool tiles_pay(const Structure &s);

} // namespace tessera::sparse
