// What every backend's format rules weigh, from the structure: the bytes CSR and DIA stream for
// A per product, HYB's tail and fill, and whether DIA is admissible at all. Facts about the
// formats; the rules that pick among them live with each backend (cpu/spmv_rules.hpp,
// cuda/spmv_rules.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sparse/structure.hpp"
#include "tessera/tessera.h"

namespace tessera::sparse {

inline constexpr int64_t kDiaMaxDiagonals = 64; // above: never DIA
inline constexpr double kDiaMargin = 1.0;       // DIA when its bytes x margin <= CSR's

struct FormatMeasures {
    double csr_bytes, dia_bytes, hyb_tail, hyb_fill;
    // What an ELL product reads (its blocked slots), and a HYB product (its ELL part's blocked
    // slots, then its COO tail of row, column and value).
    double ell_bytes, hyb_bytes;
};
FormatMeasures format_measures(const Structure &s, size_t value_bytes, size_t index_bytes);

// DIA may run: within the padding limit, at most kDiaMaxDiagonals diagonals, no stored zeros
// (DIA's kernels skip zero values, so a stored zero would be skipped alike and 0·NaN lost).
bool dia_admissible(const Structure &s);

// DIA pays on any backend: admissible, and no more bytes than CSR.
bool dia_pays(const Structure &s, const FormatMeasures &m);

// Whether ELL of this structure is within the padding limit.
bool ell_allowed(const Structure &s);

const char *format_name(tsr_format format); // "csr", "coo", "ell", "dia", "hyb", "auto"

} // namespace tessera::sparse
