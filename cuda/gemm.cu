// gemm on the CUDA backend: classify A, B and C (host or device), use device operands in place
// (asynchronous on the handle's stream), stage host ones through the pool, launch, check.
#include "gemm.hpp"

#include <cstdio>
#include <cstdlib>

#include "error.hpp"
#include "kernels.hpp"
#include "staging.hpp"
#include "state.hpp"
#include "tile_load.cuh"

namespace tessera::cuda {

namespace {

// From the environment, once, when the plugin is loaded (read_kernel_choice).
KernelChoice choice;
bool verbose = false;

State *state_of(const core::ExecContext *ctx) {
    return ctx && ctx->backend_state ? static_cast<State *>(ctx->backend_state) : shared_state();
}

bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

template <typename T> cudaError_t launch_gemm(State &s, const core::GemmArgs<T> &a, const GemmParams<T> &p) {
    if constexpr (sizeof(T) == 4) return launch_sgemm(s.dev, s.stream, a.trans_a, a.trans_b, p, choice);
    else return launch_dgemm(s.dev, s.stream, a.trans_a, a.trans_b, p, choice);
}

// Split-K: the kernel writes `slices` partial products (each over its slice of k) into slabs
// of the state's buffer, and a second kernel sums them into C with alpha and beta. Returns
// false, launching nothing, when the slabs cannot be had (the caller runs it unsplit).
template <typename T>
bool split_k_product(State &s, const core::GemmArgs<T> &a, GemmParams<T> p, int slices, cudaError_t *e) {
    constexpr int64_t vec = 16 / int64_t(sizeof(T));
    const int64_t ldw = (a.m + vec - 1) / vec * vec;     // 16-byte aligned columns
    const int64_t k_split = ((a.k + slices - 1) / slices + 63) / 64 * 64; // whole 64-deep steps
    slices = int((a.k + k_split - 1) / k_split);
    if (slices < 2) return false; // k too short for two 64-deep slices: no slabs, no sum
    std::lock_guard<std::mutex> lock(s.split);
    if (!s.split_free && cudaEventCreateWithFlags(&s.split_free, cudaEventDisableTiming) != cudaSuccess) {
        s.split_free = nullptr;
        return false;
    }
    if (s.split_slabs.reserve(size_t(slices) * size_t(ldw) * size_t(a.n) * sizeof(T)) != TSR_SUCCESS) return false;
    T *W = static_cast<T *>(s.split_slabs.ptr);
    const T alpha = p.alpha, beta = p.beta;
    T *C = p.C;
    const int64_t ldc = p.ldc;
    p.C = W, p.ldc = ldw, p.vec_c = true;
    p.alpha = T(1), p.beta = T(0);
    p.splits = slices, p.k_split = k_split;
    *e = cudaStreamWaitEvent(s.stream, s.split_free, 0);
    if (*e == cudaSuccess) *e = launch_gemm(s, a, p);
    if (*e == cudaSuccess) *e = launch_split_sum<T>(s.stream, slices, a.m, a.n, alpha, W, ldw, beta, C, ldc);
    if (*e == cudaSuccess) *e = cudaEventRecord(s.split_free, s.stream);
    return true;
}

template <typename T> cudaError_t compute(State &s, const core::GemmArgs<T> &a, const T *A, int64_t lda,
                                          const T *B, int64_t ldb, T *C, int64_t ldc) {
    if (a.alpha == T(0) || a.k == 0) return launch_scale<T>(s.stream, a.m, a.n, a.beta, C, ldc);
    // A last row (or column) of tiles at most a quarter full, in a grid of at least one full
    // wave of blocks, runs as a product of its own after the rest: in the grid it would cost
    // whole tiles, and often a whole extra wave (4097² on 256×128 tiles: 561 blocks, five
    // waves of 132, where the 512 full tiles take four).
    const KernelTile t = kernel_tile(s.dev, int(sizeof(T)), a.m, a.n, a.k, choice);
    const int64_t tiles = ((a.m + t.bm - 1) / t.bm) * ((a.n + t.bn - 1) / t.bn);
    if (tiles >= int64_t(t.resident) * s.dev.sm_count) {
        const int64_t rm = a.m % t.bm, rn = a.n % t.bn;
        core::GemmArgs<T> main = a, fringe = a;
        if (a.m > t.bm && rm > 0 && 4 * rm <= t.bm) {
            const int64_t i0 = a.m - rm;
            main.m = i0, fringe.m = rm;
            if (cudaError_t e = compute<T>(s, main, A, lda, B, ldb, C, ldc); e != cudaSuccess) return e;
            return compute<T>(s, fringe, a.trans_a ? A + i0 * lda : A + i0, lda, B, ldb, C + i0, ldc);
        }
        if (a.n > t.bn && rn > 0 && 4 * rn <= t.bn) {
            const int64_t j0 = a.n - rn;
            main.n = j0, fringe.n = rn;
            if (cudaError_t e = compute<T>(s, main, A, lda, B, ldb, C, ldc); e != cudaSuccess) return e;
            return compute<T>(s, fringe, A, lda, a.trans_b ? B + j0 : B + j0 * ldb, ldb, C + j0 * ldc, ldc);
        }
    }
    constexpr int64_t vec = 16 / int64_t(sizeof(T));
    GemmParams<T> p{};
    p.m = a.m, p.n = a.n, p.k = a.k;
    p.alpha = a.alpha, p.beta = a.beta;
    p.A = A, p.lda = lda, p.B = B, p.ldb = ldb, p.C = C, p.ldc = ldc;
    p.vec_a = aligned16(A) && lda % vec == 0;
    p.vec_b = aligned16(B) && ldb % vec == 0;
    p.vec_c = aligned16(C) && ldc % vec == 0;
    const int slices = split_k_slices(s.dev, int(sizeof(T)), a.m, a.n, a.k, choice);
    if (verbose) {
        // One line per product, before the core's line for the call: which kernel ran.
        char line[240], split[40] = "";
        if (slices > 1) std::snprintf(split, sizeof split, ", k in up to %d slices", slices);
        std::snprintf(line, sizeof line, "tessera: cuda kernel %s%s for %cgemm %c%c m=%lld n=%lld k=%lld\n",
                      gemm_kernel_name(s.dev, int(sizeof(T)), a.m, a.n, a.k, choice), split, sizeof(T) == 4 ? 's' : 'd',
                      a.trans_a ? 'T' : 'N', a.trans_b ? 'T' : 'N', (long long)a.m, (long long)a.n,
                      (long long)a.k);
        std::fputs(line, stderr);
    }
    if (cudaError_t e = cudaSuccess; slices > 1 && split_k_product(s, a, p, slices, &e)) return e;
    return launch_gemm(s, a, p);
}

template <typename T> tsr_status run(const core::ExecContext *ctx, const core::GemmArgs<T> &a) {
    State *s = state_of(ctx);
    if (!s) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    DeviceScope scope(s->dev.ordinal);
    if (scope.status() != cudaSuccess) return fail_cuda(scope.status(), "cannot select the CUDA device");

    const bool product = a.alpha != T(0) && a.k > 0; // otherwise A and B are not read
    const bool read_c = a.beta != T(0);
    const int64_t a_rows = a.trans_a ? a.k : a.m, a_cols = a.trans_a ? a.m : a.k;
    const int64_t b_rows = a.trans_b ? a.n : a.k, b_cols = a.trans_b ? a.k : a.n;
    const Memory ka = product ? classify(a.A) : Memory::device;
    const Memory kb = product ? classify(a.B) : Memory::device;
    const Memory kc = classify(a.C);

    if (ka == Memory::device && kb == Memory::device && kc == Memory::device) {
        // All on the device: in place, asynchronous on the stream, as a device library does.
        cudaError_t e = compute<T>(*s, a, a.A, a.lda, a.B, a.ldb, a.C, a.ldc);
        return e == cudaSuccess ? TSR_SUCCESS : fail_cuda(e, "gemm kernel launch");
    }

    std::lock_guard<std::mutex> lock(s->staging);
    const T *dA = a.A, *dB = a.B;
    T *dC = a.C;
    int64_t lda = a.lda, ldb = a.ldb, ldc = a.ldc;
    const int64_t elem = int64_t(sizeof(T));
    if (ka != Memory::device) {
        if (tsr_status st = s->operand[0].reserve(size_t(a_rows * a_cols * elem)); st != TSR_SUCCESS) return st;
        dA = static_cast<const T *>(s->operand[0].ptr), lda = a_rows;
        if (tsr_status st = upload(*s, s->operand[0].ptr, a.A, a_rows, a_cols, a.lda, elem, ka); st != TSR_SUCCESS)
            return st;
    }
    if (kb != Memory::device) {
        if (tsr_status st = s->operand[1].reserve(size_t(b_rows * b_cols * elem)); st != TSR_SUCCESS) return st;
        dB = static_cast<const T *>(s->operand[1].ptr), ldb = b_rows;
        if (tsr_status st = upload(*s, s->operand[1].ptr, a.B, b_rows, b_cols, a.ldb, elem, kb); st != TSR_SUCCESS)
            return st;
    }
    if (kc != Memory::device) {
        if (tsr_status st = s->operand[2].reserve(size_t(a.m * a.n * elem)); st != TSR_SUCCESS) return st;
        dC = static_cast<T *>(s->operand[2].ptr), ldc = a.m;
        if (read_c)
            if (tsr_status st = upload(*s, dC, a.C, a.m, a.n, a.ldc, elem, kc); st != TSR_SUCCESS) return st;
    }
    if (cudaError_t e = compute<T>(*s, a, dA, lda, dB, ldb, dC, ldc); e != cudaSuccess)
        return fail_cuda(e, "gemm kernel launch");
    if (kc != Memory::device) return download(*s, a.C, dC, a.m, a.n, a.ldc, elem, kc);
    // C on the device, an input on the host: the pinned and pooled buffers are reused by the
    // next call, so the product must be done before this one returns.
    if (cudaError_t e = cudaStreamSynchronize(s->stream); e != cudaSuccess) return fail_cuda(e, "gemm");
    return TSR_SUCCESS;
}

} // namespace

tsr_status gemm_f32(const core::ExecContext *ctx, const core::GemmArgs<float> *args) { return run(ctx, *args); }
tsr_status gemm_f64(const core::ExecContext *ctx, const core::GemmArgs<double> *args) { return run(ctx, *args); }

int gemm_prefer(int num_threads, int elem_size, int64_t m, int64_t n, int64_t k, const void *A, const void *B,
                const void *C) {
    if (classify(C) == Memory::device || classify(A) == Memory::device || classify(B) == Memory::device)
        return 1;
    // Host operands: worth it when the CPU would take longer than moving the data over PCIe
    // (about 12 GB/s through the pinned buffers, both ways) plus the device's own time.
    const State *s = shared_state();
    const double flops = 2.0 * double(m) * double(n) * double(k);
    const double bytes = double(elem_size) * (double(m) * double(k) + double(k) * double(n) + 2.0 * double(m) * double(n));
    const double cpu_rate = double(num_threads) * (elem_size == 4 ? 60e9 : 30e9);
    const double gpu_rate = (s ? double(s->dev.sm_count) : 100.0) * (elem_size == 4 ? 250e9 : 400e9);
    return flops / cpu_rate > bytes / 12e9 + flops / gpu_rate + 50e-6 ? 1 : 0;
}

namespace {

// An unknown value gets one warning and the default, as the core does for its variables.
template <typename E> void read_one(const char *name, bool (*parse)(const char *, E *), const char *names,
                                    const char *fallback, E *out) {
    const char *v = secure_getenv(name);
    if (!v || !*v) return;
    if (!parse(v, out))
        std::fprintf(stderr, "tessera: warning: %s='%s' is not one of %s; using %s\n", name, v, names, fallback);
}

} // namespace

void read_kernel_choice() {
    choice = KernelChoice{};
    read_one("TESSERA_CUDA_SGEMM", parse_sgemm_tile, sgemm_tile_names(), "auto", &choice.sgemm);
    read_one("TESSERA_CUDA_DGEMM", parse_dgemm_kernel, dgemm_kernel_names(), "auto", &choice.dgemm);
    read_one("TESSERA_CUDA_MATH", parse_sgemm_math, sgemm_math_names(), "fp32", &choice.math);
    read_one("TESSERA_CUDA_SPLITK", parse_split_k, "auto, off, 1..16", "auto", &choice.split_k);
    // As the core reads it (a whole number, 0 or 1); it warns about other values itself.
    verbose = false;
    if (const char *v = secure_getenv("TESSERA_VERBOSE"); v && *v) {
        char *end = nullptr;
        const long level = std::strtol(v, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\n') ++end;
        verbose = level == 1 && *end == '\0';
    }
}

} // namespace tessera::cuda
