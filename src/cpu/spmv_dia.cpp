// DIA products: with AVX-512 every output, and with AVX2 those where every diagonal is inside
// the matrix, summed over the diagonals in registers four vectors of outputs at a time;
// elsewhere, and with neither, outputs in chunks that fit the L1 cache, each
// chunk taking every diagonal as one contiguous multiply-add of values and x. No indices, no
// gathers. Zero values, the fill among them, are skipped rather than multiplied. The transpose
// reads the same diagonals, each one shifted to the output it feeds, so neither needs partials.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu/isa.hpp"
#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"
#include "cpu/spmv_simd.hpp"
#include "sparse/measures.hpp"

namespace tessera::cpu {

namespace {

constexpr int64_t kChunk = 1024;    // rows whose partial sums stay in L1
constexpr int64_t kThreadRows = 64; // the threads' shares of the outputs come in these
// Up to this many products (outputs × diagonals), outputs are summed one at a time, without
// the chunk's buffer and its passes.
constexpr int64_t kFewProducts = 256;

template <typename V> void multiply_add(V *acc, const V *val, const V *x, int64_t n, Isa isa) {
#if defined(__x86_64__)
    if (isa == Isa::avx2) return multiply_add_avx2(acc, val, x, n);
#endif
    (void)isa;
    // Zero values (the fill) are not multiplied: 0·NaN would spread a NaN of x to other rows.
    for (int64_t i = 0; i < n; ++i) acc[i] += val[i] != V(0) ? val[i] * x[i] : V(0);
}

// Output entries [o0, o1) of y = alpha·op(A)·x + beta·y. For op = N output i reads diagonal d
// at i and x at i + off; for op = T output j reads diagonal d at j - off and x at j - off.
template <BetaMode B, bool Trans, typename V>
void dia_chunks(const sparse::Dia<V> &a, int64_t o0, int64_t o1, const SpmvVectors<V> &v, Isa isa) {
    const int64_t in_len = Trans ? a.rows : a.cols; // length of x
    if ((o1 - o0) * a.ndiag <= kFewProducts) {      // a few outputs (the ends): one at a time
        for (int64_t o = o0; o < o1; ++o) {
            V sum = V(0);
            for (int64_t d = 0; d < a.ndiag; ++d) {
                const int64_t shift = Trans ? -a.offset[d] : a.offset[d]; // x index = o + shift
                if (o + shift < 0 || o + shift >= in_len) continue;
                const V val = a.val.data()[d * a.stride + (Trans ? o + shift : o)];
                sum += val != V(0) ? val * v.x[o + shift] : V(0);
            }
            store<B>(v.y, o, v.alpha, sum, v.beta);
        }
        return;
    }
    alignas(64) V acc[kChunk];
    for (int64_t c0 = o0; c0 < o1; c0 += kChunk) {
        const int64_t c1 = std::min(o1, c0 + kChunk);
        std::fill(acc, acc + (c1 - c0), V(0));
        for (int64_t d = 0; d < a.ndiag; ++d) {
            const int64_t shift = Trans ? -a.offset[d] : a.offset[d]; // x index = output + shift
            const int64_t lo = std::max(c0, -shift), hi = std::min(c1, in_len - shift);
            if (lo >= hi) continue;
            const int64_t row0 = Trans ? lo + shift : lo; // where the run starts in the diagonal
            multiply_add(acc + (lo - c0), a.val.data() + d * a.stride + row0, v.x + lo + shift,
                         hi - lo, isa);
        }
        for (int64_t i = c0; i < c1; ++i) store<B>(v.y, i, v.alpha, acc[i - c0], v.beta);
    }
}

// Where each diagonal's run starts for output o (vofs[d] + o in val, xofs[d] + o in x), and
// the outputs [lo, hi) whose every diagonal is in range: 0 <= o + shift_d < length of x. Worked
// out once per product, on the stack up to kDiaMaxDiagonals diagonals.
struct DiaInterior {
    int64_t lo = 0, hi = 0;
    const int64_t *vofs = nullptr, *xofs = nullptr;
};

template <bool Trans, typename V>
DiaInterior dia_interior(const sparse::Dia<V> &a, int64_t *vofs, int64_t *xofs) {
    const int64_t out = Trans ? a.cols : a.rows, in_len = Trans ? a.rows : a.cols;
    DiaInterior r{0, out, vofs, xofs};
    for (int64_t d = 0; d < a.ndiag; ++d) {
        const int64_t shift = Trans ? -a.offset[d] : a.offset[d]; // x index = output + shift
        r.lo = std::max(r.lo, -shift);
        r.hi = std::min(r.hi, in_len - shift);
        xofs[d] = shift;
        vofs[d] = d * a.stride + (Trans ? shift : 0);
    }
    return r;
}

// Output entries [o0, o1) of y = alpha·op(A)·x + beta·y. For op = N output i reads diagonal d
// at i and x at i + off; for op = T output j reads diagonal d at j - off and x at j - off.
// With AVX-512 (`in` not null) every output sums its diagonals in registers, each diagonal
// over the outputs it reaches, so y is loaded and stored once instead of once per diagonal as in
// the chunked loop; with AVX2 the outputs inside `in` do, and those near the ends (some diagonal
// out of range) keep the chunked loop. A matrix whose diagonals lie far from the main one has
// few outputs inside `in` (dwt_992: 992 rows, 27 diagonals), and ran almost all of its products
// in the chunked loop.
template <BetaMode B, bool Trans, typename V>
void dia_range(const sparse::Dia<V> &a, int64_t o0, int64_t o1, const SpmvVectors<V> &v, Isa isa,
               const DiaInterior *in) {
#if defined(__x86_64__)
    if (in && isa == Isa::avx512) { // every output in registers, each diagonal where in range
        dia_rows_avx512<B>(a.val.data(), in->vofs, v.x, in->xofs, a.ndiag, Trans ? a.rows : a.cols,
                           o0, o1, v.alpha, v.beta, v.y);
        return;
    }
    if (in) {
        const int64_t lo = std::max(o0, in->lo), hi = std::min(o1, in->hi);
        if (lo < hi) {
            dia_chunks<B, Trans>(a, o0, lo, v, isa);
            dia_rows_avx2<B>(a.val.data(), in->vofs, v.x, in->xofs, a.ndiag, lo, hi, v.alpha,
                             v.beta, v.y);
            dia_chunks<B, Trans>(a, hi, o1, v, isa);
            return;
        }
    }
#else
    (void)in;
#endif
    dia_chunks<B, Trans>(a, o0, o1, v, isa);
}

template <bool Trans, typename V>
void dia_product(const sparse::Dia<V> &a, int threads, const SpmvVectors<V> &v) {
    const int64_t out = Trans ? a.cols : a.rows;
    const int nt = spmv_threads(a.ndiag * out, threads);
    const Isa isa = active_isa();
    int64_t stack_ofs[2 * sparse::kDiaMaxDiagonals];
    std::vector<int64_t> heap_ofs;
    int64_t *ofs = stack_ofs;
    if (a.ndiag > sparse::kDiaMaxDiagonals) { // only when DIA was asked for by name
        heap_ofs.resize(size_t(2 * a.ndiag));
        ofs = heap_ofs.data();
    }
    DiaInterior interior;
    if ((isa == Isa::avx512 || isa == Isa::avx2) && a.ndiag > 0)
        interior = dia_interior<Trans>(a, ofs, ofs + a.ndiag);
    const DiaInterior *in = interior.vofs ? &interior : nullptr;
    with_beta(v.beta, [&]<BetaMode B>() {
        if (nt == 1) {
            dia_range<B, Trans>(a, 0, out, v, isa, in);
            return;
        }
#pragma omp parallel num_threads(nt)
        {
            // Equal shares of the outputs in whole groups of kThreadRows (whole cache lines of
            // y): shares of whole chunks left one thread idle below two chunks (a matrix of 992
            // rows ran on one thread while the other waited).
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            const int64_t groups = (out + kThreadRows - 1) / kThreadRows;
            const int64_t first = groups * t / n * kThreadRows,
                          last = std::min(out, groups * (t + 1) / n * kThreadRows);
            dia_range<B, Trans>(a, first, last, v, isa, in);
        }
    });
}

} // namespace

template <typename V> void dia_n(const sparse::Dia<V> &a, int threads, const SpmvVectors<V> &v) {
    dia_product<false>(a, threads, v);
}
template <typename V> void dia_t(const sparse::Dia<V> &a, int threads, const SpmvVectors<V> &v) {
    dia_product<true>(a, threads, v);
}

template void dia_n<float>(const sparse::Dia<float> &, int, const SpmvVectors<float> &);
template void dia_n<double>(const sparse::Dia<double> &, int, const SpmvVectors<double> &);
template void dia_t<float>(const sparse::Dia<float> &, int, const SpmvVectors<float> &);
template void dia_t<double>(const sparse::Dia<double> &, int, const SpmvVectors<double> &);

} // namespace tessera::cpu
