/* ABI test: a program's own strong xerbla_ and cblas_xerbla replace Tessera's weak ones, and
 * receive the routine name and the parameter number that reference BLAS / CBLAS would give. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The BLAS symbols as a program sees them (Tessera ships no BLAS header). */
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *A, const int *lda, const float *B, const int *ldb,
            const float *beta, float *C, const int *ldc, size_t transa_len, size_t transb_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc, size_t transa_len, size_t transb_len);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                 const double *A, int lda, const double *B, int ldb, double beta, double *C,
                 int ldc);

enum { ROW = 101, COL = 102, NT = 111, TR = 112, CT = 113 };

/* What the overrides saw. */
static int f_calls, f_info;
static char f_name[32];
static size_t f_len;
static int c_calls, c_info;
static char c_name[64];

void xerbla_(const char *srname, const int *info, size_t len) {
    size_t n = len < sizeof f_name - 1 ? len : sizeof f_name - 1;
    memcpy(f_name, srname, n);
    f_name[n] = '\0';
    f_len = len;
    f_info = *info;
    ++f_calls;
}

void cblas_xerbla(int info, const char *rout, const char *fmt, ...) {
    (void)fmt;
    snprintf(c_name, sizeof c_name, "%s", rout ? rout : "(null)");
    c_info = info;
    ++c_calls;
}

static void reset(void) {
    f_calls = f_info = c_calls = c_info = 0;
    f_len = 0;
    f_name[0] = c_name[0] = '\0';
}

static int failures;

/* The Fortran name with its trailing blanks removed, as reference XERBLA prints it. */
static const char *trimmed(const char *s, char *buf, size_t size) {
    snprintf(buf, size, "%s", s);
    for (size_t n = strlen(buf); n > 0 && buf[n - 1] == ' '; --n) buf[n - 1] = '\0';
    return buf;
}

static void expect_fortran(const char *what, const char *name, int info, const void *C,
                           const void *C0, size_t bytes) {
    char t[32];
    trimmed(f_name, t, sizeof t);
    if (f_calls != 1 || f_info != info || strcmp(t, name) != 0 || c_calls != 0) {
        fprintf(stderr,
                "FAIL %s: expected xerbla_(\"%s\", %d) once; got %d call(s), last (\"%s\" len %zu, "
                "%d); "
                "cblas_xerbla called %d time(s)\n",
                what, name, info, f_calls, f_name, f_len, f_info, c_calls);
        ++failures;
    } else if (f_len < strlen(name)) {
        fprintf(stderr, "FAIL %s: xerbla_ name length %zu is shorter than \"%s\"\n", what, f_len,
                name);
        ++failures;
    } else {
        printf("ok   %s: xerbla_(\"%s\" (len %zu), %d)\n", what, f_name, f_len, f_info);
    }
    if (memcmp(C, C0, bytes) != 0) {
        fprintf(stderr, "FAIL %s: C was written by a call with a bad argument\n", what);
        ++failures;
    }
}

static void expect_cblas(const char *what, const char *name, int info, const void *C,
                         const void *C0, size_t bytes) {
    if (c_calls != 1 || c_info != info || strcmp(c_name, name) != 0 || f_calls != 0) {
        fprintf(
            stderr,
            "FAIL %s: expected cblas_xerbla(%d, \"%s\") once; got %d call(s), last (%d, \"%s\"); "
            "xerbla_ called %d time(s)\n",
            what, info, name, c_calls, c_info, c_name, f_calls);
        ++failures;
    } else {
        printf("ok   %s: cblas_xerbla(%d, \"%s\")\n", what, c_info, c_name);
    }
    if (memcmp(C, C0, bytes) != 0) {
        fprintf(stderr, "FAIL %s: C was written by a call with a bad argument\n", what);
        ++failures;
    }
}

/* One Fortran-door call of sgemm_ and of dgemm_ with the given arguments; A, B, C are 16-element
 * buffers, large enough for every shape used here. */
