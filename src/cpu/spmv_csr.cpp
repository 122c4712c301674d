// CSR y = alpha·A·x + beta·y: the merge path cuts rows + nonzeros into equal segments (a
// long row is shared, its pieces added after the join), up to kCsrSegmentsPerThread per
// thread, handed out as the threads come free; each runs a row kernel over its segment:
// scalar (built for AVX2 and FMA where the CPU has them), or AVX-512 gathers for long rows
// where the CPU has them. Equal rows + nonzeros are not equal time where some stretches of
// the matrix gather x from memory and others from cache: on an R-MAT graph (2^20 rows, skew
// 0.7) the half of the path with the scattered columns took as long as the whole matrix on
// one thread, so two threads split in halves ran no faster than one.
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

// The row kernel a product runs: by the CPU's ISA, and on AVX-512 by the plan's kernel.
enum class RowPath { scalar, avx2, avx512, avx512_simd_rows };

RowPath row_path(SpmvKernel kernel) {
#if defined(__x86_64__)
    if (active_isa() == Isa::avx512)
        return kernel == SpmvKernel::simd_rows ? RowPath::avx512_simd_rows : RowPath::avx512;
    if (active_isa() == Isa::avx2) return RowPath::avx2;
#endif
    (void)kernel;
    return RowPath::scalar;
}

template <BetaMode B, typename V, typename I> SegmentFn<V, I> segment_for(RowPath path) {
    switch (path) {
#if defined(__x86_64__)
    case RowPath::avx512_simd_rows: return csr_segment_avx512<B, true, V, I>;
    case RowPath::avx512: return csr_segment_avx512<B, false, V, I>;
    case RowPath::avx2: return csr_segment_avx2<B, V, I>;
#endif
    default: return csr_segment_scalar<B, V, I>;
    }
}

// Calls f.template operator()<P>() with P the row path `path` (as with_beta does for beta).
template <typename F> decltype(auto) with_row_path(RowPath path, F &&f) {
    switch (path) {
    case RowPath::avx512_simd_rows: return f.template operator()<RowPath::avx512_simd_rows>();
    case RowPath::avx512: return f.template operator()<RowPath::avx512>();
    case RowPath::avx2: return f.template operator()<RowPath::avx2>();
    default: return f.template operator()<RowPath::scalar>();
    }
}

// The whole matrix as one segment, on the calling thread.
template <RowPath P, typename V, typename I>
void csr_whole(const sparse::Csr<V, I> &a, const SpmvVectors<V> &v) {
    with_beta(v.beta, [&]<BetaMode B>() {
        V carry;
        segment_for<B, V, I>(P)(a, {0, a.rows, 0, a.nnz()}, v, &carry);
    });
}

// csr_whole as core::SpmvDirectFn (csr_direct).
template <RowPath P, typename V, typename I>
void csr_whole_direct(const void *owner, V alpha, const V *x, V beta, V *y) {
    const auto &storage = *static_cast<const sparse::Storage *>(owner);
    csr_whole<P, V, I>(std::get_if<sparse::Typed<V, I>>(&storage.typed)->csr, {alpha, x, beta, y});
}

// Segments per thread, and the path (rows + nonzeros) a segment should at least have: some
// tens of microseconds of work, so that handing one out costs nothing beside it.
constexpr int64_t kCsrSegmentsPerThread = 8;
constexpr int64_t kCsrSegmentPath = int64_t(1) << 16;

} // namespace

template <typename V, typename I>
void csr_n(const sparse::Csr<V, I> &a, SpmvKernel kernel, int threads, const SpmvVectors<V> &v) {
    const int64_t rows = a.rows, nnz = a.nnz();
    const int64_t path = rows + nnz;
    const int nt = spmv_threads(path, threads);
    const RowPath row = row_path(kernel);
    if (nt == 1) return with_row_path(row, [&]<RowPath P>() { csr_whole<P>(a, v); });
    with_beta(v.beta, [&]<BetaMode B>() {
        SegmentFn<V, I> run = segment_for<B, V, I>(row);
        const int64_t segments =
            std::clamp<int64_t>(path / kCsrSegmentPath, nt, nt * kCsrSegmentsPerThread);
        std::vector<V> carry(size_t(segments), V(0));
        std::vector<int64_t> carry_row(size_t(segments), rows);
        std::vector<PathPoint> cut(size_t(segments) + 1); // segment c is [cut[c], cut[c + 1])
        for (int64_t c = 0; c <= segments; ++c)
            cut[size_t(c)] = merge_path(path / segments * c + path % segments * c / segments,
                                        a.row_ptr.data(), rows, nnz);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
        for (int64_t c = 0; c < segments; ++c) {
            const PathPoint s = cut[size_t(c)], e = cut[size_t(c) + 1];
            run(a, {s.row, e.row, s.nz, e.nz}, v, &carry[size_t(c)]);
            carry_row[size_t(c)] = e.row;
        }
        // A row split between segments was stored by the segment that ended it; add the rest,
        // in the segments' order (the sum does not depend on which thread ran which).
        for (int64_t c = 0; c < segments; ++c)
            if (carry_row[size_t(c)] < rows)
                v.y[carry_row[size_t(c)]] += v.alpha * carry[size_t(c)];
    });
}

template <typename V, typename I>
core::SpmvDirectFn<V> csr_direct(const sparse::Csr<V, I> &a, SpmvKernel kernel) {
    if (a.rows + a.nnz() >= kSpmvWorkPerThread) return nullptr; // csr_n may take two threads
    return with_row_path(row_path(kernel), []<RowPath P>() -> core::SpmvDirectFn<V> {
        return csr_whole_direct<P, V, I>;
    });
}

#define TSR_CSR(V, I)                                                                              \
    template void csr_n<V, I>(const sparse::Csr<V, I> &, SpmvKernel, int, const SpmvVectors<V> &); \
    template core::SpmvDirectFn<V> csr_direct<V, I>(const sparse::Csr<V, I> &, SpmvKernel);
TSR_CSR(float, int32_t)
TSR_CSR(float, int64_t)
TSR_CSR(double, int32_t)
TSR_CSR(double, int64_t)
#undef TSR_CSR

} // namespace tessera::cpu
