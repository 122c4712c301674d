// Strassen's method over the packed gemm's loops, packing and kernels (packed_loops.hpp): the 7
// (one level) or 49 (two levels) products as sums of blocks of A and B that the packing
// routines add up on the fly, each product added into up to four blocks of C by its own
// macro-kernel. Opt-in (TESSERA_STRASSEN, tsr_set_strassen).
#pragma once

#include <cstdint>

#include "core/backend.hpp"
#include "cpu/kernels/microkernel.hpp"

namespace tessera::cpu {

// coef[0]·block[0] + coef[1]·block[1] + … of one operand (same shape, ld and op); coef = ±1.
template <typename T> struct BlockSum {
    int count = 0;
    const T *ptr[4];
    T coef[4];
};

// The blocks of C one product is added to, each with its sign.
template <typename T> struct BlockTargets {
    int count = 0;
    T *ptr[4];
    T coef[4];
};

// One of Strassen's products: C_t += alpha·coef_t·(sum of A blocks)(sum of B blocks).
template <typename T> struct Combination {
    BlockSum<T> a, b;
    BlockTargets<T> c;
};

// Whether `levels` of Strassen apply to this shape with sub-blocks of at least `min_block`;
// returns the number of levels that do (0: classical).
int strassen_levels_for(int64_t m, int64_t n, int64_t k, int levels, int64_t min_block);

// C = alpha·op(A)·op(B) + beta·C with `levels` (1 or 2) of Strassen on the largest part of
// the product whose sizes divide by 2^levels; the fringes run classically.
template <typename T>
tsr_status strassen_gemm(const MicroKernel<T> &uk, const core::GemmArgs<T> &g, int threads,
                         int levels);

} // namespace tessera::cpu
