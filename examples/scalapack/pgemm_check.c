/* ScaLAPACK's PSGEMM and PDGEMM on a BLACS process grid, checked on every rank: the node BLAS
 * (Tessera, linked or preloaded) runs each rank's local products; --bench times PDGEMM alone,
 * --bcast the BLACS broadcasts of PBLAS's panels. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* BLACS (C interface), the ScaLAPACK tools and PBLAS, as Debian's libscalapack-openmpi has them.
 * PBLAS is written in C: its character arguments carry no hidden lengths. */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int notdone);
void Cdgebs2d(int context, const char *scope, const char *top, int m, int n, const double *a,
              int lda);
void Cdgebr2d(int context, const char *scope, const char *top, int m, int n, double *a, int lda,
              int rsrc, int csrc);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *context, const int *lld, int *info);
void psgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *ia, const int *ja, const int *desca,
             const float *b, const int *ib, const int *jb, const int *descb, const float *beta,
             float *c, const int *ic, const int *jc, const int *descc);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
             const double *b, const int *ib, const int *jb, const int *descb, const double *beta,
             double *c, const int *ic, const int *jc, const int *descc);

/* One distributed product: C(off+1:off+m, off+1:off+n) = alpha*op(A)*op(B) + beta*C on the
 * submatrices starting at row and column off+1 of A, B and C (off = 0: whole matrices), with
 * square nb x nb blocks. The sizes are on purpose not multiples of nb. */
typedef struct {
    char transa, transb;
    int m, n, k, nb, off;
    double alpha, beta;
} gemm_case;

static const gemm_case kCases[] = {
    {'N', 'N', 97, 83, 71, 16, 0, 1.0, 0.0},    {'T', 'N', 65, 75, 130, 8, 0, -1.5, 0.5},
    {'N', 'T', 120, 67, 53, 32, 0, 0.75, 1.0},  {'T', 'T', 51, 101, 89, 7, 3, 2.0, -1.0},
    {'N', 'N', 203, 149, 101, 24, 5, 1.0, 1.0}, {'N', 'T', 77, 90, 1, 10, 0, -1.0, 0.25},
};
enum { kCaseCount = sizeof kCases / sizeof kCases[0] };

/* The matrices' entries, a function of (seed, matrix, global row, global column) alone, in
 * [-1, 1): every rank makes its own blocks and the reference without any communication. */
static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static double entry(uint64_t seed, int matrix, int64_t i, int64_t j) {
    uint64_t h = mix(seed ^ mix((uint64_t)matrix ^ mix((uint64_t)i ^ mix((uint64_t)j))));
    return (double)(h >> 11) * 0x1.0p-52 - 1.0;
}

/* Global index (0-based) of local index l in a block-cyclic dimension, first block on process 0. */
static int64_t global_index(int64_t l, int nb, int p, int nprocs) {
    return (l / nb) * nb * (int64_t)nprocs + (int64_t)p * nb + l % nb;
}

typedef struct {
    int context, nprow, npcol, myrow, mycol, rank;
} grid;

/* A distributed rows x cols matrix: its descriptor and this process's block-cyclic part. */
typedef struct {
    int desc[9];
    int rows, cols, local_rows, local_cols, nb;
} dist;

