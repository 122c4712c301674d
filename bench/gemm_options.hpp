// The gemm subcommand's command line and the list of cases it turns into: shapes, element
// types and Tessera backends, with the defaults documented in gemm_usage().
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

// One measurement to make: a shape and type, and the backends to time on it.
struct GemmCase {
    GemmShape shape;
    Precision precision = Precision::f32;
    std::vector<tsr_backend> backends;
};

struct GemmOptions {
    CommonOptions common;
    std::vector<GemmShape> shapes;     // empty: the defaults
    std::vector<Precision> precisions; // empty: both
    std::vector<tsr_backend> backends; // empty: cpu everywhere, reference on small shapes
};

// Parses the arguments after "gemm" (or all of them). Throws UsageError.
GemmOptions parse_gemm_options(ArgCursor &args);
// The cases in run order: precision, then shape, then backend.
std::vector<GemmCase> plan_gemm_cases(const GemmOptions &options);
std::string gemm_usage();

} // namespace tessera::bench
