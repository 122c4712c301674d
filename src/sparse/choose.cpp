// The AUTO rules. Each format's cost is estimated as the bytes a product streams from memory
// (values, indices, row pointers, padding it cannot skip); the rules pick the cheapest with
// margins measured on the CPU backend (docs/formats.md lists the measurements).
#include "sparse/choose.hpp"

#include <cstdio>

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

const char *kernel_name(tsr_format format, Kernel kernel) {
    if (format != TSR_FORMAT_CSR) return "standard";
    return kernel == Kernel::vector_rows ? "simd-rows" : "scalar-rows";
}

Kernel choose_kernel(tsr_format format, const RowStats &row, Target target) {
    if (format != TSR_FORMAT_CSR || target != Target::cpu) return Kernel::standard;
    return row.mean >= kVectorRowsMinMean ? Kernel::vector_rows : Kernel::standard;
}

Plan choose_format(const Structure &s, Target target, size_t value_bytes, size_t index_bytes) {
    Plan plan;
    char why[200];
    const RowStats &r = s.row;
    const double sv = double(value_bytes), si = double(index_bytes);
    // Bytes each format streams for A, per product.
    const double csr_bytes = double(r.nnz) * (sv + si) + double(r.rows + 1) * si;
    const double dia_bytes = double(s.dia_cover) * sv;
    const double ell_bytes = double(s.ell_blocked) * (sv + si) + double(r.rows) * si;

    auto decide = [&](tsr_format format, const char *fmt, auto... args) {
        plan.format = format;
        plan.kernel = choose_kernel(format, r, target);
        std::snprintf(why, sizeof why, fmt, args...);
        plan.reason = why;
        return plan;
    };

    if (r.nnz == 0 || r.rows == 0) return decide(TSR_FORMAT_CSR, "no entries");
    if (r.nnz < kSmallNnz)
        return decide(TSR_FORMAT_CSR, "small: nnz %lld < %lld", (long long)r.nnz, (long long)kSmallNnz);

    const bool dia_allowed = padding_fault("DIA", s.dia_slots, r.nnz, "").empty();
    if (dia_allowed && s.ndiag <= kDiaMaxDiagonals && dia_bytes * kDiaMargin <= csr_bytes)
        return decide(TSR_FORMAT_DIA,
                      "%lld diagonals filled %.0f%%: DIA streams %.2fx the bytes of CSR",
                      (long long)s.ndiag, 100.0 * s.dia_fill(), dia_bytes / csr_bytes);

    const bool ell_allowed = padding_fault("ELL", s.ell_slots, r.nnz, "").empty();
    if (target == Target::cpu && ell_allowed && r.mean <= kEllMaxMean &&
        ell_bytes * kEllMargin <= csr_bytes)
        return decide(TSR_FORMAT_ELL,
                      "short regular rows (mean %.1f, max %lld, spread %.2f): ELL streams %.2fx "
                      "the bytes of CSR",
                      r.mean, (long long)r.max_len, r.spread(), ell_bytes / csr_bytes);

    return decide(TSR_FORMAT_CSR, "rows mean %.1f, max %lld, spread %.2f; %lld diagonals filled %.0f%%",
                  r.mean, (long long)r.max_len, r.spread(), (long long)s.ndiag, 100.0 * s.dia_fill());
}

} // namespace tessera::sparse
