// Runs tsr_sparse_optimize and the sparse products on the handle's backend: the format choice
// and conversion (src/sparse), the backend's prepared data, quick returns, timing and the log.
#include "core/sparse_dispatch.hpp"

#include <chrono>

#include "core/call_log.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/plugin.hpp"
#include "core/route.hpp"
#include "core/threads.hpp"
#include "core/sparse_matrix.hpp"
#include "sparse/measures.hpp"
#include "sparse/optimize.hpp"

namespace tessera::core {

namespace {

// The plan `table`'s format rules give (CSR with the plain kernel where it has none).
sparse::Plan plan_with(const BackendTable *table, const sparse::Structure &s, tsr_format requested,
                       size_t value_bytes, size_t index_bytes) {
    sparse::Plan plan;
    if (!table->sparse_plan) {
        plan.format = requested == TSR_FORMAT_AUTO ? TSR_FORMAT_CSR : requested;
        plan.reason =
            requested == TSR_FORMAT_AUTO ? "the backend has no format rules: CSR" : "requested";
        return plan;
    }
    SparsePlanRequest request{};
    request.requested = requested;
    request.value_bytes = int32_t(value_bytes);
    request.index_bytes = int32_t(index_bytes);
    request.structure = s;
    SparsePlanAnswer answer{};
    table->sparse_plan(&request, &answer);
    answer.reason[sizeof answer.reason - 1] = '\0';
    plan.format = tsr_format(answer.format);
    plan.by = uint8_t(answer.by);
    plan.kernel = uint8_t(answer.kernel);
    plan.tiled = answer.tiled != 0;
    plan.reason = answer.reason;
    return plan;
}

template <typename T> auto entry(const BackendTable &t) {
    if constexpr (sizeof(T) == 4) return t.spmv_f32;
    else return t.spmv_f64;
}

SpmvTrace trace_of(const tsr_sparse_matrix *m, const char *routine, char op,
                   const BackendTable *table) {
    const sparse::Plan &plan = plan_of(m);
    const char *kernel = "standard";
    if (table && table->sparse_kernel_name) {
        const SparseView view = view_of(m);
        kernel = table->sparse_kernel_name(&view);
    }
    return {routine, op, m->rows, m->cols, nnz_of(m), sparse::format_name(plan.format), kernel};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

tsr_status sparse_optimize(tsr_context *ctx, tsr_sparse_matrix *m, tsr_format format) {
    if (!ctx) ctx = default_context();
    if (!ctx)
        return fail(TSR_ERR_OUT_OF_MEMORY, "tsr_sparse_optimize: cannot create the default handle");
    const auto start = std::chrono::steady_clock::now();
    Route choice;
    if (tsr_status s = route(ctx, {Work::sparse, "tsr_sparse_optimize", 0, 0, 0, 0, {}}, &choice);
        s != TSR_SUCCESS)
        return s;

    const BackendTable *table = choice.table;
    sparse::Applied applied =
        sparse::apply_format(m->storage, format,
                             [table](const sparse::Structure &s, tsr_format requested, size_t vb,
                                     size_t ib) { return plan_with(table, s, requested, vb, ib); });
    if (!applied.fault.empty())
        return fail(applied.refused ? TSR_ERR_NOT_SUPPORTED : TSR_ERR_INTERNAL,
                    "tsr_sparse_optimize: %s", applied.fault.c_str());
    release_prepared(m);

    // The backend prepares its own data now, so that the first product does not pay for it.
    ExecContext exec{call_threads(ctx->num_threads), choice.state};
    void *state = nullptr;
    tsr_status s = prepared_state(m, choice.table, exec, &state);
    if (s != TSR_SUCCESS)
        return fail(s, "tsr_sparse_optimize: backend %s cannot prepare the matrix: %s",
                    choice.table->name,
                    choice.table->last_error ? choice.table->last_error() : last_error());

    if (config().verbose)
        log_sparse_optimize(trace_of(m, "", ' ', choice.table), sparse::format_name(format),
                            choice.table->name, plan_of(m).reason.c_str(), seconds_since(start));
    return TSR_SUCCESS;
}

template <typename T>
tsr_status spmv(tsr_context *ctx, const char *routine, tsr_op op, T alpha, tsr_sparse_matrix *A,
                const T *x, T beta, T *y) {
    if (!ctx) ctx = default_context();
    if (!ctx) return fail(TSR_ERR_OUT_OF_MEMORY, "%s: cannot create the default handle", routine);
    const bool verbose = config().verbose;
    const bool trans = op != TSR_OP_N;
    const char op_letter = op == TSR_OP_N ? 'N' : op == TSR_OP_T ? 'T' : 'C';

    const int64_t out_rows = trans ? A->cols : A->rows;
    if (out_rows == 0 || (alpha == T(0) && beta == T(1))) {
        if (verbose)
            log_spmv(trace_of(A, routine, op_letter, nullptr), "none", "quick return", 0, 0.0);
        return TSR_SUCCESS;
    }

    Route choice;
    if (tsr_status s = route(ctx, {Work::sparse, routine, 0, 0, 0, 0, {x, y, nullptr}}, &choice);
        s != TSR_SUCCESS)
        return s;
    ExecContext exec{call_threads(ctx->num_threads), choice.state};
    void *prepared = nullptr;
    if (tsr_status s = prepared_state(A, choice.table, exec, &prepared); s != TSR_SUCCESS)
        return fail(s, "%s: backend %s cannot prepare the matrix: %s", routine, choice.table->name,
                    choice.table->last_error ? choice.table->last_error() : last_error());
    const SparseView view = view_of(A);
    SpmvArgs<T> args{trans, alpha, x, beta, y, &view, prepared};
    auto run = entry<T>(*choice.table);
    // A plugin keeps its failure detail to itself: carry it into this library's message.
    auto detail = [&](tsr_status s) {
        if (s != TSR_SUCCESS && choice.table->last_error)
            return fail(s, "%s: %s", routine, choice.table->last_error());
        return s;
    };
    if (!verbose) return detail(run(&exec, &args));

    const auto start = std::chrono::steady_clock::now();
    tsr_status status = detail(run(&exec, &args));
    // A product on device vectors returns once queued: the log times it to its end.
    if (status == TSR_SUCCESS && choice.table->synchronize)
        status = detail(choice.table->synchronize(choice.state));
    log_spmv(trace_of(A, routine, op_letter, choice.table), choice.table->name, choice.why,
             exec.num_threads, seconds_since(start));
    return status;
}

template tsr_status spmv<float>(tsr_context *, const char *, tsr_op, float, tsr_sparse_matrix *,
                                const float *, float, float *);
template tsr_status spmv<double>(tsr_context *, const char *, tsr_op, double, tsr_sparse_matrix *,
                                 const double *, double, double *);

} // namespace tessera::core
