// gemm on the CUDA backend: classify A, B and C (host or device), use device operands in place
// (asynchronous on the handle's stream), stage host ones through the pool, launch, check.
#include "gemm.hpp"

#include <strings.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "error.hpp"
#include "gemm_tiles.hpp"
#include "kernels.hpp"
#include "staging.hpp"
#include "state.hpp"
#include "tile_load.cuh"
#include "tuning.hpp"
#include "wgmma_gemm.hpp"

namespace tessera::cuda {

namespace {

// From the environment, once, when the plugin is loaded (read_kernel_choice).
KernelChoice choice;
bool verbose = false;
enum class Overlap { automatic, off, on }; // TESSERA_CUDA_OVERLAP
Overlap overlap = Overlap::automatic;
// TESSERA_CUDA_SPREAD: whether host-operand products spread over a handle's devices —
// automatic: products of 2^33 multiply-adds or more, cut at whole 128-wide tiles; off: never
// (the first device runs everything); on (for tests): any product, cut anywhere.
Overlap spreading = Overlap::automatic;
// TESSERA_CUDA_HOST_BLOCKS: the most blocks of C an overlapped host-operand product is cut into
// (0: the rule of overlap_plan; for measuring).
int64_t host_blocks = 0;
// TESSERA_CUDA_FRINGE: how a last, mostly empty row (or column) of tiles runs — automatic: as a
// product of its own where that saves the rest a wave (fringe_split); split: wherever the
// tiles fill a wave (the older rule, for measuring); off: in the grid with the rest.
enum class Fringe { automatic, split, off };
Fringe fringe_rule = Fringe::automatic;

// The tuning tables (TESSERA_CUDA_TUNING): the built-in ones (builtin_tuning.cpp), a file's,
// or none under `off`; each applies to devices of its multiprocessor count and compute
// capability (tuning_for), and is looked up through its index.
struct Tuning {
    TuningTable table;
    TuningIndex index;
};
std::vector<Tuning> tuning_tables;
std::atomic<unsigned> tuning_generation{0}; // read_tuning's count: the lookup memo's key

const Tuning *tuning_for(const DeviceInfo &dev) {
    for (const Tuning &t : tuning_tables)
        if (t.table.sm_count == dev.sm_count && t.table.cc_major == dev.cc_major &&
            t.table.cc_minor == dev.cc_minor)
            return &t;
    return nullptr;
}

// The table's pick, remembered per thread for the last few shapes: a lookup passes over the
// table's rows (a few microseconds), which a product of a few microseconds should not pay
// each time it is called again.
TuningPick remembered_lookup(const Tuning &t, char precision, bool ta, bool tb, int64_t m,
                             int64_t n, int64_t k, bool aligned) {
    struct Memo {
        unsigned generation = 0;
        const Tuning *table = nullptr;
        char precision = 0;
        bool ta = false, tb = false, aligned = false;
        int64_t m = 0, n = 0, k = 0;
        TuningPick pick;
    };
    constexpr int kMemos = 8;
    thread_local Memo memo[kMemos];
    thread_local int next = 0;
    const unsigned generation = tuning_generation.load(std::memory_order_acquire);
    for (const Memo &e : memo)
        if (e.table == &t && e.generation == generation && e.precision == precision && e.ta == ta &&
            e.tb == tb && e.aligned == aligned && e.m == m && e.n == n && e.k == k)
            return e.pick;
    Memo &e = memo[next];
    next = (next + 1) % kMemos;
    e = Memo{generation, &t, precision, ta, tb,
             aligned,    m,  n,         k,  t.index.lookup(precision, ta, tb, m, n, k, aligned)};
    return e.pick;
}

// The kernel settings for this product: where every one of them is automatic and a tuning
// table applies, the table's pick (tuning_lookup); otherwise kc as it is (the environment's
// settings, then the rules of kernels.cu). `aligned`: A, B and C 16-byte aligned with leading
// dimensions of whole vectors; the lookup prefers rows measured the same way. An aligned
// product whose m and n are whole multiples of the rules' tile keeps the rules: the table's
// training sides are random and almost never such multiples, while the rules were measured on
// them (powers of two, the gpu preset), where a tile without fringe wins. A table without
// aligned rows (an older one) was measured on leading dimensions padded at random, where the
// large tiles lose more than the small ones to unaligned copies: with such a table an aligned
// product also keeps the rules where they choose a large or a panel tile (SGEMM 256x128,
// 64x256, 256x64; DGEMM dmma 128x128). A DGEMM with a short k and a large C, or a thin one,
// keeps the rules (dgemm_short_k, dgemm_thin). The table's slices of k are refitted to the
// product's waves of blocks (fit_split_to_waves).
template <typename T>
KernelChoice tuned_choice(const DeviceInfo &dev, const core::GemmArgs<T> &a, const KernelChoice &kc,
                          bool aligned) {
    if (kc.split_k != 0 || kc.stream_k != StreamK::automatic || kc.tuned) return kc;
    if constexpr (sizeof(T) == 4) {
        if (kc.sgemm != kAutoTile || kc.math != SgemmMath::fp32) return kc;
    } else if (kc.dgemm != DgemmKernel::automatic || dev.cc_major < 8 ||
               dgemm_short_k(dev, a.m, a.n, a.k) || dgemm_thin(dev, a.m, a.n, a.k)) {
        return kc;
    }
    const Tuning *tuning = tuning_for(dev);
    if (!tuning) return kc;
    const char precision = sizeof(T) == 4 ? 's' : 'd';
    if (aligned) {
        const KernelTile t = kernel_tile(dev, int(sizeof(T)), a.m, a.n, a.k, kc);
        if (a.m % t.bm == 0 && a.n % t.bn == 0) return kc;
        if (!tuning->index.has_aligned(precision) && t.bm * t.bn >= 128 * 128) return kc;
    }
    const TuningTable *table = &tuning->table;
    const TuningPick pick =
        remembered_lookup(*tuning, precision, a.trans_a, a.trans_b, a.m, a.n, a.k, aligned);
    if (pick.candidate < 0) return kc;
    const TuningCandidate &c = table->candidates[size_t(pick.candidate)];
    KernelChoice out = kc;
    if constexpr (sizeof(T) == 4) {
        if (!parse_sgemm_tile(c.kernel.c_str(), &out.sgemm)) return kc;
        // A panel tile 64 wide across a side of 32 or less (picked from neighbours whose side
        // is wider) leaves half of its FMAs or more unused there: the 32-wide tile instead.
        constexpr int k256x64 = sgemm_tile_index("256x64"), k64x256 = sgemm_tile_index("64x256"),
                      k128x32 = sgemm_tile_index("128x32"), k32x128 = sgemm_tile_index("32x128");
        static_assert(k256x64 >= 0 && k64x256 >= 0 && k128x32 >= 0 && k32x128 >= 0,
                      "the panel tiles and the 32-wide tiles are rows of kSgemmTiles");
        if (out.sgemm == k256x64 && a.n <= kSgemmTiles[k128x32].bn) out.sgemm = k128x32;
        if (out.sgemm == k64x256 && a.m <= kSgemmTiles[k32x128].bm) out.sgemm = k32x128;
    } else if (!parse_dgemm_kernel(c.kernel.c_str(), &out.dgemm)) {
        return kc;
    }
    out.split_k = c.split_k;
    out.split_k = fit_split_to_waves(dev, int(sizeof(T)), a.m, a.n, a.k, out);
    out.stream_k = c.stream_k == 2 ? StreamK::on : c.stream_k == 1 ? StreamK::last : StreamK::off;
    out.tuned = &table->rows[size_t(pick.nearest)];
    return out;
}

bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// `panels`: the packed operands of the TF32 modes on wgmma (compute_wgmma), else null.
template <typename T>
cudaError_t launch_gemm(State &s, const core::GemmArgs<T> &a, const GemmParams<T> &p,
                        const KernelChoice &kc, const void *panels) {
    if constexpr (sizeof(T) == 4)
        return launch_sgemm(s.dev, s.stream, a.trans_a, a.trans_b, p, kc, panels);
    else return launch_dgemm(s.dev, s.stream, a.trans_a, a.trans_b, p, kc);
}

// Split-K: the kernel writes `slices` partial products (each over its slice of k) into slabs
// of the state's buffer, and a second kernel sums them into C with alpha and beta. Returns
// false, launching nothing, when the slabs cannot be had (the caller runs it unsplit).
template <typename T>
bool split_k_product(State &s, const core::GemmArgs<T> &a, GemmParams<T> p, int slices,
                     cudaError_t *e, const KernelChoice &kc, const void *panels) {
    constexpr int64_t vec = 16 / int64_t(sizeof(T));
    const int64_t ldw = (a.m + vec - 1) / vec * vec; // 16-byte aligned columns
    const int64_t k_split = split_k_depth(a.k, slices);
    slices = int((a.k + k_split - 1) / k_split);
    if (slices < 2) return false; // k too short for two 64-deep slices: no slabs, no sum
    std::lock_guard<std::mutex> lock(s.split);
    if (!s.split_free &&
        cudaEventCreateWithFlags(&s.split_free, cudaEventDisableTiming) != cudaSuccess) {
        s.split_free = nullptr;
        return false;
    }
    if (s.split_slabs.reserve(size_t(slices) * size_t(ldw) * size_t(a.n) * sizeof(T)) !=
        TSR_SUCCESS)
        return false;
    T *W = static_cast<T *>(s.split_slabs.ptr);
    const T alpha = p.alpha, beta = p.beta;
    T *C = p.C;
    const int64_t ldc = p.ldc;
    p.C = W, p.ldc = ldw, p.vec_c = true;
    p.alpha = T(1), p.beta = T(0);
    p.splits = slices, p.k_split = k_split;
    *e = cudaStreamWaitEvent(s.stream, s.split_free, 0);
    if (*e == cudaSuccess) *e = launch_gemm(s, a, p, kc, panels);
    if (*e == cudaSuccess)
        *e = launch_split_sum<T>(s.stream, slices, a.m, a.n, alpha, W, ldw, beta, C, ldc);
    if (*e == cudaSuccess) *e = cudaEventRecord(s.split_free, s.stream);
    return true;
}

// Stream-K (stream_k_plan): the first dp_tiles tiles in one launch, then the rest in spans of k
// steps, the cut tiles' pieces in the state's buffer, then their sums. Returns false, launching
// nothing, when the buffer cannot be had.
template <typename T>
bool stream_k_product(State &s, const core::GemmArgs<T> &a, GemmParams<T> p,
                      const StreamKPlan &plan, cudaError_t *e, const KernelChoice &kc) {
    const size_t slots = 2 * size_t(plan.sk_blocks) * size_t(plan.bm) * size_t(plan.bn) * sizeof(T);
    std::lock_guard<std::mutex> lock(s.split);
    if (!s.split_free &&
        cudaEventCreateWithFlags(&s.split_free, cudaEventDisableTiming) != cudaSuccess) {
        s.split_free = nullptr;
        return false;
    }
    if (s.split_slabs.reserve(slots) != TSR_SUCCESS) return false;
    *e = cudaStreamWaitEvent(s.stream, s.split_free, 0);
    if (*e == cudaSuccess && plan.dp_tiles > 0) {
        GemmParams<T> d = p;
        d.blocks = plan.dp_tiles;
        *e = launch_gemm(s, a, d, kc, nullptr);
    }
    p.sk_first = plan.dp_tiles, p.sk_tiles = plan.sk_tiles, p.sk_iters = plan.sk_iters;
    p.sk_blocks = plan.sk_blocks;
    p.sk_work = static_cast<T *>(s.split_slabs.ptr);
    if (*e == cudaSuccess) *e = launch_gemm(s, a, p, kc, nullptr);
    if (*e == cudaSuccess) *e = launch_stream_k_sum(s.stream, p, plan);
    if (*e == cudaSuccess) *e = cudaEventRecord(s.split_free, s.stream);
    return true;
}

template <typename T>
GemmParams<T> params_of(const core::GemmArgs<T> &a, const T *A, int64_t lda, const T *B,
                        int64_t ldb, T *C, int64_t ldc) {
    constexpr int64_t vec = 16 / int64_t(sizeof(T));
    GemmParams<T> p{};
    p.m = a.m, p.n = a.n, p.k = a.k;
    p.alpha = a.alpha, p.beta = a.beta;
    p.A = A, p.lda = lda, p.B = B, p.ldb = ldb, p.C = C, p.ldc = ldc;
    p.vec_a = aligned16(A) && lda % vec == 0;
    p.vec_b = aligned16(B) && ldb % vec == 0;
    p.vec_c = aligned16(C) && ldc % vec == 0;
    return p;
}

// The product of compute() once its kernel is chosen: split-K where it pays, else one launch;
// with the kernel named in the log under TESSERA_VERBOSE=1.
template <typename T>
cudaError_t launch_product(State &s, const core::GemmArgs<T> &a, const GemmParams<T> &p,
                           const KernelChoice &kc, const void *panels) {
    const int slices = split_k_slices(s.dev, int(sizeof(T)), a.m, a.n, a.k, kc);
    const StreamKPlan sk =
        stream_k_plan(s.dev, int(sizeof(T)), a.m, a.n, a.k, kc); // none where split-K runs
    if (verbose) {
        // One line per product, before the core's line for the call: which kernel ran.
        char line[240], split[80] = "";
        if (slices > 1) std::snprintf(split, sizeof split, ", k in up to %d slices", slices);
        if (sk.sk_blocks > 0)
            std::snprintf(split, sizeof split, ", stream-K over the last %lld tiles in %d spans",
                          (long long)sk.sk_tiles, sk.sk_blocks);
        if constexpr (sizeof(T) == 8)
            if (slices <= 1 && sk.sk_blocks == 0 && dgemm_persistent(s.dev, p, kc))
                std::snprintf(split, sizeof split, ", persistent");
        char source[96] = "";
        if (kc.tuned)
            std::snprintf(source, sizeof source, " (tuning table, nearest %c%c %lldx%lldx%lld)",
                          kc.tuned->ta ? 'T' : 'N', kc.tuned->tb ? 'T' : 'N',
                          (long long)kc.tuned->m, (long long)kc.tuned->n, (long long)kc.tuned->k);
        std::snprintf(line, sizeof line,
                      "tessera: cuda kernel %s%s for %cgemm %c%c m=%lld n=%lld k=%lld%s\n",
                      gemm_kernel_name(s.dev, int(sizeof(T)), a.m, a.n, a.k, kc), split,
                      sizeof(T) == 4 ? 's' : 'd', a.trans_a ? 'T' : 'N', a.trans_b ? 'T' : 'N',
                      (long long)a.m, (long long)a.n, (long long)a.k, source);
        std::fputs(line, stderr);
    }
    if (cudaError_t e = cudaSuccess; slices > 1 && split_k_product(s, a, p, slices, &e, kc, panels))
        return e;
    if (cudaError_t e = cudaSuccess; sk.sk_blocks > 0 && stream_k_product(s, a, p, sk, &e, kc))
        return e;
    return launch_gemm(s, a, p, kc, panels);
}

// The fringe of a product on tiles bm×bn: its last row of tiles when at most a quarter full
// (rows = m mod bm), else its last column of tiles when so (cols); both 0 where it stays in the
// grid. Automatic: split off only where the rest then takes fewer waves of the device's places
// than the whole grid would (4097² on 256×128 tiles: 561 blocks, five waves of 132, the 528
// others four); the fringe, a thin product, then runs on a kernel of its own choosing. A split
// that saves no wave only adds a launch after the rest, on a tile no faster (1678×2069×298 on
// 32×128 tiles: 901 blocks or 848, three waves of 396 either way).
struct FringeSplit {
    int64_t rows = 0, cols = 0;
};
template <typename T>
FringeSplit fringe_split(const DeviceInfo &dev, const core::GemmArgs<T> &a,
                         const KernelChoice &kc) {
    FringeSplit f;
    if (fringe_rule == Fringe::off) return f;
    const KernelTile t = kernel_tile(dev, int(sizeof(T)), a.m, a.n, a.k, kc);
    const int64_t places = int64_t(t.resident) * dev.sm_count;
    const int64_t tm = (a.m + t.bm - 1) / t.bm, tn = (a.n + t.bn - 1) / t.bn;
    if (tm * tn < places) return f;
    const int64_t rm = a.m % t.bm, rn = a.n % t.bn;
    auto waves = [places](int64_t tiles) { return (tiles + places - 1) / places; };
    const bool saves_rows = fringe_rule == Fringe::split || waves((tm - 1) * tn) < waves(tm * tn);
    const bool saves_cols = fringe_rule == Fringe::split || waves(tm * (tn - 1)) < waves(tm * tn);
    if (a.m > t.bm && rm > 0 && 4 * rm <= t.bm && saves_rows) f.rows = rm;
    else if (a.n > t.bn && rn > 0 && 4 * rn <= t.bn && saves_cols) f.cols = rn;
    return f;
}

template <typename T>
cudaError_t compute(State &s, const core::GemmArgs<T> &a, const T *A, int64_t lda, const T *B,
                    int64_t ldb, T *C, int64_t ldc, const KernelChoice &kc = choice);

// The TF32 modes on wgmma: op(A) and op(B) packed into the state's panels, then the product from
// them (no fringe products: the panels are padded to whole tiles already). Without the device
// memory for the panels, or for a grid beyond the kernels' limits, the mma.sync kernels run it.
cudaError_t compute_wgmma(State &s, const core::GemmArgs<float> &a, const float *A, int64_t lda,
                          const float *B, int64_t ldb, float *C, int64_t ldc,
                          const KernelChoice &kc) {
    const int terms = kc.math == SgemmMath::tf32x3 ? 3 : 1;
    const GemmParams<float> p = params_of(a, A, lda, B, ldb, C, ldc);
    if (wgmma_fits(a.m, a.n, a.k, terms)) {
        std::lock_guard<std::mutex> lock(s.panels_lock);
        if (!s.panels_free &&
            cudaEventCreateWithFlags(&s.panels_free, cudaEventDisableTiming) != cudaSuccess)
            s.panels_free = nullptr;
        else if (s.panels.reserve(wgmma_panel_bytes(a.m, a.n, a.k, terms)) == TSR_SUCCESS) {
            cudaError_t e = cudaStreamWaitEvent(s.stream, s.panels_free, 0);
            if (e == cudaSuccess)
                e = launch_wgmma_pack(s.stream, a.trans_a, a.trans_b, p, terms, s.panels.ptr);
            if (e == cudaSuccess) e = launch_product(s, a, p, kc, s.panels.ptr);
            if (e == cudaSuccess) e = cudaEventRecord(s.panels_free, s.stream);
            return e;
        }
    }
    KernelChoice mma = kc;
    mma.wgmma = false;
    return compute<float>(s, a, A, lda, B, ldb, C, ldc, mma);
}

template <typename T>
cudaError_t compute(State &s, const core::GemmArgs<T> &a, const T *A, int64_t lda, const T *B,
                    int64_t ldb, T *C, int64_t ldc, const KernelChoice &asked) {
    if (a.alpha == T(0) || a.k == 0) return launch_scale<T>(s.stream, a.m, a.n, a.beta, C, ldc);
    if constexpr (sizeof(T) == 4)
        if (use_wgmma(s.dev, asked)) return compute_wgmma(s, a, A, lda, B, ldb, C, ldc, asked);
    // The table's pick (or the rules') for the whole product holds for its fringe and main part.
    constexpr int64_t vec = 16 / int64_t(sizeof(T));
    const bool aligned = aligned16(A) && lda % vec == 0 && aligned16(B) && ldb % vec == 0 &&
                         aligned16(C) && ldc % vec == 0;
    const KernelChoice kc = tuned_choice(s.dev, a, asked, aligned);
    // A last row (or column) of tiles at most a quarter full runs as a product of its own after
    // the rest where fringe_split says so. It runs on the kernel the table picks for it (a thin
    // product's), or the rules', unless the whole product's came from the table and the
    // fringe's would not: a rules' pick for a thin product measured slower there than the
    // whole product's tile (449×3559×322: a fringe of one row on 64×256 tiles, not 32×128).
    if (const FringeSplit f = fringe_split(s.dev, a, kc); f.rows > 0 || f.cols > 0) {
        core::GemmArgs<T> main = a, fringe = a;
        if (f.rows > 0) fringe.m = f.rows;
        else fringe.n = f.cols;
        const KernelChoice own =
            fringe_rule == Fringe::split ||
                    (kc.tuned && !tuned_choice(s.dev, fringe, asked, aligned).tuned)
                ? kc
                : asked;
        if (f.rows > 0) {
            const int64_t i0 = a.m - f.rows;
            main.m = i0;
            if (cudaError_t e = compute<T>(s, main, A, lda, B, ldb, C, ldc, kc); e != cudaSuccess)
                return e;
            return compute<T>(s, fringe, a.trans_a ? A + i0 * lda : A + i0, lda, B, ldb, C + i0,
                              ldc, own);
        }
        const int64_t j0 = a.n - f.cols;
        main.n = j0;
        if (cudaError_t e = compute<T>(s, main, A, lda, B, ldb, C, ldc, kc); e != cudaSuccess)
            return e;
        return compute<T>(s, fringe, A, lda, a.trans_b ? B + j0 : B + j0 * ldb, ldb, C + j0 * ldc,
                          ldc, own);
    }
    return launch_product(s, a, params_of(a, A, lda, B, ldb, C, ldc), kc, nullptr);
}

// How a product with host operands is cut so that its transfers overlap its kernels: C in
// `blocks` blocks of columns, the first one's product over `slices` slices of k. Automatic:
// products of 2^37 multiply-adds or more (about 5200³; below that the blocks are too narrow,
// 4096³'s of 512 columns leaving half of the multiprocessors idle, and the product slows more
// than the overlap saves), blocks and slices of at least 512, at most 8 slices and 8 blocks,
// or more blocks (up to 32) while each keeps 2^24 elements of C. The first block of a C that is
// read goes up before any product (pinned C; a pageable one stays, beta_on_host) and the last
// comes back after them all, which many narrow blocks shorten;
// a block of fewer than about a thousand 128² tiles loses more to its last, partial wave of
// tiles (docs/backends.md, host operands). `on` (for tests) cuts any product into blocks and
// slices of 16 or more.
struct OverlapPlan {
    int64_t blocks = 1, slices = 1;
    bool used() const { return blocks > 1 || slices > 1; }
};

OverlapPlan overlap_plan(int64_t m, int64_t n, int64_t k) {
    OverlapPlan p;
    if (overlap == Overlap::off) return p;
    const int64_t piece = overlap == Overlap::on ? 16 : 512;
    if (overlap == Overlap::automatic &&
        double(m) * double(n) * double(k) < double(int64_t(1) << 37))
        return p;
    const double c_blocks = double(m) * double(n) / double(int64_t(1) << 24);
    const int64_t most =
        host_blocks > 0 ? host_blocks : std::max<int64_t>(8, int64_t(std::min(32.0, c_blocks)));
    p.blocks = std::min<int64_t>(most, std::max<int64_t>(1, n / piece));
    p.slices = std::min<int64_t>(8, std::max<int64_t>(1, k / piece));
    return p;
}

// A spread product's shared operand (spread), arriving on the device in pieces of k while the
// first block of C is computed: `ranges` holds each piece's range of k in the order the pieces
// arrive, and `arrive(p)` orders piece p's arrival (on the copy stream, or on another one that
// the state's stream then waits for).
struct Arrival {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    std::function<tsr_status(size_t)> arrive;
};

// Host operands with the transfers overlapping the kernels, on a copy stream beside the
// handle's: the first block of C is computed slice by slice of k as A's slices (or the pieces
// of `arrival`) arrive, with that block's C sent first when it is read from pinned memory and
// its rows of op(B) beside each slice; every later block's B (and pinned C) goes up while the
// previous block computes, and each finished block of C comes back while the next one computes. The
// host's copies into the pinned ring, the transfers and the kernels all run at once. Called with
// the staging lock held and alpha != 0, k > 0.
template <typename T>
tsr_status overlapped(State &s, const core::GemmArgs<T> &a, Memory ka, Memory kb, Memory kc,
                      OverlapPlan plan, const Arrival *arrival = nullptr) {
    if (!s.copies && cudaStreamCreateWithFlags(&s.copies, cudaStreamNonBlocking) != cudaSuccess)
        return s.copies = nullptr,
               fail(TSR_ERR_BACKEND_UNAVAILABLE, "cannot create the CUDA copy stream");
    for (cudaEvent_t *ev : {&s.uploaded, &s.computed[0], &s.computed[1]})
        if (!*ev && cudaEventCreateWithFlags(ev, cudaEventDisableTiming) != cudaSuccess)
            return *ev = nullptr, fail(TSR_ERR_BACKEND_UNAVAILABLE, "cannot create a CUDA event");
    const int64_t m = a.m, n = a.n, k = a.k, elem = int64_t(sizeof(T));
    const bool read_c = a.beta != T(0);
    // Pageable C stays on the host until it comes back, beta applied there (beta_on_host).
    const bool host_beta = beta_on_host(kc, read_c);
    const double beta = double(a.beta);
    // Device views of op(A), op(B) and C: the pool's copies of host operands (whole matrices,
    // leading dimension their rows), or the caller's device memory in place.
    const T *Ad = a.A, *Bd = a.B;
    T *Cd = a.C;
    int64_t lda = a.lda, ldb = a.ldb, ldc = a.ldc;
    const int64_t a_rows = a.trans_a ? k : m, b_rows = a.trans_b ? n : k;
    if (ka != Memory::device) {
        if (tsr_status st = s.operand[0].reserve(size_t(m * k * elem)); st != TSR_SUCCESS)
            return st;
        Ad = static_cast<const T *>(s.operand[0].ptr), lda = a_rows;
    }
    if (kb != Memory::device) {
        if (tsr_status st = s.operand[1].reserve(size_t(k * n * elem)); st != TSR_SUCCESS)
            return st;
        Bd = static_cast<const T *>(s.operand[1].ptr), ldb = b_rows;
    }
    if (kc != Memory::device) {
        if (tsr_status st = s.operand[2].reserve(size_t(m * n * elem)); st != TSR_SUCCESS)
            return st;
        Cd = static_cast<T *>(s.operand[2].ptr), ldc = m;
    }
    // Columns l0 .. l1-1 of op(A); rows l0 .. l1-1 of columns j0 .. j1-1 of op(B); columns
    // j0 .. j1-1 of C (when it is read): on the copy stream.
    auto up_a = [&](int64_t l0, int64_t l1) {
        if (ka == Memory::device) return TSR_SUCCESS;
        T *d = const_cast<T *>(Ad);
        return a.trans_a ? upload(s, d + l0, a.A + l0, l1 - l0, m, a.lda, elem, ka, s.copies, lda)
                         : upload(s, d + l0 * lda, a.A + l0 * a.lda, m, l1 - l0, a.lda, elem, ka,
                                  s.copies);
    };
    auto up_b = [&](int64_t j0, int64_t j1, int64_t l0, int64_t l1) {
        if (kb == Memory::device) return TSR_SUCCESS;
        T *d = const_cast<T *>(Bd);
        return a.trans_b ? upload(s, d + j0 + l0 * ldb, a.B + j0 + l0 * a.ldb, j1 - j0, l1 - l0,
                                  a.ldb, elem, kb, s.copies, ldb)
                         : upload(s, d + l0 + j0 * ldb, a.B + l0 + j0 * a.ldb, l1 - l0, j1 - j0,
                                  a.ldb, elem, kb, s.copies, ldb);
    };
    auto up_c = [&](int64_t j0, int64_t j1) {
        if (kc == Memory::device || !read_c || host_beta) return TSR_SUCCESS;
        return upload(s, Cd + j0 * ldc, a.C + j0 * a.ldc, m, j1 - j0, a.ldc, elem, kc, s.copies);
    };
    auto uploaded = [&]() -> tsr_status { // the handle's stream waits for what was sent so far
        cudaError_t e = cudaEventRecord(s.uploaded, s.copies);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(s.stream, s.uploaded, 0);
        return e == cudaSuccess ? TSR_SUCCESS
                                : fail_cuda(e, "cannot order the copies before the product");
    };
    // C[:, j0:j1] (+)= op(A)[:, l0:l1]·op(B)[l0:l1, j0:j1], beta for the first slice only (0
    // when the host applies it).
    auto product = [&](int64_t j0, int64_t j1, int64_t l0, int64_t l1, bool first) -> tsr_status {
        core::GemmArgs<T> part = a;
        part.n = j1 - j0, part.k = l1 - l0;
        if (!first) part.beta = T(1);
        else if (host_beta) part.beta = T(0);
        const T *A = a.trans_a ? Ad + l0 : Ad + l0 * lda;
        const T *B = a.trans_b ? Bd + j0 + l0 * ldb : Bd + l0 + j0 * ldb;
        cudaError_t e = compute<T>(s, part, A, lda, B, ldb, Cd + j0 * ldc, ldc);
        return e == cudaSuccess ? TSR_SUCCESS : fail_cuda(e, "gemm kernel launch");
    };
    auto computed = [&](int64_t b) -> tsr_status {
        cudaError_t e = cudaEventRecord(s.computed[b & 1], s.stream);
        return e == cudaSuccess ? TSR_SUCCESS : fail_cuda(e, "cannot record the end of a product");
    };
    auto down_c = [&](int64_t b, int64_t j0, int64_t j1) -> tsr_status {
        if (kc == Memory::device) return TSR_SUCCESS;
        if (cudaError_t e = cudaStreamWaitEvent(s.copies, s.computed[b & 1], 0); e != cudaSuccess)
            return fail_cuda(e, "cannot order C's copy after its product");
        return download(s, a.C + j0 * a.ldc, Cd + j0 * ldc, m, j1 - j0, a.ldc, elem, kc, s.copies,
                        host_beta ? &beta : nullptr);
    };
    // With pieces arriving (spread), the first block is twice as wide as the others, so that
    // its product lasts about as long as the pieces take to come; the blocks' edges then fall
    // on whole 256-wide tiles where the blocks are that wide (a ragged edge would cost every
    // block a fringe product).
    auto col = [&](int64_t b) {
        if (!arrival) return n * b / plan.blocks;
        if (b == 0 || b == plan.blocks) return b == 0 ? int64_t(0) : n;
        const int64_t edge = n * (b + 1) / (plan.blocks + 1);
        return n / (plan.blocks + 1) >= 256 ? (edge + 128) / 256 * 256 : edge;
    };
    auto depth = [&](int64_t l) { return k * l / plan.slices; };

    if (verbose)
        std::fprintf(stderr,
                     "tessera: cuda host operands: C in %lld column blocks, the first over %lld "
                     "slices of k\n",
                     (long long)plan.blocks, (long long)plan.slices);
    tsr_status st = up_c(col(0), col(1));
    const size_t first_slices = arrival ? arrival->ranges.size() : size_t(plan.slices);
    bool first = true; // no slice of the first block has run yet: the next one applies beta
    for (size_t l = 0; l < first_slices && st == TSR_SUCCESS; ++l) {
        const auto [l0, l1] =
            arrival ? arrival->ranges[l]
                    : std::pair<int64_t, int64_t>{depth(int64_t(l)), depth(int64_t(l) + 1)};
        st = up_a(l0, l1);
        if (st == TSR_SUCCESS && arrival) st = arrival->arrive(l);
        if (st != TSR_SUCCESS || l1 == l0) continue;
        st = up_b(col(0), col(1), l0, l1);
        if (st == TSR_SUCCESS) st = uploaded();
        if (st == TSR_SUCCESS) st = product(col(0), col(1), l0, l1, first);
        first = false;
    }
    if (st == TSR_SUCCESS) st = computed(0);
    for (int64_t b = 1; b < plan.blocks && st == TSR_SUCCESS; ++b) {
        st = up_b(col(b), col(b + 1), 0, k);
        if (st == TSR_SUCCESS) st = up_c(col(b), col(b + 1));
        if (st == TSR_SUCCESS) st = uploaded();
        if (st == TSR_SUCCESS) st = product(col(b), col(b + 1), 0, k, true);
        if (st == TSR_SUCCESS) st = computed(b);
        if (st == TSR_SUCCESS) st = down_c(b - 1, col(b - 1), col(b));
    }
    if (st == TSR_SUCCESS) st = down_c(plan.blocks - 1, col(plan.blocks - 1), n);
    // Nothing may still read or write the pool and the pinned ring when the next call takes them.
    const cudaError_t e1 = cudaStreamSynchronize(s.copies), e2 = cudaStreamSynchronize(s.stream);
    if (st != TSR_SUCCESS) return st;
    if (e1 != cudaSuccess || e2 != cudaSuccess)
        return fail_cuda(e1 != cudaSuccess ? e1 : e2, "gemm");
    return TSR_SUCCESS;
}

// The product on one device's state, its operands classified already.
template <typename T>
tsr_status run_on(State *s, const core::GemmArgs<T> &a, Memory ka, Memory kb, Memory kc) {
    DeviceScope scope(s->dev.ordinal);
    if (scope.status() != cudaSuccess)
        return fail_cuda(scope.status(), "cannot select the CUDA device");

    const bool product = a.alpha != T(0) && a.k > 0; // otherwise A and B are not read
    const bool read_c = a.beta != T(0);
    const bool host_beta = beta_on_host(kc, read_c);
    const int64_t a_rows = a.trans_a ? a.k : a.m, a_cols = a.trans_a ? a.m : a.k;
    const int64_t b_rows = a.trans_b ? a.n : a.k, b_cols = a.trans_b ? a.k : a.n;

    if (ka == Memory::device && kb == Memory::device && kc == Memory::device) {
        // All on the device: in place, asynchronous on the stream, as a device library does.
        cudaError_t e = compute<T>(*s, a, a.A, a.lda, a.B, a.ldb, a.C, a.ldc);
        return e == cudaSuccess ? TSR_SUCCESS : fail_cuda(e, "gemm kernel launch");
    }

    std::lock_guard<std::mutex> lock(s->staging);
    if (product && (ka != Memory::device || kb != Memory::device))
        if (const OverlapPlan plan = overlap_plan(a.m, a.n, a.k); plan.used())
            return overlapped<T>(*s, a, ka, kb, kc, plan);
    const T *dA = a.A, *dB = a.B;
    T *dC = a.C;
    int64_t lda = a.lda, ldb = a.ldb, ldc = a.ldc;
    const int64_t elem = int64_t(sizeof(T));
    if (ka != Memory::device) {
        if (tsr_status st = s->operand[0].reserve(size_t(a_rows * a_cols * elem));
            st != TSR_SUCCESS)
            return st;
        dA = static_cast<const T *>(s->operand[0].ptr), lda = a_rows;
        if (tsr_status st = upload(*s, s->operand[0].ptr, a.A, a_rows, a_cols, a.lda, elem, ka);
            st != TSR_SUCCESS)
            return st;
    }
    if (kb != Memory::device) {
        if (tsr_status st = s->operand[1].reserve(size_t(b_rows * b_cols * elem));
            st != TSR_SUCCESS)
            return st;
        dB = static_cast<const T *>(s->operand[1].ptr), ldb = b_rows;
        if (tsr_status st = upload(*s, s->operand[1].ptr, a.B, b_rows, b_cols, a.ldb, elem, kb);
            st != TSR_SUCCESS)
            return st;
    }
    if (kc != Memory::device) {
        if (tsr_status st = s->operand[2].reserve(size_t(a.m * a.n * elem)); st != TSR_SUCCESS)
            return st;
        dC = static_cast<T *>(s->operand[2].ptr), ldc = a.m;
        if (read_c && !host_beta)
            if (tsr_status st = upload(*s, dC, a.C, a.m, a.n, a.ldc, elem, kc); st != TSR_SUCCESS)
                return st;
    }
    core::GemmArgs<T> on_device = a;
    if (host_beta) on_device.beta = T(0);
    if (cudaError_t e = compute<T>(*s, on_device, dA, lda, dB, ldb, dC, ldc); e != cudaSuccess)
        return fail_cuda(e, "gemm kernel launch");
    const double beta = double(a.beta);
    if (kc != Memory::device)
        return download(*s, a.C, dC, a.m, a.n, a.ldc, elem, kc, nullptr,
                        host_beta ? &beta : nullptr);
    // C on the device, an input on the host: the pinned and pooled buffers are reused by the
    // next call, so the product must be done before this one returns.
    if (cudaError_t e = cudaStreamSynchronize(s->stream); e != cudaSuccess)
        return fail_cuda(e, "gemm");
    return TSR_SUCCESS;
}

// One device's part of a spread product under TESSERA_VERBOSE=1: events on its copy stream
// when the part starts and when its last copy of C is back (their difference is the device's
// busy time), and the host clock when that end was seen (for the idle tail: how long the
// device waited, done, for the last one).
struct PartClock {
    cudaEvent_t begin = nullptr, ready = nullptr, end = nullptr;
    float busy_ms = -1, ready_ms = -1;
    double done_ms = 0;
    void start(cudaStream_t stream) {
        if (cudaEventCreate(&begin) != cudaSuccess || cudaEventRecord(begin, stream) != cudaSuccess)
            (void)cudaGetLastError(), release();
    }
    // The shared operand whole on the device: its first product can start.
    void shared_ready(cudaStream_t stream) {
        if (begin && (cudaEventCreate(&ready) != cudaSuccess ||
                      cudaEventRecord(ready, stream) != cudaSuccess))
            (void)cudaGetLastError();
    }
    void stop(cudaStream_t stream, std::chrono::steady_clock::time_point began) {
        if (!begin) return;
        if (cudaEventCreate(&end) == cudaSuccess && cudaEventRecord(end, stream) == cudaSuccess &&
            cudaEventSynchronize(end) == cudaSuccess) {
            done_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began)
                    .count();
            if (cudaEventElapsedTime(&busy_ms, begin, end) != cudaSuccess) busy_ms = -1;
            if (ready && cudaEventElapsedTime(&ready_ms, begin, ready) != cudaSuccess)
                ready_ms = -1;
        }
        (void)cudaGetLastError();
        release();
    }
    void release() {
        for (cudaEvent_t *e : {&begin, &ready, &end})
            if (*e) cudaEventDestroy(*e), *e = nullptr;
    }
    ~PartClock() { release(); }
};

// The load balance of a spread product, one line: each device's busy time and idle tail.
template <typename T>
void log_balance(const core::GemmArgs<T> &a, const std::vector<PartClock> &clocks,
                 std::chrono::steady_clock::time_point began) {
    double last = 0;
    for (const PartClock &c : clocks) last = std::max(last, c.done_ms);
    std::string busy, ready, tail;
    auto add = [](std::string &list, double value) {
        char item[32];
        std::snprintf(item, sizeof item, "%s%.1f", list.empty() ? "" : ",", value);
        list += item;
    };
    for (const PartClock &c : clocks) {
        add(busy, double(c.busy_ms));
        add(ready, double(c.ready_ms));
        add(tail, last - c.done_ms);
    }
    const double call =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    std::fprintf(stderr,
                 "tessera: cuda spread balance: %cgemm m=%lld n=%lld k=%lld on %zu devices; "
                 "busy ms %s; shared operand whole after ms %s; idle tail ms %s; call ms %.1f\n",
                 sizeof(T) == 4 ? 's' : 'd', (long long)a.m, (long long)a.n, (long long)a.k,
                 clocks.size(), busy.c_str(), ready.c_str(), tail.c_str(), call);
}

// Host operands over the handle's devices (State::group). C is cut into one block of rows or
// of columns per device, whichever sends less: rows when B (k×n, needed whole by every device)
// is smaller than A (m×k), columns otherwise. Blocks are sized in proportion to each device's
// multiprocessors and rounded to whole 128-wide tiles. The operand every device needs is sent
// up once in all: each device sends a share of its columns from the host, in pieces, and
// copies the others' pieces from them (peer to peer). Each device runs its block as a
// one-device product (its own staging lock, streams, pinned ring and overlapped copies) on a
// thread of its own, computing on the pieces as they land where they run along k; the calling
// thread runs the first device's part. Under TESSERA_VERBOSE=1 the call's load balance is
// logged (PartClock).
template <typename T>
tsr_status spread(State &s, const core::GemmArgs<T> &a, Memory ka, Memory kb, Memory kc) {
    std::lock_guard<std::mutex> whole_call(s.spread);
    std::vector<State *> devices{&s};
    devices.insert(devices.end(), s.group.begin(), s.group.end());
    const size_t count = devices.size();
    const bool by_rows = a.n < a.m;
    const int64_t extent = by_rows ? a.m : a.n;
    const double grain = spreading == Overlap::on ? 1.0 : 128.0;
    double total = 0;
    for (State *d : devices) total += double(d->dev.sm_count);
    std::vector<int64_t> cut(count + 1, 0);
    double share = 0;
    for (size_t i = 1; i < count; ++i) {
        share += double(devices[i - 1]->dev.sm_count) / total;
        cut[i] = std::clamp<int64_t>(int64_t(share * double(extent) / grain + 0.5) * int64_t(grain),
                                     cut[i - 1], extent);
    }
    cut[count] = extent;

    // The operand every device needs, as stored: X (rows_x × cols_x, leading dimension ldx).
    const bool shared_is_a = !by_rows;
    const Memory kx = shared_is_a ? ka : kb;
    const T *X = shared_is_a ? a.A : a.B;
    const int64_t ldx = shared_is_a ? a.lda : a.ldb;
    const bool tx = shared_is_a ? a.trans_a : a.trans_b;
    const int64_t rows_x = shared_is_a ? (tx ? a.k : a.m) : (tx ? a.n : a.k);
    const int64_t cols_x = shared_is_a ? (tx ? a.m : a.k) : (tx ? a.k : a.n);
    const int64_t elem = int64_t(sizeof(T));
    // X's columns in `count` shares, each sent up by its device in `rounds` pieces. When X's
    // columns run along k (A not transposed, B transposed), a device's block of C can be
    // computed piece by piece as X arrives, its own pieces first in each round; then up to
    // kMaxSharedRounds rounds of at least 512 columns a piece (16 under TESSERA_CUDA_SPREAD=on).
    // Otherwise X arrives whole, in one round, before the block is computed.
    const bool along_k = shared_is_a ? !a.trans_a : a.trans_b;
    const int64_t least = spreading == Overlap::on ? 16 : 512;
    const int rounds =
        along_k ? int(std::clamp<int64_t>(cols_x / (int64_t(count) * least), 1, kMaxSharedRounds))
                : 1;
    auto piece = [&](size_t j, int r) {
        const int64_t c0 = cols_x * int64_t(j) / int64_t(count);
        const int64_t c1 = cols_x * int64_t(j + 1) / int64_t(count);
        return std::pair<int64_t, int64_t>{c0 + (c1 - c0) * r / rounds,
                                           c0 + (c1 - c0) * (r + 1) / rounds};
    };
    if (verbose)
        std::fprintf(stderr,
                     "tessera: cuda %cgemm over %zu devices, C cut by %s at %lld, %c sent up in "
                     "%zu shares of %d piece(s) and copied between the devices%s\n",
                     sizeof(T) == 4 ? 's' : 'd', count, by_rows ? "rows" : "columns",
                     (long long)cut[1], shared_is_a ? 'A' : 'B', count, rounds,
                     along_k ? ", computed on as they arrive" : "");

    // A piece's event must be recorded before another device orders a copy after it: each
    // device counts the pieces it has sent (under `sent_lock`); a failed device abandons the
    // call, which wakes the others.
    std::mutex sent_lock;
    std::condition_variable sent_cv;
    std::vector<int> sent(count, 0);
    bool abandoned = false;
    auto announce = [&](size_t j, int pieces) {
        std::lock_guard<std::mutex> lock(sent_lock);
        sent[j] = pieces;
        sent_cv.notify_all();
    };
    auto abandon = [&] {
        std::lock_guard<std::mutex> lock(sent_lock);
        abandoned = true;
        sent_cv.notify_all();
    };
    auto await = [&](size_t j, int r) {
        std::unique_lock<std::mutex> lock(sent_lock);
        sent_cv.wait(lock, [&] { return abandoned || sent[j] > r; });
        return sent[j] > r;
    };

    std::vector<tsr_status> status(count, TSR_SUCCESS);
    std::vector<std::string> why(count);
    std::vector<PartClock> clocks(verbose ? count : 0);
    const auto began = std::chrono::steady_clock::now();
    auto part = [&](size_t i) noexcept {
        State &d = *devices[i];
        auto failed = [&](tsr_status st) {
            status[i] = st;
            why[i] = last_error();
            abandon();
        };
        DeviceScope scope(d.dev.ordinal);
        if (scope.status() != cudaSuccess)
            return failed(fail_cuda(scope.status(), "cannot select the CUDA device"));
        std::unique_lock<std::mutex> staging(d.staging);
        tsr_status st = d.shared_operand.reserve(size_t(rows_x * cols_x * elem));
        for (cudaStream_t *stream : {&d.copies, &d.peers})
            if (st == TSR_SUCCESS && !*stream &&
                cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking) != cudaSuccess)
                *stream = nullptr,
                st = fail(TSR_ERR_BACKEND_UNAVAILABLE, "cannot create a CUDA copy stream");
        if (st == TSR_SUCCESS && !d.peer_done &&
            cudaEventCreateWithFlags(&d.peer_done, cudaEventDisableTiming) != cudaSuccess)
            d.peer_done = nullptr,
            st = fail(TSR_ERR_BACKEND_UNAVAILABLE, "cannot create a CUDA event");
        for (int r = 0; r < rounds && st == TSR_SUCCESS; ++r)
            if (!d.shared_sent[r] &&
                cudaEventCreateWithFlags(&d.shared_sent[r], cudaEventDisableTiming) != cudaSuccess)
                d.shared_sent[r] = nullptr,
                st = fail(TSR_ERR_BACKEND_UNAVAILABLE, "cannot create a CUDA event");
        if (st != TSR_SUCCESS) return failed(st);
        if (!clocks.empty()) clocks[i].start(d.copies);
        T *Xd = static_cast<T *>(d.shared_operand.ptr);

        // The pieces in the order this device takes them: round by round, its own first.
        std::vector<std::pair<size_t, int>> order;
        for (int r = 0; r < rounds; ++r)
            for (size_t t = 0; t < count; ++t) order.emplace_back((i + t) % count, r);
        // Orders piece p's arrival: sent up from the host on the copy stream (this device's own),
        // or copied on the peer stream from the device that sent it once that one has, the
        // state's stream waiting for the copy (the host's transfers and the copies between the
        // devices run at once).
        auto arrive = [&](size_t p) -> tsr_status {
            const auto [j, r] = order[p];
            const auto [c0, c1] = piece(j, r);
            tsr_status st = TSR_SUCCESS;
            if (j == i) {
                if (c1 > c0)
                    st = upload(d, Xd + c0 * rows_x, X + c0 * ldx, rows_x, c1 - c0, ldx, elem, kx,
                                d.copies);
                if (st == TSR_SUCCESS)
                    if (cudaError_t e = cudaEventRecord(d.shared_sent[r], d.copies);
                        e != cudaSuccess)
                        st = fail_cuda(e, "cannot record a share's transfer");
                if (st == TSR_SUCCESS) announce(i, r + 1);
            } else if (c1 > c0) {
                if (!await(j, r))
                    return fail(TSR_ERR_BACKEND_UNAVAILABLE,
                                "another device could not send its share");
                State &o = *devices[j];
                cudaError_t e = cudaStreamWaitEvent(d.peers, o.shared_sent[r], 0);
                if (e == cudaSuccess)
                    e = cudaMemcpyPeerAsync(Xd + c0 * rows_x, d.dev.ordinal,
                                            static_cast<T *>(o.shared_operand.ptr) + c0 * rows_x,
                                            o.dev.ordinal, size_t((c1 - c0) * rows_x * elem),
                                            d.peers);
                if (e == cudaSuccess) e = cudaEventRecord(d.peer_done, d.peers);
                if (e == cudaSuccess) e = cudaStreamWaitEvent(d.stream, d.peer_done, 0);
                if (e != cudaSuccess) st = fail_cuda(e, "cannot copy a share from another device");
            }
            if (st == TSR_SUCCESS && p + 1 == order.size() && !clocks.empty()) {
                // X is whole once the peer stream's copies and this device's last piece are.
                if (cudaStreamWaitEvent(d.peers, d.shared_sent[rounds - 1], 0) == cudaSuccess)
                    clocks[i].shared_ready(d.peers);
                (void)cudaGetLastError();
            }
            return st;
        };

        const int64_t lo = cut[i], hi = cut[i + 1];
        core::GemmArgs<T> b = a;
        if (by_rows) {
            b.m = hi - lo;
            b.A = a.trans_a ? a.A + lo * a.lda : a.A + lo;
            b.B = Xd, b.ldb = rows_x;
            b.C = a.C + lo;
        } else {
            b.n = hi - lo;
            b.A = Xd, b.lda = rows_x;
            b.B = a.trans_b ? a.B + lo : a.B + lo * a.ldb;
            b.C = a.C + lo * a.ldc;
        }
        const Memory ka_part = shared_is_a ? Memory::device : ka,
                     kb_part = shared_is_a ? kb : Memory::device;
        if (const OverlapPlan plan = overlap_plan(b.m, b.n, b.k);
            along_k && hi > lo && plan.used()) {
            Arrival arrival;
            for (const auto &[j, r] : order) arrival.ranges.push_back(piece(j, r));
            arrival.arrive = arrive;
            st = overlapped<T>(d, b, ka_part, kb_part, kc, plan, &arrival);
        } else {
            for (size_t p = 0; p < order.size() && st == TSR_SUCCESS; ++p) st = arrive(p);
            for (cudaStream_t stream : {d.copies, d.peers})
                if (cudaError_t e = cudaStreamSynchronize(stream);
                    st == TSR_SUCCESS && e != cudaSuccess)
                    st = fail_cuda(e, "copying the shares between the devices");
            staging.unlock();
            if (st == TSR_SUCCESS && hi > lo) st = run_on(&d, b, ka_part, kb_part, kc);
        }
        // Whatever happened, no copy between the devices may still run when the call returns.
        if (cudaError_t e = cudaStreamSynchronize(d.peers); st == TSR_SUCCESS && e != cudaSuccess)
            st = fail_cuda(e, "copying the shares between the devices");
        if (st != TSR_SUCCESS) failed(st);
        else if (!clocks.empty()) clocks[i].stop(d.copies, began);
    };
    // Every thread is made before any starts: each waits for the others' pieces. Without
    // threads (none could be made), the devices' parts run one after another, each sending X
    // whole.
    std::atomic<int> go{0}; // 1: run, 2: stop
    std::vector<std::thread> threads;
    for (size_t i = 1; i < count; ++i) {
        try {
            threads.emplace_back([&, i] {
                while (go.load(std::memory_order_acquire) == 0) std::this_thread::yield();
                if (go.load(std::memory_order_acquire) == 1) part(i);
            });
        } catch (...) {
            break;
        }
    }
    const bool all_threads = threads.size() + 1 == count;
    go.store(all_threads ? 1 : 2, std::memory_order_release);
    if (all_threads) {
        part(0);
        for (std::thread &t : threads) t.join();
    } else {
        for (std::thread &t : threads) t.join();
        for (size_t i = 0; i < count; ++i) {
            const int64_t lo = cut[i], hi = cut[i + 1];
            if (hi <= lo) continue;
            core::GemmArgs<T> b = a;
            if (by_rows)
                b.m = hi - lo, b.A = a.trans_a ? a.A + lo * a.lda : a.A + lo, b.C = a.C + lo;
            else
                b.n = hi - lo, b.B = a.trans_b ? a.B + lo : a.B + lo * a.ldb,
                b.C = a.C + lo * a.ldc;
            if ((status[i] = run_on(devices[i], b, ka, kb, kc)) != TSR_SUCCESS)
                why[i] = last_error();
        }
    }
    for (size_t i = 0; i < count; ++i)
        if (status[i] != TSR_SUCCESS)
            return fail(status[i], "device %d: %s", devices[i]->dev.ordinal, why[i].c_str());
    if (!clocks.empty() && all_threads) log_balance(a, clocks, began);
    return TSR_SUCCESS;
}

