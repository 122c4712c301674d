// The gemm plan door (tsr_gemm_plan_*): the checks of tsr_?gemm made once for a shape, types,
// layout, ops and leading dimensions; executing takes only the scalars and the pointers, one
// product, a strided batch or a batch of pointer arrays (spread over the handle's threads).
#include <omp.h>

#include <cinttypes>
#include <new>

#include "api/gemm_front.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/threads.hpp"
#include "cpu/backend.hpp"

struct tsr_gemm_plan_s {
    tsr_handle handle;
    tsr_dtype dtype;
    // The column-major call the plan's call becomes (see submit_gemm): a row-major one swaps
    // the roles of A and B, m and n, and their transposes.
    bool swap;
    bool trans_a, trans_b;
    int64_t m, n, k, lda, ldb, ldc;
    tessera::core::GemmTrace trace;       // the call as the user made it, for the call log
    int64_t extent_a, extent_b, extent_c; // elements from a matrix's first to its last one, + 1
    // The CPU backend's kernel for this product where it runs unpacked on one thread
    // (cpu::planned_direct), else nullptr; the one of the plan's dtype is set.
    tessera::core::HostDirectFn<float> direct_f32;
    tessera::core::HostDirectFn<double> direct_f64;
    // The strides at which that kernel reads op(B): element (l, j) at l·b_rs + j·b_cs.
    int64_t b_rs, b_cs;
};

namespace tessera::api {

namespace {

using core::fail;

int64_t extent(int64_t rows, int64_t cols, int64_t ld) { // checked by check_gemm: no overflow
    return rows > 0 && cols > 0 ? (cols - 1) * ld + rows : 0;
}

// Whether count matrices of `extent` elements, `stride` apart, can all be addressed.
bool strided_fits(int64_t count, int64_t stride, int64_t extent, size_t elem_size) {
    int64_t span = 0;
    if (__builtin_mul_overflow(count - 1, stride, &span) ||
        __builtin_add_overflow(span, extent, &span))
        return false;
    return span <= int64_t(PTRDIFF_MAX / ptrdiff_t(elem_size));
}

template <typename T> core::HostDirectFn<T> direct_of(const tsr_gemm_plan_s &p) {
    if constexpr (sizeof(T) == 4) return p.direct_f32;
    else return p.direct_f64;
}

// A product the plan's kernel may run now (core::direct_allowed), straight to it: no descriptor
// made, no dispatch. False: nothing done, run_one's way.
template <typename T>
bool run_quick(const tsr_gemm_plan_s &p, double alpha, const void *A, const void *B, double beta,
               void *C) {
    const core::HostDirectFn<T> f = direct_of<T>(p);
    if (!f || alpha == 0 || !A || !B || !C || !core::direct_allowed(p.handle)) return false;
    f(p.m, p.n, p.k, T(alpha), static_cast<const T *>(p.swap ? B : A), p.lda,
      static_cast<const T *>(p.swap ? A : B), p.b_rs, p.b_cs, T(beta), static_cast<T *>(C), p.ldc);
    return true;
}

template <typename T>
tsr_status run_one(const tsr_gemm_plan_s &p, T alpha, const T *A, const T *B, T beta, T *C) {
    const core::GemmArgs<T> g{p.trans_a, p.trans_b,      p.m,   p.n,  p.k, alpha, p.swap ? B : A,
                              p.lda,     p.swap ? A : B, p.ldb, beta, C,   p.ldc};
    return core::gemm_planned(p.handle, g, p.trace, direct_of<T>(p));
}

// The products of a batch, the i-th from get(i) = {A, B, C}; with more products than threads
// each runs on one thread (a call inside a parallel region does), else one after another with
// the handle's threads each. The first failure is returned; the others still run.
template <typename T, typename Get>
tsr_status run_batch(const char *name, const tsr_gemm_plan_s &p, int64_t count, T alpha, T beta,
                     Get get) {
    const bool reads_ab = p.m > 0 && p.n > 0 && p.k > 0 && alpha != T(0);
    for (int64_t i = 0; i < count; ++i) { // every pointer checked before anything is written
        auto [A, B, C] = get(i);
        if ((reads_ab && (!A || !B)) || (p.m > 0 && p.n > 0 && !C))
            return fail(TSR_ERR_INVALID_ARGUMENT, "%s: %s of product %" PRId64 " is NULL", name,
                        (p.m > 0 && p.n > 0 && !C) ? "C" : (!A ? "A" : "B"), i);
    }
    tsr_context *ctx = p.handle ? p.handle : core::default_context();
    const int threads = ctx ? core::call_threads(ctx->num_threads) : 1;
    tsr_status first = TSR_SUCCESS;
    if (threads > 1 && count >= 2 * int64_t(threads)) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int64_t i = 0; i < count; ++i) {
            auto [A, B, C] = get(i);
            const tsr_status s = run_one<T>(p, alpha, A, B, beta, C);
            if (s != TSR_SUCCESS) {
#pragma omp critical(tessera_plan_batch)
                if (first == TSR_SUCCESS) first = s;
            }
        }
        return first;
    }
    for (int64_t i = 0; i < count; ++i) {
        auto [A, B, C] = get(i);
        const tsr_status s = run_one<T>(p, alpha, A, B, beta, C);
        if (s != TSR_SUCCESS && first == TSR_SUCCESS) first = s;
    }
    return first;
}

