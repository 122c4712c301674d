// ELL y = alpha·A·x + beta·y: blocks of 16 rows, slot by slot (the column-major layout makes
// each slot of a block one contiguous run); every row stops at its own length, so padding
// never enters the sum. Threads take contiguous runs of blocks of equal padded work.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu/isa.hpp"
#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"
#include "cpu/spmv_simd.hpp"

namespace tessera::cpu {

namespace {

constexpr int64_t kBlock = 16;
static_assert(sparse::kEllRowAlign % kBlock == 0, "ELL rows are padded to whole blocks");

template <BetaMode B, typename V, typename I>
void ell_blocks_scalar(const sparse::Ell<V, I> &a, int64_t block_begin, int64_t block_end,
                       const SpmvVectors<V> &v) {
    for (int64_t b = block_begin; b < block_end; ++b) {
        const int64_t r0 = b * kBlock;
        int64_t width = 0;
        for (int64_t i = 0; i < kBlock; ++i) width = std::max<int64_t>(width, a.len[r0 + i]);
        V acc[kBlock] = {};
        for (int64_t k = 0; k < width; ++k) {
            const int64_t at = k * a.stride + r0;
            for (int64_t i = 0; i < kBlock; ++i)
                if (k < int64_t(a.len[r0 + i])) acc[i] += a.val[at + i] * v.x[a.col[at + i]];
        }
        for (int64_t i = 0; i < kBlock && r0 + i < a.rows; ++i)
            store<B>(v.y, r0 + i, v.alpha, acc[i], v.beta);
    }
}

template <typename V, typename I>
using BlocksFn = void (*)(const sparse::Ell<V, I> &, int64_t, int64_t, const SpmvVectors<V> &);

template <BetaMode B, bool Wide, typename V, typename I> BlocksFn<V, I> blocks_fn() {
#if defined(__x86_64__)
    if constexpr (Wide) return ell_blocks_avx512<B, V, I>;
#endif
    return ell_blocks_scalar<B, V, I>;
}

// Whether the blocks run on AVX-512 (else the scalar loop).
bool wide_blocks() {
#if defined(__x86_64__)
    return active_isa() == Isa::avx512;
#else
    return false;
#endif
}

// Every block, on the calling thread.
template <bool Wide, typename V, typename I>
void ell_whole(const sparse::Ell<V, I> &a, const SpmvVectors<V> &v) {
    with_beta(v.beta,
              [&]<BetaMode B>() { blocks_fn<B, Wide, V, I>()(a, 0, a.stride / kBlock, v); });
}

// ell_whole as core::SpmvDirectFn (ell_direct).
template <bool Wide, typename V, typename I>
void ell_whole_direct(const void *owner, V alpha, const V *x, V beta, V *y) {
    const auto &storage = *static_cast<const sparse::Storage *>(owner);
    ell_whole<Wide, V, I>(std::get_if<sparse::Typed<V, I>>(&storage.typed)->ell,
                          {alpha, x, beta, y});
}

// Block boundaries splitting the padded work (the longest row of each block) evenly.
template <typename V, typename I>
std::vector<int64_t> split_blocks(const sparse::Ell<V, I> &a, int parts) {
    const int64_t blocks = a.stride / kBlock;
    std::vector<int64_t> work(size_t(blocks) + 1, 0);
    for (int64_t b = 0; b < blocks; ++b) {
        int64_t width = 0;
        for (int64_t i = 0; i < kBlock; ++i)
            width = std::max<int64_t>(width, a.len[b * kBlock + i]);
        work[size_t(b) + 1] = work[size_t(b)] + width + 1;
    }
    std::vector<int64_t> cut(size_t(parts) + 1, blocks);
    cut[0] = 0;
    for (int p = 1; p < parts; ++p) {
        const int64_t goal = work[size_t(blocks)] / parts * p;
        cut[size_t(p)] = std::lower_bound(work.begin(), work.end(), goal) - work.begin();
    }
    return cut;
}

} // namespace

template <typename V, typename I>
void ell_n(const sparse::Ell<V, I> &a, int threads, const SpmvVectors<V> &v) {
    const int nt = spmv_threads(a.visited, threads);
    const bool wide = wide_blocks();
    if (nt == 1) return wide ? ell_whole<true>(a, v) : ell_whole<false>(a, v);
    with_beta(v.beta, [&]<BetaMode B>() {
        BlocksFn<V, I> run = wide ? blocks_fn<B, true, V, I>() : blocks_fn<B, false, V, I>();
        const std::vector<int64_t> cut = split_blocks(a, nt);
#pragma omp parallel num_threads(nt)
        {
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            // With fewer threads than asked for, each takes a run of consecutive parts.
            const int64_t first = cut[size_t(int64_t(t) * nt / n)],
                          last = cut[size_t(int64_t(t + 1) * nt / n)];
            run(a, first, last, v);
        }
    });
}

template <typename V, typename I> core::SpmvDirectFn<V> ell_direct(const sparse::Ell<V, I> &a) {
    if (a.visited >= kSpmvWorkPerThread) return nullptr; // ell_n may take two threads
    return wide_blocks() ? ell_whole_direct<true, V, I> : ell_whole_direct<false, V, I>;
}

#define TSR_ELL(V, I)                                                                              \
    template void ell_n<V, I>(const sparse::Ell<V, I> &, int, const SpmvVectors<V> &);             \
    template core::SpmvDirectFn<V> ell_direct<V, I>(const sparse::Ell<V, I> &);
TSR_ELL(float, int32_t)
TSR_ELL(float, int64_t)
TSR_ELL(double, int32_t)
TSR_ELL(double, int64_t)
#undef TSR_ELL

} // namespace tessera::cpu