static int dist_init(dist *d, const grid *g, int rows, int cols, int nb) {
    const int zero = 0;
    d->rows = rows, d->cols = cols, d->nb = nb;
    d->local_rows = numroc_(&rows, &nb, &g->myrow, &zero, &g->nprow);
    d->local_cols = numroc_(&cols, &nb, &g->mycol, &zero, &g->npcol);
    int lld = d->local_rows > 1 ? d->local_rows : 1, info = 0;
    descinit_(d->desc, &rows, &cols, &nb, &nb, &zero, &zero, &g->context, &lld, &info);
    return info;
}
static int64_t dist_size(const dist *d) {
    return (int64_t)(d->local_rows > 1 ? d->local_rows : 1) *
           (d->local_cols > 0 ? d->local_cols : 1);
}
/* Fills this process's part of matrix `matrix` with its entries, as float or double. */
static void dist_fill(const dist *d, const grid *g, uint64_t seed, int matrix, int single,
                      void *data) {
    const int64_t lld = d->local_rows > 1 ? d->local_rows : 1;
    for (int64_t lj = 0; lj < d->local_cols; ++lj) {
        const int64_t j = global_index(lj, d->nb, g->mycol, g->npcol);
        for (int64_t li = 0; li < d->local_rows; ++li) {
            const double v = entry(seed, matrix, global_index(li, d->nb, g->myrow, g->nprow), j);
            if (single) ((float *)data)[li + lj * lld] = (float)v;
            else ((double *)data)[li + lj * lld] = v;
        }
    }
}
/* An entry as the product sees it, rounded to the precision it was stored in. */
static double stored(uint64_t seed, int matrix, int64_t i, int64_t j, int single) {
    const double v = entry(seed, matrix, i, j);
    return single ? (double)(float)v : v;
}

/* Checks this process's part of C after the product against a reference recomputed in long
 * double from the same entries: inside the product's submatrix, componentwise
 *   |C - C_ref| <= c k u (|alpha| (|op(A)||op(B)|) + |beta| |C0|),
 * outside it C must be unchanged. Returns the number of failures; *worst gets the largest
 * error / bound. */
static long check_local(const gemm_case *tc, const dist *dc, const grid *g, uint64_t seed,
                        int single, const void *c, double *worst) {
    const double u = single ? 0x1.0p-24 : 0x1.0p-53, cfactor = 2.0;
    const int64_t lld = dc->local_rows > 1 ? dc->local_rows : 1;
    const int off = tc->off;
    long failures = 0;
    *worst = 0.0;
    for (int64_t lj = 0; lj < dc->local_cols; ++lj) {
        const int64_t j = global_index(lj, dc->nb, g->mycol, g->npcol);
        for (int64_t li = 0; li < dc->local_rows; ++li) {
            const int64_t i = global_index(li, dc->nb, g->myrow, g->nprow);
            const double got = single ? (double)((const float *)c)[li + lj * lld]
                                      : ((const double *)c)[li + lj * lld];
            const double c0 = stored(seed, 2, i, j, single);
            const int inside = i >= off && i < off + tc->m && j >= off && j < off + tc->n;
            if (!inside) {
                if (got != c0) ++failures, *worst = INFINITY;
                continue;
            }
            long double sum = 0.0L, magnitude = 0.0L;
            for (int64_t l = 0; l < tc->k; ++l) {
                const double a = tc->transa == 'N' ? stored(seed, 0, i, off + l, single)
                                                   : stored(seed, 0, off + l, i, single);
                const double b = tc->transb == 'N' ? stored(seed, 1, off + l, j, single)
                                                   : stored(seed, 1, j, off + l, single);
                sum += (long double)a * b;
                magnitude += fabsl((long double)a * b);
            }
            const long double ref = (long double)tc->alpha * sum + (long double)tc->beta * c0;
            const double bound = cfactor * (tc->k + 2) * u *
                                 (double)(fabs(tc->alpha) * magnitude + fabs(tc->beta) * fabs(c0));
            const double err = (double)fabsl((long double)got - ref);
            const double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0);
            if (!(err <= bound)) ++failures; /* a NaN fails too */
            if (!(ratio <= *worst)) *worst = ratio;
        }
    }
    return failures;
}

