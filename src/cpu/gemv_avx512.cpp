// The AVX-512 gemv kernels (compiled with -mavx512f -mfma, run only where CPUID says so): the
// loops of gemv_simd.hpp on zmm registers.
#include "cpu/gemv_kernels.hpp"
#include "cpu/gemv_simd.hpp"
#include "cpu/kernels/avx512_traits.hpp"

namespace tessera::cpu {

const GemvKernels<float> &gemv_avx512_f32() {
    static const GemvKernels<float> k{"avx512", gemv_n<Avx512F32>, gemv_t<Avx512F32>};
    return k;
}

const GemvKernels<double> &gemv_avx512_f64() {
    static const GemvKernels<double> k{"avx512", gemv_n<Avx512F64>, gemv_t<Avx512F64>};
    return k;
}

} // namespace tessera::cpu
