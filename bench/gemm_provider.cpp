// The gemm implementations under measurement (see gemm_provider.hpp): Tessera via tsr_sgemm
// / tsr_dgemm on a handle, OpenBLAS and BLIS via their dlopen'ed cblas_sgemm / cblas_dgemm.
#include "gemm_provider.hpp"

#include <climits>
#include <stdexcept>

#include "backend_names.hpp"
#include "blis.hpp"
#include "openblas.hpp"
#include "timing.hpp"

namespace tessera::bench {

double GemmProvider::timed_gemm(const GemmCall<float> &call) {
    double start = now_seconds();
    gemm(call);
    return now_seconds() - start;
}

double GemmProvider::timed_gemm(const GemmCall<double> &call) {
    double start = now_seconds();
    gemm(call);
    return now_seconds() - start;
}

namespace {

class TesseraGemm final : public GemmProvider {
public:
    TesseraGemm(tsr_handle handle, tsr_backend backend, int strassen_levels)
        : handle_(handle), backend_(backend), strassen_levels_(strassen_levels) {}
    ~TesseraGemm() override { tsr_destroy(handle_); }
    TesseraGemm(const TesseraGemm &) = delete;
    TesseraGemm &operator=(const TesseraGemm &) = delete;

    std::string name() const override {
        std::string name = std::string("tessera/") + backend_name(backend_);
        if (strassen_levels_ > 0) name += "+strassen" + std::to_string(strassen_levels_);
        return name;
    }

    void gemm(const GemmCall<float> &c) override {
        check(tsr_sgemm(handle_, c.layout, c.transa, c.transb, c.m, c.n, c.k, c.alpha, c.A, c.lda,
                        c.B, c.ldb, c.beta, c.C, c.ldc),
              "tsr_sgemm");
    }
    void gemm(const GemmCall<double> &c) override {
        check(tsr_dgemm(handle_, c.layout, c.transa, c.transb, c.m, c.n, c.k, c.alpha, c.A, c.lda,
                        c.B, c.ldb, c.beta, c.C, c.ldc),
              "tsr_dgemm");
    }

private:
    static void check(tsr_status status, const char *routine) {
        if (status == TSR_SUCCESS) return;
        throw std::runtime_error(std::string(routine) + ": " + tsr_status_string(status) + ": " +
                                 tsr_last_error());
    }
    tsr_handle handle_;
    tsr_backend backend_;
    int strassen_levels_;
};

class OpenBlasGemm final : public GemmProvider {
public:
    explicit OpenBlasGemm(const OpenBlas &library) : lib_(library) {}
    std::string name() const override { return "openblas"; }

    void gemm(const GemmCall<float> &c) override {
        check_sizes(c);
        lib_.sgemm(c.layout, c.transa, c.transb, int(c.m), int(c.n), int(c.k), c.alpha, c.A,
                   int(c.lda), c.B, int(c.ldb), c.beta, c.C, int(c.ldc));
    }
    void gemm(const GemmCall<double> &c) override {
        check_sizes(c);
        lib_.dgemm(c.layout, c.transa, c.transb, int(c.m), int(c.n), int(c.k), c.alpha, c.A,
                   int(c.lda), c.B, int(c.ldb), c.beta, c.C, int(c.ldc));
    }

private:
    // Debian's libopenblas.so.0 takes 32-bit sizes.
    template <class T> static void check_sizes(const GemmCall<T> &c) {
        for (std::int64_t v : {c.m, c.n, c.k, c.lda, c.ldb, c.ldc})
            if (v > INT_MAX) throw std::runtime_error("openblas: a size exceeds its 32-bit int");
    }
    const OpenBlas &lib_;
};

class BlisGemm final : public GemmProvider {
public:
    explicit BlisGemm(const Blis &library) : lib_(library) {}
    std::string name() const override { return "blis"; }

    void gemm(const GemmCall<float> &c) override {
        if (lib_.sgemm64) {
            lib_.sgemm64(c.layout, c.transa, c.transb, c.m, c.n, c.k, c.alpha, c.A, c.lda, c.B,
                         c.ldb, c.beta, c.C, c.ldc);
            return;
        }
        check_sizes(c);
        lib_.sgemm32(c.layout, c.transa, c.transb, int(c.m), int(c.n), int(c.k), c.alpha, c.A,
                     int(c.lda), c.B, int(c.ldb), c.beta, c.C, int(c.ldc));
    }
    void gemm(const GemmCall<double> &c) override {
        if (lib_.dgemm64) {
            lib_.dgemm64(c.layout, c.transa, c.transb, c.m, c.n, c.k, c.alpha, c.A, c.lda, c.B,
                         c.ldb, c.beta, c.C, c.ldc);
            return;
        }
        check_sizes(c);
        lib_.dgemm32(c.layout, c.transa, c.transb, int(c.m), int(c.n), int(c.k), c.alpha, c.A,
                     int(c.lda), c.B, int(c.ldb), c.beta, c.C, int(c.ldc));
    }

private:
    // Debian's libblis.so.4 takes 32-bit BLAS integers.
    template <class T> static void check_sizes(const GemmCall<T> &c) {
        for (std::int64_t v : {c.m, c.n, c.k, c.lda, c.ldb, c.ldc})
            if (v > INT_MAX) throw std::runtime_error("blis: a size exceeds its 32-bit int");
    }
    const Blis &lib_;
};

} // namespace

std::unique_ptr<GemmProvider> make_tessera_gemm(tsr_backend backend, int threads,
                                                std::string *why_not, int strassen_levels) {
    tsr_handle handle = nullptr;
    auto fail = [&](const char *what, tsr_status status) -> std::unique_ptr<GemmProvider> {
        // tsr_last_error() names the function already; fall back on the status text.
        const char *detail = tsr_last_error();
        if (why_not)
            *why_not = detail && *detail ? std::string(detail)
                                         : std::string(what) + ": " + tsr_status_string(status);
        if (handle) tsr_destroy(handle);
        return nullptr;
    };
    if (tsr_status s = tsr_create(&handle); s != TSR_SUCCESS) return fail("tsr_create", s);
    if (tsr_status s = tsr_set_backend(handle, backend); s != TSR_SUCCESS)
        return fail("tsr_set_backend", s);
    if (tsr_status s = tsr_set_num_threads(handle, threads); s != TSR_SUCCESS)
        return fail("tsr_set_num_threads", s);
    if (tsr_status s = tsr_set_strassen(handle, strassen_levels, 0); s != TSR_SUCCESS)
        return fail("tsr_set_strassen", s);
    return std::make_unique<TesseraGemm>(handle, backend, strassen_levels);
}

std::unique_ptr<GemmProvider> make_openblas_gemm(const OpenBlas &library) {
    return std::make_unique<OpenBlasGemm>(library);
}

std::unique_ptr<GemmProvider> make_blis_gemm(const Blis &library) {
    return std::make_unique<BlisGemm>(library);
}

} // namespace tessera::bench
