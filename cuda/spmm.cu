// Sparse × dense products on the CUDA backend, Y = alpha·op(A)·X + beta·Y, on the device CSR
// of A (or of Aᵀ).
//
// Row-major blocks: a group of G lanes takes one row; every lane reads the row's entries (one
// transaction per group: the same address), four at a time, and adds C vectors of W columns
// of X for them (16-byte loads where k, the leading dimensions and the pointers allow), the
// group's lanes taking consecutive vectors, so a row of X is one coalesced line per entry. G
// is the smallest power of two covering the k/W vectors, up to 32; wider blocks run several
// vectors per lane, and past 32·4 vectors further column blocks run as the grid's second
// dimension.
//
// Column-major blocks of fewer than 16 columns are read where they lie, a thread per row and
// up to 8 columns (a warp reads 32 rows' entries and writes 32 consecutive elements of a
// column of Y); wider ones are transposed into row-major blocks in the workspace first (and
// Y's back after, with beta applied there), in passes of columns where the blocks would take
// more than the workspace's budget (256 MiB).
//
// Rows longer than the chunk length (kBlockChunk, sparse_device.hpp) would hold one group for
// their whole length: a second kernel takes them in chunks of that many entries, each group
// writing the chunk's sums to the workspace, and a third adds each row's chunks in a fixed
// order and writes the row of Y. Host X and Y go through the state's staging buffers, as the
// vectors of spmv do.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "error.hpp"
#include "sparse_device.hpp"
#include "spmv.hpp"
#include "staging.hpp"
#include "state.hpp"

namespace tessera::cuda {

namespace {

constexpr int kBlockThreads = 256;
// Column-major blocks of this many columns or more are transposed: kTransposeColumns, or
// TESSERA_CUDA_SPMM_TRANSPOSE (for measuring; read once).
constexpr int64_t kTransposeColumns = 16;
int64_t transpose_columns() {
    static const int64_t k = [] {
        const int64_t n = setting_count("TESSERA_CUDA_SPMM_TRANSPOSE");
        return n > 0 ? n : kTransposeColumns;
    }();
    return k;
}

// Bytes of workspace for one pass: 256 MiB, or TESSERA_CUDA_SPMM_WORK (for testing; read once).
int64_t work_budget() {
    static const int64_t bytes = [] {
        const int64_t n = setting_count("TESSERA_CUDA_SPMM_WORK");
        return n > 0 ? n : int64_t(256) << 20;
    }();
    return bytes;
}

template <typename V, int W> struct Vec;
template <> struct Vec<float, 1> { using T = float; };
template <> struct Vec<float, 2> { using T = float2; };
template <> struct Vec<float, 4> { using T = float4; };
template <> struct Vec<double, 1> { using T = double; };
template <> struct Vec<double, 2> { using T = double2; };

template <typename V, typename P> __device__ __forceinline__ V &part_of(P &p, int e) {
    return reinterpret_cast<V *>(&p)[e];
}
template <typename V, typename P> __device__ __forceinline__ V value_of(const P &p, int e) {
    return reinterpret_cast<const V *>(&p)[e];
}

// One pass of a product: vectors of W columns, kv of them; X and Y already offset to the
// pass's first column.
template <typename V> struct Block {
    int64_t kv;
    V alpha;
    const V *X;
    int64_t ldx;
    V beta;
    V *Y;
    int64_t ldy;
    bool read_a; // alpha != 0: the entries and X are read
};

// acc[c] += Σ_p val[p] · X[col[p], vector jv0 + c·G] over the entries [p, end).
template <typename V, typename I, int W, int C, bool RowMajor>
__device__ __forceinline__ void
accumulate(typename Vec<V, W>::T (&acc)[C], const I *__restrict__ col, const V *__restrict__ val,
           int64_t p, int64_t end, const Block<V> &b, int64_t jv0, int G) {
    using P = typename Vec<V, W>::T;
    auto x_at = [&](int64_t i, int64_t jv) -> P {
        if constexpr (RowMajor) return __ldg(reinterpret_cast<const P *>(b.X + i * b.ldx) + jv);
        else return __ldg(b.X + i + jv * b.ldx);
    };
    auto add = [&](P &a, V v, const P &x) {
#pragma unroll
        for (int e = 0; e < W; ++e) part_of<V>(a, e) = fma(v, value_of<V>(x, e), part_of<V>(a, e));
    };
    // Four entries per step: four rows of X in flight.
    for (; p + 3 < end; p += 4) {
        int64_t c[4];
        V v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            c[u] = int64_t(col[p + u]);
            v[u] = val[p + u];
        }
#pragma unroll
        for (int cc = 0; cc < C; ++cc) {
            const int64_t jv = jv0 + int64_t(cc) * G;
            if (jv >= b.kv) continue;
            P x[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) x[u] = x_at(c[u], jv);
#pragma unroll
            for (int u = 0; u < 4; ++u) add(acc[cc], v[u], x[u]);
        }
    }
    for (; p < end; ++p) {
        const int64_t c0 = int64_t(col[p]);
        const V v0 = val[p];
#pragma unroll
        for (int cc = 0; cc < C; ++cc) {
            const int64_t jv = jv0 + int64_t(cc) * G;
            if (jv < b.kv) add(acc[cc], v0, x_at(c0, jv));
        }
    }
}

// Rows of A with at most `longest` entries, G = 1 << g_shift lanes each, C vectors per lane
// starting at blockIdx.y · G · C.
template <typename V, typename I, int W, int C, bool RowMajor>
__global__ void __launch_bounds__(kBlockThreads)
    block_rows(int64_t rows, int g_shift, const I *__restrict__ row_ptr, const I *__restrict__ col,
               const V *__restrict__ val, Block<V> b, int64_t longest) {
    using P = typename Vec<V, W>::T;
    const int G = 1 << g_shift;
    const int64_t row = (int64_t(blockIdx.x) * kBlockThreads + threadIdx.x) >> g_shift;
    const int lane = int(threadIdx.x & unsigned(G - 1));
    if (row >= rows) return;
    const int64_t jv0 = int64_t(blockIdx.y) * G * C + lane;
    P acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) acc[c] = P{};
    if (b.read_a) {
        const int64_t p = row_ptr[row], end = row_ptr[row + 1];
        if (end - p > longest) return; // the long rows' kernels write this row
        accumulate<V, I, W, C, RowMajor>(acc, col, val, p, end, b, jv0, G);
    }
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const int64_t jv = jv0 + int64_t(c) * G;
        if (jv >= b.kv) continue;
        P &y = RowMajor ? reinterpret_cast<P *>(b.Y + row * b.ldy)[jv]
                        : reinterpret_cast<P *>(b.Y + row + jv * b.ldy)[0];
        P out = acc[c];
        if (b.beta == V(0)) {
#pragma unroll
            for (int e = 0; e < W; ++e) part_of<V>(out, e) *= b.alpha;
        } else {
            const P old = y;
#pragma unroll
            for (int e = 0; e < W; ++e)
                part_of<V>(out, e) = b.alpha * part_of<V>(out, e) + b.beta * value_of<V>(old, e);
        }
        y = out;
    }
}

