// Sparse × dense products on the CUDA backend, Y = alpha·op(A)·X + beta·Y, on the device CSR
// of A (or of Aᵀ). A group of G lanes takes one row: every lane reads the row's entries (one
// transaction per group: the same address), and each lane adds C columns of X for them, the
// group's lanes taking consecutive columns (row-major X: one coalesced line of a row of X per
// entry). G is the smallest power of two covering k, up to 32; wider blocks run several
// columns per lane, and past 32·4 columns further column blocks run as the grid's second
// dimension. Host X and Y go through the state's staging buffers, as the vectors of spmv do.
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>

#include "error.hpp"
#include "sparse_device.hpp"
#include "spmv.hpp"
#include "staging.hpp"
#include "state.hpp"

namespace tessera::cuda {

namespace {

constexpr int kBlockThreads = 256;
constexpr int kMostColumnsPerLane = 4;

template <typename V> struct Block {
    int64_t k;
    V alpha;
    const V *X;
    int64_t ldx;
    V beta;
    V *Y;
    int64_t ldy;
    bool read_a; // alpha != 0: the entries and X are read
};

// Rows of A, G lanes each, C columns per lane starting at blockIdx.y · G · C.
template <typename V, typename I, int G, int C, bool RowMajor>
__global__ void __launch_bounds__(kBlockThreads)
    spmm_rows(int64_t rows, const I *__restrict__ row_ptr, const I *__restrict__ col,
              const V *__restrict__ val, Block<V> b) {
    const int64_t row = (int64_t(blockIdx.x) * kBlockThreads + threadIdx.x) / G;
    const int lane = int(threadIdx.x % G);
    if (row >= rows) return;
    const int64_t j0 = int64_t(blockIdx.y) * G * C + lane;
    V sum[C];
#pragma unroll
    for (int c = 0; c < C; ++c) sum[c] = V(0);
    auto x_at = [&](int64_t i, int64_t j) {
        return RowMajor ? __ldg(b.X + i * b.ldx + j) : __ldg(b.X + i + j * b.ldx);
    };
    if (b.read_a) {
        const int64_t end = row_ptr[row + 1];
        int64_t p = row_ptr[row];
        // Two entries per step: two rows of X in flight.
        for (; p + 1 < end; p += 2) {
            const int64_t c0 = col[p], c1 = col[p + 1];
            const V v0 = val[p], v1 = val[p + 1];
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const int64_t j = j0 + int64_t(c) * G;
                if (j < b.k) sum[c] += v0 * x_at(c0, j) + v1 * x_at(c1, j);
            }
        }
        if (p < end) {
            const int64_t c0 = col[p];
            const V v0 = val[p];
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const int64_t j = j0 + int64_t(c) * G;
                if (j < b.k) sum[c] += v0 * x_at(c0, j);
            }
        }
    }
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const int64_t j = j0 + int64_t(c) * G;
        if (j >= b.k) continue;
        V &y = RowMajor ? b.Y[row * b.ldy + j] : b.Y[row + j * b.ldy];
        y = b.beta == V(0) ? b.alpha * sum[c] : b.alpha * sum[c] + b.beta * y;
    }
}

template <typename V, typename I, int G, int C>
cudaError_t launch_shape(const DeviceCsr &a, bool row_major, const Block<V> &b,
                         cudaStream_t stream) {
    const int64_t groups_per_block = kBlockThreads / G;
    const int64_t grid_x = (a.rows + groups_per_block - 1) / groups_per_block;
    const int64_t grid_y = (b.k + int64_t(G) * C - 1) / (int64_t(G) * C);
    if (grid_x > INT32_MAX || grid_y > 65535) return cudaErrorInvalidConfiguration;
    const dim3 grid{unsigned(grid_x), unsigned(grid_y)};
    const auto *rp = static_cast<const I *>(a.row_ptr);
    const auto *ci = static_cast<const I *>(a.col);
    const auto *va = static_cast<const V *>(a.val);
    if (row_major)
        spmm_rows<V, I, G, C, true><<<grid, kBlockThreads, 0, stream>>>(a.rows, rp, ci, va, b);
    else spmm_rows<V, I, G, C, false><<<grid, kBlockThreads, 0, stream>>>(a.rows, rp, ci, va, b);
    return cudaGetLastError();
}

