// Host-side copies between pageable and pinned memory for the staging of host operands.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::cuda {

// Copies `cols` columns of `width` bytes, `spitch` bytes apart in src and `dpitch` in dst.
// Large copies are shared among up to 8 OpenMP threads (one thread copies pageable memory
// at a fraction of the memory's bandwidth); inside a parallel region it runs on one.
void copy_columns(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  int64_t cols);

// dst = src + beta·dst over `cols` columns of `rows` elements (float or double), leading
// dimensions ldd and lds in elements, shared among threads as copy_columns does. The copy of a
// product's C back into pageable memory applies beta this way, so that C need not go up: a
// plain copy into C already reads C's lines before it writes them.
template <typename T>
void add_columns(T *dst, int64_t ldd, const T *src, int64_t lds, int64_t rows, int64_t cols,
                 T beta);

} // namespace tessera::cuda
