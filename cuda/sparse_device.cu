// Copying a sparse matrix to the device once: its format's arrays, the CSR kernel chosen for
// the GPU (choose_gpu.hpp) with the merge-path split or the tiles' layout where that kernel
// needs it, and the CSR of Aᵀ on first transposed use. Every allocation is checked and owned
// by the DeviceMatrix.
#include "sparse_device.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

#include "error.hpp"
#include "spmv_launch.hpp"
#include "spmv_rules.hpp"
#include "sparse/convert.hpp"
#include "sparse/structure.hpp"

namespace tessera::cuda {

namespace {

// Puts host arrays on the device, each in an allocation the matrix owns.
struct Copier {
    State &s;
    DeviceMatrix &m;

    template <typename T> tsr_status put(const T *host, int64_t count, const void **dst) {
        *dst = nullptr;
        if (count <= 0) return TSR_SUCCESS;
        const size_t bytes = size_t(count) * sizeof(T);
        void *p = nullptr;
        if (cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) {
            (void)cudaGetLastError();
            return fail(TSR_ERR_OUT_OF_MEMORY,
                        "cannot allocate %zu bytes of device memory for a sparse matrix (%zu bytes "
                        "of it are on the device already): %s",
                        bytes, m.bytes, cudaGetErrorString(e));
        }
        try {
            m.allocations.push_back(p);
        } catch (const std::bad_alloc &) {
            (void)cudaFree(p);
            throw;
        }
        m.bytes += bytes;
        cudaError_t e = cudaMemcpyAsync(p, host, bytes, cudaMemcpyHostToDevice, s.stream);
        // The host arrays may be temporaries: the copy must be done before they go.
        if (e == cudaSuccess) e = cudaStreamSynchronize(s.stream);
        if (e != cudaSuccess) return fail_cuda(e, "cannot copy a sparse matrix to the device");
        *dst = p;
        return TSR_SUCCESS;
    }
    template <typename T> tsr_status put(const std::vector<T> &host, const void **dst) {
        return put(host.data(), int64_t(host.size()), dst);
    }
};

#define TSR_TRY(expr)                                                                              \
    do {                                                                                           \
        if (tsr_status st_ = (expr); st_ != TSR_SUCCESS) return st_;                               \
    } while (0)

void free_from(DeviceMatrix &m, size_t mark) {
    for (size_t k = mark; k < m.allocations.size(); ++k) (void)cudaFree(m.allocations[k]);
    m.allocations.resize(mark);
}

tsr_status check_blocks(int64_t blocks) {
    if (blocks <= INT_MAX) return TSR_SUCCESS;
    return fail(TSR_ERR_NOT_SUPPORTED,
                "the sparse matrix needs %lld thread blocks, more than a CUDA grid holds",
                (long long)blocks);
}

// TESSERA_CUDA_TILE_ROWS, TESSERA_CUDA_TILE_LONG and TESSERA_CUDA_TILE_SLABS: the gpu_tiles
// layout's R, long-row length and S instead of the automatic ones (for measuring). Read once.

const TilesConfig &tiles_env() {
    static const TilesConfig config = [] {
        TilesConfig t;
        t.tile_rows = setting_count("TESSERA_CUDA_TILE_ROWS");
        t.long_row = setting_count("TESSERA_CUDA_TILE_LONG");
        t.slabs = setting_count("TESSERA_CUDA_TILE_SLABS");
        return t;
    }();
    return config;
}

// The gpu_tiles layout of `a` on the device; *built false (nothing kept on the device) where
// it cannot be made: no rows, out of host or device memory, too many blocks, R beyond the
// shared memory. Other errors are returned.
template <typename V, typename I>
tsr_status upload_tiles(Copier &c, const sparse::CsrRef<V, I> &a, int threads, DeviceCsr &d,
                        bool *built) {
    *built = false;
    if (a.rows == 0) return TSR_SUCCESS;
    TilesConfig config = tiles_env();
    int optin = 0;
    if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, c.s.dev.ordinal) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        optin = 48 * 1024;
    }
    // The kernel's own shared memory (the chunks' warp sums) is at most 16 doubles.
    const int64_t most =
        std::min<int64_t>(kTileMaxRows, (int64_t(optin) - 256) / int64_t(sizeof(V)));
    if (config.tile_rows == 0) config.tile_rows = kTileSharedBytes / int64_t(sizeof(V));
    config.tile_rows = std::min(config.tile_rows, most);
    // Blocks resident at once: kTilesPerSm per multiprocessor, fewer where R's sums fill its
    // shared memory (1 KiB of it reserved per block).
    int per_sm = 0;
    if (cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                               c.s.dev.ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        per_sm = optin;
    }
    const int64_t fit = int64_t(per_sm) / (config.tile_rows * int64_t(sizeof(V)) + 1024);
    config.min_tiles = std::max<int64_t>(1, std::min<int64_t>(kTilesPerSm, fit)) * c.s.dev.sm_count;
    TileLayout<V, I> t;
    try {
        if (!build_tiles(a.rows, a.cols, a.row_ptr.data(), a.col.data(), a.val.data(), config,
                         threads, &t))
            return TSR_SUCCESS;
    } catch (const std::bad_alloc &) {
        return TSR_SUCCESS;
    }
    if (t.tiles() + int64_t(t.long_tiles.size()) > INT_MAX) return TSR_SUCCESS;
    if (tiles_allow_shared<V, I>(size_t(t.tile_rows) * sizeof(V)) != cudaSuccess) {
        (void)cudaGetLastError();
        return TSR_SUCCESS;
    }
    const size_t mark = c.m.allocations.size(), bytes = c.m.bytes;
    DeviceTiles &dt = d.tiles;
    const void *p = nullptr;
    tsr_status st = c.put(t.tile_start, &p);
    dt.tile_start = static_cast<const int64_t *>(p);
    if (st == TSR_SUCCESS)
        st = c.put(t.tile_end, &p), dt.tile_end = static_cast<const int64_t *>(p);
    if (st == TSR_SUCCESS) st = c.put(t.col, &dt.col);
    if (st == TSR_SUCCESS) st = c.put(t.lrow, &p), dt.lrow = static_cast<const uint16_t *>(p);
    if (st == TSR_SUCCESS) st = c.put(t.val, &dt.val);
    if (st == TSR_SUCCESS)
        st = c.put(t.long_tiles, &p), dt.long_tile = static_cast<const LongTile *>(p);
    if (st == TSR_SUCCESS)
        st = c.put(t.long_rows, &p), dt.long_row = static_cast<const int64_t *>(p);
    if (st != TSR_SUCCESS) {
        dt = DeviceTiles{};
        if (st != TSR_ERR_OUT_OF_MEMORY) return st;
        free_from(c.m, mark); // the plain CSR may still fit
        c.m.bytes = bytes;
        return TSR_SUCCESS;
    }
    dt.tile_rows = t.tile_rows;
    dt.slabs = t.slabs;
    dt.tiles = t.tiles();
    dt.long_tiles = int64_t(t.long_tiles.size());
    d.kernel = CsrKernel::tiles;
    *built = true;
    return TSR_SUCCESS;
}