// The bare kernel (tsr_gemm_plan_?gemm_kernel): the plan's unpacked kernel on the caller's
// arrays, nothing checked. With alpha 0, A and B are not read: C = beta·C (zeros for beta 0).
template <typename T>
void bare_kernel(tsr_gemm_plan plan, T alpha, const T *A, const T *B, T beta, T *C) {
    const tsr_gemm_plan_s &p = *plan;
    if (alpha == T(0)) {
        for (int64_t j = 0; j < p.n; ++j)
            for (int64_t i = 0; i < p.m; ++i) {
                T &c = C[i + j * p.ldc];
                c = beta == T(0) ? T(0) : beta * c;
            }
        return;
    }
    direct_of<T>(p)(p.m, p.n, p.k, alpha, p.swap ? B : A, p.lda, p.swap ? A : B, p.b_rs, p.b_cs,
                    beta, C, p.ldc);
}

template <typename T, typename Kernel>
tsr_status get_kernel(const char *name, tsr_gemm_plan plan, Kernel *kernel) {
    constexpr tsr_dtype dtype = sizeof(T) == 4 ? TSR_F32 : TSR_F64;
    if (!plan) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: plan is NULL", name);
    if (!kernel) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: kernel is NULL", name);
    if (plan->dtype != dtype)
        return fail(TSR_ERR_INVALID_ARGUMENT, "%s: the plan is of %s values; use %s", name,
                    dtype == TSR_F32 ? "TSR_F64" : "TSR_F32",
                    dtype == TSR_F32 ? "tsr_gemm_plan_dgemm_kernel" : "tsr_gemm_plan_sgemm_kernel");
    const tsr_context *ctx = plan->handle ? plan->handle : core::default_context();
    if (!ctx || (ctx->backend != TSR_BACKEND_CPU && ctx->backend != TSR_BACKEND_AUTO))
        return fail(TSR_ERR_NOT_SUPPORTED,
                    "%s: the plan's handle is not on the cpu or auto backend; use "
                    "tsr_gemm_plan_execute",
                    name);
    if (!direct_of<T>(*plan))
        return fail(TSR_ERR_NOT_SUPPORTED,
                    "%s: the CPU does not run this %" PRId64 "x%" PRId64 "x%" PRId64
                    " product unpacked on one thread (it takes m, n, k > 0, m*n*k under 3e5, "
                    "op(A) not transposed in column-major terms, and AVX2 or AVX-512); use "
                    "tsr_gemm_plan_execute",
                    name, plan->trace.m, plan->trace.n, plan->trace.k);
    *kernel = &bare_kernel<T>;
    return TSR_SUCCESS;
}

template <typename T> struct Ptrs {
    const T *A, *B;
    T *C;
};

} // namespace
} // namespace tessera::api

using namespace tessera::api;
using tessera::core::fail;
using tessera::core::guarded;

