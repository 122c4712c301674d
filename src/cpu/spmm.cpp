// The CPU sparse × dense driver: the ISA's kernels (spmm_<isa>.cpp) over pieces of rows of
// equal work (entries plus rows, so that empty rows still cost their store), taken by the
// threads in turn.
#include <algorithm>
#include <omp.h>

#include "cpu/isa.hpp"
#include "cpu/spmm_kernels.hpp"
#include "cpu/spmv_common.hpp"

namespace tessera::cpu {

namespace {

template <typename V, typename I> const SpmmKernels<V, I> &active_spmm() {
    switch (active_isa()) {
    case Isa::avx512: return spmm_avx512<V, I>();
    case Isa::avx2: return spmm_avx2<V, I>();
    default: return spmm_generic<V, I>();
    }
}

// The first row whose work before it (row_ptr[i] + i) reaches `goal`.
template <typename I> int64_t row_at_work(const I *row_ptr, int64_t rows, int64_t goal) {
    int64_t lo = 0, hi = rows;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (int64_t(row_ptr[mid]) + mid < goal) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

} // namespace

const char *spmm_isa() { return isa_name(active_isa()); }

template <typename V, typename I>
void csr_mm(int64_t rows, const SpmmRows<V, I> &a, int64_t nnz, int threads) {
    const SpmmRowsFn<V, I> run = active_spmm<V, I>().rows;
    const int nt = spmv_threads((nnz + rows) * std::max<int64_t>(1, a.k / 4), threads);
    if (nt <= 1) {
        run(a, 0, rows);
        return;
    }
    // Several pieces per thread, taken in turn: rows of very different lengths even out.
    const int64_t pieces = std::min<int64_t>(rows, int64_t(nt) * 8);
    const int64_t work = nnz + rows;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int64_t piece = 0; piece < pieces; ++piece) {
        const int64_t r0 = row_at_work(a.row_ptr, rows, work / pieces * piece +
                                                            work % pieces * piece / pieces);
        const int64_t r1 =
            piece + 1 == pieces
                ? rows
                : row_at_work(a.row_ptr, rows,
                              work / pieces * (piece + 1) + work % pieces * (piece + 1) / pieces);
        if (r0 < r1) run(a, r0, r1);
    }
}

template void csr_mm<float, int32_t>(int64_t, const SpmmRows<float, int32_t> &, int64_t, int);
template void csr_mm<float, int64_t>(int64_t, const SpmmRows<float, int64_t> &, int64_t, int);
template void csr_mm<double, int32_t>(int64_t, const SpmmRows<double, int32_t> &, int64_t, int);
template void csr_mm<double, int64_t>(int64_t, const SpmmRows<double, int64_t> &, int64_t, int);

} // namespace tessera::cpu
