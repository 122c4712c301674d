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

} // namespace

const MicroKernel<float> &generic_kernel_f32() {
    static const MicroKernel<float> k{
        "generic", kernel<float, 8, 4>, {8, 4, 256, 256, 4096, 0, 256, 256}, nullptr, nullptr,
        nullptr};
    return k;
}

const MicroKernel<double> &generic_kernel_f64() {
    static const MicroKernel<double> k{
        "generic", kernel<double, 4, 4>, {4, 4, 128, 256, 2048, 0, 128, 256}, nullptr, nullptr,
        nullptr};
    return k;
}

} // namespace tessera::cpu
