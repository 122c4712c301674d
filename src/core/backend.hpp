// The backend table: the function pointers every backend (reference, cpu, cuda plugin)
// fills in, and the column-major call descriptors they receive. No layouts or Fortran here.
//
// This is the boundary the CUDA plugin is loaded across (dlopen), so everything here has C
// layout: plain structs of numbers and pointers, no C++ library types (static_asserts below).
// One number versions it: TESSERA_BACKEND_ABI, which both names the plugin's entry point and
// is checked against the table the plugin returns.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sparse/structure.hpp"
#include "tessera/tessera.h"

#define TESSERA_BACKEND_ABI 6
#define TESSERA_ABI_PASTE2(a, b) a##b
#define TESSERA_ABI_PASTE(a, b) TESSERA_ABI_PASTE2(a, b)
#define TESSERA_ABI_STRING2(x) #x
#define TESSERA_ABI_STRING(x) TESSERA_ABI_STRING2(x)
// The plugin's one exported symbol, tessera_cuda_backend_v<TESSERA_BACKEND_ABI>.
#define TESSERA_CUDA_ENTRY TESSERA_ABI_PASTE(tessera_cuda_backend_v, TESSERA_BACKEND_ABI)
#define TESSERA_CUDA_ENTRY_NAME TESSERA_ABI_STRING(TESSERA_CUDA_ENTRY)

