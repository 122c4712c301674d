// Portable micro-kernels: the MR×NR outer-product loop written so the compiler keeps the tile
// in vector registers and vectorises the MR direction, for any CPU the build targets.
#include "cpu/kernels/microkernel.hpp"

namespace tessera::cpu {

namespace {

template <typename T, int MR, int NR>
void kernel(int64_t kc, const T *__restrict a, const T *__restrict b, T *__restrict c, int64_t ldc,
            T alpha, T beta) {
    T acc[NR][MR] = {};
    for (int64_t l = 0; l < kc; ++l) {
        const T *al = a + l * MR;
        const T *bl = b + l * NR;
        for (int j = 0; j < NR; ++j) {
#pragma omp simd
            for (int i = 0; i < MR; ++i) acc[j][i] += al[i] * bl[j];
        }
    }
    for (int j = 0; j < NR; ++j) {
        T *cj = c + j * ldc;
        if (beta == T(0)) {
#pragma omp simd
            for (int i = 0; i < MR; ++i) cj[i] = alpha * acc[j][i];
        } else {
#pragma omp simd
            for (int i = 0; i < MR; ++i) cj[i] = alpha * acc[j][i] + beta * cj[i];
        }
    }
}

// The tiles (one lane each: MR rows by NR columns the compiler vectorises) and the block sizes
// around them; no direct path (direct_m 0).
constexpr Blocking kFloatBlocks{.mr = 8,
                                .nr = 4,
                                .mc = 256,
                                .kc = 256,
                                .nc = 4096,
                                .direct_m = 0,
                                .direct_n = 0,
                                .direct_n_trans_b = 0,
                                .strassen_mc = 256,
                                .strassen_kc = 256,
                                .ask_next_b = false};
constexpr Blocking kDoubleBlocks{.mr = 4,
                                 .nr = 4,
                                 .mc = 128,
                                 .kc = 256,
                                 .nc = 2048,
                                 .direct_m = 0,
                                 .direct_n = 0,
                                 .direct_n_trans_b = 0,
                                 .strassen_mc = 128,
                                 .strassen_kc = 256,
                                 .ask_next_b = false};
static_assert(tile_matches(kFloatBlocks, kFloatBlocks.mr, 1, kFloatBlocks.nr));
static_assert(tile_matches(kDoubleBlocks, kDoubleBlocks.mr, 1, kDoubleBlocks.nr));

} // namespace

const MicroKernel<float> &generic_kernel_f32() {
    static const MicroKernel<float> k{"generic",    kernel<float, kFloatBlocks.mr, kFloatBlocks.nr>,
                                      kFloatBlocks, nullptr,
                                      nullptr,      nullptr,
                                      nullptr,      nullptr,
                                      nullptr};
    return k;
}

const MicroKernel<double> &generic_kernel_f64() {
    static const MicroKernel<double> k{
        "generic",     kernel<double, kDoubleBlocks.mr, kDoubleBlocks.nr>,
        kDoubleBlocks, nullptr,
        nullptr,       nullptr,
        nullptr,       nullptr,
        nullptr};
    return k;
}

} // namespace tessera::cpu
