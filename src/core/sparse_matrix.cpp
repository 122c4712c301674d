// Backend data attached to a sparse matrix: prepared once per backend on first use (under the
// matrix's lock, so concurrent products are safe) and released when the plan changes.
#include "core/sparse_matrix.hpp"

tsr_sparse_matrix::~tsr_sparse_matrix() { tessera::core::release_prepared(this); }

namespace tessera::core {

tsr_status prepared_state(tsr_sparse_matrix *m, const BackendTable *table, const ExecContext &ctx,
                          void **state) {
    if (!table->sparse_prepare) { // nothing to make or find: no lock on the product's path
        *state = nullptr;
        return TSR_SUCCESS;
    }
    // Entries are never changed or removed while products run (only release_prepared removes
    // them, after a change of plan or on destroy, which never run beside products on the
    // matrix): the one used last is read without the lock.
    if (const auto *p = m->last.load(std::memory_order_acquire); p && p->table == table) {
        *state = p->state;
        return TSR_SUCCESS;
    }
    std::lock_guard<std::mutex> guard(m->lock);
    for (const auto &p : m->prepared)
        if (p.table == table) {
            m->last.store(&p, std::memory_order_release);
            *state = p.state;
            return TSR_SUCCESS;
        }
    void *made = nullptr;
    if (tsr_status s = table->sparse_prepare(&ctx, &view_of(m), &made); s != TSR_SUCCESS) return s;
    try {
        m->prepared.push_back({table, made});
    } catch (...) {
        if (made && table->sparse_release) table->sparse_release(made);
        throw;
    }
    m->last.store(&m->prepared.back(), std::memory_order_release);
    *state = made;
    return TSR_SUCCESS;
}

void release_prepared(tsr_sparse_matrix *m) {
    std::lock_guard<std::mutex> guard(m->lock);
    m->last.store(nullptr, std::memory_order_release);
    m->direct_t_f32.store(nullptr, std::memory_order_relaxed); // the copy goes with the CPU's data
    m->direct_t_f64.store(nullptr, std::memory_order_relaxed);
    m->direct_t_storage = nullptr;
    for (const auto &p : m->prepared)
        if (p.state && p.table->sparse_release) p.table->sparse_release(p.state);
    m->prepared.clear();
}

namespace {

template <typename V, typename I> SparseView view(const sparse::Typed<V, I> &t, const void *owner) {
    SparseView v{};
    v.value_bytes = int32_t(sizeof(V));
    v.index_bytes = int32_t(sizeof(I));
    v.format = int32_t(t.plan.format);
    v.plan_by = int32_t(t.plan.by);
    v.kernel = int32_t(t.plan.kernel);
    v.has_structure = t.structure.has_value();
    v.rows = t.rows;
    if (t.structure) v.structure = *t.structure;
    v.csr = {t.csr.rows,           t.csr.cols,       t.csr.nnz(),
             t.csr.row_ptr.data(), t.csr.col.data(), t.csr.val.data()};
    v.coo = {t.coo.rows,       t.coo.cols,       t.coo.nnz,
             t.coo.row.data(), t.coo.col.data(), t.coo.val.data()};
    v.ell = {t.ell.rows,       t.ell.cols,       t.ell.width,     t.ell.stride,
             t.ell.len.data(), t.ell.col.data(), t.ell.val.data()};
    v.dia = {t.dia.rows,   t.dia.cols,          t.dia.ndiag,
             t.dia.stride, t.dia.offset.data(), t.dia.val.data()};
    const auto &he = t.hyb.ell;
    v.hyb_ell = {he.rows,       he.cols,       he.width,     he.stride,
                 he.len.data(), he.col.data(), he.val.data()};
    const auto &ht = t.hyb.tail;
    v.hyb_tail = {ht.rows, ht.cols, ht.nnz, ht.row.data(), ht.col.data(), ht.val.data()};
    v.owner = owner;
    return v;
}

} // namespace

void refresh_view(tsr_sparse_matrix *m) {
    m->view = std::visit([&](const auto &t) { return view(t, &m->storage); }, m->storage.typed);
    m->direct_f32 = m->dtype == TSR_F32 ? host_spmv_direct<float>(m->view) : nullptr;
    m->direct_f64 = m->dtype == TSR_F64 ? host_spmv_direct<double>(m->view) : nullptr;
}

const sparse::Plan &plan_of(const tsr_sparse_matrix *m) {
    return std::visit([](const auto &t) -> const sparse::Plan & { return t.plan; },
                      m->storage.typed);
}

int64_t nnz_of(const tsr_sparse_matrix *m) {
    return std::visit([](const auto &t) { return t.csr.nnz(); }, m->storage.typed);
}

} // namespace tessera::core
