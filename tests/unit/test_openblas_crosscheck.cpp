// Cross-check against OpenBLAS, loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND) so its BLAS
// symbols never meet ours: both results must satisfy the oracle bound on the same inputs.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "gemm_oracle.hpp"

namespace tessera::test {
namespace {

using cblas_sgemm_fn = void (*)(int, int, int, int, int, int, float, const float *, int,
                                const float *, int, float, float *, int);
using cblas_dgemm_fn = void (*)(int, int, int, int, int, int, double, const double *, int,
                                const double *, int, double, double *, int);

struct OpenBlas {
    void *lib = nullptr;
    cblas_sgemm_fn sgemm = nullptr;
    cblas_dgemm_fn dgemm = nullptr;
    OpenBlas() {
#if defined(__SANITIZE_ADDRESS__)
        return; // the sanitizer runtime refuses RTLD_DEEPBIND; the plain build runs this test
#endif
        for (const char *name :
             {"libopenblas.so.0", "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"}) {
            lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
            if (lib) break;
        }
        if (!lib) return;
        sgemm = reinterpret_cast<cblas_sgemm_fn>(dlsym(lib, "cblas_sgemm"));
        dgemm = reinterpret_cast<cblas_dgemm_fn>(dlsym(lib, "cblas_dgemm"));
    }
};

OpenBlas &openblas() {
    static OpenBlas o;
    return o;
}

template <typename T> void crosscheck(tsr_handle h, const GemmCase &c) {
    const bool a_rows_m = c.ta == TSR_OP_N, b_rows_k = c.tb == TSR_OP_N;
    auto A = random_matrix<T>(a_rows_m ? c.m : c.k, a_rows_m ? c.k : c.m, c.layout, 1, T(0));
    auto B = random_matrix<T>(b_rows_k ? c.k : c.n, b_rows_k ? c.n : c.k, c.layout, 2, T(0));
    auto C0 = random_matrix<T>(c.m, c.n, c.layout, 3, T(0));
    auto ours = C0, theirs = C0;
    ASSERT_EQ(run_gemm(h, c, A, B, ours), TSR_SUCCESS) << tsr_last_error();
    if constexpr (sizeof(T) == 4)
        openblas().sgemm(c.layout, c.ta, c.tb, int(c.m), int(c.n), int(c.k), float(c.alpha),
                         A.data.data(), int(A.ld), B.data.data(), int(B.ld), float(c.beta),
                         theirs.data.data(), int(theirs.ld));
    else
        openblas().dgemm(c.layout, c.ta, c.tb, int(c.m), int(c.n), int(c.k), c.alpha, A.data.data(),
                         int(A.ld), B.data.data(), int(B.ld), c.beta, theirs.data.data(),
                         int(theirs.ld));
    EXPECT_TRUE(check_gemm(c, A, B, C0, ours)) << "Tessera";
    EXPECT_TRUE(check_gemm(c, A, B, C0, theirs)) << "OpenBLAS";
}

TEST(OpenBlasCrossCheck, SameInputsBothWithinTheBound) {
    if (!openblas().sgemm || !openblas().dgemm)
        GTEST_SKIP() << "OpenBLAS (libopenblas.so.0) not found, or a sanitizer build";
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    std::uniform_int_distribution<int64_t> size(1, 200);
    for (int trial = 0; trial < 24; ++trial) {
        GemmCase c{trial % 2 ? TSR_ROW_MAJOR : TSR_COL_MAJOR,
                   (trial / 2) % 2 ? TSR_OP_T : TSR_OP_N,
                   (trial / 4) % 2 ? TSR_OP_T : TSR_OP_N,
                   size(rng()),
                   size(rng()),
                   size(rng()),
                   0.75,
                   trial % 3 ? 0.0 : -1.25};
        crosscheck<float>(h, c);
        crosscheck<double>(h, c);
        if (HasFailure()) break;
    }
    tsr_destroy(h);
}

} // namespace
} // namespace tessera::test
