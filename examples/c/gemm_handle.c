/* Tessera example: the tsr_* C API with a handle — single and double precision products
 * checked against a plain loop, and how an error is reported. Copy it and adapt it. */
#include <stdio.h>
#include <stdlib.h>

#include <tessera/tessera.h>

/* Print the reason of a failed call and leave. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        tsr_status st_ = (call);                                                                   \
        if (st_ != TSR_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed: %s (%s)\n", #call, tsr_status_string(st_),                 \
                    tsr_last_error());                                                             \
            exit(EXIT_FAILURE);                                                                    \
        }                                                                                          \
    } while (0)

enum { M = 4, N = 3, K = 5 };

static double magnitude(double x) { return x < 0 ? -x : x; }

/* Small integers: every product and sum is exact in float, so any difference is a bug. */
static double entry(int i, int j, int salt) { return (double)((i * 3 + j * 5 + salt) % 7 - 3); }

/* C = alpha*A^T*B + beta*C in single precision, column-major: A is stored K x M (so op(A) = A^T
 * is M x K), B is K x N, C is M x N with a leading dimension larger than M. */
static int run_sgemm(tsr_handle handle) {
    const int lda = K, ldb = K, ldc = M + 2;
    float A[K * M], B[K * N], C[(M + 2) * N];
    double ref[M * N];
    const float alpha = 2.0f, beta = -1.0f;
    int bad = 0;

    for (int j = 0; j < M; ++j)
        for (int i = 0; i < K; ++i) A[i + j * lda] = (float)entry(i, j, 1);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < K; ++i) B[i + j * ldb] = (float)entry(i, j, 2);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < ldc; ++i) C[i + j * ldc] = (float)entry(i, j, 3);

    for (int j = 0; j < N; ++j)
        for (int i = 0; i < M; ++i) {
            double sum = 0.0;
            for (int p = 0; p < K; ++p) sum += (double)A[p + i * lda] * (double)B[p + j * ldb];
            ref[i + j * M] = alpha * sum + beta * (double)C[i + j * ldc];
        }

    CHECK(tsr_sgemm(handle, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, M, N, K, alpha, A, lda, B, ldb, beta,
                    C, ldc));

    printf("sgemm: C = %g*A^T*B %+g*C (column-major, %dx%d)\n", alpha, beta, M, N);
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            const double got = C[i + j * ldc], want = ref[i + j * M];
            if (magnitude(got - want) > 1e-5 * (1.0 + magnitude(want))) {
                fprintf(stderr, "sgemm: C(%d,%d) = %g, expected %g\n", i, j, got, want);
                bad = 1;
            }
            printf(" %8.1f", got);
        }
        printf("\n");
    }
    /* The rows between M and ldc are padding: the product must not touch them. */
    for (int j = 0; j < N; ++j)
        for (int i = M; i < ldc; ++i)
            if (C[i + j * ldc] != (float)entry(i, j, 3)) {
                fprintf(stderr, "sgemm: padding C(%d,%d) was overwritten\n", i, j);
                bad = 1;
            }
    return bad;
}

/* C = alpha*A*B^T + beta*C in double precision, row-major: A is M x K, B is stored N x K. */
static int run_dgemm(tsr_handle handle) {
    const int lda = K, ldb = K, ldc = N;
    double A[M * K], B[N * K], C[M * N], ref[M * N];
    const double alpha = 0.5, beta = 3.0;
    int bad = 0;

    for (int i = 0; i < M; ++i)
        for (int p = 0; p < K; ++p) A[i * lda + p] = entry(i, p, 4);
    for (int j = 0; j < N; ++j)
        for (int p = 0; p < K; ++p) B[j * ldb + p] = entry(j, p, 5);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) C[i * ldc + j] = entry(i, j, 6);

    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double sum = 0.0;
            for (int p = 0; p < K; ++p) sum += A[i * lda + p] * B[j * ldb + p];
            ref[i * N + j] = alpha * sum + beta * C[i * ldc + j];
        }

    CHECK(tsr_dgemm(handle, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_T, M, N, K, alpha, A, lda, B, ldb, beta,
                    C, ldc));

    printf("dgemm: C = %g*A*B^T %+g*C (row-major, %dx%d)\n", alpha, beta, M, N);
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            const double got = C[i * ldc + j], want = ref[i * N + j];
            if (magnitude(got - want) > 1e-12 * (1.0 + magnitude(want))) {
                fprintf(stderr, "dgemm: C(%d,%d) = %g, expected %g\n", i, j, got, want);
                bad = 1;
            }
            printf(" %8.1f", got);
        }
        printf("\n");
    }
    return bad;
}

/* A deliberate mistake (lda smaller than the rows of A): the call returns an error, says which
 * argument is wrong, and leaves C as it was. */
static int show_error(tsr_handle handle) {
    double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {7, 7, 7, 7};
    tsr_status st = tsr_dgemm(handle, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 2, 2, 2, 1.0, A,
                              1 /* lda: too small */, B, 2, 0.0, C, 2);
    printf("deliberate error: %s: %s\n", tsr_status_string(st), tsr_last_error());
    if (st != TSR_ERR_INVALID_ARGUMENT) {
        fprintf(stderr, "expected TSR_ERR_INVALID_ARGUMENT, got %d\n", (int)st);
        return 1;
    }
    for (int i = 0; i < 4; ++i)
        if (C[i] != 7) {
            fprintf(stderr, "C was changed by a call that failed\n");
            return 1;
        }
    return 0;
}

int main(void) {
    tsr_handle handle = NULL;
    tsr_backend backend;
    int bad = 0;

    printf("Tessera %s\n", tsr_version());
    CHECK(tsr_create(&handle));
    CHECK(tsr_get_backend(handle, &backend));
    printf("handle backend: %d (0 auto, 1 cpu, 2 cuda, 3 reference)\n", (int)backend);

    bad |= run_sgemm(handle);
    bad |= run_dgemm(handle);
    bad |= show_error(handle);

    CHECK(tsr_destroy(handle));
    printf("%s\n", bad ? "FAILED" : "all results match the plain loop");
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