template <typename T> tsr_status run(const core::ExecContext *ctx, const core::GemmArgs<T> &a) {
    State *s = state_of(ctx);
    if (!s) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    const bool product = a.alpha != T(0) && a.k > 0; // otherwise A and B are not read
    int where[3] = {-1, -1, -1};                     // the device holding A, B, C; -1: none
    const Memory ka = product ? classify(a.A, &where[0]) : Memory::device;
    const Memory kb = product ? classify(a.B, &where[1]) : Memory::device;
    const Memory kc = classify(a.C, &where[2]);
    if (ka == Memory::device || kb == Memory::device || kc == Memory::device) {
        // Operands in one device's memory: that device runs the product when it is one of the
        // handle's; another device's kernels could not read them (managed memory, which every
        // device reads, says no device here).
        int held = -1;
        for (const int d : where) {
            if (d < 0) continue;
            if (held >= 0 && d != held)
                return fail(TSR_ERR_INVALID_ARGUMENT,
                            "the operands are in the memory of two CUDA devices (%d and %d)", held,
                            d);
            held = d;
        }
        if (held >= 0 && held != s->dev.ordinal) {
            State *owner = nullptr;
            for (State *member : s->group)
                if (member->dev.ordinal == held) owner = member;
            if (!owner)
                return fail(TSR_ERR_INVALID_ARGUMENT,
                            "the operands are in CUDA device %d's memory, but the handle runs on "
                            "device %d (tsr_set_cuda_devices, TESSERA_CUDA_DEVICE)",
                            held, s->dev.ordinal);
            s = owner;
        }
    } else if (!s->group.empty()) {
        if (product && spreading != Overlap::off &&
            (spreading == Overlap::on ||
             (double(a.m) * double(a.n) * double(a.k) >= double(int64_t(1) << 33) &&
              std::max(a.m, a.n) >= int64_t(s->group.size() + 1) * 256))) {
            return spread<T>(*s, a, ka, kb, kc);
        }
    }
    return run_on<T>(s, a, ka, kb, kc);
}

} // namespace

