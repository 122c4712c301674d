// What the rest of the library may ask the CPU backend about its sparse kernels: whether they
// run with fast wide SIMD gathers here (AVX-512, not on AMD's cores), which the automatic
// format choice depends on.
#pragma once

namespace tessera::cpu {

bool spmv_wide_simd();

} // namespace tessera::cpu
