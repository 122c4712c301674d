// AVX-512 micro-kernels (compiled with -mavx512f -mavx512vl -mfma, run only where CPUID says so):
// float 64×6 and double 32×6 register tiles (24 of the 32 zmm registers as accumulators),
// and the unpacked direct path with masked edges.
#include <immintrin.h>

#include "cpu/kernels/avx2_traits.hpp"
#include "cpu/kernels/avx512_traits.hpp"
#include "cpu/kernels/direct_tile.hpp"
#include "cpu/kernels/microkernel.hpp"
#include "cpu/kernels/pack_transposed.hpp"
#include "cpu/kernels/register_tile.hpp"

namespace tessera::cpu {

namespace {

// Half-width (ymm) twins with AVX-512VL masks, for products of at most one half-vector of
// rows: a masked zmm FMA costs a full one (on cores that split 512-bit operations in two,
// twice a ymm FMA), so a tile of 8 floats or 4 doubles runs on ymm registers.
template <typename Ymm> struct MaskedYmm : Ymm {
    using T = typename Ymm::T;
    using Vec = typename Ymm::Vec;
    using Mask = __mmask8;
    static Mask mask(int n) { return Mask((1u << n) - 1u); }
    static Vec maskload(const T *p, Mask m) {
        if constexpr (sizeof(T) == 4) return _mm256_maskz_loadu_ps(m, p);
        else return _mm256_maskz_loadu_pd(m, p);
    }
    static void maskstore(T *p, Mask m, Vec v) {
        if constexpr (sizeof(T) == 4) _mm256_mask_storeu_ps(p, m, v);
        else _mm256_mask_storeu_pd(p, m, v);
    }
};
using Avx512F32Y = MaskedYmm<Avx2F32>;
using Avx512F64Y = MaskedYmm<Avx2F64>;

// The direct path: ymm tiles when all of op(A)'s rows fit one ymm register, zmm otherwise.
// Tiles one vector tall and masked (AVX-512 masks, zmm or ymm) keep NR columns: at 2·NR a Xeon
// ran 9×64×13 sgemm 1.6× and 5×4000×2000 sgemm 2.4× slower, where whole vectors gained
// (16×16×16 sgemm 1.1×).
template <typename Z, int NR> using ZmmGemm = DirectGemm<Z, NR, true, 2 * NR, NR>;
template <typename Y, int NR> using YmmGemm = DirectGemm<Y, NR, true, 2 * NR, NR>;

template <typename Z, typename Y, int NR>
void direct(int64_t m, int64_t n, int64_t k, typename Z::T alpha, const typename Z::T *a,
            int64_t lda, const typename Z::T *b, int64_t b_rs, int64_t b_cs, typename Z::T beta,
            typename Z::T *c, int64_t ldc) {
    if (m <= Y::lanes)
        return YmmGemm<Y, NR>::run(m, n, k, alpha, a, lda, b, b_rs, b_cs, beta, c, ldc);
    ZmmGemm<Z, NR>::run(m, n, k, alpha, a, lda, b, b_rs, b_cs, beta, c, ldc);
}

// direct's kernel for one shape (DirectGemm::pick of the tiles direct would run).
template <typename Z, typename Y, int NR>
DirectGemmFn<typename Z::T> direct_for(int64_t m, int64_t n, int64_t k) {
    if (m <= Y::lanes) return YmmGemm<Y, NR>::pick(m, n, k);
    const DirectGemmFn<typename Z::T> f = ZmmGemm<Z, NR>::pick(m, n, k);
    return f == &ZmmGemm<Z, NR>::run ? &direct<Z, Y, NR> : f;
}

// The register tile: 4 vectors by 6 columns (24 accumulators), and the block sizes around it.
constexpr int kVectors = 4, kColumns = 6;
constexpr Blocking kFloatBlocks{.mr = 64,
                                .nr = 6,
                                .mc = 384,
                                .kc = 384,
                                .nc = 4092,
                                .direct_m = 128,
                                .direct_n = 32,
                                .direct_n_trans_b = 32,
                                .strassen_mc = 192,
                                .strassen_kc = 1024,
                                .ask_next_b = false};
constexpr Blocking kDoubleBlocks{.mr = 32,
                                 .nr = 6,
                                 .mc = 192,
                                 .kc = 384,
                                 .nc = 2040,
                                 .direct_m = 96,
                                 .direct_n = 32,
                                 .direct_n_trans_b = 32,
                                 .strassen_mc = 96,
                                 .strassen_kc = 1024,
                                 .ask_next_b = false};
static_assert(tile_matches(kFloatBlocks, kVectors, Avx512F32::lanes, kColumns));
static_assert(tile_matches(kDoubleBlocks, kVectors, Avx512F64::lanes, kColumns));
static_assert(kColumns == 6, "pack_b_cols6 packs panels of 6 columns");

} // namespace

const MicroKernel<float> &avx512_kernel_f32() {
    static const MicroKernel<float> k{"avx512",
                                      register_tile_kernel<Avx512F32, kVectors, kColumns>,
                                      kFloatBlocks,
                                      direct<Avx512F32, Avx512F32Y, 12>,
                                      direct_for<Avx512F32, Avx512F32Y, 12>,
                                      register_tile_kernel_multi<Avx512F32, kVectors, kColumns>,
                                      block_sum<Avx512F32>,
                                      pack_a_transposed<float>,
                                      pack_b_cols6};
    return k;
}

const MicroKernel<double> &avx512_kernel_f64() {
    static const MicroKernel<double> k{"avx512",
                                       register_tile_kernel<Avx512F64, kVectors, kColumns>,
                                       kDoubleBlocks,
                                       direct<Avx512F64, Avx512F64Y, 12>,
                                       direct_for<Avx512F64, Avx512F64Y, 12>,
                                       register_tile_kernel_multi<Avx512F64, kVectors, kColumns>,
                                       block_sum<Avx512F64>,
                                       pack_a_transposed<double>,
                                       pack_b_cols6};
    return k;
}

} // namespace tessera::cpu
