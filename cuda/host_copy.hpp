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

} // namespace tessera::cuda
