// The gemm subcommand's command line (see gemm_options.hpp): shape, dtype and backend lists,
// their defaults, and the rule that keeps the slow reference backend to small shapes.
#include "gemm_options.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "backend_names.hpp"
#include "gemm_presets.hpp"

namespace tessera::bench {
namespace {

constexpr std::int64_t kMaxDim = std::int64_t(1) << 20;

// The reference backend is plain loops (about 1 GFLOP/s): by default it runs only where
// m·n·k is at most 256³.
constexpr double kDefaultReferenceWork = 256.0 * 256.0 * 256.0;

// The sweep: cases per precision, the range of m, n and k, and the default cap on m·n·k.
constexpr int kDefaultSweepCount = 300;
constexpr double kSweepMin = 16, kSweepMax = 16384;
constexpr double kSweepCapCpu = 1024.0 * 1024.0 * 1024.0, kSweepCapCuda = 4096.0 * 4096.0 * 4096.0;

// "N" (a square N×N×N product) or "MxNxK".
GemmShape parse_shape(const std::string &item, std::string_view what) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= item.size(); ++i) {
        if (i == item.size() || item[i] == 'x' || item[i] == 'X') {
            parts.push_back(item.substr(start, i - start));
            start = i + 1;
        }
    }
    if (parts.size() != 1 && parts.size() != 3)
        throw UsageError(std::string(what) + ": '" + item + "' is neither N nor MxNxK");
    std::vector<std::int64_t> dims;
    for (const auto &p : parts) dims.push_back(parse_int(p, what, 1, kMaxDim));
    if (dims.size() == 1) return {dims[0], dims[0], dims[0]};
    return {dims[0], dims[1], dims[2]};
}

void add_shapes(const std::string &list, std::string_view what, std::vector<GemmShape> &out) {
    auto items = split_list(list);
    if (items.empty()) throw UsageError(std::string(what) + " needs at least one shape");
    for (const auto &item : items) out.push_back(parse_shape(item, what));
}

std::vector<Precision> parse_precisions(const std::string &text) {
    if (text == "s") return {Precision::f32};
    if (text == "d") return {Precision::f64};
    if (text == "both") return {Precision::f32, Precision::f64};
    throw UsageError("--dtype: '" + text + "' is not one of s, d, both");
}

tsr_op op_from_letter(char c) { return c == 'N' || c == 'n' ? TSR_OP_N : TSR_OP_T; }

void add_ops(const std::string &list, std::vector<GemmOps> &out) {
    auto items = split_list(list);
    if (items.empty()) throw UsageError("--trans needs at least one of NN, NT, TN, TT");
    for (const auto &item : items) {
        auto valid = [](char c) { return c == 'N' || c == 'n' || c == 'T' || c == 't'; };
        if (item.size() != 2 || !valid(item[0]) || !valid(item[1]))
            throw UsageError("--trans: '" + item + "' is not one of NN, NT, TN, TT");
        out.push_back({op_from_letter(item[0]), op_from_letter(item[1])});
    }
}

void add_layouts(const std::string &list, std::vector<tsr_layout> &out) {
    auto items = split_list(list);
    if (items.empty()) throw UsageError("--layout needs col, row or both");
    for (const auto &item : items) {
        if (item == "col") out.push_back(TSR_COL_MAJOR);
        else if (item == "row") out.push_back(TSR_ROW_MAJOR);
        else if (item == "both") out.insert(out.end(), {TSR_COL_MAJOR, TSR_ROW_MAJOR});
        else throw UsageError("--layout: '" + item + "' is not one of col, row, both");
    }
}

void add_cublas_math(const std::string &list, std::vector<CublasMath> &out) {
    auto items = split_list(list);
    if (items.empty() || items.size() > 2)
        throw UsageError("--cublas-math needs one or two of fp32, tf32");
    for (const auto &item : items) {
        if (item == "fp32") out.push_back(CublasMath::fp32);
        else if (item == "tf32") out.push_back(CublasMath::tf32);
        else throw UsageError("--cublas-math: '" + item + "' is not one of fp32, tf32");
    }
    if (out.size() > 2 || (out.size() == 2 && out[0] == out[1]))
        throw UsageError("--cublas-math takes fp32 and tf32 once each");
}

