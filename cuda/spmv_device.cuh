// Device pieces every sparse kernel shares: loads (streamed once with evict-first, or through
// the read-only path for x), vector loads of consecutive rows, y = alpha·sum + beta·y that
// never reads y when beta == 0, the block's segmented scan and the crossing-rows fix-up.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "spmv_split.hpp"

namespace tessera::cuda::spmv {

// Streamed arrays (values, indices): read once per product, so evict-first in L1 and L2,
// which keeps x in the caches.
__device__ __forceinline__ float ld_stream(const float *p) { return __ldcs(p); }
__device__ __forceinline__ double ld_stream(const double *p) { return __ldcs(p); }
__device__ __forceinline__ int32_t ld_stream(const int32_t *p) { return __ldcs(p); }
__device__ __forceinline__ int64_t ld_stream(const int64_t *p) {
    return __ldcs(reinterpret_cast<const long long *>(p));
}

// Read-only data that is reused (x, row pointers, offsets): the non-coherent cached path.
__device__ __forceinline__ float ld_ro(const float *p) { return __ldg(p); }
__device__ __forceinline__ double ld_ro(const double *p) { return __ldg(p); }
__device__ __forceinline__ int32_t ld_ro(const int32_t *p) { return __ldg(p); }
__device__ __forceinline__ int64_t ld_ro(const int64_t *p) {
    return __ldg(reinterpret_cast<const long long *>(p));
}

// N consecutive elements in one (or, for 32 bytes, two) 128-bit loads; p must be aligned to
// N·sizeof(T) (ELL and DIA strides are multiples of 16 rows, and cudaMalloc aligns to 256).
template <typename T, int N> struct Pack { T v[N]; };
template <typename T, int N> __device__ __forceinline__ Pack<T, N> ld_stream_pack(const T *p) {
    constexpr int bytes = int(sizeof(T)) * N;
    Pack<T, N> out;
    if constexpr (bytes == 4) {
        const unsigned w = __ldcs(reinterpret_cast<const unsigned *>(p));
        memcpy(&out, &w, 4);
    } else if constexpr (bytes == 8) {
        const uint2 w = __ldcs(reinterpret_cast<const uint2 *>(p));
        memcpy(&out, &w, 8);
    } else if constexpr (bytes == 16) {
        const uint4 w = __ldcs(reinterpret_cast<const uint4 *>(p));
        memcpy(&out, &w, 16);
    } else {
        static_assert(bytes == 32, "packs of 4, 8, 16 or 32 bytes");
        const uint4 *q = reinterpret_cast<const uint4 *>(p);
        const uint4 w0 = __ldcs(q), w1 = __ldcs(q + 1);
        memcpy(&out, &w0, 16);
        memcpy(reinterpret_cast<char *>(&out) + 16, &w1, 16);
    }
    return out;
}

// Rows per thread of the ELL and DIA kernels: one 128-bit load of values per slot.
template <typename V> inline constexpr int kRowsPerThread = 16 / int(sizeof(V));

// A block's share of entries [n0, n0 + count), count <= T·IPT, into shared memory as products:
// thread tid loads entries tid + u·T (coalesced), issues all IPT gathers of x before the first
// store (every gather in flight at once), and stores prod[k] = val·x[col] for k < count.
template <typename V, typename I, int T, int IPT>
__device__ __forceinline__ void stage_products(const I *__restrict__ col, const V *__restrict__ val,
                                               const V *__restrict__ x, int64_t n0, int count,
                                               V *prod) {
    const int tid = threadIdx.x;
    I c[IPT];
    V a[IPT];
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
        const int k = tid + u * T;
        c[u] = I(0);
        a[u] = V(0);
        if (k < count) {
            c[u] = ld_stream(col + n0 + k);
            a[u] = ld_stream(val + n0 + k);
        }
    }
    V p[IPT];
#pragma unroll
    for (int u = 0; u < IPT; ++u) p[u] = tid + u * T < count ? a[u] * ld_ro(x + c[u]) : V(0);
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
        const int k = tid + u * T;
        if (k < count) prod[k] = p[u];
    }
}