// `kernel` on `a`; gpu_tiles falls back to `fallback` where its layout cannot be made.
template <typename V, typename I>
tsr_status upload_csr(Copier &c, const sparse::CsrRef<V, I> &a, CsrKernel kernel,
                      CsrKernel fallback, int threads, DeviceCsr &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.nnz = a.nnz();
    if (kernel == CsrKernel::tiles) {
        bool built = false;
        TSR_TRY(upload_tiles(c, a, threads, d, &built));
        if (built) return TSR_SUCCESS;
        kernel = fallback;
    }
    d.kernel = kernel;
    TSR_TRY(c.put(a.row_ptr.data(), a.row_ptr.size(), &d.row_ptr));
    TSR_TRY(c.put(a.col.data(), d.nnz, &d.col));
    TSR_TRY(c.put(a.val.data(), d.nnz, &d.val));
    if (kernel != CsrKernel::merge || a.rows == 0) return TSR_SUCCESS;
    const MergeSplit<I> split = merge_split(a.rows, d.nnz, a.row_ptr.data());
    TSR_TRY(check_blocks(split.blocks()));
    d.blocks = split.blocks();
    d.crossings = int64_t(split.crossing.size());
    d.span = crossing_span(split.crossing);
    TSR_TRY(c.put(split.start_row, &d.start_row));
    TSR_TRY(c.put(split.start_nz, &d.start_nz));
    const void *crossing = nullptr;
    TSR_TRY(c.put(split.crossing, &crossing));
    d.crossing = static_cast<const CrossingRow *>(crossing);
    return TSR_SUCCESS;
}

