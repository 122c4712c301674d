// The AUTO rules for a GPU: DIA where it streams fewer bytes than CSR, CSR on column-sorted
// row tiles for short rows scattered over a wide x, ELL for short rows of
// nearly equal length, HYB when a few long rows spoil that, CSR otherwise with its kernel
// (a thread per row, lanes per row, or the merge path) chosen from the rows' shape.
#include <cstdio>

#include "sparse/choose.hpp"
#include "sparse/choose_gpu.hpp"
#include "sparse/convert.hpp"

namespace tessera::sparse {

namespace {

const char *csr_kernel_words(Kernel k) {
    switch (k) {
    case Kernel::gpu_rows: return "a thread per row";
    case Kernel::gpu_lanes2: return "2 lanes per row";
    case Kernel::gpu_lanes4: return "4 lanes per row";
    case Kernel::gpu_lanes8: return "8 lanes per row";
    case Kernel::gpu_lanes16: return "16 lanes per row";
    case Kernel::gpu_lanes32: return "a warp per row";
    case Kernel::gpu_tiles: return "column-sorted row tiles";
    default: return "merge path over rows + nonzeros";
    }
}

} // namespace

Plan choose_format_gpu(const Structure &s, size_t value_bytes, size_t index_bytes) {
    Plan plan;
    char why[240];
    const RowStats &r = s.row;
    const FormatMeasures m = format_measures(s, value_bytes, index_bytes);
    const double hyb_tail = m.hyb_tail, hyb_fill = m.hyb_fill;

    auto decide = [&](tsr_format format, const char *fmt, auto... args) {
        plan.format = format;
        plan.kernel = format == TSR_FORMAT_CSR ? gpu_csr_kernel(r, &s) : Kernel::standard;
        std::snprintf(why, sizeof why, fmt, args...);
        plan.reason = why;
        return plan;
    };

    if (r.nnz == 0 || r.rows == 0) return decide(TSR_FORMAT_CSR, "no entries");

    if (r.nnz <= kGpuSmallNnz) {
        const Kernel k = gpu_csr_kernel(r, &s);
        return decide(TSR_FORMAT_CSR, "small (%lld entries, rows mean %.1f, max %lld): CSR, %s (launches decide: HYB takes three)",
                      (long long)r.nnz, r.mean, (long long)r.max_len, csr_kernel_words(k));
    }

    if (dia_pays(s, m))
        return decide(TSR_FORMAT_DIA,
                      "%lld diagonals filled %.0f%%: DIA streams %.2fx the bytes of CSR, x read contiguously",
                      (long long)s.ndiag, 100.0 * s.dia_fill(), m.dia_bytes / m.csr_bytes);

    if (gpu_tiles_auto(s, value_bytes)) {
        decide(TSR_FORMAT_CSR,
               "short rows (mean %.1f, max %lld) scattered over %lld columns (%.0f%% of entries far from "
               "the diagonal): CSR, column-sorted row tiles",
               r.mean, (long long)r.max_len, (long long)r.cols, 100.0 * s.far_fraction());
        plan.kernel = Kernel::gpu_tiles;
        return plan;
    }

    if (r.mean <= kGpuEllMaxMean) {
        const bool ell_allowed = padding_fault("ELL", s.ell_slots, r.nnz, "").empty();
        if (ell_allowed && s.ell_fill() >= kGpuEllMinFill)
            return decide(TSR_FORMAT_ELL,
                          "rows of nearly equal length (mean %.1f, max %lld): ELL blocks filled %.0f%%, "
                          "a thread per row reading slot by slot, coalesced",
                          r.mean, (long long)r.max_len, 100.0 * s.ell_fill());
        if (hyb_tail <= kGpuHybMaxTail && hyb_fill >= kGpuHybMinFill)
            return decide(TSR_FORMAT_HYB,
                          "rows of nearly equal length (mean %.1f) but a few long ones (max %lld): HYB of "
                          "width %lld filled %.0f%%, %.0f%% of entries in its COO tail",
                          r.mean, (long long)r.max_len, (long long)s.hyb_width, 100.0 * hyb_fill,
                          100.0 * hyb_tail);
    }

    const Kernel k = gpu_csr_kernel(r, &s);
    return decide(TSR_FORMAT_CSR,
                  "rows mean %.1f, max %lld, spread %.2f, %.0f%% of entries far from the diagonal: CSR, %s",
                  r.mean, (long long)r.max_len, r.spread(), 100.0 * s.far_fraction(), csr_kernel_words(k));
}

} // namespace tessera::sparse
