/* A small program the environment tests run with chosen variables: it prints what the library
 * decided (backend, availability, errors) as key=value lines and checks the products it runs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tessera/tessera.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *A, const int *lda, const float *B, const int *ldb,
            const float *beta, float *C, const int *ldc, size_t transa_len, size_t transb_len);
void cblas_sgemm(int layout, int transa, int transb, int M, int N, int K, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* Square products of this order: big enough that a library would use every thread. */
enum { N = 160 };

static int failures;

static const char *backend_text(tsr_backend b) {
    switch (b) {
    case TSR_BACKEND_AUTO: return "auto";
    case TSR_BACKEND_CPU: return "cpu";
    case TSR_BACKEND_CUDA: return "cuda";
    case TSR_BACKEND_REFERENCE: return "reference";
    }
    return "unknown";
}

/* A, B with small integers, so every product is exact in float; C = A·B is checked exactly. */
struct product {
    float A[N * N], B[N * N], C[N * N];
};

static void fill(struct product *p, int seed) {
    for (int i = 0; i < N * N; ++i) {
        p->A[i] = (float)((i * 7 + seed) % 5 - 2);
        p->B[i] = (float)((i * 3 + 2 * seed) % 7 - 3);
        p->C[i] = NAN; /* beta = 0: never read */
    }
}

static int right(const struct product *p) {
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
            double s = 0;
            for (int l = 0; l < N; ++l) s += (double)p->A[i + l * N] * p->B[l + j * N];
            if (p->C[i + j * N] != (float)s) return 0;
        }
    return 1;
}

static void report(const char *what, int ok) {
    printf("%s=%s\n", what, ok ? "ok" : "wrong");
    if (!ok) ++failures;
}

static struct product work;

static void run_cblas(void) {
    fill(&work, 1);
    cblas_sgemm(TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, N, N, N, 1.0f, work.A, N, work.B, N, 0.0f,
                work.C, N);
    report("cblas", right(&work));
}

/* A product of 256^3 multiply-adds: large enough for auto to ask the CUDA backend. */
static void run_large(void) {
    enum { L = 256 };
    static float A[L * L], B[L * L], C[L * L];
    for (int i = 0; i < L * L; ++i) A[i] = 1.0f, B[i] = 2.0f, C[i] = -1.0f;
    cblas_sgemm(TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, L, L, L, 1.0f, A, L, B, L, 0.0f, C, L);
    int ok = 1;
    for (int i = 0; i < L * L; ++i) ok &= C[i] == 2.0f * L;
    report("large", ok);
}

static void run_fortran(void) {
    const int n = N;
    const float one = 1.0f, zero = 0.0f;
    fill(&work, 2);
    sgemm_("N", "N", &n, &n, &n, &one, work.A, &n, work.B, &n, &zero, work.C, &n, 1, 1);
    report("fortran", right(&work));
}

static tsr_handle new_handle(void) {
    tsr_handle h = NULL;
    tsr_status s = tsr_create(&h);
    if (s != TSR_SUCCESS) {
        printf("create=%d\ncreate_error=%s\n", (int)s, tsr_last_error());
        exit(2);
    }
    return h;
}

static void run_tsr(void) {
    tsr_handle h = new_handle();
    fill(&work, 3);
    tsr_status s = tsr_sgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, N, N, N, 1.0f, work.A, N, work.B,
                             N, 0.0f, work.C, N);
    report("tsr", s == TSR_SUCCESS && right(&work));
    tsr_destroy(h);
}

static void print_backend(void) {
    tsr_handle h = new_handle();
    tsr_backend b = (tsr_backend)-1;
    tsr_get_backend(h, &b);
    printf("handle_backend=%s\n", backend_text(b));
    tsr_destroy(h);
}

static void set_cuda(void) {
    tsr_handle h = new_handle();
    tsr_backend before = (tsr_backend)-1, after = (tsr_backend)-1;
    tsr_get_backend(h, &before);
    tsr_status s = tsr_set_backend(h, TSR_BACKEND_CUDA);
    printf("set_cuda=%d\nset_cuda_error=%s\n", (int)s, s == TSR_SUCCESS ? "" : tsr_last_error());
    tsr_get_backend(h, &after);
    printf("set_cuda_kept=%s\n", before == after ? "yes" : "no");
    tsr_destroy(h);
}

static void available_cuda(void) {
    int available = -1;
    tsr_status s = tsr_backend_available(TSR_BACKEND_CUDA, &available);
    printf("available_cuda_status=%d\navailable_cuda=%d\navailable_cuda_error=%s\n", (int)s,
           available, available == 1 ? "" : tsr_last_error());
}

static void cuda_stream(void) {
    tsr_handle h = new_handle();
    tsr_status s = tsr_set_cuda_stream(h, NULL);
    printf("cuda_stream=%d\ncuda_stream_error=%s\n", (int)s,
           s == TSR_SUCCESS ? "" : tsr_last_error());
    tsr_destroy(h);
}

static void library(void) {
    Dl_info info;
    memset(&info, 0, sizeof info);
    if (dladdr((void *)&tsr_version, &info) && info.dli_fname)
        printf("library=%s\n", info.dli_fname);
    else printf("library=?\n");
}

/* Two OpenMP threads (nesting allowed) each run a product on one shared handle. */
static void inside_openmp(void) {
    static struct product each[2];
    int ok[2] = {0, 0};
    tsr_handle h = new_handle();
    omp_set_max_active_levels(4);
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        fill(&each[t], 4 + t);
        tsr_status s = tsr_sgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, N, N, N, 1.0f, each[t].A, N,
                                 each[t].B, N, 0.0f, each[t].C, N);
        ok[t] = s == TSR_SUCCESS && right(&each[t]);
    }
    report("omp", ok[0] && ok[1]);
    tsr_destroy(h);
}

int main(int argc, char **argv) {
    /* stdout is a pipe in the tests: keep lines in order with stderr's. */
    setvbuf(stdout, NULL, _IONBF, 0);
    for (int i = 1; i < argc; ++i) {
        const char *c = argv[i];
        if (!strcmp(c, "backend")) print_backend();
        else if (!strcmp(c, "cblas")) run_cblas();
        else if (!strcmp(c, "fortran")) run_fortran();
        else if (!strcmp(c, "large")) run_large();
        else if (!strcmp(c, "tsr")) run_tsr();
        else if (!strcmp(c, "set_cuda")) set_cuda();
        else if (!strcmp(c, "available_cuda")) available_cuda();
        else if (!strcmp(c, "cuda_stream")) cuda_stream();
        else if (!strcmp(c, "library")) library();
        else if (!strcmp(c, "omp")) inside_openmp();
        else if (!strncmp(c, "chdir=", 6)) {
            /* A program that changes directory before its first CUDA question. */
            if (chdir(c + 6) != 0) {
                fprintf(stderr, "env_probe: cannot chdir to %s\n", c + 6);
                return 2;
            }
        } else {
            fprintf(stderr, "env_probe: unknown command %s\n", c);
            return 2;
        }
    }
    return failures ? 1 : 0;
}
