// The gemm subcommand's command line and the cases it turns into: shapes and presets, types,
// transposes, layouts and Tessera backends, with the defaults documented in gemm_usage().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "args.hpp"
#include "options.hpp"

namespace tessera::bench {

struct GemmShape {
    std::int64_t m = 0, n = 0, k = 0;
    double flops() const { return 2.0 * double(m) * double(n) * double(k); }
    std::string text() const; // "MxNxK"
};

enum class Precision { f32, f64 };
const char *precision_letter(Precision p); // "s" / "d", as in sgemm / dgemm

// op(A) and op(B) of a product: N or T each.
struct GemmOps {
    tsr_op transa = TSR_OP_N, transb = TSR_OP_N;
    std::string text() const; // "NN", "NT", "TN", "TT"
};
const char *layout_name(tsr_layout layout); // "col" / "row"

// One measurement to make: a shape, type, layout and transposes, and the backends to time.
struct GemmCase {
    GemmShape shape;
    Precision precision = Precision::f32;
    tsr_layout layout = TSR_COL_MAJOR;
    GemmOps ops;
    std::vector<tsr_backend> backends;
    // The sweep's: elements added to each leading dimension (0 = tight), and beta (0 or not;
    // a non-zero beta makes every contender read C).
    std::int64_t pad_a = 0, pad_b = 0, pad_c = 0;
    double beta = 0;
    // --sweep-aligned: the twin of the case before it, its leading dimensions padded to
    // multiples of 32 elements instead (the same product with 16-byte aligned columns).
    bool aligned_twin = false;
    std::string ld_text() const; // "lda+3,ldb+0,ldc+7", or "" when tight
};

// How cuBLAS computes SGEMM when it is the GPU anchor: FP32 (TF32 off), or TF32 tensor cores.
enum class CublasMath { fp32, tf32 };
const char *cublas_math_name(CublasMath m); // "fp32" / "tf32"

struct GemmOptions {
    CommonOptions common;
    std::vector<GemmShape> shapes;     // --shapes/--shape and --preset, in order; empty: defaults
    std::vector<Precision> precisions; // empty: both
    std::vector<GemmOps> ops;          // empty: NN
    std::vector<tsr_layout> layouts;   // empty: column-major
    std::vector<tsr_backend> backends; // empty: cpu everywhere, reference on small shapes
    // --cublas-math: cuBLAS sides for --backend cuda, the first one the anchor (ratio), a
    // second one beside it (sgemm only); empty: fp32.
    std::vector<CublasMath> cublas_math;
    bool sampled_reference = false; // --reference sampled: no full float64 product for sgemm
    // --strassen L: a second CPU side, Tessera with L levels of Strassen's method (1 or 2),
    // timed beside the classical one; 0: none.
    int strassen_levels = 0;
    // --cuda-operands host: backend cuda called with the host matrices (Tessera stages them
    // itself), end to end by the host's clock, against cuBLAS with plain copies in and out.
    bool cuda_host_operands = false;
    // --preset sweep / --sweep N: N random cases per precision drawn from --seed (m, n, k
    // log-uniform in [16, 16384] with m·n·k at most sweep_cap, random transposes, leading
    // dimensions padded by 0..7, beta 0 or 0.5 at random); 0: no sweep.
    int sweep_count = 0;
    double sweep_cap = 0; // --sweep-cap: the largest m·n·k; 0: 1024³ on the CPU, 4096³ on CUDA
    bool sweep_aligned = false; // --sweep-aligned: each case also with aligned leading dimensions
};

// The sweep's cases (see GemmOptions::sweep_count), in run order.
std::vector<GemmCase> sweep_cases(const GemmOptions &options);

// Parses the arguments after "gemm" (or all of them). Throws UsageError.
GemmOptions parse_gemm_options(ArgCursor &args);
// The cases in run order: precision, shape, layout, transposes, then backend; a shape given
// twice runs once.
std::vector<GemmCase> plan_gemm_cases(const GemmOptions &options);
std::string gemm_usage();

} // namespace tessera::bench
