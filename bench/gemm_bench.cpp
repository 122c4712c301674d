// The gemm benchmark (see gemm_bench.hpp). Every product is column-major C = A·B with
// alpha = 1 and beta = 0, so C is rewritten by each repetition and never read.
#include "gemm_bench.hpp"

#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "gemm_reference.hpp"
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
    std::seed_seq seq{std::uint32_t(seed),      std::uint32_t(seed >> 32),
                      std::uint32_t(c.shape.m), std::uint32_t(c.shape.n),
                      std::uint32_t(c.shape.k), std::uint32_t(c.precision)};
    return std::mt19937_64(seq);
}

SideResult summarize_side(const std::string &name, const std::vector<double> &samples, double flops,
                          double error) {
    SideResult r;
    r.name = name;
    r.seconds = summarize(samples);
    r.gflops = r.seconds.median > 0 ? flops / r.seconds.median * 1e-9 : 0.0;
    r.error = error;
    return r;
}

} // namespace

GemmBench::GemmBench(const Session &session, const CommonOptions &options)
    : session_(session), options_(options) {
    if (session.openblas) anchor_ = make_openblas_gemm(*session.openblas);
    plan_ = timing_plan(options, session.threads, anchor_ != nullptr);
}

TimingPlan GemmBench::timing_plan(const CommonOptions &options, int threads, bool anchored) {
    TimingPlan plan;
    plan.min_reps = options.min_reps;
    plan.min_time = options.min_time;
    plan.turn_time = options.min_time / 5; // five turns per side or more
    // Spinning idle threads only hurt the other side when both use several threads.
    if (options.settle >= 0)
        plan.settle = options.settle;
    else
        plan.settle = anchored && threads > 1 ? 0.1 : 0.0;
    return plan;
}

GemmBench::~GemmBench() = default;

GemmProvider *GemmBench::tessera(tsr_backend backend, std::string *why_not) {
    if (auto it = backends_.find(backend); it != backends_.end()) return it->second.get();
    if (auto it = unavailable_.find(backend); it != unavailable_.end()) {
        *why_not = it->second;
        return nullptr;
    }
    auto provider = make_tessera_gemm(backend, session_.threads, why_not);
    if (!provider) {
        unavailable_[backend] = *why_not;
        return nullptr;
    }
    return (backends_[backend] = std::move(provider)).get();
}

void GemmBench::run(const GemmCase &c, const std::function<void(const GemmRecord &)> &on_record) {
    if (c.precision == Precision::f32)
        run_typed<float>(c, on_record);
    else
        run_typed<double>(c, on_record);
}

template <class T>
void GemmBench::run_typed(const GemmCase &c,
                          const std::function<void(const GemmRecord &)> &on_record) {
    const auto [m, n, k] = c.shape;
    std::mt19937_64 rng = case_rng(options_.seed, c);
    Matrix<T> A(m, k), B(k, n), C_ours(m, n), C_anchor(m, n);
    fill_uniform(A, rng);
    fill_uniform(B, rng);

    GemmCall<T> call;
    call.m = m, call.n = n, call.k = k;
    call.alpha = T(1), call.beta = T(0);
    call.A = A.data(), call.lda = A.ld();
    call.B = B.data(), call.ldb = B.ld();
    GemmCall<T> ours_call = call, anchor_call = call;
    ours_call.C = C_ours.data(), ours_call.ldc = C_ours.ld();
    anchor_call.C = C_anchor.data(), anchor_call.ldc = C_anchor.ld();

    std::optional<GemmReference> reference; // built once, when a backend first needs it
    for (tsr_backend backend : c.backends) {
        GemmRecord record;
        record.shape = c.shape;
        record.precision = c.precision;
        record.backend = backend;
        record.threads = session_.threads;
        record.alpha = double(call.alpha);
        record.beta = double(call.beta);

        std::string why;
        GemmProvider *ours = tessera(backend, &why);
        if (!ours) {
            record.status = "unavailable";
            record.message = why;
            on_record(record);
            continue;
        }
        try {
            if (!reference) {
                if constexpr (std::is_same_v<T, float>) {
                    if (anchor_) reference = GemmReference::full_from_f64(call, *anchor_);
                }
                if (!reference)
                    reference = GemmReference::sampled(call, kSampledEntries, options_.seed);
            }
            record.reference = reference->method();

            fill_nan(C_ours);
            fill_nan(C_anchor);
            std::vector<TimedSide> sides;
            sides.push_back({ours->name(), [&] { return ours->timed_gemm(ours_call); }});
            if (anchor_)
                sides.push_back(
                    {anchor_->name(), [&] { return anchor_->timed_gemm(anchor_call); }});
            auto samples = run_interleaved(sides, plan_);

            const double flops = c.shape.flops();
            record.ours = summarize_side(sides[0].name, samples[0], flops,
                                         reference->relative_error(C_ours.data(), C_ours.ld()));
            if (anchor_) {
                record.anchor =
                    summarize_side(sides[1].name, samples[1], flops,
                                   reference->relative_error(C_anchor.data(), C_anchor.ld()));
                if (record.anchor->gflops > 0)
                    record.ratio = record.ours->gflops / record.anchor->gflops;
            }
        } catch (const std::exception &e) {
            record.status = "failed";
            record.message = e.what();
        }
        on_record(record);
    }
}

} // namespace tessera::bench
