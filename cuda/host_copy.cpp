#include "host_copy.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace tessera::cuda {

namespace {

// Runs fn(j, b0, len) over `cols` columns of `width` bytes, each column in one or more pieces
// [b0, b0 + len) of whole `unit`s, shared among the threads that pay for the bytes moved.
template <typename Fn> void for_pieces(size_t width, int64_t cols, size_t unit, Fn fn) {
    constexpr size_t kPerThread = size_t(1) << 18; // bytes below which another thread does not pay
    const size_t bytes = width * size_t(cols);
    const int threads =
        omp_in_parallel()
            ? 1
            : int(std::min<size_t>({8, size_t(omp_get_max_threads()), bytes / kPerThread}));
    if (threads <= 1) {
        for (int64_t j = 0; j < cols; ++j) fn(j, size_t(0), width);
        return;
    }
    // Each column in `parts` pieces, so that a few wide columns still spread over the threads.
    const int64_t parts = cols >= threads ? 1 : (threads + cols - 1) / cols;
    const size_t units = (width / unit + size_t(parts) - 1) / size_t(parts);
    const size_t piece = units * unit;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < cols * parts; ++t) {
        const size_t b0 = size_t(t % parts) * piece;
        if (b0 < width) fn(t / parts, b0, std::min(piece, width - b0));
    }
}

} // namespace

void copy_columns(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  int64_t cols) {
    auto *to = static_cast<unsigned char *>(dst);
    const auto *from = static_cast<const unsigned char *>(src);
    for_pieces(width, cols, 1, [&](int64_t j, size_t b0, size_t len) {
        std::memcpy(to + size_t(j) * dpitch + b0, from + size_t(j) * spitch + b0, len);
    });
}

template <typename T>
void add_columns(T *dst, int64_t ldd, const T *src, int64_t lds, int64_t rows, int64_t cols,
                 T beta) {
    for_pieces(size_t(rows) * sizeof(T), cols, sizeof(T), [&](int64_t j, size_t b0, size_t len) {
        T *__restrict d = dst + j * ldd + int64_t(b0 / sizeof(T));
        const T *__restrict s = src + j * lds + int64_t(b0 / sizeof(T));
        const int64_t count = int64_t(len / sizeof(T));
        for (int64_t i = 0; i < count; ++i) d[i] = s[i] + beta * d[i];
    });
}

template void add_columns<float>(float *, int64_t, const float *, int64_t, int64_t, int64_t, float);
template void add_columns<double>(double *, int64_t, const double *, int64_t, int64_t, int64_t,
                                  double);

} // namespace tessera::cuda
