#include "host_copy.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace tessera::cuda {

void copy_columns(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  int64_t cols) {
    auto *to = static_cast<unsigned char *>(dst);
    const auto *from = static_cast<const unsigned char *>(src);
    constexpr size_t kPerThread = size_t(1) << 18; // bytes below which another thread does not pay
    const size_t bytes = width * size_t(cols);
    const int threads =
        omp_in_parallel()
            ? 1
            : int(std::min<size_t>({8, size_t(omp_get_max_threads()), bytes / kPerThread}));
    if (threads <= 1) {
        for (int64_t j = 0; j < cols; ++j)
            std::memcpy(to + size_t(j) * dpitch, from + size_t(j) * spitch, width);
        return;
    }
    // Each column in `parts` pieces, so that a few wide columns still spread over the threads.
    const int64_t parts = cols >= threads ? 1 : (threads + cols - 1) / cols;
    const size_t piece = (width + size_t(parts) - 1) / size_t(parts);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < cols * parts; ++t) {
        const int64_t j = t / parts;
        const size_t b0 = size_t(t % parts) * piece;
        if (b0 >= width) continue;
        std::memcpy(to + size_t(j) * dpitch + b0, from + size_t(j) * spitch + b0,
                    std::min(piece, width - b0));
    }
}

} // namespace tessera::cuda