// The chunks of the long rows: chunk q's sums of its kv vectors into part[q · kv ...].
template <typename V, typename I, int W, int C, bool RowMajor>
__global__ void __launch_bounds__(kBlockThreads)
    block_chunks(DeviceRowChunks ch, int g_shift, const I *__restrict__ row_ptr,
                 const I *__restrict__ col, const V *__restrict__ val, Block<V> b,
                 typename Vec<V, W>::T *__restrict__ part) {
    using P = typename Vec<V, W>::T;
    const int G = 1 << g_shift;
    const int64_t q = (int64_t(blockIdx.x) * kBlockThreads + threadIdx.x) >> g_shift;
    const int lane = int(threadIdx.x & unsigned(G - 1));
    if (q >= ch.chunks) return;
    const int64_t jv0 = int64_t(blockIdx.y) * G * C + lane;
    const int64_t lr = ch.owner[q], row = ch.row[lr];
    const int64_t p = int64_t(row_ptr[row]) + (q - ch.first[lr]) * ch.len;
    const int64_t row_end = int64_t(row_ptr[row + 1]);
    const int64_t end = p + ch.len < row_end ? p + ch.len : row_end;
    P acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) acc[c] = P{};
    accumulate<V, I, W, C, RowMajor>(acc, col, val, p, end, b, jv0, G);
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const int64_t jv = jv0 + int64_t(c) * G;
        if (jv < b.kv) part[q * b.kv + jv] = acc[c];
    }
}

