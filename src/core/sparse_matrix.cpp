// Backend data attached to a sparse matrix: prepared once per backend on first use (under the
// matrix's lock, so concurrent products are safe) and released when the plan changes.
#include "core/sparse_matrix.hpp"

tsr_sparse_matrix::~tsr_sparse_matrix() { tessera::core::release_prepared(this); }

namespace tessera::core {

tsr_status prepared_state(tsr_sparse_matrix *m, const BackendTable *table, const ExecContext &ctx,
                          void **state) {
    std::lock_guard<std::mutex> guard(m->lock);
    for (const auto &p : m->prepared)
        if (p.table == table) {
            *state = p.state;
            return TSR_SUCCESS;
        }
    void *made = nullptr;
    if (table->sparse_prepare) {
        tsr_status s = table->sparse_prepare(&ctx, &m->storage, &made);
        if (s != TSR_SUCCESS) return s;
    }
    try {
        m->prepared.push_back({table, made});
    } catch (...) {
        if (made && table->sparse_release) table->sparse_release(made);
        throw;
    }
    *state = made;
    return TSR_SUCCESS;
}

void release_prepared(tsr_sparse_matrix *m) {
    std::lock_guard<std::mutex> guard(m->lock);
    for (const auto &p : m->prepared)
        if (p.state && p.table->sparse_release) p.table->sparse_release(p.state);
    m->prepared.clear();
}

const sparse::Plan &plan_of(const tsr_sparse_matrix *m) {
    return std::visit([](const auto &t) -> const sparse::Plan & { return t.plan; }, m->storage.typed);
}

int64_t nnz_of(const tsr_sparse_matrix *m) {
    return std::visit([](const auto &t) { return t.csr.nnz(); }, m->storage.typed);
}

} // namespace tessera::core