// y[i] = alpha·sum + beta·y[i]; y[i] is not read when beta == 0.
template <typename V>
__device__ __forceinline__ void store_y(V *y, int64_t i, V alpha, V sum, V beta) {
    if (beta == V(0)) y[i] = alpha * sum;
    else y[i] = alpha * sum + beta * y[i];
}

// Segmented scan over the threads of a block in thread order. Each thread brings `flag` (a
// row ended in its stretch of items) and `value` (its sum after the last row end, or of all
// its items when none ended). A thread gets the sum of the values since the last flagged
// thread before it (exclusive, with whether one exists) and the block's whole scan result
// (inclusive, meaningful in the last thread: the partial sum of the row left open at the
// block's end). All threads of the block must call it.
template <typename V, int THREADS> struct SegmentedScan {
    static constexpr int kWarps = THREADS / 32;
    struct Shared {
        V value[kWarps];
        int flag[kWarps];
    };

    __device__ static void run(Shared &sh, int flag, V value, int &ex_flag, V &ex_value,
                               V &inc_value) {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        int f = flag;
        V v = value;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const V pv = __shfl_up_sync(0xffffffffu, v, o);
            const int pf = __shfl_up_sync(0xffffffffu, f, o);
            if (lane >= o) {
                if (!f) v += pv;
                f |= pf;
            }
        }
        if (lane == 31) {
            sh.value[warp] = v;
            sh.flag[warp] = f;
        }
        __syncthreads();
        int wf = 0; // the warps before this one, combined
        V wv = V(0);
        for (int w = 0; w < warp; ++w) {
            if (sh.flag[w]) wv = sh.value[w], wf = 1;
            else wv += sh.value[w];
        }
        V ev = __shfl_up_sync(0xffffffffu, v, 1);
        int ef = __shfl_up_sync(0xffffffffu, f, 1);
        if (lane == 0) ev = V(0), ef = 0;
        ex_value = ef ? ev : wv + ev;
        ex_flag = ef | wf;
        inc_value = f ? v : wv + v;
    }
};

// Crossing rows (spmv_split.hpp), one warp each: y[row] = alpha·(tails + head) + beta·y[row],
// added in a fixed order, so products are reproducible.
inline constexpr int kFixThreads = 128;
template <typename V>
__global__ void __launch_bounds__(kFixThreads)
    fix_crossing_rows(int64_t n, const CrossingRow *__restrict__ list, const V *__restrict__ tail,
                      const V *__restrict__ head, V alpha, V beta, V *__restrict__ y) {
    const int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (w >= n) return; // whole warps
    const CrossingRow c = list[w];
    V s = V(0);
    for (int64_t b = c.first + lane; b < c.last; b += 32) s += tail[b];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) store_y(y, c.row, alpha, s + head[c.last], beta);
}

template <typename V>
cudaError_t launch_fix(int64_t n, const CrossingRow *list, const V *tail, const V *head, V alpha,
                       V beta, V *y, cudaStream_t stream) {
    if (n == 0) return cudaSuccess;
    const int64_t blocks = (n * 32 + kFixThreads - 1) / kFixThreads;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    fix_crossing_rows<V>
        <<<unsigned(blocks), kFixThreads, 0, stream>>>(n, list, tail, head, alpha, beta, y);
    return cudaGetLastError();
}

// Grid of `threads`-wide blocks covering `work` threads.
inline cudaError_t grid_for(int64_t work, int threads, unsigned *blocks) {
    const int64_t b = (work + threads - 1) / threads;
    if (b > 0x7fffffff) return cudaErrorInvalidConfiguration;
    *blocks = unsigned(b);
    return cudaSuccess;
}

} // namespace tessera::cuda::spmv