static void fortran_case(const char *what, char ta, char tb, int m, int n, int k, int lda, int ldb,
                         int ldc, int info) {
    float As[16] = {0}, Bs[16] = {0}, Cs[16], Cs0[16];
    double Ad[16] = {0}, Bd[16] = {0}, Cd[16], Cd0[16];
    const float af = 1.0f, bf = 0.0f;
    const double ad = 1.0, bd = 0.0;
    char label[128];

    for (int i = 0; i < 16; ++i) Cs[i] = Cs0[i] = Cd[i] = Cd0[i] = 42.0f + (float)i;

    reset();
    sgemm_(&ta, &tb, &m, &n, &k, &af, As, &lda, Bs, &ldb, &bf, Cs, &ldc, 1, 1);
    snprintf(label, sizeof label, "sgemm_ %s", what);
    expect_fortran(label, "SGEMM", info, Cs, Cs0, sizeof Cs);

    reset();
    dgemm_(&ta, &tb, &m, &n, &k, &ad, Ad, &lda, Bd, &ldb, &bd, Cd, &ldc, 1, 1);
    snprintf(label, sizeof label, "dgemm_ %s", what);
    expect_fortran(label, "DGEMM", info, Cd, Cd0, sizeof Cd);
}

static void cblas_case(const char *what, int layout, int ta, int tb, int m, int n, int k, int lda,
                       int ldb, int ldc, int info) {
    float As[16] = {0}, Bs[16] = {0}, Cs[16], Cs0[16];
    double Ad[16] = {0}, Bd[16] = {0}, Cd[16], Cd0[16];
    char label[128];

    for (int i = 0; i < 16; ++i) Cs[i] = Cs0[i] = Cd[i] = Cd0[i] = 42.0f + (float)i;

    reset();
    cblas_sgemm(layout, ta, tb, m, n, k, 1.0f, As, lda, Bs, ldb, 0.0f, Cs, ldc);
    snprintf(label, sizeof label, "cblas_sgemm %s", what);
    expect_cblas(label, "cblas_sgemm", info, Cs, Cs0, sizeof Cs);

    reset();
    cblas_dgemm(layout, ta, tb, m, n, k, 1.0, Ad, lda, Bd, ldb, 0.0, Cd, ldc);
    snprintf(label, sizeof label, "cblas_dgemm %s", what);
    expect_cblas(label, "cblas_dgemm", info, Cd, Cd0, sizeof Cd);
}

/* A valid call must not reach either xerbla and must compute the product. */
static void valid_calls(void) {
    const int m = 2, n = 2, k = 2, ld = 2;
    const float one = 1.0f, zero = 0.0f;
    float A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {9, 9, 9, 9};
    char ta = 'c', tb = 'n'; /* lower case and 'C' are valid transpose letters */

    reset();
    sgemm_(&ta, &tb, &m, &n, &k, &one, A, &ld, B, &ld, &zero, C, &ld, 1, 1);
    /* C = A^T: column-major A = [1 3; 2 4], A^T = [1 2; 3 4] stored as {1, 3, 2, 4}. */
    if (f_calls || c_calls || C[0] != 1 || C[1] != 3 || C[2] != 2 || C[3] != 4) {
        fprintf(stderr,
                "FAIL valid sgemm_('c','n'): xerbla_ %d, cblas_xerbla %d, C = %g %g %g %g\n",
                f_calls, c_calls, C[0], C[1], C[2], C[3]);
        ++failures;
    } else {
        printf("ok   valid sgemm_('c','n') reaches no xerbla\n");
    }

    double Ad[4] = {1, 2, 3, 4}, Bd[4] = {1, 0, 0, 1}, Cd[4] = {9, 9, 9, 9};
    reset();
    cblas_dgemm(ROW, CT, NT, 2, 2, 2, 1.0, Ad, 2, Bd, 2, 0.0, Cd, 2);
    /* Row-major A = [1 2; 3 4], A^T = [1 3; 2 4] stored as {1, 3, 2, 4}. */
    if (f_calls || c_calls || Cd[0] != 1 || Cd[1] != 3 || Cd[2] != 2 || Cd[3] != 4) {
        fprintf(stderr,
                "FAIL valid cblas_dgemm(Row, ConjTrans): xerbla_ %d, cblas_xerbla %d, C = %g %g %g "
                "%g\n",
                f_calls, c_calls, Cd[0], Cd[1], Cd[2], Cd[3]);
        ++failures;
    } else {
        printf("ok   valid cblas_dgemm(Row, ConjTrans) reaches no xerbla\n");
    }
}