bool same_shape(const GemmShape &a, const GemmShape &b) {
    return a.m == b.m && a.n == b.n && a.k == b.k;
}

} // namespace

std::string GemmShape::text() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

const char *precision_letter(Precision p) { return p == Precision::f32 ? "s" : "d"; }

std::string GemmOps::text() const {
    return std::string(transa == TSR_OP_N ? "N" : "T") + (transb == TSR_OP_N ? "N" : "T");
}

const char *layout_name(tsr_layout layout) { return layout == TSR_ROW_MAJOR ? "row" : "col"; }

const char *cublas_math_name(CublasMath m) { return m == CublasMath::tf32 ? "tf32" : "fp32"; }

GemmOptions parse_gemm_options(ArgCursor &args) {
    GemmOptions options;
    while (!args.done()) {
        if (parse_common_option(args, options.common)) continue;
        if (auto v = args.take_option("--shapes")) {
            add_shapes(*v, "--shapes", options.shapes);
        } else if (auto v = args.take_option("--shape")) {
            add_shapes(*v, "--shape", options.shapes);
        } else if (auto v = args.take_option("--preset")) {
            auto names = split_list(*v);
            if (names.empty()) throw UsageError("--preset needs a name");
            for (const auto &name : names) {
                if (name == "sweep") { // random cases, not a list of shapes
                    if (options.sweep_count == 0) options.sweep_count = kDefaultSweepCount;
                    continue;
                }
                auto shapes = preset_shapes(name);
                options.shapes.insert(options.shapes.end(), shapes.begin(), shapes.end());
            }
        } else if (auto v = args.take_option("--sweep")) {
            options.sweep_count = int(parse_int(*v, "--sweep", 1, 100000));
        } else if (args.take_flag("--sweep-aligned")) {
            options.sweep_aligned = true;
        } else if (auto v = args.take_option("--sweep-cap")) {
            options.sweep_cap = double(parse_int(*v, "--sweep-cap", 4096, std::int64_t(1) << 45));
        } else if (auto v = args.take_option("--trans")) {
            add_ops(*v, options.ops);
        } else if (auto v = args.take_option("--layout")) {
            add_layouts(*v, options.layouts);
        } else if (auto v = args.take_option("--dtype")) {
            options.precisions = parse_precisions(*v);
        } else if (auto v = args.take_option("--backend")) {
            auto names = split_list(*v);
            if (names.empty()) throw UsageError("--backend needs at least one backend");
            for (const auto &name : names) {
                auto backend = backend_from_name(name);
                if (!backend)
                    throw UsageError("--backend: '" + name +
                                     "' is not one of cpu, reference, auto, cuda");
                options.backends.push_back(*backend);
            }
        } else if (auto v = args.take_option("--cublas-math")) {
            add_cublas_math(*v, options.cublas_math);
        } else if (auto v = args.take_option("--cuda-operands")) {
            if (*v != "device" && *v != "host")
                throw UsageError("--cuda-operands: '" + *v + "' is not device or host");
            options.cuda_host_operands = *v == "host";
        } else if (auto v = args.take_option("--strassen")) {
            if (*v != "1" && *v != "2") throw UsageError("--strassen: '" + *v + "' is not 1 or 2");
            options.strassen_levels = (*v)[0] - '0';
        } else if (auto v = args.take_option("--reference")) {
            if (*v == "sampled") options.sampled_reference = true;
            else if (*v == "full") options.sampled_reference = false;
            else throw UsageError("--reference: '" + *v + "' is not one of full, sampled");
        } else if (args.current().starts_with("-")) {
            throw UsageError("unknown option '" + args.current() + "'");
        } else {
            throw UsageError("unexpected argument '" + args.current() + "'");
        }
    }
    finish_common_options(options.common);
    return options;
}

std::string GemmCase::ld_text() const {
    if (pad_a == 0 && pad_b == 0 && pad_c == 0) return "";
    return "lda+" + std::to_string(pad_a) + ",ldb+" + std::to_string(pad_b) + ",ldc+" +
           std::to_string(pad_c);
}

