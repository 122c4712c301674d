// The gemm benchmark (see gemm_bench.hpp). Every product is C = op(A)·op(B) with alpha = 1
// and beta = 0, so C is rewritten by each repetition and never read.
#include "gemm_bench.hpp"
#include "gemm_cublas.hpp"

#include <algorithm>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "gemm_reference.hpp"
#include "peak_share.hpp"
#include "random_matrix.hpp"

namespace tessera::bench {
namespace {

// C starts as NaN: an entry a kernel fails to write, or reads despite beta = 0, shows up
// as a NaN error instead of passing unnoticed.
template <class T> void fill_nan(Matrix<T> &c) {
    T *p = c.data();
    for (std::size_t i = 0, n = c.size(); i < n; ++i) p[i] = std::numeric_limits<T>::quiet_NaN();
}

// Each case has its own reproducible data, whatever else runs before it.
std::mt19937_64 case_rng(std::uint64_t seed, const GemmCase &c) {
    std::seed_seq seq{
        std::uint32_t(seed),      std::uint32_t(seed >> 32),   std::uint32_t(c.shape.m),
        std::uint32_t(c.shape.n), std::uint32_t(c.shape.k),    std::uint32_t(c.precision),
        std::uint32_t(c.layout),  std::uint32_t(c.ops.transa), std::uint32_t(c.ops.transb)};
    return std::mt19937_64(seq);
}

// A rows×cols operand in `layout`, as a column-major Matrix over the same memory: a
// row-major rows×cols matrix is a column-major cols×rows one. The leading dimension is tight
// plus `pad` elements (the sweep's).
template <class T>
Matrix<T> operand(tsr_layout layout, std::int64_t rows, std::int64_t cols, std::int64_t pad = 0) {
    const std::int64_t stored = layout == TSR_COL_MAJOR ? rows : cols;
    return layout == TSR_COL_MAJOR ? Matrix<T>(rows, cols, std::max<std::int64_t>(stored, 1) + pad)
                                   : Matrix<T>(cols, rows, std::max<std::int64_t>(stored, 1) + pad);
}

template <class T> void fill_zero(Matrix<T> &c) { std::fill_n(c.data(), c.size(), T(0)); }

SideResult summarize_side(const std::string &name, const std::vector<double> &samples, double flops,
                          double error, std::optional<double> peak_gflops, bool peak_busy) {
    SideResult r;
    r.name = name;
    r.seconds = summarize(samples);
    r.gflops = r.seconds.median > 0 ? flops / r.seconds.median * 1e-9 : 0.0;
    r.error = error;
    const PeakShare share = peak_share(r.gflops, peak_gflops, peak_busy);
    r.peak_fraction = share.fraction;
    r.peak_reason = share.reason;
    return r;
}

// Calls per timed sample: enough for about 2^22 flops (a few microseconds) per sample,
// at most 256; 1 from a 128³ product up.
int host_batch(double flops) {
    constexpr double kSampleFlops = 4194304.0;
    return int(std::clamp(kSampleFlops / std::max(flops, 1.0), 1.0, 256.0));
}

} // namespace

GemmBench::GemmBench(const Session &session, const CommonOptions &options,
                     GemmBenchSettings settings)
    : session_(session), options_(options), settings_(std::move(settings)) {
    if (settings_.cublas_math.empty()) settings_.cublas_math = {CublasMath::fp32};
    if (session.openblas) openblas_ = make_openblas_gemm(*session.openblas);
    if (session.blis) blis_ = make_blis_gemm(*session.blis);
    if (settings_.strassen_levels > 0) {
        std::string why;
        strassen_ =
            make_tessera_gemm(TSR_BACKEND_CPU, session.threads, &why, settings_.strassen_levels);
        if (!strassen_) throw std::runtime_error("--strassen: " + why);
    }
    plan_ =
        timing_plan(options, session.threads, session.any_anchor() && settings_.cpu_anchors_time);
}

TimingPlan GemmBench::timing_plan(const CommonOptions &options, int threads, bool anchored) {
    TimingPlan plan;
    plan.min_reps = options.min_reps;
    plan.min_time = options.min_time;
    plan.turn_time = options.min_time / 5; // five turns per side or more
    // Spinning idle threads only hurt the other side when both use several threads. 0.15 s
    // covers OpenBLAS's spin of 2^28 TSC ticks after a call (0.134 s at 2 GHz) before it sleeps.
    if (options.settle >= 0) plan.settle = options.settle;
    else plan.settle = anchored && threads > 1 ? 0.15 : 0.0;
    return plan;
}

GemmBench::~GemmBench() = default;

GemmProvider *GemmBench::tessera(tsr_backend backend, std::string *why_not) {
    if (auto it = backends_.find(backend); it != backends_.end()) return it->second.get();
    if (auto it = unavailable_.find(backend); it != unavailable_.end()) {
        *why_not = it->second;
        return nullptr;
    }
    if (backend == TSR_BACKEND_CUDA) { // on device pointers, next to cuBLAS
        if (!cuda_tried_) {
            cuda_tried_ = true;
            const bool host = settings_.cuda_host_operands;
            tessera_cuda_ = host ? make_tessera_gemm(TSR_BACKEND_CUDA, session_.threads, &cuda_why_)
                                 : make_tessera_cuda_gemm(&cuda_why_);
            std::string cublas_why;
            if (tessera_cuda_) {
                for (CublasMath math : settings_.cublas_math) {
                    auto cublas = make_cublas_gemm(math, &cublas_why, host);
                    if (!cublas) break; // no cuBLAS: no anchor at all
                    cublas_.push_back(std::move(cublas));
                }
            }
        }
        *why_not = cuda_why_;
        return tessera_cuda_.get();
    }
    auto provider = make_tessera_gemm(backend, session_.threads, why_not);
    if (!provider) {
        unavailable_[backend] = *why_not;
        return nullptr;
    }
    return (backends_[backend] = std::move(provider)).get();
}

void GemmBench::run(const GemmCase &c, const std::function<void(const GemmRecord &)> &on_record) {
    if (c.precision == Precision::f32) run_typed<float>(c, on_record);
    else run_typed<double>(c, on_record);
}

template <class T>
void GemmBench::run_typed(const GemmCase &c,
                          const std::function<void(const GemmRecord &)> &on_record) {
    const auto [m, n, k] = c.shape;
    const bool an = c.ops.transa == TSR_OP_N, bn = c.ops.transb == TSR_OP_N;
    std::mt19937_64 rng = case_rng(options_.seed, c);
    Matrix<T> A = operand<T>(c.layout, an ? m : k, an ? k : m, c.pad_a);
    Matrix<T> B = operand<T>(c.layout, bn ? k : n, bn ? n : k, c.pad_b);
    fill_uniform(A, rng);
    fill_uniform(B, rng);

    GemmCall<T> call;
    call.layout = c.layout;
    call.transa = c.ops.transa, call.transb = c.ops.transb;
    call.m = m, call.n = n, call.k = k;
    call.alpha = T(1), call.beta = T(c.beta);
    call.A = A.data(), call.lda = A.ld();
    call.B = B.data(), call.ldb = B.ld();

    // One C per contender, so that each one's error is its own.
    struct Contender {
        GemmProvider *provider;
        Matrix<T> C;
        GemmCall<T> call;
    };
    auto contender = [&](GemmProvider *provider) {
        Contender ct{provider, operand<T>(c.layout, m, n, c.pad_c), call};
        ct.call.C = ct.C.data(), ct.call.ldc = ct.C.ld();
        return ct;
    };
    std::optional<Contender> openblas, blis;
    if (openblas_) openblas.emplace(contender(openblas_.get()));
    if (blis_) blis.emplace(contender(blis_.get()));

    std::optional<double> peak;
    if (session_.peak)
        if (const PeakMeasurement *p = session_.peak->best(c.precision, session_.threads))
            peak = p->gflops;
    // A peak measured on a busy machine is too low: no side's share of it is shown.
    const bool peak_busy =
        session_.peak && !peak_warnings(*session_.peak, session_.threads).empty();

    std::optional<GemmReference> reference; // built once, when a backend first needs it
    for (tsr_backend backend : c.backends) {
        GemmRecord record;
        record.shape = c.shape;
        record.precision = c.precision;
        record.layout = c.layout;
        record.ops = c.ops;
        record.backend = backend;
        record.threads = session_.threads;
        record.alpha = double(call.alpha);
        record.beta = double(call.beta);
        record.ld = c.ld_text();
        record.pad_a = c.pad_a, record.pad_b = c.pad_b, record.pad_c = c.pad_c;
        record.aligned_twin = c.aligned_twin;
        record.peak_gflops = peak;

        std::string why;
        GemmProvider *ours_provider = tessera(backend, &why);
        if (!ours_provider) {
            record.status = "unavailable";
            record.message = why;
            on_record(record);
            continue;
        }
        try {
            if (!reference) {
                // The product alone: a beta != 0 case's error comes from a call on C = 0.
                GemmCall<T> product = call;
                product.beta = T(0);
                if constexpr (std::is_same_v<T, float>) {
                    GemmProvider *f64 = openblas_ ? openblas_.get() : blis_.get();
                    if (f64 && !settings_.sampled_reference)
                        reference = GemmReference::full_from_f64(product, *f64);
                }
                if (!reference)
                    reference = GemmReference::sampled(product, kSampledEntries, options_.seed);
            }
            record.reference = reference->method();

            Contender ours = contender(ours_provider);
            std::vector<Contender *> all{&ours};
            const bool gpu = backend == TSR_BACKEND_CUDA;
            // The cuBLAS sides: the anchor, and for sgemm a second math mode beside it.
            std::optional<Contender> cublas, cublas_alt;
            if (gpu && !cublas_.empty()) cublas.emplace(contender(cublas_[0].get()));
            if (gpu && cublas_.size() > 1 && std::is_same_v<T, float>)
                cublas_alt.emplace(contender(cublas_[1].get()));
            if (cublas) all.push_back(&*cublas);
            if (cublas_alt) all.push_back(&*cublas_alt);
            if (openblas && !gpu) all.push_back(&*openblas);
            if (blis && !gpu) all.push_back(&*blis);
            std::optional<Contender> strassen;
            if (strassen_ && backend == TSR_BACKEND_CPU) {
                strassen.emplace(contender(strassen_.get()));
                all.push_back(&*strassen);
            }
            // Host products shorter than a few microseconds are timed in batches of calls
            // back to back (one sample: the batch's time / its count), so that the clock's
            // own cost (tens of nanoseconds a read) stays out of the per-call time.
            const int batch = gpu ? 1 : host_batch(c.shape.flops());
            std::vector<TimedSide> sides;
            // beta == 0: C is NaN, so an unwritten element shows in the error. Otherwise C
            // starts at zero and is read by every call (its values drift from rep to rep).
            for (Contender *ct : all) {
                if (call.beta == T(0)) fill_nan(ct->C);
                else fill_zero(ct->C);
                ct->provider->new_operands();
                sides.push_back({ct->provider->name(), [ct, batch] {
                                     if (batch == 1) return ct->provider->timed_gemm(ct->call);
                                     const double start = now_seconds();
                                     for (int i = 0; i < batch; ++i) ct->provider->gemm(ct->call);
                                     return (now_seconds() - start) / batch;
                                 }});
            }
            auto samples = run_interleaved(sides, plan_);
            for (Contender *ct : all) {
                if (call.beta != T(0)) { // the error from one call on C = 0: beta·C adds nothing
                    fill_zero(ct->C);
                    ct->provider->new_operands();
                    ct->provider->gemm(ct->call);
                }
                ct->provider->fetch_result();
            }

            const double flops = c.shape.flops();
            auto side = [&](std::size_t i) {
                return summarize_side(sides[i].name, samples[i], flops,
                                      reference->relative_error(all[i]->C.data(), all[i]->C.ld()),
                                      peak, peak_busy);
            };
            record.ours = side(0);
            std::size_t next = 1;
            if (cublas) { // the GPU anchor takes the anchor's place in the record
                record.anchor = side(next++);
                if (record.anchor->gflops > 0)
                    record.ratio = record.ours->gflops / record.anchor->gflops;
            }
            if (cublas_alt) {
                record.anchor_alt = side(next++);
                if (record.anchor_alt->gflops > 0)
                    record.ratio_alt = record.ours->gflops / record.anchor_alt->gflops;
            }
            if (openblas && !gpu) {
                record.anchor = side(next++);
                if (record.anchor->gflops > 0)
                    record.ratio = record.ours->gflops / record.anchor->gflops;
            }
            if (blis && !gpu) {
                record.blis = side(next++);
                if (record.blis->gflops > 0)
                    record.ratio_blis = record.ours->gflops / record.blis->gflops;
            }
            if (strassen) {
                record.strassen = side(next++);
                if (record.ours->gflops > 0)
                    record.strassen_speedup = record.strassen->gflops / record.ours->gflops;
            }
        } catch (const std::exception &e) {
            record.status = "failed";
            record.message = e.what();
        }
        on_record(record);
    }
}

} // namespace tessera::bench