tsr_status gemm_f32(const core::ExecContext *ctx, const core::GemmArgs<float> *args) {
    return run(ctx, *args);
}
tsr_status gemm_f64(const core::ExecContext *ctx, const core::GemmArgs<double> *args) {
    return run(ctx, *args);
}

int gemm_prefer(int num_threads, int elem_size, int64_t m, int64_t n, int64_t k, const void *A,
                const void *B, const void *C) {
    if (classify(C) == Memory::device || classify(A) == Memory::device ||
        classify(B) == Memory::device)
        return 2;
    // Host operands: worth it when the CPU would take longer than moving the data (A, B, and C
    // both ways) through the pinned buffers plus the device's own time. The rates and the fixed
    // cost are the H100 machine's (its host path and its 16-core CPU): docs/backends.md, "Auto
    // routing of gemm", gives the model; the runs are in docs/journal/2026-11-cuda-gemm.md.
    const State *s = shared_state();
    const double flops = 2.0 * double(m) * double(n) * double(k);
    const double bytes = double(elem_size) * (double(m) * double(k) + double(k) * double(n) +
                                              2.0 * double(m) * double(n));
    const double cpu_rate = double(num_threads) * (elem_size == 4 ? 60e9 : 30e9);
    const double gpu_rate =
        (s ? double(s->dev.sm_count) : 100.0) * (elem_size == 4 ? 250e9 : 400e9);
    return flops / cpu_rate > bytes / 24e9 + flops / gpu_rate + 50e-6 ? 1 : 0;
}