template <typename V, typename I>
tsr_status upload_coo(Copier &c, const core::CooView &a, bool list_empty_rows, DeviceCoo &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.nnz = a.nnz;
    const I *row = static_cast<const I *>(a.row);
    TSR_TRY(c.put(row, a.nnz, &d.row));
    TSR_TRY(c.put(static_cast<const I *>(a.col), a.nnz, &d.col));
    TSR_TRY(c.put(static_cast<const V *>(a.val), a.nnz, &d.val));
    const CooSplit<I> split = coo_split(a.rows, a.nnz, row, list_empty_rows);
    TSR_TRY(check_blocks(split.blocks));
    d.blocks = split.blocks;
    d.crossings = int64_t(split.crossing.size());
    d.empty = int64_t(split.empty_rows.size());
    const void *crossing = nullptr;
    TSR_TRY(c.put(split.crossing, &crossing));
    d.crossing = static_cast<const CrossingRow *>(crossing);
    TSR_TRY(c.put(split.empty_rows, &d.empty_rows));
    return TSR_SUCCESS;
}

template <typename V, typename I>
tsr_status upload_ell(Copier &c, const core::EllView &a, DeviceEll &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.width = a.width;
    d.stride = a.stride;
    const int64_t slots = a.width * a.stride;
    TSR_TRY(c.put(static_cast<const I *>(a.len), a.stride, &d.len));
    TSR_TRY(c.put(static_cast<const I *>(a.col), slots, &d.col));
    TSR_TRY(c.put(static_cast<const V *>(a.val), slots, &d.val));
    return TSR_SUCCESS;
}

template <typename V> tsr_status upload_dia(Copier &c, const core::DiaView &a, DeviceDia &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.ndiag = a.ndiag;
    d.stride = a.stride;
    const void *offset = nullptr;
    TSR_TRY(c.put(a.offset, a.ndiag, &offset));
    d.offset = static_cast<const int64_t *>(offset);
    TSR_TRY(c.put(static_cast<const V *>(a.val), a.ndiag * a.stride, &d.val));
    return TSR_SUCCESS;
}

// The GPU's CSR kernel: the plan's when the plan was made for a GPU, else the same rule
// applied here (the matrix was optimized on another backend, or never).
// TESSERA_CUDA_CSR_KERNEL=rows|lanes2|lanes4|lanes8|lanes16|lanes32|merge|tiles forces one kernel
// for every CSR matrix copied from then on (for measuring the kernels against each other; the
// verbose log keeps showing the plan's choice). Read once.
bool forced_csr_kernel(CsrKernel *out) {
    static const int forced = [] {
        const char *v = setting("TESSERA_CUDA_CSR_KERNEL");
        if (!v || !*v) return -1;
        const std::pair<const char *, CsrKernel> names[] = {
            {"rows", CsrKernel::rows},       {"lanes2", CsrKernel::lanes2},
            {"lanes4", CsrKernel::lanes4},   {"lanes8", CsrKernel::lanes8},
            {"lanes16", CsrKernel::lanes16}, {"lanes32", CsrKernel::lanes32},
            {"merge", CsrKernel::merge},     {"tiles", CsrKernel::tiles}};
        for (const auto &[name, kernel] : names)
            if (std::strcmp(v, name) == 0) return int(kernel);
        std::fprintf(stderr,
                     "tessera: ignoring TESSERA_CUDA_CSR_KERNEL=%.64s (rows, lanes2..lanes32, "
                     "merge or tiles)\n",
                     v);
        return -1;
    }();
    if (forced >= 0) *out = CsrKernel(forced);
    return forced >= 0;
}

// The plan's kernel (or the GPU rule's); without gpu_tiles where `allow_tiles` is false.
CsrKernel plan_csr_kernel(const core::SparseView &t, bool allow_tiles) {
    const auto planned = CsrKernel(t.kernel);
    if (t.plan_by == core::kPlanByGpu && (allow_tiles || planned != CsrKernel::tiles))
        return planned;
    const sparse::Structure *s = t.has_structure ? &t.structure : nullptr;
    return allow_tiles ? gpu_csr_kernel(t.rows, s) : gpu_csr_kernel(t.rows, s, false);
}

CsrKernel csr_kernel(const core::SparseView &t) {
    if (CsrKernel k; forced_csr_kernel(&k)) return k;
    return plan_csr_kernel(t, true);
}

// The view's CSR with its types.
template <typename V, typename I> sparse::CsrRef<V, I> csr_of(const core::CsrView &a) {
    return {a.rows,
            a.cols,
            {static_cast<const I *>(a.row_ptr), a.row_ptr ? a.rows + 1 : 0},
            {static_cast<const I *>(a.col), a.nnz},
            {static_cast<const V *>(a.val), a.nnz}};
}

