// The AVX2 gemv kernels (compiled with -mavx2 -mfma, run only where CPUID says so): the loops
// of gemv_simd.hpp on ymm registers.
#include "cpu/gemv_kernels.hpp"
#include "cpu/gemv_simd.hpp"
#include "cpu/kernels/avx2_traits.hpp"

namespace tessera::cpu {

const GemvKernels<float> &gemv_avx2_f32() {
    static const GemvKernels<float> k{"avx2", gemv_n<Avx2F32>, gemv_t<Avx2F32>};
    return k;
}

const GemvKernels<double> &gemv_avx2_f64() {
    static const GemvKernels<double> k{"avx2", gemv_n<Avx2F64>, gemv_t<Avx2F64>};
    return k;
}

} // namespace tessera::cpu