namespace {

bool parse_host_blocks(const char *name, int64_t *out) {
    if (strcasecmp(name, "auto") == 0) return *out = 0, true;
    char *end = nullptr;
    const long v = strtol(name, &end, 10);
    if (end == name || *end != '\0' || v < 1 || v > 64) return false;
    return *out = v, true;
}

bool parse_overlap(const char *name, Overlap *out) {
    const char *const names[] = {"auto", "off", "on"};
    for (int i = 0; i < 3; ++i)
        if (strcasecmp(name, names[i]) == 0) return *out = Overlap(i), true;
    return false;
}

bool parse_fringe(const char *name, Fringe *out) {
    const char *const names[] = {"auto", "split", "off"};
    for (int i = 0; i < 3; ++i)
        if (strcasecmp(name, names[i]) == 0) return *out = Fringe(i), true;
    return false;
}

// An unknown value gets one warning and the default, as the core does for its variables.
template <typename E>
void read_one(const core::PluginHost &host, const char *name, bool (*parse)(const char *, E *),
              const char *names, const char *fallback, E *out) {
    const char *v = host.setting ? host.setting(name) : nullptr;
    if (!v || !*v) return;
    if (!parse(v, out))
        std::fprintf(stderr, "tessera: warning: %s='%.64s'%s is not one of %s; using %s\n", name, v,
                     std::strlen(v) > 64 ? "... (cut)" : "", names, fallback);
}

// TESSERA_CUDA_TUNING: unset or `builtin`, the tables built in; `off`, none (the rules alone);
// else a file of one table (tuning.hpp's format). A file that cannot be read or parsed gets one
// warning, and the built-in tables.
void read_tuning(const core::PluginHost &host) {
    tuning_generation.fetch_add(1, std::memory_order_acq_rel);
    tuning_tables.clear();
    auto add = [](TuningTable &&t) {
        TuningIndex index(t);
        tuning_tables.push_back({std::move(t), std::move(index)});
    };
    const char *v = host.setting ? host.setting("TESSERA_CUDA_TUNING") : nullptr;
    if (v && strcasecmp(v, "off") == 0) return;
    if (v && *v && strcasecmp(v, "builtin") != 0) {
        std::ifstream in(v);
        std::ostringstream text;
        text << in.rdbuf();
        TuningTable t;
        std::string why = "cannot be read";
        if (in && parse_tuning(text.str(), &t, &why)) {
            add(std::move(t));
            return;
        }
        std::fprintf(stderr,
                     "tessera: warning: TESSERA_CUDA_TUNING='%.200s': %s; using the "
                     "built-in tables\n",
                     v, why.c_str());
    }
    for (int i = 0; i < kBuiltinTuningCount; ++i) {
        TuningTable t;
        std::string why;
        if (parse_tuning(kBuiltinTuning[i], &t, &why)) add(std::move(t));
        else
            std::fprintf(stderr, "tessera: warning: built-in tuning table %d: %s\n", i,
                         why.c_str());
    }
}

} // namespace

