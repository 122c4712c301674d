// CSR kernel gpu_tiles: column-sorted row tiles (layout in spmv_tiles.hpp). One launch runs
// the long rows' chunks (first, so that they start early) and the tiles: a tile's block zeroes
// R partial sums in shared memory, its threads stream the tile's entries with 128-bit loads
// (kTileAlign entries each, kTileGroups<V, I> groups in flight), gather x (neighbouring threads read
// neighbouring columns, so sectors are shared), and add the products into the partial sum of
// their row with shared-memory atomics. A row block of one tile (S == 1) then writes
// y = alpha·sum + beta·y; with S > 1 each tile writes its partial sums to the scratch and a
// second kernel adds the S of them, in slab order, into y. Last, a warp per long row adds
// alpha·(its chunk sums, in order) to y. Only the shared-memory atomics make the order of
// additions vary from run to run.
#include <algorithm>

#include "spmv_device.cuh"
#include "spmv_launch.hpp"
#include "spmv_tiles.hpp"

namespace tessera::cuda {

namespace spmv {

constexpr int kTileWarps = kTileThreads / 32;

template <typename V, typename I>
__global__ void __launch_bounds__(kTileThreads, kTilesPerSm)
    csr_tiles(int64_t rows, int R, int slabs, int64_t chunks, const int64_t *__restrict__ tile_start,
              const int64_t *__restrict__ tile_end,
              const I *__restrict__ col, const uint16_t *__restrict__ lrow, const V *__restrict__ val,
              const int64_t *__restrict__ chunk_ptr, const I *__restrict__ long_col, const V *__restrict__ long_val,
              const V *__restrict__ x, V alpha, V beta, V *__restrict__ y, V *__restrict__ scratch) {
    extern __shared__ __align__(16) unsigned char tile_shared[];
    __shared__ V warp_sum[kTileWarps];
    const int tid = threadIdx.x;

    if (int64_t(blockIdx.x) < chunks) { // a chunk of a long row: its sum to the chunk sums
        const int64_t c = blockIdx.x;
        const int64_t b = ld_ro(chunk_ptr + c);
        const int n = int(ld_ro(chunk_ptr + c + 1) - b);
        I cc[kLongItems];
        V aa[kLongItems];
#pragma unroll
        for (int u = 0; u < kLongItems; ++u) {
            const int k = tid + u * kTileThreads;
            cc[u] = I(0);
            aa[u] = V(0);
            if (k < n) {
                cc[u] = ld_stream(long_col + b + k);
                aa[u] = ld_stream(long_val + b + k);
            }
        }
        V s = V(0);
#pragma unroll
        for (int u = 0; u < kLongItems; ++u)
            if (tid + u * kTileThreads < n) s += aa[u] * ld_ro(x + cc[u]);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if ((tid & 31) == 0) warp_sum[tid >> 5] = s;
        __syncthreads();
        if (tid == 0) {
            V total = V(0);
#pragma unroll
            for (int w = 0; w < kTileWarps; ++w) total += warp_sum[w];
            scratch[(slabs > 1 ? int64_t(slabs) * rows : 0) + c] = total;
        }
        return;
    }

    V *sum = reinterpret_cast<V *>(tile_shared);
    const int64_t t = int64_t(blockIdx.x) - chunks;
    const int64_t rb = t / slabs;
    const int slab = int(t - rb * slabs);
    const int64_t r0 = rb * R;
    const int nr = int(min(int64_t(R), rows - r0));
    for (int k = tid; k < nr; k += kTileThreads) sum[k] = V(0);
    __syncthreads();

    constexpr int A = kTileAlign, G = kTileGroups<V, I>, STEP = kTileThreads * A;
    const int64_t b = ld_ro(tile_start + t), e = ld_ro(tile_end + t);
    for (int64_t p0 = b + int64_t(tid) * A; p0 < e; p0 += int64_t(STEP) * G) {
        Pack<I, A> c[G];
        Pack<uint16_t, A> l[G];
        Pack<V, A> a[G];
#pragma unroll
        for (int g = 0; g < G; ++g) { // every load of the step before the first gather
            const int64_t p = p0 + int64_t(g) * STEP;
            if (p < e) {
                c[g] = ld_stream_pack<I, A>(col + p);
                l[g] = ld_stream_pack<uint16_t, A>(lrow + p);
                a[g] = ld_stream_pack<V, A>(val + p);
            } else {
                c[g] = Pack<I, A>{};
                l[g] = Pack<uint16_t, A>{};
                a[g] = Pack<V, A>{};
            }
        }
        V xv[G][A]; // every gather in flight before the first atomic
#pragma unroll
        for (int g = 0; g < G; ++g)
#pragma unroll
            for (int k = 0; k < A; ++k)
                xv[g][k] = p0 + int64_t(g) * STEP + k < e ? ld_ro(x + c[g].v[k]) : V(0);
#pragma unroll
        for (int g = 0; g < G; ++g)
#pragma unroll
            for (int k = 0; k < A; ++k)
                if (p0 + int64_t(g) * STEP + k < e) atomicAdd(sum + l[g].v[k], a[g].v[k] * xv[g][k]);
    }
    __syncthreads();

    if (slabs == 1) {
        for (int k = tid; k < nr; k += kTileThreads) store_y(y, r0 + k, alpha, sum[k], beta);
    } else {
        V *part = scratch + int64_t(slab) * rows + r0;
        for (int k = tid; k < nr; k += kTileThreads) part[k] = sum[k];
    }
}

// S > 1: y = alpha·(the slabs' partial sums, in slab order) + beta·y.
template <typename V>
__global__ void __launch_bounds__(256)
    tiles_reduce(int64_t rows, int slabs, const V *__restrict__ part, V alpha, V beta, V *__restrict__ y) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows; i += int64_t(gridDim.x) * blockDim.x) {
        V s = V(0);
        for (int k = 0; k < slabs; ++k) s += ld_stream(part + int64_t(k) * rows + i);
        store_y(y, i, alpha, s, beta);
    }
}

