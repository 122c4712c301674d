// The CPU's AUTO rules: DIA where it streams fewer bytes than CSR, CSR on tiles where x is
// gathered from afar, ELL or HYB for short rows where SIMD gathers run across rows, CSR
// otherwise; the thresholds come from the CPU measurements listed in docs/formats.md.
#include "cpu/spmv_rules.hpp"

#include <cstdio>

#include "core/backend.hpp"

namespace tessera::cpu {

using sparse::FormatMeasures;
using sparse::Plan;
using sparse::RowStats;
using sparse::Structure;

const char *kernel_name(tsr_format format, SpmvKernel kernel) {
    if (format != TSR_FORMAT_CSR) return "standard";
    switch (kernel) {
    case SpmvKernel::simd_rows: return "simd-rows";
    case SpmvKernel::tiles: return "tiles";
    default: return "scalar-rows";
    }
}

SpmvKernel csr_kernel(const RowStats &row, const Structure *s) {
    if (s && tiles_pay(*s)) return SpmvKernel::tiles;
    return row.mean >= kVectorRowsMinMean ? SpmvKernel::simd_rows : SpmvKernel::scalar_rows;
}

bool tiles_pay(const Structure &s) {
    return s.row.cols >= kTilesMinCols && s.far_fraction() >= kTilesMinFar &&
           s.row.nnz >= kTilesMinEntriesPerTile * s.tiles;
}

Plan plan_format(const Structure &s, bool wide_simd, tsr_format requested, size_t value_bytes,
                 size_t index_bytes) {
    Plan plan;
    plan.by = core::kPlanByCpu;
    char why[240];
    const RowStats &r = s.row;
    const FormatMeasures m = sparse::format_measures(s, value_bytes, index_bytes);
    const double hyb_tail = m.hyb_tail, hyb_fill = m.hyb_fill;

    auto decide = [&](tsr_format format, const char *fmt, auto... args) {
        plan.format = format;
        const SpmvKernel k = format == TSR_FORMAT_CSR ? csr_kernel(r, &s) : SpmvKernel::scalar_rows;
        plan.kernel = uint8_t(k);
        plan.tiled = k == SpmvKernel::tiles;
        std::snprintf(why, sizeof why, fmt, args...);
        plan.reason = why;
        return plan;
    };

    if (requested != TSR_FORMAT_AUTO) return decide(requested, "requested");

    if (r.nnz == 0 || r.rows == 0) return decide(TSR_FORMAT_CSR, "no entries");

    if (sparse::dia_pays(s, m))
        return decide(TSR_FORMAT_DIA,
                      "%lld diagonals filled %.0f%%: DIA streams %.2fx the bytes of CSR",
                      (long long)s.ndiag, 100.0 * s.dia_fill(), m.dia_bytes / m.csr_bytes);

    if (tiles_pay(s))
        return decide(
            TSR_FORMAT_CSR,
            "columns scattered (%.0f%% of entries beyond a tile from the diagonal, x of %lld): "
            "CSR on %lld tiles",
            100.0 * s.far_fraction(), (long long)r.cols, (long long)s.tiles);

    if (wide_simd && r.mean <= kShortRowsMaxMean) {
        const bool ell_allowed = sparse::ell_allowed(s);
        if (ell_allowed && s.ell_slots <= kEllSmallSlots)
            return decide(
                TSR_FORMAT_ELL,
                "short rows (mean %.1f, max %lld), small: ELL of %lld slots stays in L1, one pass "
                "(HYB's COO tail would be a second)",
                r.mean, (long long)r.max_len, (long long)s.ell_slots);
        if (ell_allowed && s.ell_fill() >= kEllMinFill)
            return decide(
                TSR_FORMAT_ELL,
                "short rows (mean %.1f, max %lld): ELL blocks filled %.0f%%, SIMD across rows",
                r.mean, (long long)r.max_len, 100.0 * s.ell_fill());
        const bool few_tail_rows = double(s.hyb_tail_rows) <= kHybFewTailRows * double(r.rows);
        if ((hyb_tail <= kHybMaxTail || (few_tail_rows && hyb_tail <= kHybMaxFewRowsTail)) &&
            hyb_fill >= kHybMinFill)
            return decide(
                TSR_FORMAT_HYB,
                "short rows (mean %.1f) but long ones too (max %lld): HYB of width %lld filled "
                "%.0f%%, %.0f%% of entries in its COO tail",
                r.mean, (long long)r.max_len, (long long)s.hyb_width, 100.0 * hyb_fill,
                100.0 * hyb_tail);
    }

    return decide(TSR_FORMAT_CSR,
                  "rows mean %.1f, max %lld, spread %.2f; %lld diagonals filled %.0f%%", r.mean,
                  (long long)r.max_len, r.spread(), (long long)s.ndiag, 100.0 * s.dia_fill());
}

} // namespace tessera::cpu
