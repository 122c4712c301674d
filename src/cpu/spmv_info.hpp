// What the rest of the library may ask the CPU backend about its sparse kernels: whether they
// run with wide SIMD gathers here (AVX-512), which the automatic format choice depends on.
#pragma once

namespace tessera::cpu {

bool spmv_wide_simd();

} // namespace tessera::cpu
