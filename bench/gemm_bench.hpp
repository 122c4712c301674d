// The gemm benchmark: per case, fresh random data, Tessera's backends timed interleaved with
// OpenBLAS and BLIS; medians, GFLOP/s, ratios, share of the measured peak and every error.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gemm_options.hpp"
#include "gemm_provider.hpp"
#include "session.hpp"
#include "statistics.hpp"
#include "timing.hpp"

namespace tessera::bench {

struct SideResult {
    std::string name;                    // "tessera/cpu", "openblas", "blis"
    Summary seconds;                     // of the timed repetitions
    double gflops = 0;                   // 2mnk / median seconds / 1e9
    double error = 0;                    // relative Frobenius error against the reference
    std::optional<double> peak_fraction; // gflops / the measured peak (see GemmRecord)
    const char *peak_reason = nullptr;   // why peak_fraction is absent (peak_share.hpp)
};

struct GemmRecord {
    GemmShape shape;
    Precision precision = Precision::f32;
    tsr_layout layout = TSR_COL_MAJOR;
    GemmOps ops;
    tsr_backend backend = TSR_BACKEND_CPU;
    int threads = 1;
    double alpha = 1, beta = 0;
    std::string ld; // the sweep's padded leading dimensions ("lda+3,ldb+0,ldc+7"), "" when tight
    std::int64_t pad_a = 0, pad_b = 0, pad_c = 0; // the same as numbers
    bool aligned_twin = false;                    // GemmCase::aligned_twin
    std::string kernel;        // backend cuda, the sweep's worst cases: the kernel the plugin ran
    std::string status = "ok"; // "ok", "unavailable" (backend cannot run here), "failed"
    std::string message;       // why, when not ok
    std::optional<SideResult> ours, anchor, blis; // anchor: OpenBLAS (cuBLAS for backend cuda)
    std::optional<double> ratio;                  // ours / OpenBLAS GFLOP/s
    std::optional<double> ratio_blis;             // ours / BLIS GFLOP/s
    // Backend cuda with --cublas-math fp32,tf32 (or tf32,fp32): the second cuBLAS side.
    std::optional<SideResult> anchor_alt;
    std::optional<double> ratio_alt; // ours / that side's GFLOP/s
    // Backend cpu with --strassen: Tessera with Strassen's method on, and its GFLOP/s (of
    // the classical count, 2mnk) over the classical side's.
    std::optional<SideResult> strassen;
    std::optional<double> strassen_speedup;
    // The measured peak of this precision at the run's threads, best instruction set
    // (Session::peak); each side's peak_fraction is its GFLOP/s over this.
    std::optional<double> peak_gflops;
    std::string reference; // how C_ref was computed
};

// What the gemm subcommand adds to the common options: the cuBLAS sides and the reference.
struct GemmBenchSettings {
    std::vector<CublasMath> cublas_math{CublasMath::fp32}; // the first one is the anchor
    bool sampled_reference = false;
    bool cpu_anchors_time = true;    // false when every case runs on the GPU: no settle pauses
    int strassen_levels = 0;         // > 0: a Strassen side beside backend cpu (--strassen)
    bool cuda_host_operands = false; // --cuda-operands host
};

class GemmBench {
public:
    GemmBench(const Session &session, const CommonOptions &options,
              GemmBenchSettings settings = {});
    ~GemmBench();

    // Runs one case; on_record sees one record per backend, as soon as it is measured.
    void run(const GemmCase &c, const std::function<void(const GemmRecord &)> &on_record);

    // Entries of the sampled long-double reference (dgemm, or sgemm without an anchor).
    static constexpr std::int64_t kSampledEntries = 1024;
    // The timing plan for the given options and threads (turns, settle pause, minimums).
    static TimingPlan timing_plan(const CommonOptions &options, int threads, bool anchored);

private:
    template <class T>
    void run_typed(const GemmCase &c, const std::function<void(const GemmRecord &)> &on_record);
    GemmProvider *tessera(tsr_backend backend, std::string *why_not);

    const Session &session_;
    const CommonOptions &options_;
    GemmBenchSettings settings_;
    TimingPlan plan_;
    std::unique_ptr<GemmProvider> openblas_, blis_;
    std::unique_ptr<GemmProvider> strassen_; // Tessera cpu with Strassen's method (--strassen)
    std::map<tsr_backend, std::unique_ptr<GemmProvider>> backends_;
    std::map<tsr_backend, std::string> unavailable_;
    // The GPU sides for --backend cuda: Tessera on device pointers and cuBLAS in each of
    // settings_.cublas_math (gemm_cublas.hpp).
    std::unique_ptr<GemmProvider> tessera_cuda_;
    std::vector<std::unique_ptr<GemmProvider>> cublas_;
    std::string cuda_why_;
    bool cuda_tried_ = false;
};

} // namespace tessera::bench
