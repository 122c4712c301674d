// ELL, DIA and COO kernels and y = beta·y. ELL and DIA give each thread 16 bytes' worth of
// consecutive rows (4 in float, 2 in double) read with 128-bit loads, slot by slot or
// diagonal by diagonal; COO stages blocks of entries and joins each row's products with the
// segmented scan, rows cut by a block boundary finished by the fix-up (no atomics).
#include <algorithm>

#include "spmv_device.cuh"
#include "spmv_launch.hpp"

namespace tessera::cuda {

namespace spmv {

constexpr int kThreads = 256;

// ELL: padding slots are loaded with their slot (one vector load serves R rows) but never
// multiplied: row i stops at len[i].
template <typename V, typename I>
__global__ void __launch_bounds__(kThreads)
    ell_rows(int64_t rows, int64_t stride, const I *__restrict__ len, const I *__restrict__ col,
             const V *__restrict__ val, const V *__restrict__ x, V alpha, V beta,
             V *__restrict__ y) {
    constexpr int R = kRowsPerThread<V>;
    const int64_t i0 = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) * R;
    if (i0 >= rows) return;
    const Pack<I, R> n = ld_stream_pack<I, R>(len + i0);
    int64_t longest = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) longest = max(longest, int64_t(n.v[r]));
    V sum[R];
#pragma unroll
    for (int r = 0; r < R; ++r) sum[r] = V(0);
#pragma unroll 2
    for (int64_t k = 0; k < longest; ++k) {
        const int64_t at = k * stride + i0;
        const Pack<I, R> c = ld_stream_pack<I, R>(col + at);
        const Pack<V, R> a = ld_stream_pack<V, R>(val + at);
#pragma unroll
        for (int r = 0; r < R; ++r)
            if (k < int64_t(n.v[r])) sum[r] += a.v[r] * ld_ro(x + c.v[r]);
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
        if (i0 + r < rows) store_y(y, i0 + r, alpha, sum[r], beta);
}

// DIA: row i takes val[d·stride + i]·x[i + offset[d]] for the columns inside the matrix; zero
// values (the fill) are skipped, never multiplied, so a NaN of x stays in its own rows.
template <typename V>
__global__ void __launch_bounds__(kThreads)
    dia_rows(int64_t rows, int64_t cols, int64_t ndiag, int64_t stride,
             const int64_t *__restrict__ offset, const V *__restrict__ val, const V *__restrict__ x,
             V alpha, V beta, V *__restrict__ y) {
    constexpr int R = kRowsPerThread<V>;
    const int64_t i0 = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) * R;
    if (i0 >= rows) return;
    V sum[R];
#pragma unroll
    for (int r = 0; r < R; ++r) sum[r] = V(0);
    for (int64_t d = 0; d < ndiag; ++d) {
        const int64_t off = ld_ro(offset + d);
        const Pack<V, R> a = ld_stream_pack<V, R>(val + d * stride + i0);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int64_t j = i0 + r + off;
            if (j >= 0 && j < cols && a.v[r] != V(0)) sum[r] += a.v[r] * ld_ro(x + j);
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
        if (i0 + r < rows) store_y(y, i0 + r, alpha, sum[r], beta);
}

// DIA transposed: output j gathers A(j - offset[d], j) = val[d·stride + j - offset[d]].
template <typename V>
__global__ void __launch_bounds__(kThreads)
    dia_cols(int64_t rows, int64_t cols, int64_t ndiag, int64_t stride,
             const int64_t *__restrict__ offset, const V *__restrict__ val, const V *__restrict__ x,
             V alpha, V beta, V *__restrict__ y) {
    const int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    if (j >= cols) return;
    V sum = V(0);
    for (int64_t d = 0; d < ndiag; ++d) {
        const int64_t i = j - ld_ro(offset + d);
        if (i >= 0 && i < rows)
            if (const V a = ld_ro(val + d * stride + i); a != V(0)) sum += a * ld_ro(x + i);
    }
    store_y(y, j, alpha, sum, beta);
}

// COO, sorted by row: block b takes entries [b·ITEMS, (b+1)·ITEMS); a row ends where the next
// entry's row differs. As csr_merge: the block's first row, begun before it, goes to head[b],
// the row still open at its end to tail[b].
template <typename V, typename I>
__global__ void __launch_bounds__(kBalancedThreads, kBalancedMinBlocks)
    coo_blocks(int64_t nnz, const I *__restrict__ row, const I *__restrict__ col,
               const V *__restrict__ val, const V *__restrict__ x, V alpha, V beta,
               V *__restrict__ y, V *__restrict__ tail, V *__restrict__ head) {
    constexpr int T = kBalancedThreads, IPT = kBalancedItemsPerThread, ITEMS = kBalancedItems;
    using Scan = SegmentedScan<V, T>;
    __shared__ V prod[ITEMS];
    __shared__ I rows_of[ITEMS + 1]; // [ITEMS]: the row of the entry after the block, or -1
    __shared__ typename Scan::Shared scan;

    const int tid = threadIdx.x;
    const int64_t b = blockIdx.x, n0 = b * ITEMS;
    const int m = int(min(int64_t(ITEMS), nnz - n0));
    stage_products<V, I, T, IPT>(col, val, x, n0, m, prod);
    for (int k = tid; k < m; k += T) rows_of[k] = ld_stream(row + n0 + k);
    if (tid == 0) rows_of[m] = n0 + m < nnz ? ld_ro(row + n0 + m) : I(-1);
    __syncthreads();

    const int k0 = min(tid * IPT, m), k1 = min(k0 + IPT, m);
    V sum = V(0), first_sum = V(0);
    int first = -1; // the entry ending the first row this thread ends
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
        const int k = k0 + u;
        if (k < k1) {
            sum += prod[k];
            if (rows_of[k + 1] != rows_of[k]) { // row rows_of[k] ends here
                if (first < 0) first = k, first_sum = sum;
                else store_y(y, int64_t(rows_of[k]), alpha, sum, beta);
                sum = V(0);
            }
        }
    }