template <typename V, typename I>
tsr_status upload(Copier &c, const core::SparseView &t, int threads) {
    DeviceMatrix &m = c.m;
    m.value_bytes = int(sizeof(V));
    m.index_bytes = int(sizeof(I));
    m.rows = t.csr.rows;
    m.cols = t.csr.cols;
    m.nnz = t.csr.nnz;
    m.format = tsr_format(t.format);
    switch (m.format) {
    case TSR_FORMAT_COO: return upload_coo<V, I>(c, t.coo, true, m.coo);
    case TSR_FORMAT_ELL: return upload_ell<V, I>(c, t.ell, m.ell);
    case TSR_FORMAT_DIA: return upload_dia<V>(c, t.dia, m.dia);
    case TSR_FORMAT_HYB:
        TSR_TRY((upload_ell<V, I>(c, t.hyb_ell, m.ell)));
        return upload_coo<V, I>(c, t.hyb_tail, false, m.hyb_tail);
    default:
        m.format = TSR_FORMAT_CSR;
        return upload_csr(c, csr_of<V, I>(t.csr), csr_kernel(t), plan_csr_kernel(t, false), threads,
                          m.csr);
    }
}

// Calls f(V{}, I{}) for the view's value and index types.
template <typename F> tsr_status with_types(const core::SparseView &t, F &&f) {
    if (t.value_bytes == 4)
        return t.index_bytes == 4 ? f(float{}, int32_t{}) : f(float{}, int64_t{});
    return t.index_bytes == 4 ? f(double{}, int32_t{}) : f(double{}, int64_t{});
}

} // namespace

void sparse_plan(const core::SparsePlanRequest *q, core::SparsePlanAnswer *a) {
    const sparse::Plan p = plan_format(q->structure, tsr_format(q->requested),
                                       size_t(q->value_bytes), size_t(q->index_bytes));
    a->format = p.format;
    a->by = core::kPlanByGpu;
    a->kernel = p.kernel;
    a->tiled = 0; // gpu_tiles builds its own layout on the device copy
    std::snprintf(a->reason, sizeof a->reason, "%s", p.reason.c_str());
}

const char *sparse_kernel_name(const core::SparseView *A) {
    return kernel_name(tsr_format(A->format), plan_csr_kernel(*A, true));
}

tsr_status prepare_matrix(State &s, const core::SparseView &A, int threads, DeviceMatrix **out) {
    *out = nullptr;
    std::unique_ptr<DeviceMatrix> m(new (std::nothrow) DeviceMatrix);
    if (!m)
        return fail(TSR_ERR_OUT_OF_MEMORY, "cannot allocate the device copy of a sparse matrix");
    m->device = s.dev.ordinal;
    Copier c{s, *m};
    tsr_status st;
    try {
        st = with_types(
            A, [&](auto v, auto i) { return upload<decltype(v), decltype(i)>(c, A, threads); });
    } catch (const std::bad_alloc &) {
        st = fail(TSR_ERR_OUT_OF_MEMORY,
                  "out of host memory while copying a sparse matrix to the device");
    }
    if (st != TSR_SUCCESS) {
        release_matrix(m.release());
        return st;
    }
    *out = m.release();
    return TSR_SUCCESS;
}

namespace {

// A CSR of the matrix kept beside its format's arrays (Aᵀ, or A itself for the block
// products), made by `build(copier, V{}, I{})` on first need under the matrix's lock; on
// failure nothing of it stays on the device.
template <typename Build>
tsr_status extra_csr(State &s, const core::SparseView &A, DeviceMatrix &m, bool &has, DeviceCsr &d,
                     const char *what, Build &&build, const DeviceCsr **out) {
    std::lock_guard<std::mutex> guard(m.transpose_lock);
    if (!has) {
        const size_t mark = m.allocations.size();
        Copier c{s, m};
        tsr_status st;
        try {
            st = with_types(A, [&](auto v, auto i) { return build(c, v, i); });
        } catch (const std::bad_alloc &) {
            st = fail(TSR_ERR_OUT_OF_MEMORY, "out of host memory while %s", what);
        }
        if (st != TSR_SUCCESS) {
            free_from(m, mark);
            d = DeviceCsr{};
            return st;
        }
        has = true;
    }
    *out = &d;
    return TSR_SUCCESS;
}

} // namespace

int64_t setting_count(const char *name) {
    const char *v = setting(name);
    if (!v || !*v) return 0;
    char *end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    if (*end || n <= 0) {
        std::fprintf(stderr, "tessera: ignoring %s=%.64s%s (a positive count)\n", name, v,
                     std::strlen(v) > 64 ? "... (cut)" : "");
        return 0;
    }
    return n;
}

