// The ratios of a GPU spmv record (see spmv_cuda_record.hpp): medians of correct sides only, so
// a kernel with a wrong result never counts as the fastest.
#include "spmv_cuda_record.hpp"

namespace tessera::bench {

bool GpuSpmvSide::events_suspect() const {
    return timed() && wall_median > 0 && time.median < 0.5 * wall_median;
}

const GpuSpmvSide *GpuSpmvRecord::side(const std::string &name) const {
    for (const GpuSpmvSide &s : sides)
        if (s.name == name) return &s;
    return nullptr;
}

namespace {

std::string fastest(const std::vector<GpuSpmvSide> &sides, const std::string &library) {
    const GpuSpmvSide *best = nullptr;
    for (const GpuSpmvSide &s : sides)
        if (s.status == "ok" && s.library == library && s.name != "auto" &&
            (!best || s.time.median < best->time.median))
            best = &s;
    return best ? best->name : "";
}

} // namespace

std::string GpuSpmvRecord::best_format() const { return fastest(sides, "tessera"); }

std::string GpuSpmvRecord::cusparse_best() const { return fastest(sides, "cusparse"); }

double GpuSpmvRecord::speedup(const std::string &name, const std::string &anchor) const {
    const GpuSpmvSide *s = side(name), *a = side(anchor);
    if (!s || !a || s->status != "ok" || a->status != "ok" || s->time.median <= 0) return 0;
    return a->time.median / s->time.median;
}

double GpuSpmvRecord::auto_over_best() const {
    const GpuSpmvSide *a = side("auto"), *b = side(best_format());
    if (!a || !b || a->status != "ok") return 0;
    // AUTO's own time: on the GPU it may run a CSR kernel that the named csr side does not
    // (column-sorted row tiles, chosen with the format), so the named side cannot stand in
    // for it. Below 1: AUTO beat every named format.
    return a->time.median / b->time.median;
}

double GpuSpmvRecord::copy_fraction(const GpuSpmvSide &s) const {
    return copy_gbs > 0 && s.timed() ? s.gbs / copy_gbs : 0;
}

} // namespace tessera::bench