std::vector<GemmCase> sweep_cases(const GemmOptions &options) {
    const bool cuda = std::find(options.backends.begin(), options.backends.end(),
                                TSR_BACKEND_CUDA) != options.backends.end();
    const double cap =
        options.sweep_cap > 0 ? options.sweep_cap : (cuda ? kSweepCapCuda : kSweepCapCpu);
    std::vector<Precision> precisions = options.precisions;
    if (precisions.empty()) precisions = {Precision::f32, Precision::f64};
    std::vector<tsr_layout> layouts = options.layouts;
    if (layouts.empty()) layouts = {TSR_COL_MAJOR};
    std::vector<tsr_backend> backends = options.backends;
    if (backends.empty()) backends = {TSR_BACKEND_CPU};
    // Its own stream of the seed: the same --seed gives the same sweep on every machine.
    std::mt19937_64 rng(options.common.seed * 0x9E3779B97F4A7C15ull + 0x5357454550ull);
    std::uniform_real_distribution<double> log_dim(std::log(kSweepMin), std::log(kSweepMax));
    std::uniform_int_distribution<int> coin(0, 1), pad(0, 7);
    std::vector<GemmCase> cases;
    for (Precision p : precisions)
        for (int i = 0; i < options.sweep_count; ++i) {
            double d[3];
            for (double &x : d) x = std::exp(log_dim(rng));
            // Over the cap, all three shrink by the same factor: the shape's proportions stay.
            const double volume = d[0] * d[1] * d[2];
            if (volume > cap)
                for (double &x : d) x *= std::cbrt(cap / volume);
            GemmCase c;
            c.shape = {std::max<std::int64_t>(std::int64_t(kSweepMin), std::llround(d[0])),
                       std::max<std::int64_t>(std::int64_t(kSweepMin), std::llround(d[1])),
                       std::max<std::int64_t>(std::int64_t(kSweepMin), std::llround(d[2]))};
            c.precision = p;
            c.layout = layouts[std::size_t(i) % layouts.size()];
            c.ops = {coin(rng) ? TSR_OP_T : TSR_OP_N, coin(rng) ? TSR_OP_T : TSR_OP_N};
            c.pad_a = pad(rng), c.pad_b = pad(rng), c.pad_c = pad(rng);
            c.beta = coin(rng) ? 0.5 : 0.0;
            c.backends = backends;
            cases.push_back(c);
            if (options.sweep_aligned) {
                // Rows of each operand as stored (columns of a row-major one), rounded up to 32.
                const bool col = c.layout == TSR_COL_MAJOR;
                const bool an = c.ops.transa == TSR_OP_N, bn = c.ops.transb == TSR_OP_N;
                const auto [m, n, k] = c.shape;
                auto pad32 = [](std::int64_t rows) { return (rows + 31) / 32 * 32 - rows; };
                c.pad_a = pad32(col ? (an ? m : k) : (an ? k : m));
                c.pad_b = pad32(col ? (bn ? k : n) : (bn ? n : k));
                c.pad_c = pad32(col ? m : n);
                c.aligned_twin = true;
                cases.push_back(c);
            }
        }
    return cases;
}

std::vector<GemmCase> plan_gemm_cases(const GemmOptions &options) {
    if (options.sweep_count > 0) return sweep_cases(options);
    std::vector<GemmShape> shapes;
    for (const GemmShape &s : options.shapes)
        if (std::none_of(shapes.begin(), shapes.end(),
                         [&](const GemmShape &t) { return same_shape(s, t); }))
            shapes.push_back(s);
    if (shapes.empty()) {
        std::vector<std::int64_t> sizes = options.common.quick
                                              ? std::vector<std::int64_t>{128, 512}
                                              : std::vector<std::int64_t>{256, 1024, 2048};
        for (auto n : sizes) shapes.push_back({n, n, n});
    }
    std::vector<Precision> precisions = options.precisions;
    if (precisions.empty()) precisions = {Precision::f32, Precision::f64};
    std::vector<GemmOps> ops = options.ops;
    if (ops.empty()) ops = {GemmOps{}};
    std::vector<tsr_layout> layouts = options.layouts;
    if (layouts.empty()) layouts = {TSR_COL_MAJOR};

    std::vector<GemmCase> cases;
    for (Precision p : precisions) {
        for (const GemmShape &shape : shapes) {
            for (tsr_layout layout : layouts) {
                for (const GemmOps &op : ops) {
                    GemmCase c{shape, p, layout, op, options.backends};
                    if (c.backends.empty()) {
                        c.backends.push_back(TSR_BACKEND_CPU);
                        if (double(shape.m) * double(shape.n) * double(shape.k) <=
                            kDefaultReferenceWork)
                            c.backends.push_back(TSR_BACKEND_REFERENCE);
                    }
                    cases.push_back(std::move(c));
                }
            }
        }
    }
    return cases;
}

