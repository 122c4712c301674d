// The CPU sparse × dense driver: the ISA's kernels (spmm_<isa>.cpp) over pieces of rows of
// equal work (entries plus rows, so that empty rows still cost their store), taken by the
// threads in turn; a column-major X copied to row-major blocks first.
#include <algorithm>
#include <new>
#include <omp.h>

#include "cpu/isa.hpp"
#include "cpu/spmm_kernels.hpp"
#include "cpu/spmv_common.hpp"
#include "sparse/array.hpp"

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

// Rows of A in pieces of equal work (entries plus rows), taken by the threads in turn.
template <typename V, typename I>
void run_rows(int64_t rows, const SpmmRows<V, I> &a, int64_t nnz, int nt) {
    const SpmmRowsFn<V, I> run = active_spmm<V, I>().rows;
    if (nt <= 1) {
        run(a, 0, rows);
        return;
    }
    const int64_t pieces = std::min<int64_t>(rows, int64_t(nt) * 8);
    const int64_t work = nnz + rows;
    auto start = [&](int64_t piece) {
        return piece == pieces
                   ? rows
                   : row_at_work(a.row_ptr, rows,
                                 work / pieces * piece + work % pieces * piece / pieces);
    };
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int64_t piece = 0; piece < pieces; ++piece) {
        const int64_t r0 = start(piece), r1 = start(piece + 1);
        if (r0 < r1) run(a, r0, r1);
    }
}

// Bytes of the row-major copy of a column-major X's block of columns; a block needs at least
// kMinCopyColumns columns to pay for its copy.
inline constexpr int64_t kCopyBudget = int64_t(64) << 20;
inline constexpr int64_t kMinCopyColumns = 4;

} // namespace

const char *spmm_isa() { return isa_name(active_isa()); }

template <typename V, typename I>
void csr_mm(int64_t rows, int64_t cols, const SpmmRows<V, I> &a, int64_t nnz, int threads) {
    const int nt = spmv_threads((nnz + rows) * std::max<int64_t>(1, a.k / 4), threads);
    // Columns per copied block: up to 64 within the budget.
    int64_t block =
        std::min<int64_t>(16, kCopyBudget / std::max<int64_t>(1, cols * int64_t(sizeof(V))));
    block = std::min(block, a.k);
    if (a.row_major || block < kMinCopyColumns || cols == 0) {
        run_rows(rows, a, nnz, nt);
        return;
    }
    sparse::Array<V> copy;
    try {
        copy = sparse::Array<V>(cols * block);
    } catch (const std::bad_alloc &) {
        run_rows(rows, a, nnz, nt); // no room for the copy: read X where it is
        return;
    }
    for (int64_t j0 = 0; j0 < a.k; j0 += block) {
        const int64_t width = std::min(block, a.k - j0);
        V *t = copy.data();
        const V *x = a.X + j0 * a.ldx;
        const int64_t ldx = a.ldx;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t i0 = 0; i0 < cols; i0 += 256) {
            const int64_t i1 = std::min(cols, i0 + 256);
            for (int64_t j = 0; j < width; ++j)
                for (int64_t i = i0; i < i1; ++i) t[i * width + j] = x[i + j * ldx];
        }
        SpmmRows<V, I> b = a;
        b.k = width;
        b.row_major = true;
        b.X = t;
        b.ldx = width;
        b.Y = a.Y + j0 * a.ldy;
        run_rows(rows, b, nnz, nt);
    }
}

template void csr_mm<float, int32_t>(int64_t, int64_t, const SpmmRows<float, int32_t> &, int64_t,
                                     int);
template void csr_mm<float, int64_t>(int64_t, int64_t, const SpmmRows<float, int64_t> &, int64_t,
                                     int);
template void csr_mm<double, int32_t>(int64_t, int64_t, const SpmmRows<double, int32_t> &, int64_t,
                                      int);
template void csr_mm<double, int64_t>(int64_t, int64_t, const SpmmRows<double, int64_t> &, int64_t,
                                      int);

} // namespace tessera::cpu