namespace tessera::core {

// C = alpha·op(A)·op(B) + beta·C, column-major, arguments already checked. Backends are
// only called when m, n > 0 and the call is not a quick return; k == 0 or alpha == 0 may
// still arrive (then C = beta·C without reading A or B; beta == 0 never reads C).
template <typename T> struct GemmArgs {
    bool trans_a, trans_b;
    int64_t m, n, k;
    T alpha;
    const T *A;
    int64_t lda;
    const T *B;
    int64_t ldb;
    T beta;
    T *C;
    int64_t ldc;
};

// A sparse matrix as a backend reads it (host memory, read-only): the canonical CSR, its row
// statistics and structure, the format and kernel variant of its plan, and that format's
// arrays. Arrays are untyped: values are value_bytes wide (float or double), indices
// index_bytes (int32_t or int64_t); DIA's offsets are int64_t.
struct CsrView {
    int64_t rows, cols, nnz;
    const void *row_ptr, *col, *val; // rows + 1, nnz, nnz
};
struct CooView {
    int64_t rows, cols, nnz;
    const void *row, *col, *val; // nnz each, sorted by row then column
};
struct EllView {
    int64_t rows, cols, width, stride;
    const void *len, *col, *val; // stride, width · stride, width · stride (slot-major)
};
struct DiaView {
    int64_t rows, cols, ndiag, stride;
    const int64_t *offset; // ndiag, ascending
    const void *val;       // ndiag · stride
};
struct SparseView {
    int32_t value_bytes, index_bytes;
    int32_t format;        // tsr_format of the plan: which of coo/ell/dia/hyb_* hold the matrix
    int32_t plan_by;       // whose rules made the plan: kPlanBy*
    int32_t kernel;        // the plan's kernel variant, that backend's own
    int32_t has_structure; // whether `structure` has been analysed (from the first optimize)
    sparse::RowStats rows;
    sparse::Structure structure;
    CsrView csr; // always
    CooView coo;
    EllView ell;
    DiaView dia;
    EllView hyb_ell;
    CooView hyb_tail;
    // The library's own storage of the matrix (sparse::Storage), for the backends inside
    // libtessera.so; a plugin never reads it.
    const void *owner;
};

// y = alpha·op(A)·x + beta·y for a sparse A. Backends are called only when op(A) has rows;
// alpha == 0 may still arrive (then y = beta·y without reading A or x); beta == 0 never reads
// y. `prepared` is what the backend's sparse_prepare made for this matrix (nullptr when it
// has none).
template <typename T> struct SpmvArgs {
    bool trans;
    T alpha;
    const T *x;
    T beta;
    T *y;
    const SparseView *A; // its values are of type T
    void *prepared;
};

// Y = alpha·op(A)·X + beta·Y for a sparse A and dense blocks X, Y of k columns (SpMM), with the
// layout of X and Y: row-major X(i, j) = X[i·ldx + j], column-major X(i, j) = X[i + j·ldx].
// Called only when op(A) has rows and k > 0; the rules of alpha and beta are SpmvArgs's.
template <typename T> struct SpmmArgs {
    bool trans;
    bool row_major;
    int64_t k;
    T alpha;
    const T *X;
    int64_t ldx;
    T beta;
    T *Y;
    int64_t ldy;
    const SparseView *A; // its values are of type T
    void *prepared;
};

// What a backend knows about the calling handle.
struct ExecContext {
    int num_threads;                   // >= 1; already 1 inside an OpenMP parallel region
    void *backend_state;               // from create_state, or nullptr
    int strassen_levels = 0;           // 0: classical; 1 or 2: levels of Strassen's method, opt-in
    int64_t strassen_min_block = 1024; // smallest block size Strassen may split down to
};

// Bumped whenever the layout of anything in this file changes; a plugin with another value is
// refused.
inline constexpr uint32_t kBackendAbiVersion = TESSERA_BACKEND_ABI;

// What a backend can do beyond the entries it fills in (BackendTable::capabilities).
inline constexpr uint32_t kReadsDeviceMemory = 1u << 0; // operands may be CUDA device memory

// Whose format rules made a sparse matrix's plan (SparseView::plan_by, sparse::Plan::by).
inline constexpr int32_t kPlanByNone = 0; // as created: CSR, no backend's rules yet
inline constexpr int32_t kPlanByCpu = 1;
inline constexpr int32_t kPlanByGpu = 2;

// A backend's format rules are asked for a plan (BackendTable::sparse_plan) with the matrix's
// structure, for TSR_FORMAT_AUTO or for a format the caller asked for (already admitted by the
// padding limit; the answer keeps it and picks only the kernel variant).
struct SparsePlanRequest {
    int32_t requested; // tsr_format
    int32_t value_bytes, index_bytes;
    sparse::Structure structure;
};
struct SparsePlanAnswer {
    int32_t format; // tsr_format
    int32_t by;     // kPlanBy* of the answering backend
    int32_t kernel; // its kernel variant
    int32_t tiled;  // the kernel reads CSR's tiles (the core builds them)
    char reason[256];
};

struct BackendTable {
    uint32_t abi_version; // kBackendAbiVersion
    const char *name;     // "cpu", "reference", "cuda"
    // Per-handle state (device buffers, streams); optional.
    tsr_status (*create_state)(int device, void **state);
    void (*destroy_state)(void *state);
    tsr_status (*set_stream)(void *state, void *stream);
    tsr_status (*gemm_f32)(const ExecContext *ctx, const GemmArgs<float> *args);
    tsr_status (*gemm_f64)(const ExecContext *ctx, const GemmArgs<double> *args);
    // Detail text of the last failure on this thread inside the backend (plugins keep
    // their own); may be nullptr for backends that report through core::fail.
    const char *(*last_error)(void);
    // Sparse products (since version 2). sparse_prepare makes the backend's own data for a
    // matrix after each optimize (device copies, partitions), or sets *prepared = nullptr;
    // sparse_release frees it. A backend without sparse support leaves all four nullptr.
    tsr_status (*sparse_prepare)(const ExecContext *ctx, const SparseView *A, void **prepared);
    tsr_status (*spmv_f32)(const ExecContext *ctx, const SpmvArgs<float> *args);
    tsr_status (*spmv_f64)(const ExecContext *ctx, const SpmvArgs<double> *args);
    void (*sparse_release)(void *prepared);
    // For TSR_BACKEND_AUTO (since version 3): nonzero when this backend should run the gemm —
    // 2: one of A, B, C is its device memory; 1: the operands are host memory, but the product
    // is large enough to pay for moving them; 0: the CPU is predicted faster. elem_size is 4
    // or 8. nullptr: never chosen automatically.
    int (*gemm_prefer)(int num_threads, int elem_size, int64_t m, int64_t n, int64_t k,
                       const void *A, const void *B, const void *C);
    uint32_t capabilities; // kReadsDeviceMemory, ...
    // The backend's format rules; nullptr: CSR with the plain kernel for AUTO.
    void (*sparse_plan)(const SparsePlanRequest *request, SparsePlanAnswer *answer);
    // The name of the kernel this backend runs A with, for the call log (it picks its own
    // variant where another backend's rules made the plan); nullptr: "standard".
    const char *(*sparse_kernel_name)(const SparseView *A);
    // Waits until the work this backend queued for the handle (state; nullptr: the shared
    // state) has finished: the call log times a product on device operands with it. nullptr:
    // the backend's calls return finished.
    tsr_status (*synchronize)(void *state);
    // The GPUs a handle's state spreads host-operand gemm over (since version 5): `count`
    // ordinals, the first the state's own device; count 0: every device of the host. A bad
    // list leaves the state as it was. nullptr: one device per state.
    tsr_status (*set_devices)(void *state, int count, const int *ids);
    // Sparse × dense products (since version 6), on the matrix's prepared data; a backend with
    // sparse support fills in both.
    tsr_status (*spmm_f32)(const ExecContext *ctx, const SpmmArgs<float> *args);
    tsr_status (*spmm_f64)(const ExecContext *ctx, const SpmmArgs<double> *args);
};

// What the core hands a plugin when it loads it: the settings it read for it, so that every
// setting is read one way (secure_getenv, one warning for a bad value) in one place.
struct PluginHost {
    uint32_t abi_version; // kBackendAbiVersion
    int device;           // TESSERA_CUDA_DEVICE, else the MPI/Slurm local rank
    int device_from_rank; // 1: `device` is a local rank, taken modulo the device count
    int verbose;          // TESSERA_VERBOSE
    // The value of a plugin's own setting (a TESSERA_CUDA_* variable), or nullptr when unset;
    // names outside TESSERA_CUDA_* read as unset.
    const char *(*setting)(const char *name);
};

// The plugin's entry point (TESSERA_CUDA_ENTRY): its table, or nullptr with a sentence in *why.
using CudaEntry = const BackendTable *(*)(const PluginHost *host, const char **why);

template <typename T>
inline constexpr bool kPlain = std::is_standard_layout_v<T> &&std::is_trivially_copyable_v<T>;
static_assert(kPlain<GemmArgs<float>> && kPlain<GemmArgs<double>> && kPlain<SpmvArgs<float>> &&
                  kPlain<SpmvArgs<double>> && kPlain<SpmmArgs<float>> && kPlain<SpmmArgs<double>> &&
                  kPlain<SparseView> && kPlain<ExecContext> && kPlain<BackendTable> &&
                  kPlain<PluginHost> && kPlain<SparsePlanRequest> && kPlain<SparsePlanAnswer>,
              "the backend boundary holds plain structs only");

} // namespace tessera::core
