/* Tessera example: the CBLAS interface, cblas_dgemm on row-major matrices, linked with
 * -ltessera. Tessera ships no cblas.h, so the prototype and the enums are declared here. */
#include <stdio.h>
#include <stdlib.h>

/* The CBLAS enum values are fixed by the CBLAS standard; these declarations match any cblas.h. */
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };

void cblas_dgemm(enum CBLAS_ORDER layout, enum CBLAS_TRANSPOSE transa, enum CBLAS_TRANSPOSE transb,
                 int m, int n, int k, double alpha, const double *A, int lda, const double *B,
                 int ldb, double beta, double *C, int ldc);

enum { M = 3, N = 4, K = 2 };

static double magnitude(double x) { return x < 0 ? -x : x; }

int main(void) {
    /* Row-major: element (i, j) of a matrix with leading dimension ld is at [i * ld + j]. */
    const double A[M * K] = {1, 2, 3, 4, 5, 6};
    const double B[K * N] = {1, -1, 0, 2, 3, 1, 1, 0};
    double C[M * N];
    const double alpha = 1.5, beta = 0.5;
    int bad = 0;

    for (int i = 0; i < M * N; ++i) C[i] = (double)i;

    double ref[M * N];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double sum = 0.0;
            for (int p = 0; p < K; ++p) sum += A[i * K + p] * B[p * N + j];
            ref[i * N + j] = alpha * sum + beta * C[i * N + j];
        }

    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, K, B, N, beta, C, N);

    printf("cblas_dgemm: C = %g*A*B + %g*C (row-major, %dx%d)\n", alpha, beta, M, N);
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            const double got = C[i * N + j], want = ref[i * N + j];
            if (magnitude(got - want) > 1e-12 * (1.0 + magnitude(want))) {
                fprintf(stderr, "C(%d,%d) = %g, expected %g\n", i, j, got, want);
                bad = 1;
            }
            printf(" %7.2f", got);
        }
        printf("\n");
    }
    printf("%s\n", bad ? "FAILED" : "all results match the plain loop");
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