tsr_status transposed(State &s, const core::SparseView &A, int threads, DeviceMatrix &m,
                      const DeviceCsr **out) {
    return extra_csr(
        s, A, m, m.has_transpose, m.transpose, "transposing a sparse matrix",
        [&](Copier &c, auto v, auto i) {
            using V = decltype(v);
            using I = decltype(i);
            const auto at = sparse::transpose(csr_of<V, I>(A.csr), threads);
            const sparse::RowStats r = sparse::row_stats(at.rows, at.cols, at.row_ptr.data());
            // Aᵀ runs the row kernels (never gpu_tiles: structure is not analysed here).
            const CsrKernel k = gpu_csr_kernel(r, nullptr, false);
            return upload_csr(c, sparse::ref(at), k, k, threads, m.transpose);
        },
        out);
}

tsr_status plain_csr(State &s, const core::SparseView &A, int threads, DeviceMatrix &m,
                     const DeviceCsr **out) {
    if (m.format == TSR_FORMAT_CSR && m.csr.row_ptr) {
        *out = &m.csr;
        return TSR_SUCCESS;
    }
    return extra_csr(
        s, A, m, m.has_plain, m.plain, "copying a sparse matrix",
        [&](Copier &c, auto v, auto i) {
            using V = decltype(v);
            using I = decltype(i);
            return upload_csr(c, csr_of<V, I>(A.csr), CsrKernel::rows, CsrKernel::rows, threads,
                              m.plain);
        },
        out);
}

tsr_status long_rows(State &s, const core::SparseView &A, DeviceMatrix &m, bool trans,
                     const DeviceRowChunks **out) {
    std::lock_guard<std::mutex> guard(m.transpose_lock);
    static const int64_t chunk = [] {
        const int64_t n = setting_count("TESSERA_CUDA_SPMM_CHUNK");
        return n > 0 ? n : kBlockChunk;
    }();
    DeviceRowChunks &d = m.chunks[trans ? 1 : 0];
    if (!m.has_chunks[trans ? 1 : 0]) {
        d.len = chunk;
        const size_t mark = m.allocations.size();
        Copier c{s, m};
        tsr_status st;
        try {
            st = with_types(A, [&](auto v, auto i) {
                using I = decltype(i);
                const auto a = csr_of<decltype(v), I>(A.csr);
                // Row lengths of op(A): of A's rows, or the entries of each of A's columns.
                std::vector<int64_t> len(size_t(trans ? a.cols : a.rows), 0);
                if (trans)
                    for (int64_t p = 0; p < a.nnz(); ++p) ++len[size_t(a.col[p])];
                else
                    for (int64_t r = 0; r < a.rows; ++r)
                        len[size_t(r)] = int64_t(a.row_ptr[r + 1]) - int64_t(a.row_ptr[r]);
                std::vector<int64_t> row, first{0}, owner;
                for (size_t r = 0; r < len.size(); ++r) {
                    if (len[r] <= chunk) continue;
                    const int64_t n = (len[r] + chunk - 1) / chunk;
                    owner.insert(owner.end(), size_t(n), int64_t(row.size()));
                    row.push_back(int64_t(r));
                    first.push_back(first.back() + n);
                }
                d.long_rows = int64_t(row.size());
                d.chunks = int64_t(owner.size());
                if (row.empty()) return TSR_SUCCESS;
                const void *p[3];
                TSR_TRY(c.put(row, &p[0]));
                TSR_TRY(c.put(first, &p[1]));
                TSR_TRY(c.put(owner, &p[2]));
                d.row = static_cast<const int64_t *>(p[0]);
                d.first = static_cast<const int64_t *>(p[1]);
                d.owner = static_cast<const int64_t *>(p[2]);
                return TSR_SUCCESS;
            });
        } catch (const std::bad_alloc &) {
            st = fail(TSR_ERR_OUT_OF_MEMORY, "out of host memory while finding long rows");
        }
        if (st != TSR_SUCCESS) {
            free_from(m, mark);
            d = DeviceRowChunks{};
            return st;
        }
        m.has_chunks[trans ? 1 : 0] = true;
    }
    *out = &d;
    return TSR_SUCCESS;
}

void release_matrix(DeviceMatrix *m) {
    if (!m) return;
    {
        // cudaFree waits for the work in flight on the device, which may still read the arrays.
        DeviceScope scope(m->device);
        free_from(*m, 0);
    }
    (void)cudaGetLastError();
    delete m;
}

} // namespace tessera::cuda