/* Runs one case in one precision; every process returns the same verdict. */
static int run_case(const gemm_case *tc, const grid *g, uint64_t seed, int single) {
    const int off = tc->off;
    const int a_rows = (tc->transa == 'N' ? tc->m : tc->k) + off;
    const int a_cols = (tc->transa == 'N' ? tc->k : tc->m) + off;
    const int b_rows = (tc->transb == 'N' ? tc->k : tc->n) + off;
    const int b_cols = (tc->transb == 'N' ? tc->n : tc->k) + off;
    dist da, db, dc;
    int info = dist_init(&da, g, a_rows, a_cols, tc->nb);
    info |= dist_init(&db, g, b_rows, b_cols, tc->nb);
    info |= dist_init(&dc, g, tc->m + off, tc->n + off, tc->nb);
    if (info != 0) {
        fprintf(stderr, "descinit_ failed (info %d)\n", info);
        return 0;
    }
    const size_t elem = single ? sizeof(float) : sizeof(double);
    void *a = malloc(dist_size(&da) * elem), *b = malloc(dist_size(&db) * elem);
    void *c = malloc(dist_size(&dc) * elem);
    if (!a || !b || !c) {
        fprintf(stderr, "out of memory\n");
        return 0;
    }
    dist_fill(&da, g, seed, 0, single, a);
    dist_fill(&db, g, seed, 1, single, b);
    dist_fill(&dc, g, seed, 2, single, c);

    const int one = off + 1;
    if (single) {
        const float alpha = (float)tc->alpha, beta = (float)tc->beta;
        psgemm_(&tc->transa, &tc->transb, &tc->m, &tc->n, &tc->k, &alpha, a, &one, &one, da.desc, b,
                &one, &one, db.desc, &beta, c, &one, &one, dc.desc);
    } else {
        pdgemm_(&tc->transa, &tc->transb, &tc->m, &tc->n, &tc->k, &tc->alpha, a, &one, &one,
                da.desc, b, &one, &one, db.desc, &tc->beta, c, &one, &one, dc.desc);
    }

    double worst = 0.0, worst_all = 0.0;
    long failures = check_local(tc, &dc, g, seed, single, c, &worst), failures_all = 0;
    MPI_Allreduce(&failures, &failures_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (g->rank == 0)
        printf("%s %c%c m=%d n=%d k=%d nb=%d at (%d,%d) alpha=%g beta=%g: max error/bound %.3f "
               "%s\n",
               single ? "psgemm" : "pdgemm", tc->transa, tc->transb, tc->m, tc->n, tc->k, tc->nb,
               one, one, tc->alpha, tc->beta, worst_all, failures_all == 0 ? "ok" : "FAILED");
    if (failures_all != 0 && g->rank == 0)
        printf("  %ld element(s) outside the bound or changed outside the submatrix\n",
               failures_all);
    free(a), free(b), free(c);
    return failures_all == 0;
}

/* Times PDGEMM, C = A*B on n x n matrices with nb x nb blocks: best of `reps` after a warm-up,
 * each timed from a barrier to the slowest process's end. */
static void bench(const grid *g, uint64_t seed, int n, int nb, int reps) {
    dist da, db, dc;
    if (dist_init(&da, g, n, n, nb) | dist_init(&db, g, n, n, nb) | dist_init(&dc, g, n, n, nb)) {
        fprintf(stderr, "descinit_ failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *a = malloc(dist_size(&da) * sizeof(double));
    double *b = malloc(dist_size(&db) * sizeof(double));
    double *c = malloc(dist_size(&dc) * sizeof(double));
    if (!a || !b || !c) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dist_fill(&da, g, seed, 0, 0, a);
    dist_fill(&db, g, seed, 1, 0, b);
    dist_fill(&dc, g, seed, 2, 0, c);
    const int one = 1;
    const double alpha = 1.0, beta = 0.0;
    double best = INFINITY;
    for (int r = 0; r <= reps; ++r) { /* r == 0: warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, da.desc, b, &one, &one, db.desc, &beta,
                c, &one, &one, dc.desc);
        double t = MPI_Wtime() - t0, slowest = 0.0;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r > 0 && slowest < best) best = slowest;
    }
    if (g->rank == 0)
        printf("pdgemm NN n=%d nb=%d grid=%dx%d reps=%d best=%.6fs %.2f GFLOP/s\n", n, nb, g->nprow,
               g->npcol, reps, best, 2.0 * n * (double)n * n / best * 1e-9);
    free(a), free(b), free(c);
}

/* Times the broadcast PBLAS does at each step of PDGEMM, BLACS's dgebs2d/dgebr2d with the
 * default topology: `bytes` from process column 0 along every process row at once (if Q > 1),
 * then from process row 0 along every process column (if P > 1). Prints the best of `reps` after
 * a warm-up, each from a barrier to the slowest process's end, and bytes / time. */
static void bench_bcast(const grid *g, long bytes, int reps) {
    const int count = (int)(bytes / (long)sizeof(double)) > 0 ? (int)(bytes / sizeof(double)) : 1;
    double *buffer = calloc((size_t)count, sizeof(double));
    if (!buffer) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int scope = 0; scope < 2; ++scope) { /* 0: along rows, 1: along columns */
        if ((scope == 0 ? g->npcol : g->nprow) < 2) continue;
        const int root = scope == 0 ? g->mycol == 0 : g->myrow == 0;
        const char *name = scope == 0 ? "Row" : "Col";
        double best = INFINITY;
        for (int r = 0; r <= reps; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            if (root) Cdgebs2d(g->context, name, " ", count, 1, buffer, count);
            else
                Cdgebr2d(g->context, name, " ", count, 1, buffer, count, scope == 0 ? g->myrow : 0,
                         scope == 0 ? 0 : g->mycol);
            double t = MPI_Wtime() - t0, slowest = 0.0;
            MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r > 0 && slowest < best) best = slowest;
        }
        if (g->rank == 0)
            printf("bcast %s of %d process(es) bytes=%ld reps=%d best=%.3es %.3f GB/s\n",
                   scope == 0 ? "along rows" : "along columns", scope == 0 ? g->npcol : g->nprow,
                   (long)count * (long)sizeof(double), reps, best,
                   (double)count * sizeof(double) / best * 1e-9);
    }
    free(buffer);
}

static uint64_t run_seed(int rank) {
    uint64_t seed = 0;
    if (rank == 0) {
        const char *text = getenv("TESSERA_TEST_SEED");
        seed = text && *text ? strtoull(text, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)clock();
    }
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return seed;
}

static int usage(void) {
    fprintf(stderr,
            "usage: pgemm_check P Q                    check PSGEMM and PDGEMM\n"
            "       pgemm_check P Q --bench N NB REPS  time PDGEMM (n x n x n)\n"
            "       pgemm_check P Q --bcast BYTES REPS time BLACS's row and column broadcasts\n");
    return 2;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    grid g;
    int nprocs = 0;
    Cblacs_pinfo(&g.rank, &nprocs);
    const int p = argc > 2 ? atoi(argv[1]) : 0, q = argc > 2 ? atoi(argv[2]) : 0;
    const int benching = argc > 3 && strcmp(argv[3], "--bench") == 0;
    const int bcasting = argc > 3 && strcmp(argv[3], "--bcast") == 0;
    if (p < 1 || q < 1 || p * q != nprocs ||
        (argc != 3 && !(benching && argc == 7) && !(bcasting && argc == 6))) {
        if (g.rank == 0) {
            usage();
            if (p * q != nprocs)
                fprintf(stderr, "a %dx%d grid is run on %d processes, not %d\n", p, q, p * q,
                        nprocs);
        }
        MPI_Finalize();
        return 2;
    }
    const uint64_t seed = run_seed(g.rank);
    Cblacs_get(-1, 0, &g.context);
    Cblacs_gridinit(&g.context, "Row", p, q);
    Cblacs_gridinfo(g.context, &g.nprow, &g.npcol, &g.myrow, &g.mycol);

    int ok = 1;
    if (bcasting) {
        bench_bcast(&g, atol(argv[4]), atoi(argv[5]));
    } else if (benching) {
        bench(&g, seed, atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    } else {
        if (g.rank == 0)
            printf("%dx%d grid, %d processes; TESSERA_TEST_SEED=%llu\n", p, q, nprocs,
                   (unsigned long long)seed);
        for (int single = 1; single >= 0; --single)
            for (int i = 0; i < kCaseCount; ++i) ok &= run_case(&kCases[i], &g, seed, single);
        if (g.rank == 0) printf("%s\n", ok ? "all products within the bound" : "FAILED");
    }
    Cblacs_gridexit(g.context);
    Cblacs_exit(1); /* MPI is finalized below */
    MPI_Finalize();
    return ok ? 0 : 1;
}
