// One gemm implementation under measurement — Tessera on one backend, or an anchor library
// (OpenBLAS, BLIS) — behind one interface, so new contenders (cuBLAS) slot in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <tessera/tessera.h>

namespace tessera::bench {

class OpenBlas;
class Blis;

// C = alpha·op(A)·op(B) + beta·C in the given layout (CBLAS's rules for lda, ldb, ldc).
template <class T> struct GemmCall {
    tsr_layout layout = TSR_COL_MAJOR;
    tsr_op transa = TSR_OP_N, transb = TSR_OP_N;
    std::int64_t m = 0, n = 0, k = 0;
    T alpha = 1;
    const T *A = nullptr;
    std::int64_t lda = 1;
    const T *B = nullptr;
    std::int64_t ldb = 1;
    T beta = 0;
    T *C = nullptr;
    std::int64_t ldc = 1;
};

// The same product as a column-major call on the same memory: a row-major C = op(A)·op(B)
// is the column-major C^T = op(B)^T·op(A)^T, so m and n swap, and so do A and B.
template <class T> GemmCall<T> as_column_major(const GemmCall<T> &c) {
    if (c.layout == TSR_COL_MAJOR) return c;
    GemmCall<T> d = c;
    d.layout = TSR_COL_MAJOR;
    d.transa = c.transb, d.transb = c.transa;
    d.m = c.n, d.n = c.m;
    d.A = c.B, d.lda = c.ldb;
    d.B = c.A, d.ldb = c.lda;
    return d;
}

class GemmProvider {
public:
    virtual ~GemmProvider() = default;
    virtual std::string name() const = 0; // "tessera/cpu", "openblas", ...
    // One call; throws std::runtime_error when the implementation reports a failure.
    virtual void gemm(const GemmCall<float> &call) = 0;
    virtual void gemm(const GemmCall<double> &call) = 0;
    // One call and its duration in seconds. The default measures wall-clock time around
    // gemm(); a provider with its own clock (CUDA events) overrides these.
    virtual double timed_gemm(const GemmCall<float> &call);
    virtual double timed_gemm(const GemmCall<double> &call);
    // A provider that computes on copies of the operands (the GPU ones) copies A, B and C on
    // the first call after new_operands() and keeps them while the calls repeat; C reaches the
    // caller's memory at fetch_result(). Host providers need neither.
    virtual void new_operands() {}
    virtual void fetch_result() {}
};

// Tessera through its public API, on a handle of its own set to `backend` and `threads`.
// nullptr with *why_not filled when the backend cannot run here.
// strassen_levels > 0: the handle runs Strassen's method (tsr_set_strassen, default block).
std::unique_ptr<GemmProvider> make_tessera_gemm(tsr_backend backend, int threads,
                                                std::string *why_not, int strassen_levels = 0);

// OpenBLAS through its CBLAS entry points; `library` must outlive the provider.
std::unique_ptr<GemmProvider> make_openblas_gemm(const OpenBlas &library);

// BLIS through its CBLAS entry points; `library` must outlive the provider.
std::unique_ptr<GemmProvider> make_blis_gemm(const Blis &library);

} // namespace tessera::bench
