// AVX2+FMA micro-kernels (compiled with -mavx2 -mfma, run only where CPUID says so):
// float 16×6 and double 8×6 register tiles (12 of the 16 ymm registers as accumulators),
// and the unpacked direct path (tiles of 1–2 vectors × 6 columns, partial stores in pieces).
#include <immintrin.h>

#include "cpu/kernels/avx2_traits.hpp"
#include "cpu/kernels/direct_tile.hpp"
#include "cpu/kernels/microkernel.hpp"
#include "cpu/kernels/pack_transposed.hpp"
#include "cpu/kernels/register_tile.hpp"

namespace tessera::cpu {

namespace {

// The register tile: 2 vectors by 6 columns (12 accumulators), and the block sizes around it.
constexpr int kVectors = 2, kColumns = 6;
constexpr Blocking kFloatBlocks{.mr = 16,
                                .nr = 6,
                                .mc = 192,
                                .kc = 256,
                                .nc = 4092,
                                .direct_m = 48,
                                .direct_n = 32,
                                .direct_n_trans_b = 32,
                                .strassen_mc = 192,
                                .strassen_kc = 256,
                                .ask_next_b = true};
constexpr Blocking kDoubleBlocks{.mr = 8,
                                 .nr = 6,
                                 .mc = 96,
                                 .kc = 256,
                                 .nc = 2040,
                                 .direct_m = 48,
                                 .direct_n = 32,
                                 .direct_n_trans_b = 0,
                                 .strassen_mc = 96,
                                 .strassen_kc = 256,
                                 .ask_next_b = true};
static_assert(tile_matches(kFloatBlocks, kVectors, Avx2F32::lanes, kColumns));
static_assert(tile_matches(kDoubleBlocks, kVectors, Avx2F64::lanes, kColumns));
static_assert(kColumns == 6, "pack_b_cols6 packs panels of 6 columns");

} // namespace

const MicroKernel<float> &avx2_kernel_f32() {
    static const MicroKernel<float> k{"avx2",
                                      register_tile_kernel<Avx2F32, kVectors, kColumns>,
                                      kFloatBlocks,
                                      DirectGemm<Avx2F32, 6, false>::run,
                                      DirectGemm<Avx2F32, 6, false>::pick,
                                      register_tile_kernel_multi<Avx2F32, kVectors, kColumns>,
                                      block_sum<Avx2F32>,
                                      pack_a_transposed<float>,
                                      pack_b_cols6};
    return k;
}

const MicroKernel<double> &avx2_kernel_f64() {
    static const MicroKernel<double> k{"avx2",
                                       register_tile_kernel<Avx2F64, kVectors, kColumns>,
                                       kDoubleBlocks,
                                       DirectGemm<Avx2F64, 6, false>::run,
                                       DirectGemm<Avx2F64, 6, false>::pick,
                                       register_tile_kernel_multi<Avx2F64, kVectors, kColumns>,
                                       block_sum<Avx2F64>,
                                       pack_a_transposed<double>,
                                       pack_b_cols6};
    return k;
}

} // namespace tessera::cpu