// A warp per long row: y[row] += alpha·(its chunk sums, in a fixed order).
template <typename V>
__global__ void __launch_bounds__(128)
    tiles_long_rows(int64_t n, const LongRow *__restrict__ list, const V *__restrict__ sums, V alpha,
                    V *__restrict__ y) {
    const int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (w >= n) return; // whole warps
    const LongRow r = list[w];
    V s = V(0);
    for (int64_t c = r.first + lane; c < r.last; c += 32) s += sums[c];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[r.row] = alpha * s + y[r.row];
}

} // namespace spmv

template <typename V, typename I>
cudaError_t tiles_product(const DeviceCsr &a, const Vectors<V> &v, V *scratch, cudaStream_t stream) {
    using namespace spmv;
    const DeviceTiles &t = a.tiles;
    const int64_t grid = t.chunks + t.tiles;
    if (grid == 0) return cudaSuccess;
    if (grid > 0x7fffffff) return cudaErrorInvalidConfiguration;
    const size_t shared = size_t(t.tile_rows) * sizeof(V);
    csr_tiles<V, I><<<unsigned(grid), kTileThreads, shared, stream>>>(
        a.rows, int(t.tile_rows), int(t.slabs), t.chunks, t.tile_start, t.tile_end, static_cast<const I *>(t.col), t.lrow,
        static_cast<const V *>(t.val), t.chunk_ptr, static_cast<const I *>(t.long_col),
        static_cast<const V *>(t.long_val), v.x, v.alpha, v.beta, v.y, scratch);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    if (t.slabs > 1) {
        const int64_t blocks = std::min<int64_t>((a.rows + 255) / 256, 65536);
        tiles_reduce<V><<<unsigned(blocks), 256, 0, stream>>>(a.rows, int(t.slabs), scratch, v.alpha, v.beta, v.y);
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    if (t.long_rows > 0) {
        unsigned blocks;
        if (cudaError_t e = grid_for(t.long_rows * 32, 128, &blocks); e != cudaSuccess) return e;
        const V *sums = scratch + (t.slabs > 1 ? t.slabs * a.rows : 0);
        tiles_long_rows<V><<<blocks, 128, 0, stream>>>(t.long_rows, t.long_row, sums, v.alpha, v.y);
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

template <typename V, typename I> cudaError_t tiles_allow_shared(size_t bytes) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    // The device's whole opt-in limit, never less: matrices with other R may share the kernel.
    int device = 0, most = 0;
    if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        e != cudaSuccess)
        return e;
    if (bytes > size_t(most)) return cudaErrorInvalidValue;
    return cudaFuncSetAttribute(spmv::csr_tiles<V, I>, cudaFuncAttributeMaxDynamicSharedMemorySize, most);
}

#define TSR_TILES(V, I)                                                                                           \
    template cudaError_t tiles_product<V, I>(const DeviceCsr &, const Vectors<V> &, V *, cudaStream_t);           \
    template cudaError_t tiles_allow_shared<V, I>(size_t);
TSR_TILES(float, int32_t)
TSR_TILES(float, int64_t)
TSR_TILES(double, int32_t)
TSR_TILES(double, int64_t)
#undef TSR_TILES

} // namespace tessera::cuda
