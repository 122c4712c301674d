// The AVX2 pieces of the CPU sparse kernels (compiled with -mavx2 -mfma; called only where
// cpu::active_isa() is avx2): CSR row segments (the scalar loop with fused multiply-adds), DIA
// rows, every diagonal summed in registers, and DIA runs.
#if defined(__x86_64__)
#include <immintrin.h>

#include <type_traits>

#include "cpu/kernels/avx2_traits.hpp"
#include "cpu/spmv_simd.hpp"

namespace tessera::cpu {

namespace {

template <typename V> using Ymm = std::conditional_t<sizeof(V) == 4, Avx2F32, Avx2F64>;

// acc + a·x where a is not zero: a zero value (the fill) adds nothing, whatever x holds there
// (0·NaN would spread a NaN of x to other rows).
template <typename D>
inline typename D::Vec add_product(typename D::Vec acc, typename D::Vec a, typename D::Vec x) {
    return D::fma(a, D::where_nonzero(a, x), acc);
}

} // namespace

template <typename V> void multiply_add_avx2(V *acc, const V *val, const V *x, int64_t n) {
    using D = Ymm<V>;
    constexpr int L = D::lanes;
    int64_t i = 0;
    for (; i + L <= n; i += L)
        D::storeu(acc + i, add_product<D>(D::loadu(acc + i), D::loadu(val + i), D::loadu(x + i)));
    for (; i < n; ++i) acc[i] += val[i] != V(0) ? val[i] * x[i] : V(0);
}
template void multiply_add_avx2<float>(float *, const float *, const float *, int64_t);
template void multiply_add_avx2<double>(double *, const double *, const double *, int64_t);

template <BetaMode B, typename V>
void dia_rows_avx2(const V *val, const int64_t *vofs, const V *x, const int64_t *xofs,
                   int64_t ndiag, int64_t o0, int64_t o1, V alpha, V beta, V *y) {
    using D = Ymm<V>;
    using Vec = typename D::Vec;
    constexpr int L = D::lanes;
    const Vec va = D::set1(alpha), vb = D::set1(beta); // beta unread when zero
    auto out = [&](int64_t o, Vec acc) {
        Vec r = D::mul(va, acc);
        if constexpr (B == BetaMode::one) r = D::add(r, D::loadu(y + o));
        else if constexpr (B == BetaMode::scale) r = D::fma(vb, D::loadu(y + o), r);
        D::storeu(y + o, r);
    };
    int64_t o = o0;
    for (; o + 4 * L <= o1; o += 4 * L) { // four vectors of outputs: four chains of FMAs
        Vec acc0 = D::zero(), acc1 = D::zero(), acc2 = D::zero(), acc3 = D::zero();
        for (int64_t d = 0; d < ndiag; ++d) {
            const V *vd = val + vofs[d] + o, *xd = x + xofs[d] + o;
            acc0 = add_product<D>(acc0, D::loadu(vd), D::loadu(xd));
            acc1 = add_product<D>(acc1, D::loadu(vd + L), D::loadu(xd + L));
            acc2 = add_product<D>(acc2, D::loadu(vd + 2 * L), D::loadu(xd + 2 * L));
            acc3 = add_product<D>(acc3, D::loadu(vd + 3 * L), D::loadu(xd + 3 * L));
        }
        out(o, acc0);
        out(o + L, acc1);
        out(o + 2 * L, acc2);
        out(o + 3 * L, acc3);
    }
    for (; o + L <= o1; o += L) {
        Vec acc = D::zero();
        for (int64_t d = 0; d < ndiag; ++d)
            acc = add_product<D>(acc, D::loadu(val + vofs[d] + o), D::loadu(x + xofs[d] + o));
        out(o, acc);
    }
    for (; o < o1; ++o) { // the last outputs, one at a time
        V sum = V(0);
        for (int64_t d = 0; d < ndiag; ++d) {
            const V a = val[vofs[d] + o];
            sum += a != V(0) ? a * x[xofs[d] + o] : V(0);
        }
        store<B>(y, o, alpha, sum, beta);
    }
}

#define TSR_DIA_ROWS_AVX2(B, V)                                                                    \
    template void dia_rows_avx2<B, V>(const V *, const int64_t *, const V *, const int64_t *,      \
                                      int64_t, int64_t, int64_t, V, V, V *);
TSR_DIA_ROWS_AVX2(BetaMode::zero, float)
TSR_DIA_ROWS_AVX2(BetaMode::one, float)
TSR_DIA_ROWS_AVX2(BetaMode::scale, float)
TSR_DIA_ROWS_AVX2(BetaMode::zero, double)
TSR_DIA_ROWS_AVX2(BetaMode::one, double)
TSR_DIA_ROWS_AVX2(BetaMode::scale, double)
#undef TSR_DIA_ROWS_AVX2

template <BetaMode B, typename V, typename I>
void csr_segment_avx2(const sparse::Csr<V, I> &a, const CsrSegment &s, const SpmvVectors<V> &v,
                      V *carry) {
    csr_segment_rows<B, V, I>(a, s, v, carry);
}

#define TSR_CSR_SEGMENT_AVX2(B, V, I)                                                              \
    template void csr_segment_avx2<B, V, I>(const sparse::Csr<V, I> &, const CsrSegment &,         \
                                            const SpmvVectors<V> &, V *);
#define TSR_CSR_SEGMENT_AVX2_ALL(V, I)                                                             \
    TSR_CSR_SEGMENT_AVX2(BetaMode::zero, V, I)                                                     \
    TSR_CSR_SEGMENT_AVX2(BetaMode::one, V, I)                                                      \
    TSR_CSR_SEGMENT_AVX2(BetaMode::scale, V, I)
TSR_CSR_SEGMENT_AVX2_ALL(float, int32_t)
TSR_CSR_SEGMENT_AVX2_ALL(float, int64_t)
TSR_CSR_SEGMENT_AVX2_ALL(double, int32_t)
TSR_CSR_SEGMENT_AVX2_ALL(double, int64_t)
#undef TSR_CSR_SEGMENT_AVX2_ALL
#undef TSR_CSR_SEGMENT_AVX2

} // namespace tessera::cpu
#endif // __x86_64__
