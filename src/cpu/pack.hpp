// Packing of op(A) and op(B) blocks into the contiguous micro-panels the micro-kernel reads;
// transposes fold in here, and partial panels are zero-filled (never read past the matrix).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/backend.hpp"

namespace tessera::cpu {

// op(A)[i0 : i0+mc, p0 : p0+kc] into ceil(mc/mr) panels of kc columns × mr rows.
template <typename T>
void pack_a(const core::GemmArgs<T> &g, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int mr,
            T *dst) {
    for (int64_t ir = 0; ir < mc; ir += mr, dst += kc * mr) {
        const int rows = int(std::min<int64_t>(mr, mc - ir));
        if (!g.trans_a) { // column-major A: rows of a column are contiguous
            for (int64_t l = 0; l < kc; ++l) {
                const T *src = g.A + (i0 + ir) + (p0 + l) * g.lda;
                T *d = dst + l * mr;
                for (int i = 0; i < rows; ++i) d[i] = src[i];
                for (int i = rows; i < mr; ++i) d[i] = T(0);
            }
        } else { // op(A) = A^T: element (i, l) is A[l + i*lda], contiguous in l
            for (int i = 0; i < rows; ++i) {
                const T *src = g.A + (p0) + (i0 + ir + i) * g.lda;
                for (int64_t l = 0; l < kc; ++l) dst[l * mr + i] = src[l];
            }
            for (int i = rows; i < mr; ++i)
                for (int64_t l = 0; l < kc; ++l) dst[l * mr + i] = T(0);
        }
    }
}

// One panel of op(B)[p0 : p0+kc, j0 : j0+cols] (cols <= nr) as kc rows × nr columns.
template <typename T>
void pack_b_panel(const core::GemmArgs<T> &g, int64_t p0, int64_t kc, int64_t j0, int cols,
                  int nr, T *dst) {
    if (!g.trans_b) { // column-major B: element (l, j) is B[l + j*ldb], contiguous in l
        for (int j = 0; j < cols; ++j) {
            const T *src = g.B + p0 + (j0 + j) * g.ldb;
            for (int64_t l = 0; l < kc; ++l) dst[l * nr + j] = src[l];
        }
    } else { // op(B) = B^T: element (l, j) is B[j + l*ldb], contiguous in j
        for (int64_t l = 0; l < kc; ++l) {
            const T *src = g.B + j0 + (p0 + l) * g.ldb;
            for (int j = 0; j < cols; ++j) dst[l * nr + j] = src[j];
        }
    }
    for (int j = cols; j < nr; ++j)
        for (int64_t l = 0; l < kc; ++l) dst[l * nr + j] = T(0);
}

} // namespace tessera::cpu
