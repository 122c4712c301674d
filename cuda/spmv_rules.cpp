// The AUTO rules for a GPU: DIA where it streams fewer bytes than CSR or than the ELL or HYB
// product it would displace, CSR on column-sorted
// row tiles for short rows scattered over a wide x, ELL for short rows of
// nearly equal length, HYB when a few long rows spoil that, CSR otherwise with its kernel
// (a thread per row, lanes per row, or the merge path) chosen from the rows' shape.
#include <cstdio>

#include "spmv_rules.hpp"

#include "core/backend.hpp"

namespace tessera::cuda {

using sparse::FormatMeasures;
using sparse::Plan;

const char *kernel_name(tsr_format format, CsrKernel kernel) {
    if (format != TSR_FORMAT_CSR) return "standard";
    switch (kernel) {
    case CsrKernel::rows: return "gpu-rows";
    case CsrKernel::lanes2: return "gpu-lanes-2";
    case CsrKernel::lanes4: return "gpu-lanes-4";
    case CsrKernel::lanes8: return "gpu-lanes-8";
    case CsrKernel::lanes16: return "gpu-lanes-16";
    case CsrKernel::lanes32: return "gpu-lanes-32";
    case CsrKernel::merge: return "gpu-merge";
    case CsrKernel::tiles: return "gpu-tiles";
    }
    return "gpu-rows";
}

namespace {

const char *csr_kernel_words(CsrKernel k) {
    switch (k) {
    case CsrKernel::rows: return "a thread per row";
    case CsrKernel::lanes2: return "2 lanes per row";
    case CsrKernel::lanes4: return "4 lanes per row";
    case CsrKernel::lanes8: return "8 lanes per row";
    case CsrKernel::lanes16: return "16 lanes per row";
    case CsrKernel::lanes32: return "a warp per row";
    case CsrKernel::tiles: return "column-sorted row tiles";
    default: return "merge path over rows + nonzeros";
    }
}

} // namespace

Plan plan_format(const Structure &s, tsr_format requested, size_t value_bytes, size_t index_bytes) {
    Plan plan;
    plan.by = core::kPlanByGpu;
    char why[240];
    const RowStats &r = s.row;
    const FormatMeasures m = sparse::format_measures(s, value_bytes, index_bytes);
    const double hyb_tail = m.hyb_tail, hyb_fill = m.hyb_fill;

    auto decide = [&](tsr_format format, const char *fmt, auto... args) {
        plan.format = format;
        plan.kernel = uint8_t(format == TSR_FORMAT_CSR ? gpu_csr_kernel(r, &s) : CsrKernel::rows);
        std::snprintf(why, sizeof why, fmt, args...);
        plan.reason = why;
        return plan;
    };

    if (requested != TSR_FORMAT_AUTO) return decide(requested, "requested");

    if (r.nnz == 0 || r.rows == 0) return decide(TSR_FORMAT_CSR, "no entries");

    if (r.nnz <= kGpuSmallNnz) {
        const CsrKernel k = gpu_csr_kernel(r, &s);
        return decide(TSR_FORMAT_CSR,
                      "small (%lld entries, rows mean %.1f, max %lld): CSR, %s (launches decide: "
                      "HYB takes three)",
                      (long long)r.nnz, r.mean, (long long)r.max_len, csr_kernel_words(k));
    }

    if (sparse::dia_pays(s, m))
        return decide(
            TSR_FORMAT_DIA,
            "%lld diagonals filled %.0f%%: DIA streams %.2fx the bytes of CSR, x read contiguously",
            (long long)s.ndiag, 100.0 * s.dia_fill(), m.dia_bytes / m.csr_bytes);
    if (gpu_tiles_auto(s)) {
        decide(TSR_FORMAT_CSR,
               "short rows (mean %.1f, max %lld) scattered over %lld columns (%.0f%% of entries "
               "far from "
               "the diagonal): CSR, column-sorted row tiles",
               r.mean, (long long)r.max_len, (long long)r.cols, 100.0 * s.far_fraction());
        plan.kernel = uint8_t(CsrKernel::tiles);
        return plan;
    }

    // ELL or HYB as below; DIA displaces either where it streams no more bytes than they do (it
    // reads x contiguously where they gather it).
    const bool ell =
        r.mean <= kGpuEllMaxMean && sparse::ell_allowed(s) && s.ell_fill() >= kGpuEllMinFill;
    const bool hyb = !ell && r.mean <= kGpuEllMaxMean && hyb_tail <= kGpuHybMaxTail &&
                     hyb_fill >= kGpuHybMinFill;
    const double displaced = ell ? m.ell_bytes : m.hyb_bytes;
    if ((ell || hyb) && sparse::dia_admissible(s) && m.dia_bytes <= displaced)
        return decide(TSR_FORMAT_DIA,
                      "%lld diagonals filled %.0f%%: DIA streams %.2fx the bytes of %s, x read "
                      "contiguously",
                      (long long)s.ndiag, 100.0 * s.dia_fill(), m.dia_bytes / displaced,
                      ell ? "ELL" : "HYB");

    if (ell)
        return decide(
            TSR_FORMAT_ELL,
            "rows of nearly equal length (mean %.1f, max %lld): ELL blocks filled %.0f%%, "
            "a thread per row reading slot by slot, coalesced",
            r.mean, (long long)r.max_len, 100.0 * s.ell_fill());
    if (hyb)
        return decide(
            TSR_FORMAT_HYB,
            "rows of nearly equal length (mean %.1f) but a few long ones (max %lld): HYB of "
            "width %lld filled %.0f%%, %.0f%% of entries in its COO tail",
            r.mean, (long long)r.max_len, (long long)s.hyb_width, 100.0 * hyb_fill,
            100.0 * hyb_tail);

    const CsrKernel k = gpu_csr_kernel(r, &s);
    return decide(
        TSR_FORMAT_CSR,
        "rows mean %.1f, max %lld, spread %.2f, %.0f%% of entries far from the diagonal: CSR, %s",
        r.mean, (long long)r.max_len, r.spread(), 100.0 * s.far_fraction(), csr_kernel_words(k));
}

} // namespace tessera::cuda
