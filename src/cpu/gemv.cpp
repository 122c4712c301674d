// The CPU gemv driver: strided x and y through contiguous buffers, then op N split over columns
// (each chunk sums into its own y) or, for tall matrices, over rows, and op T split over columns
// (each chunk owns a block of dot products) or, for very few columns, over rows.
#include "cpu/gemv.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu/gemv_kernels.hpp"
#include "cpu/isa.hpp"

namespace tessera::cpu {

namespace {

// Bytes of A each thread must have for one more thread to pay for waking it (measured on
// op N and op T, float and double: docs/performance.md).
constexpr int64_t kGemvBytesPerThread = 96 * 1024;
// Op N splits the rows only where each thread's piece of a column is this long (tall
// matrices); elsewhere each thread takes whole columns, one contiguous stretch of A, into its
// own y, and the partial y are summed (measured faster from 1000 × 1000 up to 8000 × 8000).
// Op T splits the columns where each thread gets this many, else the rows.
constexpr int64_t kGemvMinRowBytesPerThread = 16 * 1024;
constexpr int64_t kGemvMinColumnsPerThread = 16;
// Products of at least kGemvChunkedBytes of A (beyond the shared L3: a call of milliseconds)
// cut each thread's share into kGemvChunksPerThread chunks, handed out as threads come free: a
// thread the scheduler holds back (another program on its core) then delays the call by one
// chunk, not by its whole share. Smaller products keep one chunk per thread, whose partial
// results cost less.
constexpr int64_t kGemvChunkedBytes = int64_t(32) << 20;
constexpr int kGemvChunksPerThread = 4;
template <typename T> const GemvKernels<T> &kernels() {
    switch (active_isa()) {
#if defined(__x86_64__)
    case Isa::avx512:
        if constexpr (sizeof(T) == 4) return gemv_avx512_f32();
        else return gemv_avx512_f64();
    case Isa::avx2:
        if constexpr (sizeof(T) == 4) return gemv_avx2_f32();
        else return gemv_avx2_f64();
#endif
    default:
        if constexpr (sizeof(T) == 4) return gemv_generic_f32();
        else return gemv_generic_f64();
    }
}

// Where element 0 of a vector of len elements with increment inc lies (reference convention).
template <typename P> P *first(P *v, int64_t len, int64_t inc) {
    return inc < 0 ? v - (len - 1) * inc : v;
}

// Part p of nparts of [0, total) in pieces that are multiples of `align`.
struct Range {
    int64_t begin, end;
};
Range part(int64_t total, int p, int nparts, int64_t align) {
    int64_t chunk = (total + nparts - 1) / nparts;
    chunk = (chunk + align - 1) / align * align;
    const int64_t begin = std::min(total, p * chunk);
    return {begin, std::min(total, begin + chunk)};
}

// y[0:len) = beta·y; beta == 0 writes zeros without reading.
template <typename T> void scale(int64_t len, T beta, T *y) {
    if (beta == T(1)) return;
    if (beta == T(0)) std::fill(y, y + len, T(0));
    else
        for (int64_t i = 0; i < len; ++i) y[i] *= beta;
}

// How many chunks `threads` threads share (see kGemvChunkedBytes).
int64_t chunk_count(int64_t m, int64_t n, size_t elem_size, int threads) {
    const bool large = m * n * int64_t(elem_size) >= kGemvChunkedBytes;
    return int64_t(threads) * (large ? kGemvChunksPerThread : 1);
}

// The contiguous problem of op N: y = beta·y + alpha·A·x, y of length m.
template <typename T>
int run_n(const GemvKernels<T> &k, int64_t m, int64_t n, T alpha, const T *A, int64_t lda,
          const T *x, T beta, T *y, int threads) {
    scale(m, beta, y);
    if (threads == 1) {
        k.n(m, n, alpha, A, lda, x, y);
        return 1;
    }
    int used = 1;
    const int64_t chunks = chunk_count(m, n, sizeof(T), threads);
    if (m * int64_t(sizeof(T)) >= threads * kGemvMinRowBytesPerThread) {
        constexpr int64_t line = int64_t(64 / sizeof(T)); // chunks of y share no cache line
#pragma omp parallel num_threads(threads)
        {
            if (omp_get_thread_num() == 0) used = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1) nowait
            for (int64_t c = 0; c < chunks; ++c) {
                const Range r = part(m, int(c), int(chunks), line);
                if (r.end > r.begin)
                    k.n(r.end - r.begin, n, alpha, A + r.begin, lda, x, y + r.begin);
            }
        }
        return used;
    }
    // Chunk c of the columns sums into its own y (chunk 0 into y itself); the partial y are
    // added in chunk order, so the result does not depend on which thread took which chunk.
    std::vector<T> partial(size_t(chunks - 1) * size_t(m));
#pragma omp parallel num_threads(threads)
    {
        if (omp_get_thread_num() == 0) used = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t c = 0; c < chunks; ++c) {
            const Range r = part(n, int(c), int(chunks), 8);
            T *out = c == 0 ? y : partial.data() + size_t(c - 1) * size_t(m);
            if (c > 0) std::fill(out, out + m, T(0));
            if (r.end > r.begin)
                k.n(m, r.end - r.begin, alpha, A + r.begin * lda, lda, x + r.begin, out);
        }
    }
    for (int64_t c = 1; c < chunks; ++c) {
        const T *part_y = partial.data() + size_t(c - 1) * size_t(m);
        for (int64_t i = 0; i < m; ++i) y[i] += part_y[i];
    }
    return used;
}