// Row ch.row[lr] of Y from its chunks' sums: a block per long row (grid x) and tile of TW =
// 1 << tw_shift columns (grid y); the block's S = 256 / TW slices of each column add the chunks
// s, s + S, ... in order, then the first slice adds the S sums in order (the same order on
// every call).
template <typename V, bool RowMajor>
__global__ void __launch_bounds__(kBlockThreads)
    block_long_rows(DeviceRowChunks ch, int64_t k, int tw_shift, const V *__restrict__ part,
                    Block<V> b) {
    __shared__ V sums[kBlockThreads];
    const int t = int(threadIdx.x), tw = 1 << tw_shift, slices = kBlockThreads >> tw_shift;
    const int jl = t & (tw - 1), slice = t >> tw_shift;
    const int64_t lr = blockIdx.x, j = int64_t(blockIdx.y) * tw + jl;
    V sum = V(0);
    if (j < k)
        for (int64_t q = ch.first[lr] + slice; q < ch.first[lr + 1]; q += slices)
            sum += part[q * k + j];
    sums[t] = sum;
    __syncthreads();
    if (slice != 0 || j >= k) return;
    for (int s = 1; s < slices; ++s) sum += sums[s * tw + jl];
    const int64_t row = ch.row[lr];
    V &y = RowMajor ? b.Y[row * b.ldy + j] : b.Y[row + j * b.ldy];
    y = b.beta == V(0) ? b.alpha * sum : b.alpha * sum + b.beta * y;
}

// out (cols × rows, row-major, leading dimension ldo) = in (rows × cols, row-major, ldi)ᵀ,
// plus beta·out where beta is not zero; 32 × 32 tiles through shared memory, the tiles of
// rows taken in turn by the grid's second dimension.
template <typename V>
__global__ void __launch_bounds__(32 * 8)
    transpose_block(int64_t rows, int64_t cols, const V *__restrict__ in, int64_t ldi,
                    V *__restrict__ out, int64_t ldo, V beta) {
    __shared__ V tile[32][33];
    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    const int64_t c0 = int64_t(blockIdx.x) * 32;
    for (int64_t r0 = int64_t(blockIdx.y) * 32; r0 < rows; r0 += int64_t(gridDim.y) * 32) {
#pragma unroll
        for (int i = 0; i < 32; i += 8) {
            const int64_t r = r0 + ty + i, c = c0 + tx;
            if (r < rows && c < cols) tile[ty + i][tx] = in[r * ldi + c];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 32; i += 8) {
            const int64_t c = c0 + ty + i, r = r0 + tx;
            if (r < rows && c < cols) {
                V &o = out[c * ldo + r];
                o = beta == V(0) ? tile[tx][ty + i] : tile[tx][ty + i] + beta * o;
            }
        }
        __syncthreads();
    }
}

template <typename V>
cudaError_t transpose(int64_t rows, int64_t cols, const V *in, int64_t ldi, V *out, int64_t ldo,
                      V beta, cudaStream_t stream) {
    if (rows == 0 || cols == 0) return cudaSuccess;
    const int64_t gx = (cols + 31) / 32, gy = std::min<int64_t>((rows + 31) / 32, 65535);
    if (gx > INT32_MAX) return cudaErrorInvalidConfiguration;
    transpose_block<V><<<dim3(unsigned(gx), unsigned(gy)), dim3(32, 8), 0, stream>>>(
        rows, cols, in, ldi, out, ldo, beta);
    return cudaGetLastError();
}

// Where A's arrays and the long rows are, for the launches of one product.
struct Csr {
    const DeviceCsr *a;
    const DeviceRowChunks *chunks; // null: every row in block_rows
};

int shift_for(int64_t vectors) {
    int s = 0;
    while (s < 5 && (int64_t(1) << s) < vectors) ++s;
    return s;
}

template <typename V, typename I, int W, int C, bool RowMajor>
cudaError_t launch_c(const Csr &a, const Block<V> &b, void *part, cudaStream_t stream,
                     int g_shift) {
    const int64_t G = int64_t(1) << g_shift;
    const int64_t per_block = kBlockThreads / G;
    const int64_t grid_y = (b.kv + G * C - 1) / (G * C);
    const auto *rp = static_cast<const I *>(a.a->row_ptr);
    const auto *ci = static_cast<const I *>(a.a->col);
    const auto *va = static_cast<const V *>(a.a->val);
    const bool split = a.chunks && a.chunks->chunks > 0;
    const int64_t grid_x = (a.a->rows + per_block - 1) / per_block;
    if (grid_x > INT32_MAX || grid_y > 65535) return cudaErrorInvalidConfiguration;
    block_rows<V, I, W, C, RowMajor>
        <<<dim3(unsigned(grid_x), unsigned(grid_y)), kBlockThreads, 0, stream>>>(
            a.a->rows, g_shift, rp, ci, va, b, split ? a.chunks->len : INT64_MAX);
    if (!split) return cudaGetLastError();
    using P = typename Vec<V, W>::T;
    const int64_t chunk_x = (a.chunks->chunks + per_block - 1) / per_block;
    if (chunk_x > INT32_MAX) return cudaErrorInvalidConfiguration;
    block_chunks<V, I, W, C, RowMajor>
        <<<dim3(unsigned(chunk_x), unsigned(grid_y)), kBlockThreads, 0, stream>>>(
            *a.chunks, g_shift, rp, ci, va, b, static_cast<P *>(part));
    const int64_t k = b.kv * W;
    const int tw_shift = shift_for(k);
    const int64_t sums_y = (k + (int64_t(1) << tw_shift) - 1) >> tw_shift;
    if (a.chunks->long_rows > INT32_MAX || sums_y > 65535) return cudaErrorInvalidConfiguration;
    block_long_rows<V, RowMajor>
        <<<dim3(unsigned(a.chunks->long_rows), unsigned(sums_y)), kBlockThreads, 0, stream>>>(
            *a.chunks, k, tw_shift, static_cast<const V *>(part), b);
    return cudaGetLastError();
}

