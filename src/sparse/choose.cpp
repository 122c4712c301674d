// The AUTO rules: DIA where it streams fewer bytes than CSR, CSR on tiles where x is gathered
// from afar, ELL or HYB for short rows where SIMD gathers run across rows, CSR otherwise; the
// thresholds come from the CPU measurements listed in docs/formats.md.
#include "sparse/choose.hpp"

#include <cstdio>

#include "sparse/choose_gpu.hpp"
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
    switch (kernel) {
    case Kernel::vector_rows: return "simd-rows";
    case Kernel::tiles: return "tiles";
    case Kernel::gpu_rows: return "gpu-rows";
    case Kernel::gpu_lanes2: return "gpu-lanes-2";
    case Kernel::gpu_lanes4: return "gpu-lanes-4";
    case Kernel::gpu_lanes8: return "gpu-lanes-8";
    case Kernel::gpu_lanes16: return "gpu-lanes-16";
    case Kernel::gpu_lanes32: return "gpu-lanes-32";
    case Kernel::gpu_merge: return "gpu-merge";
    case Kernel::gpu_tiles: return "gpu-tiles";
    default: return "scalar-rows";
    }
}

Kernel choose_kernel(tsr_format format, const RowStats &row, const Structure *s, Target target) {
    if (target == Target::gpu) return format == TSR_FORMAT_CSR ? gpu_csr_kernel(row, s) : Kernel::standard;
    if (format != TSR_FORMAT_CSR) return Kernel::standard;
    if (s && tiles_pay(*s)) return Kernel::tiles;
    return row.mean >= kVectorRowsMinMean ? Kernel::vector_rows : Kernel::standard;
}

bool tiles_pay(const Structure &s) {
    return s.row.cols >= kTilesMinCols && s.far_fraction() >= kTilesMinFar &&
           s.row.nnz >= kTilesMinEntriesPerTile * s.tiles;
}

FormatMeasures format_measures(const Structure &s, size_t value_bytes, size_t index_bytes) {
    const RowStats &r = s.row;
    const double sv = double(value_bytes), si = double(index_bytes);
    return {double(r.nnz) * (sv + si) + double(r.rows + 1) * si, double(s.dia_cover) * sv,
            r.nnz ? double(s.hyb_tail) / double(r.nnz) : 0,
            s.hyb_blocked ? double(r.nnz - s.hyb_tail) / double(s.hyb_blocked) : 0};
}

// DIA's kernels skip zero values, so that its fill never multiplies x (0·NaN would turn a
// finite result into NaN); a stored zero is skipped alike, so AUTO leaves such matrices to a
// format that multiplies every stored entry.
bool dia_pays(const Structure &s, const FormatMeasures &m) {
    return s.stored_zeros == 0 && padding_fault("DIA", s.dia_slots, s.row.nnz, "").empty() && s.ndiag <= kDiaMaxDiagonals &&
           m.dia_bytes * kDiaMargin <= m.csr_bytes;
}

Plan choose_format(const Structure &s, Target target, size_t value_bytes, size_t index_bytes) {
    if (target == Target::gpu) return choose_format_gpu(s, value_bytes, index_bytes); // choose_gpu.cpp
    Plan plan;
    char why[240];
    const RowStats &r = s.row;
    const FormatMeasures m = format_measures(s, value_bytes, index_bytes);
    const double hyb_tail = m.hyb_tail, hyb_fill = m.hyb_fill;

    auto decide = [&](tsr_format format, const char *fmt, auto... args) {
        plan.format = format;
        plan.kernel = choose_kernel(format, r, &s, target);
        std::snprintf(why, sizeof why, fmt, args...);
        plan.reason = why;
        return plan;
    };

    if (r.nnz == 0 || r.rows == 0) return decide(TSR_FORMAT_CSR, "no entries");

    if (dia_pays(s, m))
        return decide(TSR_FORMAT_DIA, "%lld diagonals filled %.0f%%: DIA streams %.2fx the bytes of CSR",
                      (long long)s.ndiag, 100.0 * s.dia_fill(), m.dia_bytes / m.csr_bytes);

    if (target != Target::gpu && tiles_pay(s))
        return decide(TSR_FORMAT_CSR,
                      "columns scattered (%.0f%% of entries beyond a tile from the diagonal, x of %lld): "
                      "CSR on %lld tiles",
                      100.0 * s.far_fraction(), (long long)r.cols, (long long)s.tiles);

    if (target == Target::cpu_simd && r.mean <= kShortRowsMaxMean) {
        const bool ell_allowed = padding_fault("ELL", s.ell_slots, r.nnz, "").empty();
        if (ell_allowed && s.ell_slots <= kEllSmallSlots)
            return decide(TSR_FORMAT_ELL,
                          "short rows (mean %.1f, max %lld), small: ELL of %lld slots stays in L1, one pass "
                          "(HYB's COO tail would be a second)",
                          r.mean, (long long)r.max_len, (long long)s.ell_slots);
        if (ell_allowed && s.ell_fill() >= kEllMinFill)
            return decide(TSR_FORMAT_ELL,
                          "short rows (mean %.1f, max %lld): ELL blocks filled %.0f%%, SIMD across rows",
                          r.mean, (long long)r.max_len, 100.0 * s.ell_fill());
        const bool few_tail_rows = double(s.hyb_tail_rows) <= kHybFewTailRows * double(r.rows);
        if ((hyb_tail <= kHybMaxTail || (few_tail_rows && hyb_tail <= kHybMaxFewRowsTail)) &&
            hyb_fill >= kHybMinFill)
            return decide(TSR_FORMAT_HYB,
                          "short rows (mean %.1f) but long ones too (max %lld): HYB of width %lld filled "
                          "%.0f%%, %.0f%% of entries in its COO tail",
                          r.mean, (long long)r.max_len, (long long)s.hyb_width, 100.0 * hyb_fill,
                          100.0 * hyb_tail);
    }

    return decide(TSR_FORMAT_CSR, "rows mean %.1f, max %lld, spread %.2f; %lld diagonals filled %.0f%%",
                  r.mean, (long long)r.max_len, r.spread(), (long long)s.ndiag, 100.0 * s.dia_fill());
}

} // namespace tessera::sparse
