/* Tessera example: LAPACK on Tessera's BLAS. Solves a random 1000x1000 system A x = b with
 * LAPACK's dgesv_ (LU with partial pivoting), checks the residual with dgemv_, and says which
 * library serves dgemm_, the routine the reference LAPACK's dgetrf spends its time in (the
 * trailing updates of the blocked LU, and the small products of its recursive panels).
 *
 * Build with CMakeLists.txt beside it (find_package(BLAS), find_package(LAPACK)), then run with
 * TESSERA_VERBOSE=1 to see one line per call: `tessera: dgemm col NN ...` from inside dgetrf,
 * and `tessera: dtrsm_ forwarded to ...` for what Tessera hands to its backing BLAS. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The Fortran LAPACK and BLAS interfaces: every argument by reference, 32-bit integers. */
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);

enum { N = 1000 };

/* Which library the dynamic linker binds a name to, as the program's own calls see it. */
static void where(const char *name) {
    void *fn = dlsym(RTLD_DEFAULT, name);
    Dl_info info;
    if (fn && dladdr(fn, &info) && info.dli_fname) {
        /* Tessera's library is the one that defines tsr_version, in the same object. */
        void *tsr = dlsym(RTLD_DEFAULT, "tsr_version");
        Dl_info tsr_info;
        int tessera = tsr && dladdr(tsr, &tsr_info) && tsr_info.dli_fbase == info.dli_fbase;
        printf("%-7s is served by %s%s\n", name, info.dli_fname, tessera ? " (Tessera)" : "");
    } else {
        printf("%-7s is not found\n", name);
    }
}

int main(void) {
    const int n = N, nrhs = 1, one = 1;
    double *a = malloc(sizeof(double) * N * N), *lu = malloc(sizeof(double) * N * N);
    double *b = malloc(sizeof(double) * N), *x = malloc(sizeof(double) * N);
    double *r = malloc(sizeof(double) * N);
    int *ipiv = malloc(sizeof(int) * N), info = 0;
    if (!a || !lu || !b || !x || !r || !ipiv) return 1;

    /* A random matrix (column-major) and right-hand side, from a fixed linear congruential
     * generator so every run solves the same system. */
    unsigned long long state = 20240601ULL;
    for (long i = 0; i < (long)N * N + N; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(state >> 11) / 9007199254740992.0 - 0.5;
        if (i < (long)N * N) a[i] = lu[i] = v;
        else b[i - (long)N * N] = x[i - (long)N * N] = v;
    }

    dgesv_(&n, &nrhs, lu, &n, ipiv, x, &n, &info);
    if (info != 0) {
        fprintf(stderr, "dgesv_ failed: info = %d\n", info);
        return 1;
    }

    /* r = b - A x; the backward error |r|_inf / (|A|_inf |x|_inf + |b|_inf) is O(n u). */
    const double minus_one = -1.0, plus_one = 1.0;
    for (int i = 0; i < N; ++i) r[i] = b[i];
    dgemv_("N", &n, &n, &minus_one, a, &n, x, &one, &plus_one, r, &one);
    double rn = 0, an = 0, xn = 0, bn = 0;
    for (int i = 0; i < N; ++i) {
        double row = 0;
        for (int j = 0; j < N; ++j) row += fabs(a[i + (long)j * N]);
        an = fmax(an, row);
        rn = fmax(rn, fabs(r[i]));
        xn = fmax(xn, fabs(x[i]));
        bn = fmax(bn, fabs(b[i]));
    }
    double backward = rn / (an * xn + bn);
    printf("dgesv %dx%d: |b - A x|_inf / (|A|_inf |x|_inf + |b|_inf) = %.3g\n", N, N, backward);
    where("dgesv_");
    where("dgemm_");

    int ok = backward < 1e-12;
    printf("%s\n", ok ? "residual ok" : "residual too large");
    free(a);
    free(lu);
    free(b);
    free(x);
    free(r);
    free(ipiv);
    return ok ? 0 : 1;
}
