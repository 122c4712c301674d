// CSR kernels: a thread per row (very short rows), L lanes of a warp per row (L from the mean
// row length), and the merge path (skewed or scattered rows): each block stages the products
// of its share of rows + nonzeros in shared memory, coalesced, then every thread walks the
// same number of path steps and a segmented scan joins rows cut between threads.
#include "spmv_device.cuh"
#include "spmv_launch.hpp"

namespace tessera::cuda {

namespace spmv {

constexpr int kRowThreads = 256;

template <typename V, typename I>
__global__ void __launch_bounds__(kRowThreads)
    csr_rows(int64_t rows, const I *__restrict__ rp, const I *__restrict__ col,
             const V *__restrict__ val, const V *__restrict__ x, V alpha, V beta,
             V *__restrict__ y) {
    const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    if (i >= rows) return;
    const int64_t end = ld_ro(rp + i + 1);
    int64_t p = ld_ro(rp + i);
    V s0 = V(0), s1 = V(0), s2 = V(0), s3 = V(0);
    for (; p + 4 <= end; p += 4) { // four gathers in flight
        const I c0 = ld_ro(col + p), c1 = ld_ro(col + p + 1), c2 = ld_ro(col + p + 2),
                c3 = ld_ro(col + p + 3);
        const V a0 = ld_ro(val + p), a1 = ld_ro(val + p + 1), a2 = ld_ro(val + p + 2),
                a3 = ld_ro(val + p + 3);
        const V x0 = ld_ro(x + c0), x1 = ld_ro(x + c1), x2 = ld_ro(x + c2), x3 = ld_ro(x + c3);
        s0 += a0 * x0;
        s1 += a1 * x1;
        s2 += a2 * x2;
        s3 += a3 * x3;
    }
    // The last 0-3 entries, their loads also side by side (rows of 3, a tridiagonal matrix,
    // run only this).
    const int left = int(end - p);
    I c0 = I(0), c1 = I(0), c2 = I(0);
    V a0 = V(0), a1 = V(0), a2 = V(0);
    if (left > 0) c0 = ld_ro(col + p), a0 = ld_ro(val + p);
    if (left > 1) c1 = ld_ro(col + p + 1), a1 = ld_ro(val + p + 1);
    if (left > 2) c2 = ld_ro(col + p + 2), a2 = ld_ro(val + p + 2);
    if (left > 0) s0 += a0 * ld_ro(x + c0);
    if (left > 1) s1 += a1 * ld_ro(x + c1);
    if (left > 2) s2 += a2 * ld_ro(x + c2);
    store_y(y, i, alpha, (s0 + s1) + (s2 + s3), beta);
}

// L lanes per row: lane k takes entries k, k + L, ...; four per step so that four gathers are
// in flight; the lanes' sums meet by shuffles.
template <typename V, typename I, int L>
__global__ void __launch_bounds__(kRowThreads)
    csr_lanes(int64_t rows, const I *__restrict__ rp, const I *__restrict__ col,
              const V *__restrict__ val, const V *__restrict__ x, V alpha, V beta,
              V *__restrict__ y) {
    const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    const int64_t i = t / L;
    const int lane = int(t % L);
    V s = V(0);
    if (i < rows) { // no early return: the whole warp takes part in the shuffles
        const int64_t end = ld_ro(rp + i + 1);
        int64_t p = ld_ro(rp + i) + lane;
        for (; p + 3 * L < end; p += 4 * L) { // four gathers in flight
            const I c0 = ld_ro(col + p), c1 = ld_ro(col + p + L), c2 = ld_ro(col + p + 2 * L),
                    c3 = ld_ro(col + p + 3 * L);
            const V a0 = ld_ro(val + p), a1 = ld_ro(val + p + L), a2 = ld_ro(val + p + 2 * L),
                    a3 = ld_ro(val + p + 3 * L);
            const V x0 = ld_ro(x + c0), x1 = ld_ro(x + c1), x2 = ld_ro(x + c2), x3 = ld_ro(x + c3);
            s += (a0 * x0 + a1 * x1) + (a2 * x2 + a3 * x3);
        }
        for (; p < end; p += L) s += ld_ro(val + p) * ld_ro(x + ld_ro(col + p));
    }
#pragma unroll
    for (int o = L / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o, L);
    if (i < rows && lane == 0) store_y(y, i, alpha, s, beta);
}

// The rows that cross blocks, finished by the last block of a one-launch merge path.
struct LastBlockFix {
    const CrossingRow *list;
    int64_t count;
    unsigned *ticket; // 0 before the launch; the last block puts it back to 0
};

// The merge path. Block b takes path steps [start(b), start(b + 1)): `nrows` row ends and
// `nnzb` nonzeros. Rows that began in an earlier block leave their sum in head[b], the row
// still open at the end in tail[b]; fix_crossing_rows finishes those, or with OneLaunch the
// block that finishes last (the blocks count themselves on fix.ticket).
template <typename V, typename I, bool OneLaunch>
__global__ void __launch_bounds__(kBalancedThreads, kBalancedMinBlocks)
    csr_merge(const I *__restrict__ rp, const I *__restrict__ col, const V *__restrict__ val,
              const I *__restrict__ start_row, const I *__restrict__ start_nz,
              const V *__restrict__ x, V alpha, V beta, V *__restrict__ y, V *__restrict__ tail,
              V *__restrict__ head, LastBlockFix fix) {
    constexpr int T = kBalancedThreads, IPT = kBalancedItemsPerThread, ITEMS = kBalancedItems;
    using Scan = SegmentedScan<V, T>;
    __shared__ V prod[ITEMS];   // the block's products a_ij·x_j, in entry order
    __shared__ int ends[ITEMS]; // the block's row ends, as entry offsets inside the block
    __shared__ typename Scan::Shared scan;

    const int tid = threadIdx.x;
    const int64_t b = blockIdx.x;
    const int64_t r0 = ld_ro(start_row + b), n0 = ld_ro(start_nz + b);
    const int nrows = int(int64_t(ld_ro(start_row + b + 1)) - r0);
    const int nnzb = int(int64_t(ld_ro(start_nz + b + 1)) - n0);

    // Stage: coalesced loads, a thread's IPT loads all issued before its gathers of x.
    stage_products<V, I, T, IPT>(col, val, x, n0, nnzb, prod);
    for (int k = tid; k < nrows; k += T) ends[k] = int(int64_t(ld_ro(rp + r0 + k + 1)) - n0);
    __syncthreads();

    // This thread's IPT path steps, from the point where its diagonal crosses the path.
    const int total = nrows + nnzb;
    const int d0 = min(tid * IPT, total), d1 = min(d0 + IPT, total);
    int lo = max(0, d0 - nnzb), hi = min(d0, nrows);
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (ends[mid] <= d0 - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    int i = lo, j = d0 - lo;
    V sum = V(0), first_sum = V(0);
    int first = -1; // the first row this thread ends (local), whose start may lie before it
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
        if (d0 + u < d1) {
            if (i < nrows && ends[i] <= j) { // row i ends here
                if (first < 0) first = i, first_sum = sum;
                else store_y(y, r0 + i, alpha, sum, beta);
                sum = V(0);
                ++i;
            } else {
                sum += prod[j];
                ++j;
            }
        }
    }

    int ex_flag;
    V ex_value, inc_value;
    Scan::run(scan, first >= 0, sum, ex_flag, ex_value, inc_value);
    if (first >= 0) {
        const V full = ex_value + first_sum;
        // The block's first ended row, begun in an earlier block: the fix-up adds the pieces.
        if (!ex_flag && int64_t(ld_ro(rp + r0)) < n0) head[b] = full;
        else store_y(y, r0 + first, alpha, full, beta);
    }
    if (tid == T - 1) tail[b] = inc_value;
    if constexpr (OneLaunch) {
        // This block's carries are visible to every block before it takes its ticket; the
        // block that takes the last one reads them all (past L1, which may hold none of them).
        __shared__ bool last;
        __threadfence();
        __syncthreads();
        if (tid == 0) last = atomicAdd(fix.ticket, 1u) == gridDim.x - 1;
        __syncthreads();
        if (!last) return;
        __threadfence();
        for (int64_t w = tid; w < fix.count; w += T) {
            const CrossingRow c = fix.list[w];
            V s = V(0);
            for (int64_t k = c.first; k < c.last; ++k) s += __ldcg(tail + k);
            store_y(y, c.row, alpha, s + __ldcg(head + c.last), beta);
        }
        if (tid == 0) *fix.ticket = 0u;
    }
}

template <typename V, typename I, int L>
cudaError_t lanes(const DeviceCsr &a, const I *rp, const I *col, const V *val, const Vectors<V> &v,
                  cudaStream_t stream) {
    unsigned blocks;
    if (cudaError_t e = grid_for(a.rows * L, kRowThreads, &blocks); e != cudaSuccess) return e;
    if (blocks == 0) return cudaSuccess;
    csr_lanes<V, I, L>
        <<<blocks, kRowThreads, 0, stream>>>(a.rows, rp, col, val, v.x, v.alpha, v.beta, v.y);
    return cudaGetLastError();
}

} // namespace spmv

template <typename V, typename I>
cudaError_t csr_product(const DeviceCsr &a, const Vectors<V> &v, V *carries, unsigned *ticket,
                        cudaStream_t stream) {
    using namespace spmv;
    const auto *rp = static_cast<const I *>(a.row_ptr);
    const auto *col = static_cast<const I *>(a.col);
    const auto *val = static_cast<const V *>(a.val);
    switch (a.kernel) {
    case CsrKernel::tiles: return tiles_product<V, I>(a, v, stream);
    case CsrKernel::merge: {
        if (a.blocks == 0) return cudaSuccess;
        V *tail = carries, *head = carries + a.blocks;
        const auto *sr = static_cast<const I *>(a.start_row);
        const auto *sn = static_cast<const I *>(a.start_nz);
        if (ticket && merge_one_launch(a)) {
            csr_merge<V, I, true><<<unsigned(a.blocks), kBalancedThreads, 0, stream>>>(
                rp, col, val, sr, sn, v.x, v.alpha, v.beta, v.y, tail, head,
                LastBlockFix{a.crossing, a.crossings, ticket});
            return cudaGetLastError();
        }
        csr_merge<V, I, false><<<unsigned(a.blocks), kBalancedThreads, 0, stream>>>(
            rp, col, val, sr, sn, v.x, v.alpha, v.beta, v.y, tail, head,
            LastBlockFix{nullptr, 0, nullptr});
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
        return launch_fix<V>(a.crossings, a.crossing, tail, head, v.alpha, v.beta, v.y, stream);
    }
    case CsrKernel::lanes2: return lanes<V, I, 2>(a, rp, col, val, v, stream);
    case CsrKernel::lanes4: return lanes<V, I, 4>(a, rp, col, val, v, stream);
    case CsrKernel::lanes8: return lanes<V, I, 8>(a, rp, col, val, v, stream);
    case CsrKernel::lanes16: return lanes<V, I, 16>(a, rp, col, val, v, stream);
    case CsrKernel::lanes32: return lanes<V, I, 32>(a, rp, col, val, v, stream);
    default: {
        unsigned blocks;
        if (cudaError_t e = grid_for(a.rows, kRowThreads, &blocks); e != cudaSuccess) return e;
        if (blocks == 0) return cudaSuccess;
        csr_rows<V, I>
            <<<blocks, kRowThreads, 0, stream>>>(a.rows, rp, col, val, v.x, v.alpha, v.beta, v.y);
        return cudaGetLastError();
    }
    }
}

#define TSR_CSR(V, I)                                                                              \
    template cudaError_t csr_product<V, I>(const DeviceCsr &, const Vectors<V> &, V *, unsigned *, \
                                           cudaStream_t);
TSR_CSR(float, int32_t)
TSR_CSR(float, int64_t)
TSR_CSR(double, int32_t)
TSR_CSR(double, int64_t)
#undef TSR_CSR

} // namespace tessera::cuda
