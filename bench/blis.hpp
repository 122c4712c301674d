// BLIS, the second anchor, loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND): CBLAS entry points,
// threads, version, and its sub-configuration, picked as OpenBLAS's core type is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace tessera::bench {

class Blis {
public:
    // CBLAS prototypes for BLIS built with 32-bit BLAS integers (Debian's libblis4) ...
    using sgemm32_fn = void (*)(int layout, int transa, int transb, int m, int n, int k,
                                float alpha, const float *A, int lda, const float *B, int ldb,
                                float beta, float *C, int ldc);
    using dgemm32_fn = void (*)(int layout, int transa, int transb, int m, int n, int k,
                                double alpha, const double *A, int lda, const double *B, int ldb,
                                double beta, double *C, int ldc);
    // ... and with 64-bit ones (the enums stay int).
    using sgemm64_fn = void (*)(int layout, int transa, int transb, std::int64_t m, std::int64_t n,
                                std::int64_t k, float alpha, const float *A, std::int64_t lda,
                                const float *B, std::int64_t ldb, float beta, float *C,
                                std::int64_t ldc);
    using dgemm64_fn = void (*)(int layout, int transa, int transb, std::int64_t m, std::int64_t n,
                                std::int64_t k, double alpha, const double *A, std::int64_t lda,
                                const double *B, std::int64_t ldb, double beta, double *C,
                                std::int64_t ldc);

    // Loads `path`, or libblis.so.4 from the loader's search path and Debian's locations
    // when it is empty; picks the sub-configuration (see choose_blis_arch) and sets the
    // thread count before BLIS initialises. nullptr with *why_not filled on failure.
    static std::unique_ptr<Blis> load(const std::string &path, int threads, std::string *why_not);

    // Exactly one pair is set, after blas_int_bits().
    sgemm32_fn sgemm32 = nullptr;
    dgemm32_fn dgemm32 = nullptr;
    sgemm64_fn sgemm64 = nullptr;
    dgemm64_fn dgemm64 = nullptr;
    int blas_int_bits() const { return blas_int_bits_; }

    void set_num_threads(int threads) const;
    int num_threads() const; // what BLIS says; -1 when it does not (BLIS_NUM_THREADS unset)
    int threads_set() const { return threads_set_; } // the count the bench gave it
    const std::string &path() const { return path_; }
    const std::string &version() const { return version_; } // bli_info_get_version_str()
    const std::string &arch() const { return arch_; }       // sub-configuration in use
    const std::string &arch_origin() const { return arch_origin_; }
    const std::string &threading() const { return threading_; } // "openmp", "pthreads", "none"
    const std::string &warning() const { return warning_; }
    // "BLIS 0.9.0, sub-configuration skx, openmp threading, 32-bit BLAS integers"
    std::string description() const;

    // Never unloaded, like OpenBLAS: its thread pool may outlive any call.
    Blis(const Blis &) = delete;
    Blis &operator=(const Blis &) = delete;

private:
    Blis() = default;

    void *library_ = nullptr;
    void (*set_num_threads_)(std::int64_t) = nullptr;
    std::int64_t (*get_num_threads_)() = nullptr;
    int int_bits_ = 64; // BLIS's own integer (dim_t), for the thread-count getter
    int blas_int_bits_ = 32;
    int threads_set_ = 0;
    std::string path_, version_, arch_, arch_origin_, threading_, warning_;
};

// The BLIS sub-configuration that fits this CPU best among the generic Intel ones: "skx"
// with AVX-512 F/VL/BW/DQ, "haswell" with AVX2+FMA; nullptr on other vendors (BLIS's own
// choice, e.g. its zen configurations, is then kept) and on older CPUs.
const char *choose_blis_arch();

} // namespace tessera::bench
