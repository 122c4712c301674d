// CSR y = alpha·A·x + beta·y: the merge path splits rows + nonzeros evenly over the threads
// (a long row is shared, its pieces added after the join), each thread runs a row kernel
// over its segment: scalar (built for AVX2 and FMA where the CPU has them), or AVX-512
// gathers for long rows where the CPU has them.
#include <omp.h>

#include <vector>

#include "cpu/isa.hpp"
#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"
#include "cpu/spmv_simd.hpp"

namespace tessera::cpu {

namespace {

template <BetaMode B, typename V, typename I>
void csr_segment_scalar(const sparse::Csr<V, I> &a, const CsrSegment &s, const SpmvVectors<V> &v,
                        V *carry) {
    csr_segment_rows<B, V, I>(a, s, v, carry);
}

template <typename V, typename I>
using SegmentFn = void (*)(const sparse::Csr<V, I> &, const CsrSegment &, const SpmvVectors<V> &,
                           V *);

template <BetaMode B, typename V, typename I> SegmentFn<V, I> segment_for(SpmvKernel kernel) {
#if defined(__x86_64__)
    if (active_isa() == Isa::avx512) {
        if (kernel == SpmvKernel::simd_rows) return csr_segment_avx512<B, true, V, I>;
        return csr_segment_avx512<B, false, V, I>;
    }
    if (active_isa() == Isa::avx2) return csr_segment_avx2<B, V, I>;
#endif
    (void)kernel;
    return csr_segment_scalar<B, V, I>;
}

} // namespace

template <typename V, typename I>
void csr_n(const sparse::Csr<V, I> &a, SpmvKernel kernel, int threads, const SpmvVectors<V> &v) {
    const int64_t rows = a.rows, nnz = a.nnz();
    const int64_t path = rows + nnz;
    const int nt = spmv_threads(path, threads);
    with_beta(v.beta, [&]<BetaMode B>() {
        SegmentFn<V, I> run = segment_for<B, V, I>(kernel);
        if (nt == 1) {
            V carry;
            run(a, {0, rows, 0, nnz}, v, &carry);
            return;
        }
        std::vector<V> carry(size_t(nt), V(0));
        std::vector<int64_t> carry_row(size_t(nt), rows);
#pragma omp parallel num_threads(nt)
        {
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            PathPoint s = merge_path(path / n * t + path % n * t / n, a.row_ptr.data(), rows, nnz);
            PathPoint e = merge_path(path / n * (t + 1) + path % n * (t + 1) / n, a.row_ptr.data(),
                                     rows, nnz);
            run(a, {s.row, e.row, s.nz, e.nz}, v, &carry[size_t(t)]);
            carry_row[size_t(t)] = e.row;
        }
        // A row split between segments was stored by the segment that ended it; add the rest.
        for (int t = 0; t < nt; ++t)
            if (carry_row[size_t(t)] < rows)
                v.y[carry_row[size_t(t)]] += v.alpha * carry[size_t(t)];
    });
}

#define TSR_CSR(V, I)                                                                              \
    template void csr_n<V, I>(const sparse::Csr<V, I> &, SpmvKernel, int, const SpmvVectors<V> &);
TSR_CSR(float, int32_t)
TSR_CSR(float, int64_t)
TSR_CSR(double, int32_t)
TSR_CSR(double, int64_t)
#undef TSR_CSR

} // namespace tessera::cpu
