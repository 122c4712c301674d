// Runs tsr_sparse_optimize and the sparse products on the handle's backend: the format choice
// and conversion (src/sparse), the backend's prepared data, quick returns, timing and the log.
#include "core/sparse_dispatch.hpp"

#include <chrono>

#include "core/call_log.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/plugin.hpp"
#include "core/threads.hpp"
#include "cpu/spmv_info.hpp"
#include "sparse/choose_gpu.hpp"
#include "sparse/optimize.hpp"

namespace tessera::core {

namespace {

struct SparseChoice {
    const BackendTable *table;
    void *state;     // the backend's per-handle state
    const char *why; // for the log; nullptr when the handle named the backend
};

bool has_sparse(const BackendTable *t) { return t && t->sparse_prepare && t->spmv_f32 && t->spmv_f64; }

// The backend of an optimize or a product. Auto: the CUDA backend when x or y is its device
// memory (a host backend could not read them), else the CPU; a cost model for moving host
// vectors and the matrix to the device is not there yet.
SparseChoice choose(const tsr_context *ctx, bool device_vectors) {
    switch (ctx->backend) {
    case TSR_BACKEND_REFERENCE: return {&reference::backend(), nullptr, nullptr};
    case TSR_BACKEND_CUDA:
        if (const BackendTable *cuda = cuda_backend(nullptr)) {
            if (has_sparse(cuda)) return {cuda, ctx->cuda_state, nullptr};
            return {&cpu::backend(), nullptr, "cuda has no sparse kernels"};
        }
        return {&cpu::backend(), nullptr, "cuda unavailable"};
    case TSR_BACKEND_CPU: return {&cpu::backend(), nullptr, nullptr};
    case TSR_BACKEND_AUTO: break;
    }
    if (device_vectors)
        if (const BackendTable *cuda = cuda_backend_if_driver_loaded(); has_sparse(cuda))
            return {cuda, ctx->cuda_state, "auto: device vectors"};
    return {&cpu::backend(), nullptr, device_vectors ? "auto: no CUDA backend for device vectors" : "auto: host vectors"};
}

sparse::Target target_of(const BackendTable *table) {
    if (table == &cpu::backend()) return cpu::spmv_wide_simd() ? sparse::Target::cpu_simd : sparse::Target::cpu;
    if (table == &reference::backend()) return sparse::Target::cpu;
    return sparse::Target::gpu;
}

template <typename T> auto entry(const BackendTable &t) {
    if constexpr (sizeof(T) == 4) return t.spmv_f32;
    else return t.spmv_f64;
}

// The kernel `table` runs the matrix's format with: the plan's, except that a GPU given a
// CSR plan made for another backend (or none) picks its own kernel by the same rule as here.
sparse::Kernel kernel_on(const tsr_sparse_matrix *m, const BackendTable *table) {
    const sparse::Plan &plan = plan_of(m);
    if (!table || plan.format != TSR_FORMAT_CSR || sparse::is_gpu_kernel(plan.kernel) ||
        target_of(table) != sparse::Target::gpu)
        return plan.kernel;
    return std::visit(
        [](const auto &t) { return sparse::gpu_csr_kernel(t.rows, t.structure ? &*t.structure : nullptr); },
        m->storage.typed);
}

SpmvTrace trace_of(const tsr_sparse_matrix *m, const char *routine, char op, const BackendTable *table) {
    const sparse::Plan &plan = plan_of(m);
    return {routine, op, m->rows, m->cols, nnz_of(m), sparse::format_name(plan.format),
            sparse::kernel_name(plan.format, kernel_on(m, table))};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

tsr_status sparse_optimize(tsr_context *ctx, tsr_sparse_matrix *m, tsr_format format) {
    if (!ctx) ctx = default_context();
    if (!ctx) return fail(TSR_ERR_OUT_OF_MEMORY, "tsr_sparse_optimize: cannot create the default handle");
    const auto start = std::chrono::steady_clock::now();
    SparseChoice choice = choose(ctx, false);

    sparse::Applied applied = sparse::apply_format(m->storage, format, target_of(choice.table));
    if (!applied.fault.empty())
        return fail(applied.refused ? TSR_ERR_NOT_SUPPORTED : TSR_ERR_INTERNAL,
                    "tsr_sparse_optimize: %s", applied.fault.c_str());
    release_prepared(m);

    // The backend prepares its own data now, so that the first product does not pay for it.
    ExecContext exec{call_threads(ctx->num_threads), choice.state};
    void *state = nullptr;
    tsr_status s = prepared_state(m, choice.table, exec, &state);
    if (s != TSR_SUCCESS)
        return fail(s, "tsr_sparse_optimize: backend %s cannot prepare the matrix: %s", choice.table->name,
                    choice.table->last_error ? choice.table->last_error() : last_error());

    if (config().verbose)
        log_sparse_optimize(trace_of(m, "", ' ', choice.table), sparse::format_name(format), choice.table->name,
                            plan_of(m).reason.c_str(), seconds_since(start));
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
        if (verbose) log_spmv(trace_of(A, routine, op_letter, nullptr), "none", "quick return", 0, 0.0);
        return TSR_SUCCESS;
    }

    const bool device_vectors = any_device_pointer(x, y, nullptr);
    SparseChoice choice = choose(ctx, device_vectors);
    // A host backend given device vectors would dereference them: refuse instead.
    if (device_vectors && target_of(choice.table) != sparse::Target::gpu)
        return fail(TSR_ERR_NOT_SUPPORTED,
                    "%s: x or y is CUDA device memory, which the %s backend cannot read; use the "
                    "cuda or auto backend, or pass host vectors",
                    routine, choice.table->name);
    ExecContext exec{call_threads(ctx->num_threads), choice.state};
    void *prepared = nullptr;
    if (tsr_status s = prepared_state(A, choice.table, exec, &prepared); s != TSR_SUCCESS)
        return fail(s, "%s: backend %s cannot prepare the matrix: %s", routine, choice.table->name,
                    choice.table->last_error ? choice.table->last_error() : last_error());
    SpmvArgs<T> args{trans, alpha, x, beta, y, &A->storage, prepared};
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
    log_spmv(trace_of(A, routine, op_letter, choice.table), choice.table->name, choice.why, exec.num_threads,
             seconds_since(start));
    return status;
}

template tsr_status spmv<float>(tsr_context *, const char *, tsr_op, float, tsr_sparse_matrix *,
                                const float *, float, float *);
template tsr_status spmv<double>(tsr_context *, const char *, tsr_op, double, tsr_sparse_matrix *,
                                 const double *, double, double *);

} // namespace tessera::core
