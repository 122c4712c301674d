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
#include "sparse/choose_gpu.hpp"
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
    return fail(TSR_ERR_NOT_SUPPORTED, "the sparse matrix needs %lld thread blocks, more than a CUDA grid holds",
                (long long)blocks);
}

// TESSERA_CUDA_TILE_ROWS, TESSERA_CUDA_TILE_LONG and TESSERA_CUDA_TILE_SLABS: the gpu_tiles
// layout's R, long-row length and S instead of the automatic ones (for measuring). Read once.
int64_t env_count(const char *name) {
    const char *v = secure_getenv(name);
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

const TilesConfig &tiles_env() {
    static const TilesConfig config = [] {
        TilesConfig t;
        t.tile_rows = env_count("TESSERA_CUDA_TILE_ROWS");
        t.long_row = env_count("TESSERA_CUDA_TILE_LONG");
        t.slabs = env_count("TESSERA_CUDA_TILE_SLABS");
        return t;
    }();
    return config;
}

// The gpu_tiles layout of `a` on the device; *built false (nothing kept on the device) where
// it cannot be made: no rows, out of host or device memory, too many blocks, R beyond the
// shared memory. Other errors are returned.
template <typename V, typename I>
tsr_status upload_tiles(Copier &c, const sparse::Csr<V, I> &a, int threads, DeviceCsr &d, bool *built) {
    *built = false;
    if (a.rows == 0) return TSR_SUCCESS;
    TilesConfig config = tiles_env();
    int optin = 0;
    if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, c.s.dev.ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        optin = 48 * 1024;
    }
    // The kernel's own shared memory (the chunks' warp sums) is at most 16 doubles.
    const int64_t most = std::min<int64_t>(kTileMaxRows, (int64_t(optin) - 256) / int64_t(sizeof(V)));
    if (config.tile_rows == 0) config.tile_rows = kTileSharedBytes / int64_t(sizeof(V));
    config.tile_rows = std::min(config.tile_rows, most);
    // Blocks resident at once: kTilesPerSm per multiprocessor, fewer where R's sums fill its
    // shared memory (1 KiB of it reserved per block).
    int per_sm = 0;
    if (cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, c.s.dev.ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        per_sm = optin;
    }
    const int64_t fit = int64_t(per_sm) / (config.tile_rows * int64_t(sizeof(V)) + 1024);
    config.min_tiles = std::max<int64_t>(1, std::min<int64_t>(kTilesPerSm, fit)) * c.s.dev.sm_count;
    TileLayout<V, I> t;
    try {
        if (!build_tiles(a.rows, a.cols, a.row_ptr.data(), a.col.data(), a.val.data(), config, threads, &t))
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
    if (st == TSR_SUCCESS) st = c.put(t.tile_end, &p), dt.tile_end = static_cast<const int64_t *>(p);
    if (st == TSR_SUCCESS) st = c.put(t.col, &dt.col);
    if (st == TSR_SUCCESS) st = c.put(t.lrow, &p), dt.lrow = static_cast<const uint16_t *>(p);
    if (st == TSR_SUCCESS) st = c.put(t.val, &dt.val);
    if (st == TSR_SUCCESS) st = c.put(t.long_tiles, &p), dt.long_tile = static_cast<const LongTile *>(p);
    if (st == TSR_SUCCESS) st = c.put(t.long_rows, &p), dt.long_row = static_cast<const int64_t *>(p);
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
    d.kernel = sparse::Kernel::gpu_tiles;
    *built = true;
    return TSR_SUCCESS;
}

// `kernel` on `a`; gpu_tiles falls back to `fallback` where its layout cannot be made.
template <typename V, typename I>
tsr_status upload_csr(Copier &c, const sparse::Csr<V, I> &a, sparse::Kernel kernel, sparse::Kernel fallback,
                      int threads, DeviceCsr &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.nnz = a.nnz();
    if (kernel == sparse::Kernel::gpu_tiles) {
        bool built = false;
        TSR_TRY(upload_tiles(c, a, threads, d, &built));
        if (built) return TSR_SUCCESS;
        kernel = fallback;
    }
    d.kernel = kernel;
    TSR_TRY(c.put(a.row_ptr.data(), a.row_ptr.size(), &d.row_ptr));
    TSR_TRY(c.put(a.col.data(), d.nnz, &d.col));
    TSR_TRY(c.put(a.val.data(), d.nnz, &d.val));
    if (kernel != sparse::Kernel::gpu_merge || a.rows == 0) return TSR_SUCCESS;
    const MergeSplit<I> split = merge_split(a.rows, d.nnz, a.row_ptr.data());
    TSR_TRY(check_blocks(split.blocks()));
    d.blocks = split.blocks();
    d.crossings = int64_t(split.crossing.size());
    TSR_TRY(c.put(split.start_row, &d.start_row));
    TSR_TRY(c.put(split.start_nz, &d.start_nz));
    const void *crossing = nullptr;
    TSR_TRY(c.put(split.crossing, &crossing));
    d.crossing = static_cast<const CrossingRow *>(crossing);
    return TSR_SUCCESS;
}

template <typename V, typename I>
tsr_status upload_coo(Copier &c, const sparse::Coo<V, I> &a, bool list_empty_rows, DeviceCoo &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.nnz = a.nnz;
    TSR_TRY(c.put(a.row.data(), a.nnz, &d.row));
    TSR_TRY(c.put(a.col.data(), a.nnz, &d.col));
    TSR_TRY(c.put(a.val.data(), a.nnz, &d.val));
    const CooSplit<I> split = coo_split(a.rows, a.nnz, a.row.data(), list_empty_rows);
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

template <typename V, typename I> tsr_status upload_ell(Copier &c, const sparse::Ell<V, I> &a, DeviceEll &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.width = a.width;
    d.stride = a.stride;
    TSR_TRY(c.put(a.len.data(), a.len.size(), &d.len));
    TSR_TRY(c.put(a.col.data(), a.slots(), &d.col));
    TSR_TRY(c.put(a.val.data(), a.slots(), &d.val));
    return TSR_SUCCESS;
}

template <typename V> tsr_status upload_dia(Copier &c, const sparse::Dia<V> &a, DeviceDia &d) {
    d.rows = a.rows;
    d.cols = a.cols;
    d.ndiag = a.ndiag;
    d.stride = a.stride;
    const void *offset = nullptr;
    TSR_TRY(c.put(a.offset.data(), a.ndiag, &offset));
    d.offset = static_cast<const int64_t *>(offset);
    TSR_TRY(c.put(a.val.data(), a.slots(), &d.val));
    return TSR_SUCCESS;
}

// The GPU's CSR kernel: the plan's when the plan was made for a GPU, else the same rule
// applied here (the matrix was optimized on another backend, or never).
// TESSERA_CUDA_CSR_KERNEL=rows|lanes2|lanes4|lanes8|lanes16|lanes32|merge|tiles forces one kernel
// for every CSR matrix copied from then on (for measuring the kernels against each other; the
// verbose log keeps showing the plan's choice). Read once.
bool forced_csr_kernel(sparse::Kernel *out) {
    static const int forced = [] {
        const char *v = secure_getenv("TESSERA_CUDA_CSR_KERNEL");
        if (!v || !*v) return -1;
        const std::pair<const char *, sparse::Kernel> names[] = {
            {"rows", sparse::Kernel::gpu_rows},       {"lanes2", sparse::Kernel::gpu_lanes2},
            {"lanes4", sparse::Kernel::gpu_lanes4},   {"lanes8", sparse::Kernel::gpu_lanes8},
            {"lanes16", sparse::Kernel::gpu_lanes16}, {"lanes32", sparse::Kernel::gpu_lanes32},
            {"merge", sparse::Kernel::gpu_merge},     {"tiles", sparse::Kernel::gpu_tiles}};
        for (const auto &[name, kernel] : names)
            if (std::strcmp(v, name) == 0) return int(kernel);
        std::fprintf(stderr, "tessera: ignoring TESSERA_CUDA_CSR_KERNEL=%.64s (rows, lanes2..lanes32, merge or tiles)\n", v);
        return -1;
    }();
    if (forced >= 0) *out = sparse::Kernel(forced);
    return forced >= 0;
}

// The plan's kernel (or the GPU rule's); without gpu_tiles where `allow_tiles` is false.
template <typename V, typename I> sparse::Kernel plan_csr_kernel(const sparse::Typed<V, I> &t, bool allow_tiles) {
    if (sparse::is_gpu_kernel(t.plan.kernel) && (allow_tiles || t.plan.kernel != sparse::Kernel::gpu_tiles))
        return t.plan.kernel;
    const sparse::Structure *s = t.structure ? &*t.structure : nullptr;
    return allow_tiles ? sparse::gpu_csr_kernel(t.rows, s) : sparse::gpu_csr_kernel(t.rows, s, false);
}

template <typename V, typename I> sparse::Kernel csr_kernel(const sparse::Typed<V, I> &t) {
    if (sparse::Kernel k; forced_csr_kernel(&k)) return k;
    return plan_csr_kernel(t, true);
}

template <typename V, typename I> tsr_status upload(Copier &c, const sparse::Typed<V, I> &t, int threads) {
    DeviceMatrix &m = c.m;
    m.value_bytes = int(sizeof(V));
    m.index_bytes = int(sizeof(I));
    m.rows = t.csr.rows;
    m.cols = t.csr.cols;
    m.nnz = t.csr.nnz();
    m.format = t.plan.format;
    switch (t.plan.format) {
    case TSR_FORMAT_COO: return upload_coo(c, t.coo, true, m.coo);
    case TSR_FORMAT_ELL: return upload_ell(c, t.ell, m.ell);
    case TSR_FORMAT_DIA: return upload_dia(c, t.dia, m.dia);
    case TSR_FORMAT_HYB:
        TSR_TRY(upload_ell(c, t.hyb.ell, m.ell));
        return upload_coo(c, t.hyb.tail, false, m.hyb_tail);
    default:
        m.format = TSR_FORMAT_CSR;
        return upload_csr(c, t.csr, csr_kernel(t), plan_csr_kernel(t, false), threads, m.csr);
    }
}

} // namespace

tsr_status prepare_matrix(State &s, const sparse::Storage &A, int threads, DeviceMatrix **out) {
    *out = nullptr;
    std::unique_ptr<DeviceMatrix> m(new (std::nothrow) DeviceMatrix);
    if (!m) return fail(TSR_ERR_OUT_OF_MEMORY, "cannot allocate the device copy of a sparse matrix");
    m->device = s.dev.ordinal;
    Copier c{s, *m};
    tsr_status st;
    try {
        st = std::visit([&](const auto &t) { return upload(c, t, threads); }, A.typed);
    } catch (const std::bad_alloc &) {
        st = fail(TSR_ERR_OUT_OF_MEMORY, "out of host memory while copying a sparse matrix to the device");
    }
    if (st != TSR_SUCCESS) {
        release_matrix(m.release());
        return st;
    }
    *out = m.release();
    return TSR_SUCCESS;
}

tsr_status transposed(State &s, const sparse::Storage &A, int threads, DeviceMatrix &m, const DeviceCsr **out) {
    std::lock_guard<std::mutex> guard(m.transpose_lock);
    if (!m.has_transpose) {
        const size_t mark = m.allocations.size();
        Copier c{s, m};
        tsr_status st;
        try {
            st = std::visit(
                [&](const auto &t) {
                    const auto at = sparse::transpose(t.csr, threads);
                    const sparse::RowStats r = sparse::row_stats(at.rows, at.cols, at.row_ptr.data());
                    // Aᵀ runs the row kernels (never gpu_tiles: structure is not analysed here).
                    const sparse::Kernel k = sparse::gpu_csr_kernel(r, nullptr, false);
                    return upload_csr(c, at, k, k, threads, m.transpose);
                },
                A.typed);
        } catch (const std::bad_alloc &) {
            st = fail(TSR_ERR_OUT_OF_MEMORY, "out of host memory while transposing a sparse matrix");
        }
        if (st != TSR_SUCCESS) {
            free_from(m, mark);
            m.transpose = DeviceCsr{};
            return st;
        }
        m.has_transpose = true;
    }
    *out = &m.transpose;
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