int main(void) {
    /* Fortran door: transa 1, transb 2, m 3, n 4, k 5, lda 8, ldb 10, ldc 13. */
    fortran_case("m = -1", 'N', 'N', -1, 2, 2, 2, 2, 2, 3);
    fortran_case("transa = 'X'", 'X', 'N', 2, 2, 2, 2, 2, 2, 1);
    fortran_case("transb = 'X'", 'N', 'X', 2, 2, 2, 2, 2, 2, 2);
    fortran_case("n = -1", 'N', 'N', 2, -1, 2, 2, 2, 2, 4);
    fortran_case("k = -1", 'N', 'N', 2, 2, -1, 2, 2, 2, 5);
    fortran_case("lda < m (N)", 'N', 'N', 3, 2, 2, 2, 2, 3, 8);
    fortran_case("lda < k (T)", 'T', 'N', 2, 2, 3, 2, 3, 2, 8);
    fortran_case("lda = 0 with m = 0", 'N', 'N', 0, 2, 2, 0, 2, 1, 8);
    fortran_case("ldb < k (N)", 'N', 'N', 2, 2, 3, 2, 2, 2, 10);
    fortran_case("ldb < n (T)", 'N', 'T', 2, 3, 2, 2, 2, 2, 10);
    fortran_case("ldc < m", 'N', 'N', 3, 2, 2, 3, 2, 2, 13);
    fortran_case("first bad argument wins (m and ldc)", 'N', 'N', -1, 2, 2, 2, 2, 0, 3);

    /* CBLAS door, column-major: layout 1, TransA 2, TransB 3, M 4, N 5, K 6, lda 9, ldb 11,
     * ldc 14. */
    cblas_case("bad layout", 99, NT, NT, 2, 2, 2, 2, 2, 2, 1);
    cblas_case("col TransA = 0", COL, 0, NT, 2, 2, 2, 2, 2, 2, 2);
    cblas_case("col TransB = 0", COL, NT, 0, 2, 2, 2, 2, 2, 2, 3);
    cblas_case("col M = -1", COL, NT, NT, -1, 2, 2, 2, 2, 2, 4);
    cblas_case("col N = -1", COL, NT, NT, 2, -1, 2, 2, 2, 2, 5);
    cblas_case("col K = -1", COL, NT, NT, 2, 2, -1, 2, 2, 2, 6);
    cblas_case("col lda < M", COL, NT, NT, 3, 2, 2, 2, 2, 3, 9);
    cblas_case("col lda < K (Trans)", COL, TR, NT, 2, 2, 3, 2, 3, 2, 9);
    cblas_case("col ldb < K", COL, NT, NT, 2, 2, 3, 2, 2, 2, 11);
    cblas_case("col ldc < M", COL, NT, NT, 3, 2, 2, 3, 2, 2, 14);

    /* Row-major calls are the column-major problem C^T = B^T A^T. Reference CBLAS reports their
     * errors by position in that swapped call, and its test suite (and any override written
     * for it) swaps them back: M -> 5, N -> 4, lda -> 11, ldb -> 9; the rest keep their place. */
    cblas_case("row TransA = 0", ROW, 0, NT, 2, 2, 2, 2, 2, 2, 2);
    cblas_case("row TransB = 0", ROW, NT, 0, 2, 2, 2, 2, 2, 2, 3);
    cblas_case("row M = -1", ROW, NT, NT, -1, 2, 2, 2, 2, 2, 5);
    cblas_case("row N = -1", ROW, NT, NT, 2, -1, 2, 2, 2, 2, 4);
    cblas_case("row K = -1", ROW, NT, NT, 2, 2, -1, 2, 2, 2, 6);
    cblas_case("row lda < K", ROW, NT, NT, 2, 2, 3, 2, 2, 2, 11);
    cblas_case("row ldb < N", ROW, NT, NT, 2, 3, 2, 2, 2, 3, 9);
    cblas_case("row ldc < N", ROW, NT, NT, 2, 3, 2, 2, 3, 2, 14);

    valid_calls();

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all xerbla overrides received what reference BLAS gives\n");
    return 0;
}