    int ex_flag;
    V ex_value, inc_value;
    Scan::run(scan, first >= 0, sum, ex_flag, ex_value, inc_value);
    if (first >= 0) {
        const V full = ex_value + first_sum;
        if (!ex_flag && b > 0 && ld_ro(row + n0 - 1) == rows_of[0]) head[b] = full;
        else store_y(y, int64_t(rows_of[first]), alpha, full, beta);
    }
    if (tid == T - 1) tail[b] = inc_value;
}

template <typename V, typename I>
__global__ void __launch_bounds__(kThreads)
    scale_rows(int64_t n, const I *__restrict__ list, V beta, V *__restrict__ y) {
    const int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    if (k >= n) return;
    const int64_t i = ld_ro(list + k);
    y[i] = beta == V(0) ? V(0) : beta * y[i];
}

template <typename V>
__global__ void __launch_bounds__(kThreads) scale(int64_t n, V beta, V *__restrict__ y) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        y[i] = beta == V(0) ? V(0) : beta * y[i];
}

} // namespace spmv

template <typename V, typename I>
cudaError_t ell_product(const DeviceEll &a, const Vectors<V> &v, cudaStream_t stream) {
    using namespace spmv;
    unsigned blocks;
    const int64_t threads = (a.rows + kRowsPerThread<V> - 1) / kRowsPerThread<V>;
    if (cudaError_t e = grid_for(threads, kThreads, &blocks); e != cudaSuccess) return e;
    if (blocks == 0) return cudaSuccess;
    ell_rows<V, I><<<blocks, kThreads, 0, stream>>>(
        a.rows, a.stride, static_cast<const I *>(a.len), static_cast<const I *>(a.col),
        static_cast<const V *>(a.val), v.x, v.alpha, v.beta, v.y);
    return cudaGetLastError();
}

