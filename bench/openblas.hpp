// OpenBLAS loaded at run time with dlopen(RTLD_LOCAL | RTLD_DEEPBIND), so that its BLAS
// symbols never meet Tessera's; before loading, OPENBLAS_CORETYPE is set to the best core.
#pragma once

#include <memory>
#include <string>

namespace tessera::bench {

class OpenBlas {
public:
    // CBLAS prototypes of Debian's LP64 OpenBLAS (int sizes; CBLAS enum values as int).
    using sgemm_fn = void (*)(int layout, int transa, int transb, int m, int n, int k, float alpha,
                              const float *A, int lda, const float *B, int ldb, float beta,
                              float *C, int ldc);
    using dgemm_fn = void (*)(int layout, int transa, int transb, int m, int n, int k, double alpha,
                              const double *A, int lda, const double *B, int ldb, double beta,
                              double *C, int ldc);

    using sgemv_fn = void (*)(int layout, int trans, int m, int n, float alpha, const float *A,
                              int lda, const float *x, int incx, float beta, float *y, int incy);
    using dgemv_fn = void (*)(int layout, int trans, int m, int n, double alpha, const double *A,
                              int lda, const double *x, int incx, double beta, double *y, int incy);

    // Sets OPENBLAS_CORETYPE when it is unset (see choose_coretype), then loads `path`, or
    // libopenblas.so.0 and its Debian location when `path` is empty. Returns nullptr and
    // fills *why_not when no OpenBLAS with the needed symbols can be loaded.
    static std::unique_ptr<OpenBlas> load(const std::string &path, std::string *why_not);

    sgemm_fn sgemm = nullptr;
    dgemm_fn dgemm = nullptr;
    sgemv_fn sgemv = nullptr; // nullptr when the library lacks it
    dgemv_fn dgemv = nullptr;

    void set_num_threads(int threads) const;
    int num_threads() const; // -1 when the library does not say
    const std::string &path() const { return path_; }
    const std::string &corename() const { return corename_; } // openblas_get_corename()
    const std::string &config() const { return config_; }     // openblas_get_config()
    const std::string &coretype() const { return coretype_; } // OPENBLAS_CORETYPE at load
    // How OPENBLAS_CORETYPE came to be: "set by tessera-bench", "from the environment",
    // "unset", plus a note when the library was already loaded before we could set it.
    const std::string &coretype_origin() const { return coretype_origin_; }
    // Non-empty when the core OpenBLAS runs is not the one we asked for, or when the
    // environment asked for a weaker one than this CPU supports.
    const std::string &warning() const { return warning_; }

    // The library stays loaded until the process exits: unloading OpenBLAS while its
    // worker threads exist is unsafe, so there is no dlclose.
    OpenBlas(const OpenBlas &) = delete;
    OpenBlas &operator=(const OpenBlas &) = delete;

private:
    OpenBlas() = default;

    void *library_ = nullptr;
    void (*set_num_threads_)(int) = nullptr;
    int (*get_num_threads_)() = nullptr;
    std::string path_, corename_, config_, coretype_, coretype_origin_, warning_;
};

// The OpenBLAS core type that fits this CPU best among those Debian's 0.3.21 knows:
// "SkylakeX" with AVX-512 F/VL/BW/DQ, "Haswell" with AVX2 and FMA, nullptr otherwise; no
// wider than "Haswell" where TESSERA_CPU_ISA=avx2 narrows Tessera's own kernels.
const char *choose_coretype();

} // namespace tessera::bench
