/* Tessera example: k-step walks from x to y in a graph are (M^k)[x][y] for its adjacency matrix M:
 * all pairs by dgemm (squaring), one target by k spmv from e_y, both checked by enumeration. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        tsr_status st_ = (call);                                                                   \
        if (st_ != TSR_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed: %s (%s)\n", #call, tsr_status_string(st_),                 \
                    tsr_last_error());                                                             \
            exit(EXIT_FAILURE);                                                                    \
        }                                                                                          \
    } while (0)

/* A directed graph on 8 vertices: a ring 0->1->...->7->0 with chords and one self-loop. */
enum { N = 8, STEPS = 9 };
static const int32_t edge_from[] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 4, 6, 3, 5, 1};
static const int32_t edge_to[] = {1, 2, 3, 4, 5, 6, 7, 0, 4, 6, 0, 2, 3, 1, 5};
enum { EDGES = sizeof edge_from / sizeof edge_from[0] };

/* Walks of `steps` steps from x to y, by enumerating them (the oracle). */
static double brute_force(int x, int y, int steps) {
    if (steps == 0) return x == y ? 1.0 : 0.0;
    double count = 0.0;
    for (int e = 0; e < EDGES; ++e)
        if (edge_from[e] == x) count += brute_force(edge_to[e], y, steps - 1);
    return count;
}

/* P = M^k by repeated squaring, row-major N x N, with tsr_dgemm. */
static void matrix_power(tsr_handle h, const double *M, int k, double *P) {
    double *base = malloc(sizeof(double) * N * N), *tmp = malloc(sizeof(double) * N * N);
    if (!base || !tmp) exit(EXIT_FAILURE);
    memcpy(base, M, sizeof(double) * N * N);
    for (int i = 0; i < N * N; ++i) P[i] = (i / N == i % N) ? 1.0 : 0.0; /* identity */
    while (k > 0) {
        if (k & 1) { /* P = P * base */
            CHECK(tsr_dgemm(h, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_N, N, N, N, 1.0, P, N, base, N, 0.0,
                            tmp, N));
            memcpy(P, tmp, sizeof(double) * N * N);
        }
        k >>= 1;
        if (k > 0) { /* base = base * base */
            CHECK(tsr_dgemm(h, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_N, N, N, N, 1.0, base, N, base, N,
                            0.0, tmp, N));
            memcpy(base, tmp, sizeof(double) * N * N);
        }
    }
    free(base);
    free(tmp);
}

int main(void) {
    tsr_handle h;
    tsr_sparse A;
    double M[N * N] = {0}, P[N * N], values[EDGES], v[N], w[N];
    const int target = 3;
    int bad = 0;

    CHECK(tsr_create(&h));

    /* The dense adjacency matrix, and the sparse one straight from the edge list (COO). */
    for (int e = 0; e < EDGES; ++e) {
        M[edge_from[e] * N + edge_to[e]] += 1.0;
        values[e] = 1.0;
    }
    CHECK(tsr_sparse_create_coo(h, &A, TSR_F64, TSR_INDEX_I32, N, N, EDGES, edge_from, edge_to,
                                values));
    CHECK(tsr_sparse_optimize(h, A, TSR_FORMAT_AUTO));

    /* All pairs: M^STEPS. */
    matrix_power(h, M, STEPS, P);

    /* One target: v = M^STEPS e_target, one sparse product per step; v[x] = (M^STEPS)[x][target].
     */
    for (int i = 0; i < N; ++i) v[i] = (i == target) ? 1.0 : 0.0;
    for (int s = 0; s < STEPS; ++s) {
        CHECK(tsr_dspmv(h, TSR_OP_N, 1.0, A, v, 0.0, w));
        memcpy(v, w, sizeof v);
    }

    printf("walks of %d steps in a graph of %d vertices and %d edges\n", STEPS, N, EDGES);
    printf("from x to y = %d: (M^%d)[x][%d] by dgemm, by %d spmv, by enumeration\n", target, STEPS,
           target, STEPS);
    for (int x = 0; x < N; ++x) {
        const double by_gemm = P[x * N + target], by_spmv = v[x];
        const double expected = brute_force(x, target, STEPS);
        printf("  x = %d: %6.0f %6.0f %6.0f\n", x, by_gemm, by_spmv, expected);
        if (by_gemm != expected || by_spmv != expected) bad = 1;
    }
    /* Every other pair from the dense power as well. */
    for (int x = 0; x < N; ++x)
        for (int y = 0; y < N; ++y)
            if (P[x * N + y] != brute_force(x, y, STEPS)) {
                fprintf(stderr, "(M^%d)[%d][%d] = %g, expected %g\n", STEPS, x, y, P[x * N + y],
                        brute_force(x, y, STEPS));
                bad = 1;
            }
    double total = 0.0;
    for (int i = 0; i < N * N; ++i) total += P[i];
    printf("all walks of %d steps: %.0f\n", STEPS, total);

    CHECK(tsr_sparse_destroy(A));
    CHECK(tsr_destroy(h));
    printf("%s\n", bad ? "FAILED" : "gemm, spmv and enumeration agree");
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
