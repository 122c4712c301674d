// The format measures (measures.hpp).
#include "sparse/measures.hpp"

#include "sparse/convert.hpp"

namespace tessera::sparse {

const char *format_name(tsr_format format) {
    switch (format) {
    case TSR_FORMAT_AUTO: return "auto";
    case TSR_FORMAT_CSR: return "csr";
    case TSR_FORMAT_COO: return "coo";
    case TSR_FORMAT_ELL: return "ell";
    case TSR_FORMAT_DIA: return "dia";
    case TSR_FORMAT_HYB: return "hyb";
    }
    return "unknown";
}

FormatMeasures format_measures(const Structure &s, size_t value_bytes, size_t index_bytes) {
    const RowStats &r = s.row;
    const double sv = double(value_bytes), si = double(index_bytes);
    return {double(r.nnz) * (sv + si) + double(r.rows + 1) * si,
            double(s.dia_cover) * sv,
            r.nnz ? double(s.hyb_tail) / double(r.nnz) : 0,
            s.hyb_blocked ? double(r.nnz - s.hyb_tail) / double(s.hyb_blocked) : 0,
            double(s.ell_blocked) * (sv + si),
            double(s.hyb_blocked) * (sv + si) + double(s.hyb_tail) * (sv + 2 * si)};
}

bool dia_admissible(const Structure &s) {
    return s.stored_zeros == 0 && padding_fault("DIA", s.dia_slots, s.row.nnz, "").empty() &&
           s.ndiag <= kDiaMaxDiagonals;
}

bool dia_pays(const Structure &s, const FormatMeasures &m) {
    return dia_admissible(s) && m.dia_bytes * kDiaMargin <= m.csr_bytes;
}

bool ell_allowed(const Structure &s) {
    return padding_fault("ELL", s.ell_slots, s.row.nnz, "").empty();
}

} // namespace tessera::sparse
