// One gemm implementation under measurement — Tessera on one backend, or an anchor library
// such as OpenBLAS — behind one interface, so new contenders (cuBLAS, BLIS) slot in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <tessera/tessera.h>

namespace tessera::bench {

class OpenBlas;

// A column-major C = alpha·op(A)·op(B) + beta·C.
template <class T> struct GemmCall {
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
};

// Tessera through its public API, on a handle of its own set to `backend` and `threads`.
// nullptr with *why_not filled when the backend cannot run here.
std::unique_ptr<GemmProvider> make_tessera_gemm(tsr_backend backend, int threads,
                                                std::string *why_not);

// OpenBLAS through its CBLAS entry points; `library` must outlive the provider.
std::unique_ptr<GemmProvider> make_openblas_gemm(const OpenBlas &library);

} // namespace tessera::bench
