// Formats the verbose call-log line in one buffer and writes it with one call, so lines from
// concurrent callers do not interleave.
#include "core/call_log.hpp"

#include <cstdio>

namespace tessera::core {

void log_gemm(const GemmTrace &t, const char *backend, const char *why, int threads,
              double seconds) {
    double flops = 2.0 * double(t.m) * double(t.n) * double(t.k);
    double gflops = seconds > 0 ? flops / seconds * 1e-9 : 0.0;
    char line[320];
    std::snprintf(line, sizeof line,
                  "tessera: %s %s %c%c m=%lld n=%lld k=%lld backend=%s threads=%d "
                  "time=%.3es %.2f GFLOP/s%s%s%s\n",
                  t.routine, t.layout == TSR_ROW_MAJOR ? "row" : "col", t.op_a, t.op_b,
                  (long long)t.m, (long long)t.n, (long long)t.k, backend, threads, seconds, gflops,
                  why ? " (" : "", why ? why : "", why ? ")" : "");
    std::fputs(line, stderr);
}

void log_gemv(const GemvTrace &t, const char *backend, const char *why, int threads,
              double seconds) {
    // A once, x once, y read and written: what a bandwidth-bound product has to move.
    const bool trans = t.op != 'N';
    const double xlen = double(trans ? t.m : t.n), ylen = double(trans ? t.n : t.m);
    const double bytes = (double(t.m) * double(t.n) + xlen + 2.0 * ylen) * t.elem_size;
    const double gbs = seconds > 0 ? bytes / seconds * 1e-9 : 0.0;
    char line[320];
    std::snprintf(line, sizeof line,
                  "tessera: %s %s %c m=%lld n=%lld incx=%lld incy=%lld backend=%s threads=%d "
                  "time=%.3es %.2f GB/s%s%s%s\n",
                  t.routine, t.layout == TSR_ROW_MAJOR ? "row" : "col", t.op, (long long)t.m,
                  (long long)t.n, (long long)t.incx, (long long)t.incy, backend, threads, seconds,
                  gbs, why ? " (" : "", why ? why : "", why ? ")" : "");
    std::fputs(line, stderr);
}

void log_spmv(const SpmvTrace &t, const char *backend, const char *why, int threads,
              double seconds) {
    double gflops = seconds > 0 ? 2.0 * double(t.nnz) * double(t.k) / seconds * 1e-9 : 0.0;
    char columns[32] = "";
    if (t.k != 1) std::snprintf(columns, sizeof columns, " k=%lld", (long long)t.k);
    char line[400];
    std::snprintf(line, sizeof line,
                  "tessera: %s %c rows=%lld cols=%lld nnz=%lld%s format=%s/%s backend=%s "
                  "threads=%d time=%.3es %.2f GFLOP/s%s%s%s\n",
                  t.routine, t.op, (long long)t.rows, (long long)t.cols, (long long)t.nnz, columns,
                  t.format, t.kernel, backend, threads, seconds, gflops, why ? " (" : "",
                  why ? why : "", why ? ")" : "");
    std::fputs(line, stderr);
}

void log_sparse_optimize(const SpmvTrace &t, const char *requested, const char *backend,
                         const char *reason, double seconds) {
    char line[480];
    std::snprintf(line, sizeof line,
                  "tessera: sparse_optimize rows=%lld cols=%lld nnz=%lld requested=%s format=%s/%s "
                  "backend=%s time=%.3es (%s)\n",
                  (long long)t.rows, (long long)t.cols, (long long)t.nnz, requested, t.format,
                  t.kernel, backend, seconds, reason ? reason : "");
    std::fputs(line, stderr);
}

} // namespace tessera::core