template <typename V>
cudaError_t dia_product(const DeviceDia &a, bool trans, const Vectors<V> &v, cudaStream_t stream) {
    using namespace spmv;
    unsigned blocks;
    const auto *val = static_cast<const V *>(a.val);
    if (trans) {
        if (cudaError_t e = grid_for(a.cols, kThreads, &blocks); e != cudaSuccess) return e;
        if (blocks == 0) return cudaSuccess;
        dia_cols<V><<<blocks, kThreads, 0, stream>>>(a.rows, a.cols, a.ndiag, a.stride, a.offset,
                                                     val, v.x, v.alpha, v.beta, v.y);
        return cudaGetLastError();
    }
    const int64_t threads = (a.rows + kRowsPerThread<V> - 1) / kRowsPerThread<V>;
    if (cudaError_t e = grid_for(threads, kThreads, &blocks); e != cudaSuccess) return e;
    if (blocks == 0) return cudaSuccess;
    dia_rows<V><<<blocks, kThreads, 0, stream>>>(a.rows, a.cols, a.ndiag, a.stride, a.offset, val,
                                                 v.x, v.alpha, v.beta, v.y);
    return cudaGetLastError();
}

template <typename V, typename I>
cudaError_t coo_product(const DeviceCoo &a, const Vectors<V> &v, V *carries, cudaStream_t stream) {
    using namespace spmv;
    if (a.empty > 0 && v.beta != V(1)) {
        unsigned blocks;
        if (cudaError_t e = grid_for(a.empty, kThreads, &blocks); e != cudaSuccess) return e;
        scale_rows<V, I><<<blocks, kThreads, 0, stream>>>(
            a.empty, static_cast<const I *>(a.empty_rows), v.beta, v.y);
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    if (a.blocks == 0) return cudaSuccess;
    V *tail = carries, *head = carries + a.blocks;
    coo_blocks<V, I><<<unsigned(a.blocks), kBalancedThreads, 0, stream>>>(
        a.nnz, static_cast<const I *>(a.row), static_cast<const I *>(a.col),
        static_cast<const V *>(a.val), v.x, v.alpha, v.beta, v.y, tail, head);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    return launch_fix<V>(a.crossings, a.crossing, tail, head, v.alpha, v.beta, v.y, stream);
}

template <typename V> cudaError_t scale_vector(int64_t n, V beta, V *y, cudaStream_t stream) {
    if (n <= 0) return cudaSuccess;
    if (beta == V(0))
        return cudaMemsetAsync(y, 0, size_t(n) * sizeof(V), stream); // +0.0 in either type
    const int64_t blocks = std::min<int64_t>((n + spmv::kThreads - 1) / spmv::kThreads, 65536);
    spmv::scale<V><<<unsigned(blocks), spmv::kThreads, 0, stream>>>(n, beta, y);
    return cudaGetLastError();
}

#define TSR_FORMATS(V, I)                                                                          \
    template cudaError_t ell_product<V, I>(const DeviceEll &, const Vectors<V> &, cudaStream_t);   \
    template cudaError_t coo_product<V, I>(const DeviceCoo &, const Vectors<V> &, V *,             \
                                           cudaStream_t);
TSR_FORMATS(float, int32_t)
TSR_FORMATS(float, int64_t)
TSR_FORMATS(double, int32_t)
TSR_FORMATS(double, int64_t)
#undef TSR_FORMATS
template cudaError_t dia_product<float>(const DeviceDia &, bool, const Vectors<float> &,
                                        cudaStream_t);
template cudaError_t dia_product<double>(const DeviceDia &, bool, const Vectors<double> &,
                                         cudaStream_t);
template cudaError_t scale_vector<float>(int64_t, float, float *, cudaStream_t);
template cudaError_t scale_vector<double>(int64_t, double, double *, cudaStream_t);

} // namespace tessera::cuda
