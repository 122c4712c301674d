// The automatic format choice: from the structure statistics, which format (and kernel
// variant) a product should use on a given kind of backend, and a one-line reason.
// The rules are those written in docs/formats.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sparse/storage.hpp"

namespace tessera::sparse {

enum class Target { cpu, gpu };

// The thresholds of the rules (CPU measurements behind each are in docs/formats.md).
inline constexpr int64_t kSmallNnz = 2048;        // below: CSR, whatever the structure
inline constexpr int64_t kDiaMaxDiagonals = 64;   // above: never DIA
inline constexpr double kDiaMargin = 1.2;         // DIA when its bytes x margin <= CSR's
inline constexpr double kEllMaxMean = 16;         // ELL only for short rows
inline constexpr double kEllMargin = 1.1;         // ELL when its bytes x margin <= CSR's
inline constexpr double kVectorRowsMinMean = 24;  // CSR rows this long use SIMD gathers

// The format AUTO picks for a matrix with structure `s`, values of `value_bytes` and indices
// of `index_bytes` bytes.
Plan choose_format(const Structure &s, Target target, size_t value_bytes, size_t index_bytes);

// The kernel variant of a format, from the row statistics.
Kernel choose_kernel(tsr_format format, const RowStats &row, Target target);

} // namespace tessera::sparse
