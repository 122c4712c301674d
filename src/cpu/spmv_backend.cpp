// The CPU backend's sparse entries: its per-matrix data (for transposed products), the product
// with vectors, which hands the matrix's current format to the matching kernel, and the
// product with blocks, which runs on CSR.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <new>
#include <type_traits>
#include <variant>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "cpu/backend.hpp"
#include "cpu/isa.hpp"
#include "cpu/spmm_kernels.hpp"
#include "cpu/spmv_kernels.hpp"
#include "cpu/spmv_transpose.hpp"
#include "cpu/spmv_rules.hpp"
#include "sparse/convert.hpp"
#include "sparse/optimize.hpp"
#include "sparse/structure.hpp"
#include "sparse/storage.hpp"

namespace tessera::cpu {

// Transposed products scatter (spmv_transpose.cpp) the first time; from the second on they
// run the plain product on a copy of Aᵀ made then, in the format the CPU's rules choose for
// that copy (ELL for a small matrix of short rows, as AUTO would choose for Aᵀ itself): the
// scatter's writes make it slower than the plain product, and the copy costs a few products'
// time once, so it is made only for a matrix whose transposed product is asked for again. DIA
// needs no scatter (its transpose reads the same diagonals, shifted), and from the second
// transposed product on takes the copy only below kCopyFormatEntries entries: there, in cache,
// the shifted diagonals' loads straddle cache lines in both operands and the copy's plain
// product ran faster (olm1000 in double: 1.2 µs against 0.84); a larger one streams memory
// either way and keeps no second copy.
inline constexpr uint64_t kScatterProductsBeforeCopy = 1;
// The copy of a matrix with this many entries or more stays in CSR, the format the corpus's
// transposed products were measured on (docs/performance.md); below it, where AUTO takes the
// rules' format without timing (core/sparse_dispatch.cpp, kTuneMinEntries), so does the copy.
inline constexpr int64_t kCopyFormatEntries = int64_t(1) << 16;

// AUTO's SIMD rules (ELL, HYB for short rows) rest on AVX-512 gathers beating scalar loads, as
// on Intel's cores. On AMD's (Zen 4) gathers are slower than scalar loads, so the ELL those
// rules pick for small matrices with short rows loses to CSR there; the plain rules apply
// (docs/journal/2026-11-cpu-spmv.md).
namespace {

bool spmv_wide_simd() {
#if defined(__x86_64__)
    static const bool fast_gathers = active_isa() == Isa::avx512 && !__builtin_cpu_is("amd");
    return fast_gathers;
#else
    return false;
#endif
}

// CSR's kernel: the plan's where the CPU's rules made it, else the CPU's rule on the rows (a
// plan of another backend's rules names that backend's variants).
SpmvKernel csr_variant(const sparse::Plan &plan, const sparse::RowStats &rows) {
    if (plan.by == core::kPlanByCpu) return SpmvKernel(plan.kernel);
    return csr_kernel(rows, nullptr);
}

} // namespace

void sparse_plan(const core::SparsePlanRequest *q, core::SparsePlanAnswer *a) {
    const sparse::Plan p = plan_format(q->structure, spmv_wide_simd(), tsr_format(q->requested),
                                       size_t(q->value_bytes), size_t(q->index_bytes));
    a->format = p.format;
    a->by = core::kPlanByCpu;
    a->kernel = p.kernel;
    a->tiled = p.tiled;
    std::snprintf(a->reason, sizeof a->reason, "%s", p.reason.c_str());
}

const char *sparse_kernel_name(const core::SparseView *A) {
    const auto &storage = *static_cast<const sparse::Storage *>(A->owner);
    return std::visit(
        [](const auto &t) {
            return kernel_name(t.plan.format,
                               t.plan.tiled ? SpmvKernel::tiles : csr_variant(t.plan, t.rows));
        },
        storage.typed);
}

struct SparsePrepared {
    TransposeWork transpose;
    std::atomic<uint64_t> transposed_products{0};
    std::atomic<bool> copy_made{false}; // set once `copy` is complete (read without a lock)
    std::once_flag copy_once;
    std::atomic<bool> copy_failed{false}; // no memory for the copy: keep scattering
    sparse::Storage copy;                 // Aᵀ (its CSR, and the rules' format), made on demand
    // spmv_direct_t found no direct product for the transposed products (the copy is made and
    // its product is not one, or they do not run on the copy): not asked again.
    std::atomic<bool> no_direct_t{false};
};

namespace {

// Whether A's transposed products run DIA's own (shifted diagonals) every time, never the copy.
template <typename V, typename I> bool own_dia_transpose(const sparse::Typed<V, I> &t) {
    return t.plan.format == TSR_FORMAT_DIA && t.csr.nnz() >= kCopyFormatEntries;
}

} // namespace

namespace {

// The CPU's rules as a planner for sparse::apply_format (the kernel recorded as theirs).
sparse::Plan cpu_plan(const sparse::Structure &s, tsr_format requested, size_t value_bytes,
                      size_t index_bytes) {
    sparse::Plan p = plan_format(s, spmv_wide_simd(), requested, value_bytes, index_bytes);
    p.by = core::kPlanByCpu;
    return p;
}

// The copy of Aᵀ: its CSR (which products with blocks read) and, for a matrix of fewer than
// kCopyFormatEntries entries where the CPU's rules choose another format for it, that format
// too (made also when a product with blocks asks first: the copy is made once for both).
// Made on the second transposed product with vectors, or at once for a product with blocks
// (`at_once`: each of its columns would pay for the scatter); nullptr while not made, or where
// there is no memory for it.
template <typename V, typename I>
const sparse::Typed<V, I> *transposed_copy(SparsePrepared &p, const sparse::Typed<V, I> &t,
                                           int threads, bool at_once = false) {
    if (p.copy_made.load(std::memory_order_acquire)) // the products after: no count, no once
        return &std::get<sparse::Typed<V, I>>(p.copy.typed);
    if ((!at_once && p.transposed_products.fetch_add(1, std::memory_order_relaxed) <
                         kScatterProductsBeforeCopy) ||
        p.copy_failed.load(std::memory_order_relaxed))
        return nullptr;
    try {
        std::call_once(p.copy_once, [&] {
            sparse::Typed<V, I> c;
            c.csr = sparse::transpose(t.csr, threads);
            c.rows = sparse::row_stats(c.csr.rows, c.csr.cols, c.csr.row_ptr.data());
            c.structure = sparse::analyze(c.csr, c.rows);
            c.plan.by = core::kPlanByCpu;
            c.plan.kernel = uint8_t(csr_kernel(c.rows, &*c.structure));
            p.copy.typed = std::move(c);
            // The rules' format for the copy; where it cannot be had (no memory for it), the
            // copy stays in CSR by rows, which needs nothing more.
            if (t.csr.nnz() < kCopyFormatEntries) try {
                    sparse::apply_format(p.copy, TSR_FORMAT_AUTO, cpu_plan);
                } catch (const std::bad_alloc &) {
                }
            p.copy_made.store(true, std::memory_order_release);
        });
    } catch (const std::bad_alloc &) {
        p.copy_failed.store(true, std::memory_order_relaxed);
        return nullptr;
    }
    return &std::get<sparse::Typed<V, I>>(p.copy.typed);
}

// y = alpha·A·x + beta·y in the format of t's plan.
template <typename V, typename I>
void product_n(const sparse::Typed<V, I> &t, int threads, const SpmvVectors<V> &v) {
    switch (t.plan.format) {
    case TSR_FORMAT_COO: coo_n(t.coo, threads, v); break;
    case TSR_FORMAT_ELL: ell_n(t.ell, threads, v); break;
    case TSR_FORMAT_DIA: dia_n(t.dia, threads, v); break;
    case TSR_FORMAT_HYB:
        ell_n(t.hyb.ell, threads, v);
        if (t.hyb.tail.nnz > 0)
            coo_accumulate(t.hyb.tail, threads, SpmvVectors<V>{v.alpha, v.x, V(1), v.y}, false);
        break;
    default:
        if (t.plan.tiled) tiles_n(t.tiled, threads, v);
        else csr_n(t.csr, csr_variant(t.plan, t.rows), threads, v);
        break;
    }
}

} // namespace

tsr_status sparse_prepare(const core::ExecContext *, const core::SparseView *, void **prepared) {
    *prepared = new SparsePrepared;
    return TSR_SUCCESS;
}

void sparse_release(void *prepared) { delete static_cast<SparsePrepared *>(prepared); }

template <typename T> tsr_status spmv(const core::ExecContext *ctx, const core::SpmvArgs<T> *p) {
    const core::SpmvArgs<T> &a = *p;
    auto *prepared = static_cast<SparsePrepared *>(a.prepared);
    return std::visit(
        [&](const auto &t) {
            using V = typename std::decay_t<decltype(t)>::value_type;
            if constexpr (!std::is_same_v<V, T>) {
                return TSR_ERR_INTERNAL;
            } else {
                const int threads = ctx->num_threads;
                const int64_t out = a.trans ? t.csr.cols : t.csr.rows;
                if (a.alpha == T(0)) { // A and x are not read
                    scale_y(out, a.beta, a.y, threads);
                    return TSR_SUCCESS;
                }
                const SpmvVectors<T> v{a.alpha, a.x, a.beta, a.y};
                if (a.trans) {
                    const bool dia = t.plan.format == TSR_FORMAT_DIA;
                    if (own_dia_transpose(t)) dia_t(t.dia, threads, v);
                    else if (const auto *c = transposed_copy(*prepared, t, threads))
                        product_n(*c, threads, v);
                    else if (dia) dia_t(t.dia, threads, v);
                    else scatter_t(t, prepared->transpose, threads, v);
                } else {
                    product_n(t, threads, v);
                }
                return TSR_SUCCESS;
            }
        },
        static_cast<const sparse::Storage *>(a.A->owner)->typed);
}

namespace {

// The direct product of `storage` in its plan, where product_n runs it on one thread.
template <typename T> core::SpmvDirectFn<T> direct_for(const sparse::Storage &storage) {
    return std::visit(
        [&](const auto &t) -> core::SpmvDirectFn<T> {
            using V = typename std::decay_t<decltype(t)>::value_type;
            if constexpr (!std::is_same_v<V, T>) return nullptr;
            else if (t.plan.format == TSR_FORMAT_ELL) return ell_direct(t.ell);
            else if (t.plan.format != TSR_FORMAT_CSR || t.plan.tiled) return nullptr;
            else return csr_direct(t.csr, csr_variant(t.plan, t.rows));
        },
        storage.typed);
}

} // namespace

template <typename T> core::SpmvDirectFn<T> spmv_direct(const core::SparseView &view) {
    return direct_for<T>(*static_cast<const sparse::Storage *>(view.owner));
}

template <typename T>
core::SpmvDirectFn<T> spmv_direct_t(const core::SparseView &view, void *prepared,
                                    const void **storage) {
    auto *p = static_cast<SparsePrepared *>(prepared);
    if (!p || p->no_direct_t.load(std::memory_order_relaxed)) return nullptr;
    const bool own_dia = std::visit([](const auto &t) { return own_dia_transpose(t); },
                                    static_cast<const sparse::Storage *>(view.owner)->typed);
    if (!own_dia && !p->copy_made.load(std::memory_order_acquire)) return nullptr; // not yet
    const core::SpmvDirectFn<T> f = own_dia ? nullptr : direct_for<T>(p->copy);
    if (f) *storage = &p->copy;
    else p->no_direct_t.store(true, std::memory_order_relaxed); // the answer stays: not asked again
    return f;
}

// Sparse × dense: the CSR kernels of spmm.cpp on A's canonical CSR, or on the CSR of Aᵀ.
template <typename T> tsr_status spmm(const core::ExecContext *ctx, const core::SpmmArgs<T> *p) {
    const core::SpmmArgs<T> &a = *p;
    auto *prepared = static_cast<SparsePrepared *>(a.prepared);
    return std::visit(
        [&](const auto &t) {
            using V = typename std::decay_t<decltype(t)>::value_type;
            using I = typename std::decay_t<decltype(t)>::index_type;
            if constexpr (!std::is_same_v<V, T>) {
                return TSR_ERR_INTERNAL;
            } else {
                const int threads = ctx->num_threads;
                const sparse::Csr<V, I> *csr = &t.csr;
                if (a.alpha == T(0)) { // A and X are not read: Y = beta·Y, column by column
                    const int64_t out = a.trans ? t.csr.cols : t.csr.rows;
                    for (int64_t j = 0; j < a.k; ++j)
                        if (a.row_major)
                            for (int64_t i = 0; i < out; ++i)
                                a.Y[i * a.ldy + j] =
                                    a.beta == T(0) ? T(0) : a.beta * a.Y[i * a.ldy + j];
                        else scale_y(out, a.beta, a.Y + j * a.ldy, threads);
                    return TSR_SUCCESS;
                }
                if (a.trans) {
                    const auto *c = transposed_copy(*prepared, t, threads, true);
                    if (!c)
                        return core::fail(TSR_ERR_OUT_OF_MEMORY,
                                          "no memory for the CSR copy of the transposed matrix");
                    csr = &c->csr;
                }
                const int64_t out = csr->rows;
                const SpmmRows<V, I> rows{csr->row_ptr.data(),
                                          csr->col.data(),
                                          csr->val.data(),
                                          a.k,
                                          a.row_major,
                                          a.row_major,
                                          a.alpha,
                                          a.X,
                                          a.ldx,
                                          a.beta,
                                          a.Y,
                                          a.ldy};
                csr_mm(out, csr->cols, rows, csr->nnz(), threads);
                return TSR_SUCCESS;
            }
        },
        static_cast<const sparse::Storage *>(a.A->owner)->typed);
}

template tsr_status spmv<float>(const core::ExecContext *, const core::SpmvArgs<float> *);
template tsr_status spmv<double>(const core::ExecContext *, const core::SpmvArgs<double> *);
template core::SpmvDirectFn<float> spmv_direct<float>(const core::SparseView &);
template core::SpmvDirectFn<double> spmv_direct<double>(const core::SparseView &);
template core::SpmvDirectFn<float> spmv_direct_t<float>(const core::SparseView &, void *,
                                                        const void **);
template core::SpmvDirectFn<double> spmv_direct_t<double>(const core::SparseView &, void *,
                                                          const void **);
template tsr_status spmm<float>(const core::ExecContext *, const core::SpmmArgs<float> *);
template tsr_status spmm<double>(const core::ExecContext *, const core::SpmmArgs<double> *);

} // namespace tessera::cpu
