// Runs tsr_sparse_optimize and the sparse products on the handle's backend: the format choice
// and conversion (src/sparse), the backend's prepared data, quick returns, timing and the log.
#include "core/sparse_dispatch.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "core/call_log.hpp"
#include "core/config.hpp"
#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/plugin.hpp"
#include "core/route.hpp"
#include "core/threads.hpp"
#include "core/sparse_matrix.hpp"
#include "sparse/measures.hpp"
#include "sparse/optimize.hpp"

namespace tessera::core {

namespace {

// sparse::apply_format on the matrix's storage, its view made again after (also when the
// conversion throws part way).
sparse::Applied apply(tsr_sparse_matrix *m, tsr_format format, const sparse::Planner &planner) {
    struct Refresh {
        tsr_sparse_matrix *m;
        ~Refresh() { refresh_view(m); }
    } refresh{m};
    return sparse::apply_format(m->storage, format, planner);
}

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
        const SparseView &view = view_of(m);
        kernel = table->sparse_kernel_name(&view);
    }
    return {routine, op, m->rows, m->cols, nnz_of(m), sparse::format_name(plan.format), kernel};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The timed choice of TSR_FORMAT_AUTO (TESSERA_SPARSE_TUNE; an inspector-executor, as MKL's
// optimize is): every candidate the matrix admits — CSR by rows, CSR on tiles, ELL, DIA, HYB,
// COO — converted in turn and timed on one product y = A·x (one untimed, then the best of up to
// three; a candidate whose first timed product takes more than kGiveUp times the best so far
// stops there); then the two fastest converted and timed once more, and the fastest of all kept.
// Its cost: one conversion and two to four products per candidate, two more for the two fastest,
// once. Where the structural rules (the backend's) can be wrong by a factor — a
// matrix's cache behaviour, its machine — the product's own time decides.
struct Candidate {
    tsr_format format;
    int tiled; // CSR: 1 on tiles, 0 by rows (the rows' kernel by the rows' rule)
    const char *name;
};
constexpr Candidate kCandidates[] = {{TSR_FORMAT_CSR, 0, "CSR"}, {TSR_FORMAT_CSR, 1, "CSR-tiles"},
                                     {TSR_FORMAT_ELL, 0, "ELL"}, {TSR_FORMAT_DIA, 0, "DIA"},
                                     {TSR_FORMAT_HYB, 0, "HYB"}, {TSR_FORMAT_COO, 0, "COO"}};
constexpr double kGiveUp = 3.0;
// TESSERA_SPARSE_TUNE=auto times matrices of this many entries or more.
constexpr int64_t kTuneMinEntries = int64_t(1) << 16;

bool tune_applies(const Route &choice, const tsr_sparse_matrix *m) {
    if (choice.table != route_tables.cpu || nnz_of(m) == 0 || m->rows == 0)
        return false; // products timed by the host clock, on a matrix with entries
    switch (config().sparse_tune) {
    case SparseTune::off: return false;
    case SparseTune::on: return true;
    case SparseTune::automatic: break;
    }
    return nnz_of(m) >= kTuneMinEntries;
}

// The planner for one candidate: the backend's plan for that format, CSR's kernel forced.
sparse::Planner candidate_planner(const BackendTable *table, const Candidate &c,
                                  const std::string &reason) {
    return
        [table, c, reason](const sparse::Structure &s, tsr_format requested, size_t vb, size_t ib) {
            sparse::Plan plan = plan_with(table, s, requested, vb, ib);
            if (plan.format == TSR_FORMAT_CSR) {
                plan.tiled = c.tiled != 0;
                if (!plan.tiled) plan.by = sparse::kPlanByNone, plan.kernel = 0;
            }
            if (!reason.empty()) plan.reason = reason;
            return plan;
        };
}

// The best of up to three products y = A·x (after one untimed), in seconds; infinity where
// the backend fails. Stops after one when that one exceeds `give_up`.
template <typename T>
double time_products(tsr_sparse_matrix *m, const Route &choice, const ExecContext &exec,
                     double give_up) {
    void *prepared = nullptr;
    if (prepared_state(m, choice.table, exec, &prepared) != TSR_SUCCESS)
        return std::numeric_limits<double>::infinity();
    std::vector<T> x(size_t(m->cols), T(1)), y(size_t(m->rows), T(0));
    for (size_t i = 0; i < x.size(); ++i) x[i] = T(1) + T(i % 7) / T(8);
    const SparseView &view = view_of(m);
    const SpmvArgs<T> args{false, T(1), x.data(), T(0), y.data(), &view, prepared};
    auto run = entry<T>(*choice.table);
    if (run(&exec, &args) != TSR_SUCCESS) return std::numeric_limits<double>::infinity();
    double best = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep < 3; ++rep) {
        const auto start = std::chrono::steady_clock::now();
        if (run(&exec, &args) != TSR_SUCCESS) return std::numeric_limits<double>::infinity();
        best = std::min(best, seconds_since(start));
        if (best > give_up) break;
    }
    return best;
}

// Times every candidate and leaves the fastest in place (with its times as the plan's reason).
// False, with the matrix as the rules' plan left it, when no candidate could be timed.
bool tune_format(tsr_sparse_matrix *m, const Route &choice, const ExecContext &exec) {
    const BackendTable *table = choice.table;
    const std::string rules = plan_of(m).reason;
    const char *rules_format = sparse::format_name(plan_of(m).format);
    const bool rules_tiled = plan_of(m).tiled;
    constexpr int n = int(std::size(kCandidates));
    double time[n];
    for (double &t : time) t = std::numeric_limits<double>::infinity();
    // Candidate i converted and timed (its best so far kept in time[i]); false where refused.
    auto measure = [&](int i, double give_up) {
        const Candidate &c = kCandidates[i];
        try {
            if (!apply(m, c.format, candidate_planner(table, c, "")).fault.empty())
                return false; // refused (padding, stored zeros)
            release_prepared(m);
            const double t = m->dtype == TSR_F32 ? time_products<float>(m, choice, exec, give_up)
                                                 : time_products<double>(m, choice, exec, give_up);
            time[i] = std::min(time[i], t);
            return true;
        } catch (const std::bad_alloc &) {
            return false; // this candidate does not fit in memory; the others may
        }
    };
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i)
        if (measure(i, kGiveUp * best)) best = std::min(best, time[i]);
    // The two fastest once more: a single round can catch a candidate in a moment of the
    // machine's noise and pass over the fastest by a factor.
    int first = -1, second = -1;
    for (int i = 0; i < n; ++i) {
        if (!std::isfinite(time[i])) continue;
        if (first < 0 || time[i] < time[first]) second = first, first = i;
        else if (second < 0 || time[i] < time[second]) second = i;
    }
    if (first < 0) {
        release_prepared(m);
        return false;
    }
    if (second >= 0) {
        measure(second, std::numeric_limits<double>::infinity());
        measure(first, std::numeric_limits<double>::infinity());
    }
    release_prepared(m);
    int best_index = first;
    if (second >= 0 && time[second] < time[first]) best_index = second;
    std::string times;
    for (int i = 0; i < n; ++i) {
        if (!std::isfinite(time[i])) continue;
        char item[64];
        std::snprintf(item, sizeof item, "%s%s %.3g ms", times.empty() ? "" : ", ",
                      kCandidates[i].name, time[i] * 1e3);
        times += item;
    }
    const Candidate &c = kCandidates[best_index];
    const std::string reason = std::string("timed: ") + times + " (the rules: " + rules_format +
                               (rules_tiled ? "-tiles" : "") + ", " + rules + ")";
    return apply(m, c.format, candidate_planner(table, c, reason)).fault.empty();
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
    sparse::Applied applied = apply(
        m, format, [table](const sparse::Structure &s, tsr_format requested, size_t vb, size_t ib) {
            return plan_with(table, s, requested, vb, ib);
        });
    if (!applied.fault.empty())
        return fail(applied.refused ? TSR_ERR_NOT_SUPPORTED : TSR_ERR_INTERNAL,
                    "tsr_sparse_optimize: %s", applied.fault.c_str());
    release_prepared(m);

