// The device copy of a sparse matrix (what sparse_prepare makes): the arrays of its format,
// the work split of the balanced kernels, and from the first transposed product on the CSR
// of Aᵀ (and from the first block product, A's CSR where the format is another). Arrays are untyped
// here; the launchers (spmv_launch.hpp) know V and I.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "core/backend.hpp"
#include "sparse/storage.hpp"
#include "spmv_rules.hpp"
#include "spmv_split.hpp"
#include "spmv_tiles.hpp"
#include "state.hpp"

namespace tessera::cuda {

// gpu_tiles (spmv_tiles.hpp): the tiles' entries, the long tiles and the long rows.
struct DeviceTiles {
    int64_t tile_rows = 0, slabs = 1, tiles = 0, long_tiles = 0;
    const int64_t *tile_start = nullptr,
                  *tile_end = nullptr; // the row blocks' tiles, then the long tiles
    const void *col = nullptr;         // I
    const uint16_t *lrow = nullptr;
    const void *val = nullptr; // V
    const LongTile *long_tile = nullptr;
    const int64_t *long_row = nullptr; // the long rows, in row order
};

struct DeviceCsr {
    int64_t rows = 0, cols = 0, nnz = 0;
    // Not on the device for gpu_tiles (its layout holds every entry).
    const void *row_ptr = nullptr, *col = nullptr, *val = nullptr;
    CsrKernel kernel = CsrKernel::rows;
    // gpu_merge only: blocks + 1 path starts (I), and the rows crossing blocks (the most
    // blocks one of them spans: span).
    int64_t blocks = 0, crossings = 0, span = 0;
    const void *start_row = nullptr, *start_nz = nullptr;
    const CrossingRow *crossing = nullptr;
    DeviceTiles tiles; // gpu_tiles only
};

struct DeviceCoo {
    int64_t rows = 0, cols = 0, nnz = 0;
    const void *row = nullptr, *col = nullptr, *val = nullptr;
    int64_t blocks = 0, crossings = 0, empty = 0;
    const CrossingRow *crossing = nullptr;
    const void *empty_rows = nullptr; // I; not kept for HYB's tail (it only adds to y)
};

struct DeviceEll {
    int64_t rows = 0, cols = 0, width = 0, stride = 0;
    const void *len = nullptr, *col = nullptr, *val = nullptr;
};

struct DeviceDia {
    int64_t rows = 0, cols = 0, ndiag = 0, stride = 0;
    const int64_t *offset = nullptr;
    const void *val = nullptr;
};

// The block products' long rows (spmm.cu): the rows of A (or of Aᵀ) with more than `len`
// entries, in row order, each cut into chunks of `len` entries (its last shorter) whose
// partial sums are added in chunk order. `len` is kBlockChunk, or TESSERA_CUDA_SPMM_CHUNK (for
// measuring; read once).
inline constexpr int64_t kBlockChunk = 64;
struct DeviceRowChunks {
    int64_t len = kBlockChunk;
    int64_t long_rows = 0, chunks = 0;
    const int64_t *row = nullptr;   // long_rows: the row of each
    const int64_t *first = nullptr; // long_rows + 1: the first chunk of each
    const int64_t *owner = nullptr; // chunks: the long row (its index in `row`) of each
};
struct DeviceMatrix {
    int device = 0;
    int value_bytes = 0, index_bytes = 0;
    tsr_format format = TSR_FORMAT_CSR;
    int64_t rows = 0, cols = 0, nnz = 0;
    DeviceCsr csr;      // format CSR
    DeviceCoo coo;      // format COO
    DeviceEll ell;      // format ELL, and HYB's ELL part
    DeviceDia dia;      // format DIA
    DeviceCoo hyb_tail; // format HYB: its COO tail

    std::mutex transpose_lock; // guards the six below
    bool has_transpose = false;
    DeviceCsr transpose;
    bool has_plain = false; // A's CSR for the block products, where the format is not CSR
    DeviceCsr plain;
    bool has_chunks[2] = {false, false}; // the long rows of A [0] and of Aᵀ [1]
    DeviceRowChunks chunks[2];

    std::vector<void *> allocations; // every device array above
    size_t bytes = 0;
};

// Copies `A` in its current format to the state's device (allocation failure:
// TSR_ERR_OUT_OF_MEMORY with the size in the message); `threads` host threads build the
// gpu_tiles layout where that kernel is chosen.
tsr_status prepare_matrix(State &s, const core::SparseView &A, int threads, DeviceMatrix **out);

// The GPU's format rules for the backend table (spmv_rules.hpp), and the kernel it runs A with.
void sparse_plan(const core::SparsePlanRequest *q, core::SparsePlanAnswer *a);
const char *sparse_kernel_name(const core::SparseView *A);

// The device CSR of Aᵀ, built on the host (with `threads` threads) and copied on first need.
tsr_status transposed(State &s, const core::SparseView &A, int threads, DeviceMatrix &m,
                      const DeviceCsr **out);

// A's CSR with its row pointers on the device, for the block products: the format's own where
// it is CSR outside gpu_tiles, else a copy made on first need.
tsr_status plain_csr(State &s, const core::SparseView &A, int threads, DeviceMatrix &m,
                     const DeviceCsr **out);

// The long rows of A (of Aᵀ when `trans`) for the block products, found on the host and
// copied on first need.
tsr_status long_rows(State &s, const core::SparseView &A, DeviceMatrix &m, bool trans,
                     const DeviceRowChunks **out);
// A TESSERA_CUDA_* setting that is a positive count, else 0 (a bad value is reported on
// stderr and ignored).
int64_t setting_count(const char *name);
// Frees every device array of `m`, then `m`.
void release_matrix(DeviceMatrix *m);

} // namespace tessera::cuda
