// The sparse matrix handle (struct tsr_sparse_matrix): the backend-free storage of src/sparse
// plus what each backend prepared for it, made on first use under the matrix's own lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <mutex>

#include "core/backend.hpp"
#include "core/host_backends.hpp"
#include "sparse/storage.hpp"

struct tsr_sparse_matrix {
    tsr_dtype dtype = TSR_F64;
    tsr_index_type itype = TSR_INDEX_I32;
    int64_t rows = 0, cols = 0;
    tessera::sparse::Storage storage;

    // Backend data for the current plan, one entry per backend that ran a product.
    struct Prepared {
        const tessera::core::BackendTable *table;
        void *state;
    };
    std::mutex lock;              // guards `prepared`
    std::list<Prepared> prepared; // a list: an entry stays where it is while others are added
    std::atomic<const Prepared *> last{nullptr}; // the entry found or made last, read unlocked
    // The storage as backends read it, made again whenever the storage changes (creation and
    // tsr_sparse_optimize, which never runs beside products on the matrix): products only
    // read it.
    tessera::core::SparseView view{};
    // The CPU's product straight on `view` (core::host_spmv_direct), of the matrix's value
    // type; made with the view.
    tessera::core::SpmvDirectFn<float> direct_f32 = nullptr;
    tessera::core::SpmvDirectFn<double> direct_f64 = nullptr;
    // The CPU's product with Aᵀ straight on its copy of Aᵀ (core::host_spmv_direct_t): published
    // once, under `lock`, by the first transposed product on the CPU that finds the copy made,
    // `direct_t_storage` (the copy's storage) written before the pointer; cleared with the
    // CPU's prepared data, which holds the copy.
    std::atomic<tessera::core::SpmvDirectFn<float>> direct_t_f32{nullptr};
    std::atomic<tessera::core::SpmvDirectFn<double>> direct_t_f64{nullptr};
    const void *direct_t_storage = nullptr;

    ~tsr_sparse_matrix();
};

namespace tessera::core {

// The state `table` prepared for `m`, preparing it on first use (thread-safe).
tsr_status prepared_state(tsr_sparse_matrix *m, const BackendTable *table, const ExecContext &ctx,
                          void **state);

// Releases every backend's state (after the plan changes, and on destroy).
void release_prepared(tsr_sparse_matrix *m);

// The matrix as backends read it (core/backend.hpp): valid until the matrix is optimized again
// or destroyed.
inline const SparseView &view_of(const tsr_sparse_matrix *m) { return m->view; }

// Makes m->view (and the direct product) again from m->storage: after anything that changes
// the storage.
void refresh_view(tsr_sparse_matrix *m);

// The current plan.
const sparse::Plan &plan_of(const tsr_sparse_matrix *m);
int64_t nnz_of(const tsr_sparse_matrix *m);

} // namespace tessera::core