    // The backend prepares its own data now, so that the first product does not pay for it.
    ExecContext exec{call_threads(ctx->num_threads), choice.state};
    if (format == TSR_FORMAT_AUTO && tune_applies(choice, m) && !tune_format(m, choice, exec)) {
        // Nothing could be timed: back to the rules' plan.
        applied = apply(m, format,
                        [table](const sparse::Structure &s, tsr_format requested, size_t vb,
                                size_t ib) { return plan_with(table, s, requested, vb, ib); });
        if (!applied.fault.empty())
            return fail(TSR_ERR_INTERNAL, "tsr_sparse_optimize: %s", applied.fault.c_str());
    }
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

namespace {

template <typename T> auto block_entry(const BackendTable &t) {
    if constexpr (sizeof(T) == 4) return t.spmm_f32;
    else return t.spmm_f64;
}

// A product with vectors (k == 1, spmv) or blocks (spmm) on the handle's backend: the quick
// returns, the route, the prepared data and the log. `call(table, exec, view, prepared)` runs
// the backend's entry.
template <typename T, typename Call>
tsr_status product(tsr_context *ctx, const char *routine, tsr_op op, T alpha, T beta,
                   tsr_sparse_matrix *A, int64_t k, const void *in, const void *out, Call &&call) {
    if (!ctx) ctx = default_context();
    if (!ctx) return fail(TSR_ERR_OUT_OF_MEMORY, "%s: cannot create the default handle", routine);
    const bool verbose = config().verbose;
    const bool trans = op != TSR_OP_N;
    const char op_letter = op == TSR_OP_N ? 'N' : op == TSR_OP_T ? 'T' : 'C';
    auto traced = [&](const BackendTable *table) {
        SpmvTrace t = trace_of(A, routine, op_letter, table);
        t.k = k;
        return t;
    };

    const int64_t out_rows = trans ? A->cols : A->rows;
    if (out_rows == 0 || k == 0 || (alpha == T(0) && beta == T(1))) {
        if (verbose) log_spmv(traced(nullptr), "none", "quick return", 0, 0.0);
        return TSR_SUCCESS;
    }

    Route choice;
    if (tsr_status s = route(ctx, {Work::sparse, routine, 0, 0, 0, 0, {in, out, nullptr}}, &choice);
        s != TSR_SUCCESS)
        return s;
    ExecContext exec{call_threads(ctx->num_threads), choice.state};
    void *prepared = nullptr;
    if (tsr_status s = prepared_state(A, choice.table, exec, &prepared); s != TSR_SUCCESS)
        return fail(s, "%s: backend %s cannot prepare the matrix: %s", routine, choice.table->name,
                    choice.table->last_error ? choice.table->last_error() : last_error());
    const SparseView &view = view_of(A);
    // A plugin keeps its failure detail to itself: carry it into this library's message.
    auto detail = [&](tsr_status s) {
        if (s != TSR_SUCCESS && choice.table->last_error)
            return fail(s, "%s: %s", routine, choice.table->last_error());
        return s;
    };
    if (!verbose) return detail(call(*choice.table, exec, view, prepared));

    const auto start = std::chrono::steady_clock::now();
    tsr_status status = detail(call(*choice.table, exec, view, prepared));
    // A product on device vectors returns once queued: the log times it to its end.
    if (status == TSR_SUCCESS && choice.table->synchronize)
        status = detail(choice.table->synchronize(choice.state));
    log_spmv(traced(choice.table), choice.table->name, choice.why, exec.num_threads,
             seconds_since(start));
    return status;
}

} // namespace

namespace {

template <typename T> SpmvDirectFn<T> direct_of(const tsr_sparse_matrix *m) {
    if constexpr (sizeof(T) == 4) return m->direct_f32;
    else return m->direct_f64;
}

template <typename T> auto &direct_t_of(tsr_sparse_matrix *m) {
    if constexpr (sizeof(T) == 4) return m->direct_t_f32;
    else return m->direct_t_f64;
}

// After a transposed product on the CPU: the direct product on its copy of Aᵀ, where the copy
// is made and its product is one (published once; see tsr_sparse_matrix).
template <typename T> void publish_direct_t(tsr_sparse_matrix *A, void *prepared) {
    if (direct_t_of<T>(A).load(std::memory_order_relaxed)) return;
    const void *storage = nullptr;
    const SpmvDirectFn<T> f = host_spmv_direct_t<T>(view_of(A), prepared, &storage);
    if (!f) return;
    std::lock_guard<std::mutex> guard(A->lock);
    if (direct_t_of<T>(A).load(std::memory_order_relaxed)) return;
    A->direct_t_storage = storage;
    direct_t_of<T>(A).store(f, std::memory_order_release);
}

} // namespace

template <typename T>
tsr_status spmv(tsr_context *ctx, const char *routine, tsr_op op, T alpha, tsr_sparse_matrix *A,
                const T *x, T beta, T *y) {
    // A product the CPU runs on one thread in the matrix's plan (or, transposed, on its copy of
    // Aᵀ once made), where the route would take the CPU (direct_allowed, as for gemm plans):
    // straight to its kernel, no layer between.
    if (alpha != T(0)) {
        if (op == TSR_OP_N) {
            if (const SpmvDirectFn<T> f = direct_of<T>(A); f && direct_allowed(ctx)) {
                f(&A->storage, alpha, x, beta, y);
                return TSR_SUCCESS;
            }
        } else if (const SpmvDirectFn<T> f = direct_t_of<T>(A).load(std::memory_order_acquire);
                   f && direct_allowed(ctx)) {
            f(A->direct_t_storage, alpha, x, beta, y);
            return TSR_SUCCESS;
        }
    }
    return product<T>(ctx, routine, op, alpha, beta, A, 1, x, y,
                      [&](const BackendTable &table, const ExecContext &exec,
                          const SparseView &view, void *prepared) {
                          const SpmvArgs<T> args{op != TSR_OP_N, alpha,   x, beta, y,
                                                 &view,          prepared};
                          const tsr_status s = entry<T>(table)(&exec, &args);
                          if (s == TSR_SUCCESS && op != TSR_OP_N && &table == route_tables.cpu)
                              publish_direct_t<T>(A, prepared);
                          return s;
                      });
}

template <typename T>
tsr_status spmm(tsr_context *ctx, const char *routine, tsr_layout layout, tsr_op op, int64_t k,
                T alpha, tsr_sparse_matrix *A, const T *X, int64_t ldx, T beta, T *Y, int64_t ldy) {
    return product<T>(
        ctx, routine, op, alpha, beta, A, k, X, Y,
        [&](const BackendTable &table, const ExecContext &exec, const SparseView &view,
            void *prepared) {
            if (!block_entry<T>(table))
                return fail(TSR_ERR_NOT_SUPPORTED, "%s: backend %s has no sparse x dense product",
                            routine, table.name);
            const SpmmArgs<T> args{
                op != TSR_OP_N, layout == TSR_ROW_MAJOR, k, alpha, X, ldx, beta, Y, ldy, &view,
                prepared};
            return block_entry<T>(table)(&exec, &args);
        });
}

template tsr_status spmv<float>(tsr_context *, const char *, tsr_op, float, tsr_sparse_matrix *,
                                const float *, float, float *);
template tsr_status spmv<double>(tsr_context *, const char *, tsr_op, double, tsr_sparse_matrix *,
                                 const double *, double, double *);
template tsr_status spmm<float>(tsr_context *, const char *, tsr_layout, tsr_op, int64_t, float,
                                tsr_sparse_matrix *, const float *, int64_t, float, float *,
                                int64_t);
template tsr_status spmm<double>(tsr_context *, const char *, tsr_layout, tsr_op, int64_t, double,
                                 tsr_sparse_matrix *, const double *, int64_t, double, double *,
                                 int64_t);

} // namespace tessera::core