extern "C" {

TSR_API tsr_status tsr_gemm_plan_create(tsr_handle handle, tsr_gemm_plan *plan, tsr_dtype dtype,
                                        tsr_layout layout, tsr_op transa, tsr_op transb, int64_t m,
                                        int64_t n, int64_t k, int64_t lda, int64_t ldb,
                                        int64_t ldc) {
    return guarded("tsr_gemm_plan_create", [&] {
        const char *name = "tsr_gemm_plan_create";
        if (!plan) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: plan is NULL", name);
        if (dtype != TSR_F32 && dtype != TSR_F64)
            return fail(TSR_ERR_INVALID_ARGUMENT, "%s: dtype = %d is not TSR_F32 or TSR_F64", name,
                        int(dtype));
        const size_t elem = dtype == TSR_F32 ? 4 : 8;
        if (tsr_status s =
                check_tsr_gemm(name, layout, transa, transb, m, n, k, lda, ldb, ldc, elem);
            s != TSR_SUCCESS)
            return s;
        const bool row = layout == TSR_ROW_MAJOR, ta = transa != TSR_OP_N, tb = transb != TSR_OP_N;
        const char la = op_letter(transa), lb = op_letter(transb);
        const char *routine = dtype == TSR_F32 ? "sgemm" : "dgemm";
        auto *p = new tsr_gemm_plan_s{};
        p->handle = handle;
        p->dtype = dtype;
        p->swap = row;
        p->trans_a = row ? tb : ta;
        p->trans_b = row ? ta : tb;
        p->m = row ? n : m;
        p->n = row ? m : n;
        p->k = k;
        p->lda = row ? ldb : lda;
        p->ldb = row ? lda : ldb;
        p->ldc = ldc;
        p->trace = {routine, layout, la, lb, m, n, k};
        p->b_rs = p->trans_b ? p->ldb : 1;
        p->b_cs = p->trans_b ? 1 : p->ldb;
        // The extents in storage order: a row-major matrix of r rows is stored as r "columns".
        const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
        p->extent_a = row ? extent(ac, ar, lda) : extent(ar, ac, lda);
        p->extent_b = row ? extent(bc, br, ldb) : extent(br, bc, ldb);
        p->extent_c = row ? extent(n, m, ldc) : extent(m, n, ldc);
        // The shape of the column-major call, for the CPU backend to say which kernel it runs.
        if (dtype == TSR_F32)
            p->direct_f32 = tessera::cpu::planned_direct(tessera::core::GemmArgs<float>{
                p->trans_a, p->trans_b, p->m, p->n, p->k, 1.0f, nullptr, p->lda, nullptr, p->ldb,
                1.0f, nullptr, p->ldc});
        else
            p->direct_f64 = tessera::cpu::planned_direct(tessera::core::GemmArgs<double>{
                p->trans_a, p->trans_b, p->m, p->n, p->k, 1.0, nullptr, p->lda, nullptr, p->ldb,
                1.0, nullptr, p->ldc});
        *plan = p;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_gemm_plan_destroy(tsr_gemm_plan plan) {
    return guarded("tsr_gemm_plan_destroy", [&] {
        if (!plan) return fail(TSR_ERR_INVALID_ARGUMENT, "tsr_gemm_plan_destroy: plan is NULL");
        delete plan;
        return TSR_SUCCESS;
    });
}

TSR_API tsr_status tsr_gemm_plan_execute(tsr_gemm_plan plan, double alpha, const void *A,
                                         const void *B, double beta, void *C) {
    return guarded("tsr_gemm_plan_execute", [&] {
        const char *name = "tsr_gemm_plan_execute";
        if (!plan) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: plan is NULL", name);
        const tsr_gemm_plan_s &p = *plan;
        if (p.dtype == TSR_F32 ? run_quick<float>(p, alpha, A, B, beta, C)
                               : run_quick<double>(p, alpha, A, B, beta, C))
            return TSR_SUCCESS;
        const bool reads_ab = p.m > 0 && p.n > 0 && p.k > 0 && alpha != 0;
        if ((reads_ab && (!A || !B)) || (p.m > 0 && p.n > 0 && !C))
            return fail(TSR_ERR_INVALID_ARGUMENT, "%s: %s is NULL", name,
                        (p.m > 0 && p.n > 0 && !C) ? "C" : (!A ? "A" : "B"));
        if (p.dtype == TSR_F32)
            return run_one<float>(p, float(alpha), static_cast<const float *>(A),
                                  static_cast<const float *>(B), float(beta),
                                  static_cast<float *>(C));
        return run_one<double>(p, alpha, static_cast<const double *>(A),
                               static_cast<const double *>(B), beta, static_cast<double *>(C));
    });
}

TSR_API tsr_status tsr_gemm_plan_sgemm_kernel(tsr_gemm_plan plan, tsr_sgemm_kernel *kernel) {
    return guarded("tsr_gemm_plan_sgemm_kernel",
                   [&] { return get_kernel<float>("tsr_gemm_plan_sgemm_kernel", plan, kernel); });
}

TSR_API tsr_status tsr_gemm_plan_dgemm_kernel(tsr_gemm_plan plan, tsr_dgemm_kernel *kernel) {
    return guarded("tsr_gemm_plan_dgemm_kernel",
                   [&] { return get_kernel<double>("tsr_gemm_plan_dgemm_kernel", plan, kernel); });
}

TSR_API tsr_status tsr_gemm_plan_execute_batch(tsr_gemm_plan plan, int64_t count, double alpha,
                                               const void *const *A, const void *const *B,
                                               double beta, void *const *C) {
    return guarded("tsr_gemm_plan_execute_batch", [&] {
        const char *name = "tsr_gemm_plan_execute_batch";
        if (!plan) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: plan is NULL", name);
        if (count < 0)
            return fail(TSR_ERR_INVALID_ARGUMENT, "%s: count = %" PRId64 " is negative", name,
                        count);
        if (count > 0 && (!A || !B || !C))
            return fail(TSR_ERR_INVALID_ARGUMENT, "%s: the %s array is NULL", name,
                        !A ? "A" : (!B ? "B" : "C"));
        if (plan->dtype == TSR_F32)
            return run_batch<float>(name, *plan, count, float(alpha), float(beta), [&](int64_t i) {
                return Ptrs<float>{static_cast<const float *>(A[i]),
                                   static_cast<const float *>(B[i]), static_cast<float *>(C[i])};
            });
        return run_batch<double>(name, *plan, count, alpha, beta, [&](int64_t i) {
            return Ptrs<double>{static_cast<const double *>(A[i]),
                                static_cast<const double *>(B[i]), static_cast<double *>(C[i])};
        });
    });
}

TSR_API tsr_status tsr_gemm_plan_execute_strided(tsr_gemm_plan plan, int64_t count, double alpha,
                                                 const void *A, int64_t stride_a, const void *B,
                                                 int64_t stride_b, double beta, void *C,
                                                 int64_t stride_c) {
    return guarded("tsr_gemm_plan_execute_strided", [&] {
        const char *name = "tsr_gemm_plan_execute_strided";
        if (!plan) return fail(TSR_ERR_INVALID_ARGUMENT, "%s: plan is NULL", name);
        if (count < 0)
            return fail(TSR_ERR_INVALID_ARGUMENT, "%s: count = %" PRId64 " is negative", name,
                        count);
        if (stride_a < 0 || stride_b < 0 || stride_c < 0)
            return fail(TSR_ERR_INVALID_ARGUMENT, "%s: stride_%c = %" PRId64 " is negative", name,
                        stride_a < 0 ? 'a' : (stride_b < 0 ? 'b' : 'c'),
                        stride_a < 0 ? stride_a : (stride_b < 0 ? stride_b : stride_c));
        if (count == 0) return TSR_SUCCESS;
        // Every C apart from the others: a stride below C's extent would make products write
        // into each other's results.
        if (count > 1 && stride_c < plan->extent_c)
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "%s: stride_c = %" PRId64 " is less than the %" PRId64
                        " elements one C spans",
                        name, stride_c, plan->extent_c);
        const size_t elem = plan->dtype == TSR_F32 ? 4 : 8;
        if (!strided_fits(count, stride_a, plan->extent_a, elem) ||
            !strided_fits(count, stride_b, plan->extent_b, elem) ||
            !strided_fits(count, stride_c, plan->extent_c, elem))
            return fail(TSR_ERR_INVALID_ARGUMENT,
                        "%s: %" PRId64 " products at these strides extend beyond the "
                        "address space",
                        name, count);
        if (plan->dtype == TSR_F32)
            return run_batch<float>(name, *plan, count, float(alpha), float(beta), [&](int64_t i) {
                return Ptrs<float>{A ? static_cast<const float *>(A) + i * stride_a : nullptr,
                                   B ? static_cast<const float *>(B) + i * stride_b : nullptr,
                                   C ? static_cast<float *>(C) + i * stride_c : nullptr};
            });
        return run_batch<double>(name, *plan, count, alpha, beta, [&](int64_t i) {
            return Ptrs<double>{A ? static_cast<const double *>(A) + i * stride_a : nullptr,
                                B ? static_cast<const double *>(B) + i * stride_b : nullptr,
                                C ? static_cast<double *>(C) + i * stride_c : nullptr};
        });
    });
}

} // extern "C"