// The contiguous problem of op T: y = alpha·A^T·x + beta·y, y of length n.
template <typename T>
int run_t(const GemvKernels<T> &k, int64_t m, int64_t n, T alpha, const T *A, int64_t lda,
          const T *x, T beta, T *y, int threads) {
    if (threads == 1) {
        k.t(m, n, alpha, A, lda, x, beta, y);
        return 1;
    }
    int used = 1;
    const int64_t chunks = chunk_count(m, n, sizeof(T), threads);
    if (n >= threads * kGemvMinColumnsPerThread) {
#pragma omp parallel num_threads(threads)
        {
            if (omp_get_thread_num() == 0) used = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1) nowait
            for (int64_t c = 0; c < chunks; ++c) {
                const Range r = part(n, int(c), int(chunks), 16);
                if (r.end > r.begin)
                    k.t(m, r.end - r.begin, alpha, A + r.begin * lda, lda, x, beta, y + r.begin);
            }
        }
        return used;
    }
    // Few columns, many rows: chunk c of the rows makes its own dot products, added in chunk
    // order.
    std::vector<T> partial(size_t(chunks) * size_t(n));
#pragma omp parallel num_threads(threads)
    {
        if (omp_get_thread_num() == 0) used = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t c = 0; c < chunks; ++c) {
            const Range r = part(m, int(c), int(chunks), int64_t(64 / sizeof(T)));
            T *out = partial.data() + size_t(c) * size_t(n);
            if (r.end > r.begin)
                k.t(r.end - r.begin, n, T(1), A + r.begin, lda, x + r.begin, T(0), out);
            else std::fill(out, out + n, T(0));
        }
    }
    for (int64_t j = 0; j < n; ++j) {
        T s = partial[size_t(j)];
        for (int64_t c = 1; c < chunks; ++c) s += partial[size_t(c) * size_t(n) + size_t(j)];
        y[j] = beta == T(0) ? alpha * s : alpha * s + beta * y[j];
    }
    return used;
}

} // namespace

template <typename T> int gemv(const GemvArgs<T> &g, int max_threads) {
    const int64_t xlen = g.trans ? g.m : g.n, ylen = g.trans ? g.n : g.m;
    T *y0 = first(g.y, ylen, g.incy);
    if (g.alpha == T(0)) { // y = beta·y: A and x are not read
        for (int64_t i = 0; i < ylen; ++i) {
            T &yi = y0[i * g.incy];
            yi = g.beta == T(0) ? T(0) : g.beta * yi;
        }
        return 1;
    }
    const int64_t bytes = g.m * g.n * int64_t(sizeof(T));
    const int threads = int(std::clamp<int64_t>(bytes / kGemvBytesPerThread, 1, max_threads));

    // Strided vectors go through contiguous copies: x gathered, y gathered (unless beta == 0
    // says it is not read) and scattered back.
    std::vector<T> xbuf, ybuf;
    const T *x = g.x;
    if (g.incx != 1) {
        xbuf.resize(size_t(xlen));
        const T *x0 = first(g.x, xlen, g.incx);
        for (int64_t i = 0; i < xlen; ++i) xbuf[size_t(i)] = x0[i * g.incx];
        x = xbuf.data();
    }
    T *y = g.y;
    if (g.incy != 1) {
        ybuf.resize(size_t(ylen));
        if (g.beta != T(0))
            for (int64_t i = 0; i < ylen; ++i) ybuf[size_t(i)] = y0[i * g.incy];
        y = ybuf.data();
    }

    const GemvKernels<T> &k = kernels<T>();
    const int used = g.trans ? run_t(k, g.m, g.n, g.alpha, g.A, g.lda, x, g.beta, y, threads)
                             : run_n(k, g.m, g.n, g.alpha, g.A, g.lda, x, g.beta, y, threads);
    if (g.incy != 1)
        for (int64_t i = 0; i < ylen; ++i) y0[i * g.incy] = ybuf[size_t(i)];
    return used;
}

const char *gemv_isa() { return isa_name(active_isa()); }

template int gemv<float>(const GemvArgs<float> &, int);
template int gemv<double>(const GemvArgs<double> &, int);

} // namespace tessera::cpu
