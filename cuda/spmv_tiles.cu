// CSR kernel gpu_tiles: column-sorted row tiles (layout in spmv_tiles.hpp). One launch runs
// the long tiles (first, so that they start early) and the row blocks' tiles: a tile's block
// zeroes R partial sums in shared memory, its threads stream the tile's entries with 128-bit
// loads (kTileAlign entries each, kTileGroups<V, I> groups in flight), gather x (neighbouring
// threads read neighbouring columns, so sectors are shared), and add the products into the
// partial sum of their row with shared-memory atomics (for doubles, one atomic after a warp sum
// where all of a warp's lanes add to one row). A layout of one slab and no long rows then has
// each row block write y = alpha·sum + beta·y; otherwise y is first set to beta·y (zeroed when
// beta is 0) and every tile, long tiles included, adds alpha·its sums into y with global
// atomics. The atomics make the order of additions vary from run to run.
#include <algorithm>

#include "spmv_device.cuh"
#include "spmv_launch.hpp"
#include "spmv_tiles.hpp"

namespace tessera::cuda {

namespace spmv {

// Long groups of at most this many rows step in lockstep (add_entries).
constexpr int kLockstepRows = 32;

// Adds a_ij·x_j of entries [b, e) into sum[local row] with shared-memory atomics. LOCKSTEP:
// every lane of a warp runs every step (q is the warp's first entry, entries past e add -0.0,
// which changes no sum), and a warp whose lanes all add to one row adds once. Shared-memory
// atomics on floating point are compare-and-swap loops: for doubles, kept in step this way they
// take less time on random rows, for floats more (docs/journal/2026-11-cuda-spmv.md); a long
// tile of few rows needs it whatever the type (a warp's lanes would spin on one sum).
template <typename V, typename I, bool LOCKSTEP>
__device__ __forceinline__ void add_entries(V *sum, int64_t b, int64_t e, const I *__restrict__ col,
                                            const uint16_t *__restrict__ lrow,
                                            const V *__restrict__ val, const V *__restrict__ x,
                                            int tid, int lane) {
    constexpr int A = kTileAlign, G = kTileGroups<V, I>, STEP = kTileThreads * A;
    for (int64_t q = b + int64_t(LOCKSTEP ? tid - lane : tid) * A; q < e; q += int64_t(STEP) * G) {
        const int64_t p0 = LOCKSTEP ? q + int64_t(lane) * A : q;
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
            for (int k = 0; k < A; ++k) {
                const bool in = p0 + int64_t(g) * STEP + k < e;
                const int row = l[g].v[k];
                if constexpr (!LOCKSTEP) {
                    if (in) atomicAdd(sum + row, a[g].v[k] * xv[g][k]);
                } else {
                    V v = in ? a[g].v[k] * xv[g][k] : V(-0.0);
                    if (__all_sync(0xffffffffu, row == __shfl_sync(0xffffffffu, row, 0))) {
#pragma unroll
                        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
                        if (lane == 0) atomicAdd(sum + row, v);
                    } else {
                        atomicAdd(sum + row, v);
                    }
                }
            }
    }
}

template <typename V, typename I>
__global__ void __launch_bounds__(kTileThreads, kTilesPerSm)
    csr_tiles(int64_t rows, int R, int slabs, bool add_into_y, int64_t tiles, int64_t long_tiles,
              const int64_t *__restrict__ tile_start, const int64_t *__restrict__ tile_end,
              const I *__restrict__ col, const uint16_t *__restrict__ lrow,
              const V *__restrict__ val, const LongTile *__restrict__ long_tile,
              const int64_t *__restrict__ long_row, const V *__restrict__ x, V alpha, V beta,
              V *__restrict__ y) {
    extern __shared__ __align__(16) unsigned char tile_shared[];
    V *sum = reinterpret_cast<V *>(tile_shared);
    const int tid = threadIdx.x, lane = tid & 31;

    // Which tile: a long one (its group's rows), or row block rb's slab.
    const bool is_long = int64_t(blockIdx.x) < long_tiles;
    int64_t t, r0 = 0;
    int nr;
    LongTile lt{};
    if (is_long) {
        t = tiles + blockIdx.x;
        lt = long_tile[blockIdx.x];
        nr = int(lt.rows);
    } else {
        t = int64_t(blockIdx.x) - long_tiles;
        r0 = t / slabs * R;
        nr = int(min(int64_t(R), rows - r0));
    }
    for (int k = tid; k < nr; k += kTileThreads) sum[k] = V(0);
    __syncthreads();

    const int64_t b = ld_ro(tile_start + t), e = ld_ro(tile_end + t);
    if (sizeof(V) == 8 || (is_long && nr <= kLockstepRows))
        add_entries<V, I, true>(sum, b, e, col, lrow, val, x, tid, lane);
    else add_entries<V, I, false>(sum, b, e, col, lrow, val, x, tid, lane);
    __syncthreads();

    if (is_long) { // y holds beta·y already
        for (int k = tid; k < nr; k += kTileThreads)
            atomicAdd(y + long_row[lt.first_row + k], alpha * sum[k]);
    } else if (!add_into_y) {
        for (int k = tid; k < nr; k += kTileThreads) store_y(y, r0 + k, alpha, sum[k], beta);
    } else { // y holds beta·y already; rows of a long row's block add 0 here
        for (int k = tid; k < nr; k += kTileThreads) atomicAdd(y + r0 + k, alpha * sum[k]);
    }
}

} // namespace spmv

template <typename V, typename I>
cudaError_t tiles_product(const DeviceCsr &a, const Vectors<V> &v, cudaStream_t stream) {
    using namespace spmv;
    const DeviceTiles &t = a.tiles;
    const int64_t grid = t.long_tiles + t.tiles;
    if (grid == 0) return cudaSuccess;
    if (grid > 0x7fffffff) return cudaErrorInvalidConfiguration;
    const size_t shared = size_t(t.tile_rows) * sizeof(V);
    const bool add_into_y = t.slabs > 1 || t.long_tiles > 0; // several tiles add into one y
    if (add_into_y)
        if (cudaError_t e = scale_vector<V>(a.rows, v.beta, v.y, stream); e != cudaSuccess)
            return e;
    csr_tiles<V, I><<<unsigned(grid), kTileThreads, shared, stream>>>(
        a.rows, int(t.tile_rows), int(t.slabs), add_into_y, t.tiles, t.long_tiles, t.tile_start,
        t.tile_end, static_cast<const I *>(t.col), t.lrow, static_cast<const V *>(t.val),
        t.long_tile, t.long_row, v.x, v.alpha, v.beta, v.y);
    return cudaGetLastError();
}

template <typename V, typename I> cudaError_t tiles_allow_shared(size_t bytes) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    // The device's whole opt-in limit less the kernel's static shared memory, never less:
    // matrices with other R may share the kernel.
    int device = 0, most = 0;
    if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (cudaError_t e =
            cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        e != cudaSuccess)
        return e;
    cudaFuncAttributes attr{};
    if (cudaError_t e = cudaFuncGetAttributes(&attr, spmv::csr_tiles<V, I>); e != cudaSuccess)
        return e;
    most -= int(attr.sharedSizeBytes);
    if (bytes > size_t(most)) return cudaErrorInvalidValue;
    return cudaFuncSetAttribute(spmv::csr_tiles<V, I>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                most);
}

#define TSR_TILES(V, I)                                                                            \
    template cudaError_t tiles_product<V, I>(const DeviceCsr &, const Vectors<V> &, cudaStream_t); \
    template cudaError_t tiles_allow_shared<V, I>(size_t);
TSR_TILES(float, int32_t)
TSR_TILES(float, int64_t)
TSR_TILES(double, int32_t)
TSR_TILES(double, int64_t)
#undef TSR_TILES

} // namespace tessera::cuda
