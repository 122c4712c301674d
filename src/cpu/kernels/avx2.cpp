// AVX2+FMA micro-kernels (compiled with -mavx2 -mfma, run only where CPUID says so):
// float 16×6 and double 8×6 register tiles (12 of the 16 ymm registers as accumulators),
// and the unpacked direct path with masked edges.
#include <immintrin.h>

#include "cpu/kernels/avx2_traits.hpp"
#include "cpu/kernels/direct_tile.hpp"
#include "cpu/kernels/microkernel.hpp"
#include "cpu/kernels/register_tile.hpp"

namespace tessera::cpu {

const MicroKernel<float> &avx2_kernel_f32() {
    static const MicroKernel<float> k{"avx2",
                                      register_tile_kernel<Avx2F32, 2, 6>,
                                      {16, 6, 192, 256, 4092, 48, 192, 256},
                                      DirectGemm<Avx2F32, 6>::run,
                                      register_tile_kernel_multi<Avx2F32, 2, 6>,
                                      block_sum<Avx2F32>};
    return k;
}

const MicroKernel<double> &avx2_kernel_f64() {
    static const MicroKernel<double> k{"avx2",
                                       register_tile_kernel<Avx2F64, 2, 6>,
                                       {8, 6, 96, 256, 2040, 48, 96, 256},
                                       DirectGemm<Avx2F64, 6>::run,
                                       register_tile_kernel_multi<Avx2F64, 2, 6>,
                                       block_sum<Avx2F64>};
    return k;
}

} // namespace tessera::cpu