std::string gemm_usage() {
    return std::string(
               "usage: tessera-bench [gemm] [options]\n"
               "\n"
               "Times Tessera's gemm against OpenBLAS and BLIS in the same process, interleaved,\n"
               "and reports GFLOP/s, the ratios, the share of the measured peak FLOP rate and\n"
               "the errors against a float64 reference.\n"
               "\n"
               "gemm options:\n"
               "  --shapes N,N,...  square products N×N×N (default 256,1024,2048; 128,512 with\n"
               "                    --quick); items may also be MxNxK\n"
               "  --shape MxNxK     one product (repeatable, or a comma list); with --shapes,\n"
               "                    all given shapes are run\n"
               "  --preset NAMES    shape sets (comma list, repeatable), added to --shapes:\n" +
               presets_help() +
               "  --sweep N         N random cases per precision instead of shapes (--preset\n"
               "                    sweep: 300): m, n, k log-uniform in [16, 16384] with m·n·k\n"
               "                    capped, random transposes, leading dimensions padded by\n"
               "                    0..7, beta 0 or 0.5; drawn from --seed; ends with a summary\n"
               "  --sweep-cap MNK   the sweep's largest m·n·k (default 1024³, 4096³ for cuda)\n"
               "  --sweep-aligned   each sweep case again with leading dimensions padded to\n"
               "                    multiples of 32; reports Tessera's unaligned/aligned speed\n"
               "  --dtype s|d|both  sgemm, dgemm or both (default both)\n"
               "  --trans LIST      op(A) op(B): comma list of NN, NT, TN, TT (default NN)\n"
               "  --layout LIST     col, row or both (default col); row-major calls go through\n"
               "                    the CBLAS layout argument of every contender\n"
               "  --backend LIST    Tessera backends, comma list of cpu, reference, auto, cuda\n"
               "                    (default: cpu on every shape, plus reference where\n"
               "                    m·n·k <= 256³; it is plain loops)\n"
               "  --cublas-math LIST  for --backend cuda: fp32 (default; TF32 off), tf32, or\n"
               "                    both (fp32,tf32 or tf32,fp32): the first is the anchor of\n"
               "                    the ratio, the second runs beside it (sgemm only)\n"
               "  --reference full|sampled  sgemm's reference: every entry by a float64 dgemm\n"
               "                    (default, where OpenBLAS or BLIS is loaded) or 1024 sampled\n"
               "                    entries in long double (fast for large GPU products)\n"
               "  --cuda-operands device|host  for --backend cuda: the operands on the device\n"
               "                    (default; kernels timed with CUDA events), or in host memory:\n"
               "                    each call end to end by the host's clock, Tessera given the\n"
               "                    host pointers, cuBLAS with plain copies of A, B (and C when\n"
               "                    beta != 0) in and of C out\n"
               "  --strassen L      for backend cpu: also time Tessera with L (1 or 2) levels of\n"
               "                    Strassen's method beside the classical product, and report\n"
               "                    its speed over the classical one's and its error\n"
               "\n"
               "common options:\n") +
           common_options_help() +
           "\n"
           "Every product is C = op(A)·op(B) with alpha = 1, beta = 0 (C rewritten each\n"
           "repetition), on fresh uniform random data in [-1, 1], with tight leading\n"
           "dimensions. Exit status: 0 when every measurement ran, 1 when a call failed, 2 for\n"
           "a bad command line. 'tessera-bench peak' measures the peak FLOP rate alone.\n";
}

} // namespace tessera::bench
