/* ABI test: without an override, Tessera's own xerbla_ / cblas_xerbla report a bad argument
 * (routine and parameter number) and return; the process goes on and C is left untouched. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *A, const int *lda, const float *B, const int *ldb,
            const float *beta, float *C, const int *ldc, size_t transa_len, size_t transb_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc, size_t transa_len, size_t transb_len);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

static int failures;

/* Everything the library writes to stdout or stderr while the capture is on. */
static FILE *capture_file;
static int saved_out = -1, saved_err = -1;

static void capture_begin(void) {
    fflush(stdout);
    fflush(stderr);
    capture_file = tmpfile();
    if (!capture_file) {
        perror("tmpfile");
        exit(2);
    }
    saved_out = dup(STDOUT_FILENO);
    saved_err = dup(STDERR_FILENO);
    dup2(fileno(capture_file), STDOUT_FILENO);
    dup2(fileno(capture_file), STDERR_FILENO);
}

static void capture_end(char *text, size_t size) {
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    rewind(capture_file);
    size_t n = fread(text, 1, size - 1, capture_file);
    text[n] = '\0';
    fclose(capture_file);
}

/* Case-insensitive search for a word, and for a number standing alone (not part of a longer one).
 */
static int mentions_word(const char *text, const char *word) {
    size_t w = strlen(word);
    for (const char *p = text; *p; ++p) {
        size_t i = 0;
        while (i < w && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)word[i]))
            ++i;
        if (i == w) return 1;
    }
    return 0;
}

static int mentions_number(const char *text, int number) {
    for (const char *p = text; *p; ++p) {
        if (!isdigit((unsigned char)*p) || (p > text && isdigit((unsigned char)p[-1]))) continue;
        if (atoi(p) == number) return 1;
    }
    return 0;
}

static void check_report(const char *what, const char *text, const char *routine, int number,
                         int c_untouched) {
    printf("%s: the library printed: \"", what);
    for (const char *p = text; *p; ++p) putchar(*p == '\n' ? '|' : *p);
    printf("\"\n");
    if (!mentions_word(text, routine) || !mentions_number(text, number)) {
        fprintf(stderr, "FAIL %s: the message does not name %s and parameter %d\n", what, routine,
                number);
        ++failures;
    }
    if (!c_untouched) {
        fprintf(stderr, "FAIL %s: C was written by a call with a bad argument\n", what);
        ++failures;
    }
}

static void fortran_door(void) {
    char text[4096];
    const char n = 'N';
    const int m = 4, nn = 2, k = 2, bad_lda = 3, ld = 4, bad_ldc = 3;
    const float af = 1.0f, bf = 0.0f;
    const double ad = 1.0, bd = 0.0;
    float As[16] = {0}, Bs[16] = {0}, Cs[16];
    double Ad[16] = {0}, Bd[16] = {0}, Cd[16];
    for (int i = 0; i < 16; ++i) Cs[i] = Cd[i] = 5.0f;

    /* lda = 3 < m = 4: parameter 8. */
    capture_begin();
    sgemm_(&n, &n, &m, &nn, &k, &af, As, &bad_lda, Bs, &ld, &bf, Cs, &ld, 1, 1);
    capture_end(text, sizeof text);
    int untouched = 1;
    for (int i = 0; i < 16; ++i) untouched &= Cs[i] == 5.0f;
    check_report("sgemm_ with lda < m", text, "SGEMM", 8, untouched);

    /* ldc = 3 < m = 4: parameter 13. */
    capture_begin();
    dgemm_(&n, &n, &m, &nn, &k, &ad, Ad, &ld, Bd, &ld, &bd, Cd, &bad_ldc, 1, 1);
    capture_end(text, sizeof text);
    untouched = 1;
    for (int i = 0; i < 16; ++i) untouched &= Cd[i] == 5.0;
    check_report("dgemm_ with ldc < m", text, "DGEMM", 13, untouched);
}

static void cblas_door(void) {
    char text[4096];
    float A[16] = {0}, B[16] = {0}, C[16];
    for (int i = 0; i < 16; ++i) C[i] = 5.0f;

    /* Column-major, lda = 3 < M = 4: parameter 9. */
    capture_begin();
    cblas_sgemm(102, 111, 111, 4, 2, 2, 1.0f, A, 3, B, 2, 0.0f, C, 4);
    capture_end(text, sizeof text);
    int untouched = 1;
    for (int i = 0; i < 16; ++i) untouched &= C[i] == 5.0f;
    check_report("cblas_sgemm with lda < M", text, "cblas_sgemm", 9, untouched);
}

int main(int argc, char **argv) {
    const char *door = argc > 1 ? argv[1] : "fortran";
    if (strcmp(door, "fortran") == 0) fortran_door();
    else if (strcmp(door, "cblas") == 0) cblas_door();
    else {
        fprintf(stderr, "usage: %s [fortran|cblas]\n", argv[0]);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf(
        "the process survived every bad call; the default handler named routine and parameter\n");
    return 0;
}