// Column-major blocks read in place: a thread per row and up to 8 columns (`rows`), or a group
// of lanes per row, a column each (`lanes`, a line of X per column and entry).
// TESSERA_CUDA_SPMM_CM chooses (for measuring; read once).
bool columns_by_rows() {
    static const bool rows = [] {
        const char *v = setting("TESSERA_CUDA_SPMM_CM");
        return !(v && std::strcmp(v, "lanes") == 0);
    }();
    return rows;
}

// The lanes per row and vectors per lane for kv vectors.
template <typename V, typename I, int W, bool RowMajor>
cudaError_t launch_w(const Csr &a, const Block<V> &b, void *part, cudaStream_t stream) {
    if (!RowMajor && columns_by_rows()) {
        if (b.kv <= 1) return launch_c<V, I, W, 1, RowMajor>(a, b, part, stream, 0);
        if (b.kv <= 2) return launch_c<V, I, W, 2, RowMajor>(a, b, part, stream, 0);
        if (b.kv <= 4) return launch_c<V, I, W, 4, RowMajor>(a, b, part, stream, 0);
        return launch_c<V, I, W, 8, RowMajor>(a, b, part, stream, 0);
    }
    const int g = shift_for(b.kv);
    if (b.kv <= 32) return launch_c<V, I, W, 1, RowMajor>(a, b, part, stream, g);
    if (b.kv <= 64) return launch_c<V, I, W, 2, RowMajor>(a, b, part, stream, g);
    return launch_c<V, I, W, 4, RowMajor>(a, b, part, stream, g);
}