void read_kernel_choice(const core::PluginHost &host) {
    read_tuning(host);
    choice = KernelChoice{};
    read_one(host, "TESSERA_CUDA_SGEMM", parse_sgemm_tile, sgemm_tile_names(), "auto",
             &choice.sgemm);
    read_one(host, "TESSERA_CUDA_DGEMM", parse_dgemm_kernel, dgemm_kernel_names(), "auto",
             &choice.dgemm);
    read_one(host, "TESSERA_CUDA_MATH", parse_sgemm_math, sgemm_math_names(), "fp32", &choice.math);
    read_one(host, "TESSERA_CUDA_SPLITK", parse_split_k, "auto, off, 1..32", "auto",
             &choice.split_k);
    read_one(host, "TESSERA_CUDA_WGMMA", parse_wgmma, "auto, off", "auto", &choice.wgmma);
    read_one(host, "TESSERA_CUDA_STREAMK", parse_stream_k, "auto, off, on, last", "auto",
             &choice.stream_k);
    read_one(host, "TESSERA_CUDA_PERSISTENT", parse_persistent, "auto, off, on", "auto",
             &choice.persistent);
    overlap = Overlap::automatic;
    read_one(host, "TESSERA_CUDA_OVERLAP", parse_overlap, "auto, off, on", "auto", &overlap);
    spreading = Overlap::automatic;
    read_one(host, "TESSERA_CUDA_SPREAD", parse_overlap, "auto, off, on", "auto", &spreading);
    host_blocks = 0;
    read_one(host, "TESSERA_CUDA_HOST_BLOCKS", parse_host_blocks, "auto, 1..64", "auto",
             &host_blocks);
    fringe_rule = Fringe::automatic;
    read_one(host, "TESSERA_CUDA_FRINGE", parse_fringe, "auto, split, off", "auto", &fringe_rule);
    verbose = host.verbose != 0;
}

} // namespace tessera::cuda