// The group width and columns per lane for k columns.
template <typename V, typename I>
cudaError_t launch(const DeviceCsr &a, bool row_major, const Block<V> &b, cudaStream_t stream) {
    if (a.rows == 0) return cudaSuccess;
    if (b.k <= 1) return launch_shape<V, I, 1, 1>(a, row_major, b, stream);
    if (b.k <= 2) return launch_shape<V, I, 2, 1>(a, row_major, b, stream);
    if (b.k <= 4) return launch_shape<V, I, 4, 1>(a, row_major, b, stream);
    if (b.k <= 8) return launch_shape<V, I, 8, 1>(a, row_major, b, stream);
    if (b.k <= 16) return launch_shape<V, I, 16, 1>(a, row_major, b, stream);
    if (b.k <= 32) return launch_shape<V, I, 32, 1>(a, row_major, b, stream);
    if (b.k <= 64) return launch_shape<V, I, 32, 2>(a, row_major, b, stream);
    return launch_shape<V, I, 32, kMostColumnsPerLane>(a, row_major, b, stream);
}

// The bytes a block of `lines` lines of `along` elements (leading dimension ld) spans.
int64_t span_bytes(int64_t lines, int64_t along, int64_t ld, int64_t elem) {
    return lines == 0 || along == 0 ? 0 : ((lines - 1) * ld + along) * elem;
}

template <typename T> tsr_status run(const core::ExecContext *ctx, const core::SpmmArgs<T> &a) {
    State *s = state_of(ctx);
    if (!s) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    auto *m = static_cast<DeviceMatrix *>(a.prepared);
    if (!m || m->value_bytes != int(sizeof(T)))
        return fail(TSR_ERR_INTERNAL, "the sparse matrix has no device copy of this precision");
    if (m->device != s->dev.ordinal)
        return fail(TSR_ERR_NOT_SUPPORTED,
                    "the sparse matrix was copied to CUDA device %d; this handle uses device %d",
                    m->device, s->dev.ordinal);
    DeviceScope scope(s->dev.ordinal);
    if (scope.status() != cudaSuccess)
        return fail_cuda(scope.status(), "cannot select the CUDA device");

    const int threads = ctx ? ctx->num_threads : 1;
    const int64_t out = a.trans ? m->cols : m->rows, in = a.trans ? m->rows : m->cols;
    const bool read_a = a.alpha != T(0) && m->nnz > 0 && in > 0;
    const DeviceCsr *csr = nullptr;
    if (tsr_status st = a.trans ? transposed(*s, *a.A, threads, *m, &csr)
                                : plain_csr(*s, *a.A, threads, *m, &csr);
        st != TSR_SUCCESS)
        return st;

    const int64_t elem = int64_t(sizeof(T));
    const int64_t x_bytes =
        a.row_major ? span_bytes(in, a.k, a.ldx, elem) : span_bytes(a.k, in, a.ldx, elem);
    const int64_t y_bytes =
        a.row_major ? span_bytes(out, a.k, a.ldy, elem) : span_bytes(a.k, out, a.ldy, elem);
    const Memory ky = classify(a.Y);
    const Memory kx = read_a ? classify(a.X) : Memory::device;

    std::lock_guard<std::mutex> lock(s->staging);
    const T *dx = a.X;
    T *dy = a.Y;
    if (kx != Memory::device) {
        if (tsr_status st = s->vector[0].reserve(size_t(x_bytes)); st != TSR_SUCCESS) return st;
        if (tsr_status st = upload_bytes(*s, s->vector[0].ptr, a.X, x_bytes, kx); st != TSR_SUCCESS)
            return st;
        dx = static_cast<const T *>(s->vector[0].ptr);
    }
    if (ky != Memory::device) {
        // All of Y's span goes up, also for beta == 0: the padding between its lines comes
        // back as it was.
        if (tsr_status st = s->vector[1].reserve(size_t(y_bytes)); st != TSR_SUCCESS) return st;
        dy = static_cast<T *>(s->vector[1].ptr);
        if (tsr_status st = upload_bytes(*s, dy, a.Y, y_bytes, ky); st != TSR_SUCCESS) return st;
    }
    const Block<T> b{a.k, a.alpha, dx, a.ldx, a.beta, dy, a.ldy, read_a};
    const cudaError_t e = m->index_bytes == 4 ? launch<T, int32_t>(*csr, a.row_major, b, s->stream)
                                              : launch<T, int64_t>(*csr, a.row_major, b, s->stream);
    if (e != cudaSuccess) return fail_cuda(e, "sparse x dense kernel launch");
    if (ky != Memory::device) return download_bytes(*s, a.Y, dy, y_bytes, ky); // waits
    if (kx != Memory::device)
        if (cudaError_t w = cudaStreamSynchronize(s->stream); w != cudaSuccess)
            return fail_cuda(w, "sparse x dense product");
    return TSR_SUCCESS;
}

} // namespace

tsr_status spmm_f32(const core::ExecContext *ctx, const core::SpmmArgs<float> *args) {
    return run(ctx, *args);
}
tsr_status spmm_f64(const core::ExecContext *ctx, const core::SpmmArgs<double> *args) {
    return run(ctx, *args);
}

} // namespace tessera::cuda