bool aligned(const void *p, int64_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// One pass of k columns; W as wide as the columns, leading dimensions and pointers allow, while
// it leaves four vectors or more (fewer, wider lanes lose more than the loads gain).
template <typename V, typename I>
cudaError_t launch(const Csr &a, bool row_major, int64_t k, Block<V> b, void *part,
                   cudaStream_t stream) {
    if (a.a->rows == 0 || k == 0) return cudaSuccess;
    auto fits = [&](int64_t w) {
        return row_major && k % w == 0 && k >= 4 * w && b.ldx % w == 0 && b.ldy % w == 0 &&
               aligned(b.X, w * int64_t(sizeof(V))) && aligned(b.Y, w * int64_t(sizeof(V)));
    };
    if constexpr (sizeof(V) == 4) {
        if (fits(4)) {
            b.kv = k / 4;
            return launch_w<V, I, 4, true>(a, b, part, stream);
        }
    }
    if (fits(2)) {
        b.kv = k / 2;
        return launch_w<V, I, 2, true>(a, b, part, stream);
    }
    b.kv = k;
    return row_major ? launch_w<V, I, 1, true>(a, b, part, stream)
                     : launch_w<V, I, 1, false>(a, b, part, stream);
}

// The bytes a block of `lines` lines of `along` elements (leading dimension ld) spans.
int64_t span_bytes(int64_t lines, int64_t along, int64_t ld, int64_t elem) {
    return lines == 0 || along == 0 ? 0 : ((lines - 1) * ld + along) * elem;
}

int64_t round_up(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

// The columns of one pass and the workspace it needs: the transposed blocks of X (in × kp)
// and Y (out × kp) where column-major blocks are transposed, and the chunks' partial sums.
struct Passes {
    bool transpose = false;
    int64_t width = 0;
    int64_t x_bytes = 0, y_bytes = 0, part_bytes = 0; // each a multiple of 256
};

Passes plan_passes(bool may_transpose, int64_t k, int64_t in, int64_t out, int64_t chunks,
                   int64_t elem) {
    auto width_for = [&](int64_t per_column) {
        if (per_column == 0) return k;
        const int64_t w = std::min(k, std::max<int64_t>(1, work_budget() / per_column));
        return w >= k ? k : w >= 32 ? w / 32 * 32 : w >= 4 ? w / 4 * 4 : w;
    };
    Passes p;
    if (may_transpose && k >= transpose_columns()) {
        const int64_t w = width_for((in + out + chunks) * elem);
        if (w >= std::min<int64_t>(k, 8)) {
            p.transpose = true;
            p.width = w;
        }
    }
    if (!p.transpose) p.width = width_for(chunks * elem);
    if (p.transpose) {
        p.x_bytes = round_up(in * p.width * elem, 256);
        p.y_bytes = round_up(out * p.width * elem, 256);
    }
    p.part_bytes = round_up(chunks * p.width * elem, 256);
    return p;
}

template <typename T>
tsr_status passes(State &s, const Csr &c, bool row_major, int64_t k, int64_t in, int64_t out,
                  const Block<T> &whole, int index_bytes) {
    const int64_t elem = int64_t(sizeof(T));
    const int64_t chunks = c.chunks ? c.chunks->chunks : 0;
    // Without alpha X is not read (it may be anything): no transposed blocks then.
    const Passes p = plan_passes(!row_major && whole.read_a, k, in, out, chunks, elem);
    const int64_t work = p.x_bytes + p.y_bytes + p.part_bytes;
    char *base = nullptr;
    cudaError_t e = cudaSuccess;
    if (work > 0) {
        if (!s.block_work_free)
            if (e = cudaEventCreateWithFlags(&s.block_work_free, cudaEventDisableTiming);
                e != cudaSuccess) {
                s.block_work_free = nullptr;
                return fail_cuda(e, "cannot create an event for the block products");
            }
        if (tsr_status st = s.block_work.reserve(size_t(work)); st != TSR_SUCCESS) return st;
        if (e = cudaStreamWaitEvent(s.stream, s.block_work_free, 0); e != cudaSuccess)
            return fail_cuda(e, "sparse x dense product");
        base = static_cast<char *>(s.block_work.ptr);
    }
    T *xt = reinterpret_cast<T *>(base), *yt = reinterpret_cast<T *>(base + p.x_bytes);
    void *part = base + p.x_bytes + p.y_bytes;
    auto run_pass = [&](bool rm, int64_t kp, const Block<T> &b) {
        return index_bytes == 4 ? launch<T, int32_t>(c, rm, kp, b, part, s.stream)
                                : launch<T, int64_t>(c, rm, kp, b, part, s.stream);
    };
    for (int64_t j0 = 0; j0 < k && e == cudaSuccess; j0 += p.width) {
        const int64_t kp = std::min(p.width, k - j0);
        Block<T> b = whole;
        if (!p.transpose) {
            if (whole.read_a) b.X = whole.X + (row_major ? j0 : j0 * whole.ldx);
            b.Y = whole.Y + (row_major ? j0 : j0 * whole.ldy);
            e = run_pass(row_major, kp, b);
            continue;
        }
        // X's kp columns (kp × in, row-major) become in × kp; Y = alpha·A·X goes to out × kp,
        // then back into Y's columns with beta.
        e = transpose<T>(kp, in, whole.X + j0 * whole.ldx, whole.ldx, xt, kp, T(0), s.stream);
        b.X = xt;
        b.ldx = kp;
        b.Y = yt;
        b.ldy = kp;
        b.beta = T(0);
        if (e == cudaSuccess) e = run_pass(true, kp, b);
        if (e == cudaSuccess)
            e = transpose<T>(out, kp, yt, kp, whole.Y + j0 * whole.ldy, whole.ldy, whole.beta,
                             s.stream);
    }
    if (e == cudaSuccess && work > 0) e = cudaEventRecord(s.block_work_free, s.stream);
    if (e != cudaSuccess) return fail_cuda(e, "sparse x dense kernel launch");
    return TSR_SUCCESS;
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
    const DeviceRowChunks *chunks = nullptr;
    if (read_a)
        if (tsr_status st = long_rows(*s, *a.A, *m, a.trans, &chunks); st != TSR_SUCCESS) return st;

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
    const Block<T> b{0, a.alpha, dx, a.ldx, a.beta, dy, a.ldy, read_a};
    if (tsr_status st = passes<T>(*s, Csr{csr, read_a ? chunks : nullptr}, a.row_major, a.k, in,
                                  out, b, m->index_bytes);
        st != TSR_SUCCESS)
        return st;
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
