// tsr_sparse_optimize on the storage: the structure is analysed on first need, the format is
// chosen (AUTO) or checked against the padding limit (ELL, DIA) and, for DIA, against stored
// zeros; then converted from CSR.
#include "sparse/optimize.hpp"

#include <cinttypes>
#include <cstdio>
#include <string>

#include "sparse/convert.hpp"

namespace tessera::sparse {

namespace {

template <typename V, typename I>
Applied apply(Typed<V, I> &t, tsr_format requested, const Planner &planner) {
    if (!t.structure) t.structure = analyze(t.csr, t.rows);
    const Structure &s = *t.structure;

    if (requested != TSR_FORMAT_AUTO) {
        char detail[96];
        Fault refusal;
        if (requested == TSR_FORMAT_ELL) {
            std::snprintf(detail, sizeof detail, "longest row %" PRId64 ", mean %.1f",
                          s.row.max_len, s.row.mean);
            refusal = padding_fault("ELL", s.ell_slots, s.row.nnz, detail);
        } else if (requested == TSR_FORMAT_DIA) {
            std::snprintf(detail, sizeof detail, "%" PRId64 " diagonals", s.ndiag);
            refusal = padding_fault("DIA", s.dia_slots, s.row.nnz, detail);
            // DIA's kernels skip zero values so that its fill never multiplies x; a stored zero
            // would be skipped alike, and 0·NaN would not give NaN as the other formats do.
            if (refusal.empty() && s.stored_zeros > 0)
                refusal =
                    "DIA cannot tell the matrix's " + std::to_string(s.stored_zeros) +
                    " stored zeros from its fill (a zero times an Inf or NaN of x must give NaN); "
                    "use CSR, ELL, HYB or TSR_FORMAT_AUTO";
        }
        if (!refusal.empty()) return {refusal, true};
    }
    Plan plan = planner(s, requested, sizeof(V), sizeof(I));
    if (requested != TSR_FORMAT_AUTO && plan.format != requested)
        return {"the backend's rules changed the requested format", false};

    // Build the new representation first, so a failure (out of memory) leaves the old one.
    Coo<V, I> coo;
    Ell<V, I> ell;
    Dia<V> dia;
    Hyb<V, I> hyb;
    Tiled<V> tiled;
    if (plan.format == TSR_FORMAT_CSR && plan.tiled) tiled = csr_to_tiled(t.csr);
    if (plan.format != TSR_FORMAT_CSR) plan.tiled = false;
    switch (plan.format) {
    case TSR_FORMAT_COO: coo = csr_to_coo(t.csr); break;
    case TSR_FORMAT_ELL: ell = csr_to_ell(t.csr, s.row.max_len); break;
    case TSR_FORMAT_DIA: dia = csr_to_dia(t.csr, s); break;
    case TSR_FORMAT_HYB: hyb = csr_to_hyb(t.csr, s.hyb_width); break;
    case TSR_FORMAT_CSR: break;
    default: return {"the chosen format is not a storage format", false};
    }
    t.coo = std::move(coo);
    t.ell = std::move(ell);
    t.dia = std::move(dia);
    t.hyb = std::move(hyb);
    t.tiled = std::move(tiled);
    t.plan = std::move(plan);
    return {};
}

} // namespace

Applied apply_format(Storage &storage, tsr_format requested, const Planner &planner) {
    return std::visit([&](auto &t) { return apply(t, requested, planner); }, storage.typed);
}

} // namespace tessera::sparse
