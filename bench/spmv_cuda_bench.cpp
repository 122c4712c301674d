// One GPU spmv record (see spmv_cuda_bench.hpp): device x and y allocated once, a Tessera matrix
// per format and cuSPARSE's prepared descriptors on the same vectors, each product checked
// (y starts as NaN), then batches of products timed in turns with CUDA events on one stream.
#include "spmv_cuda_bench.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include <tessera/tessera.h>

#include "spmv_bench.hpp"
#include "spmv_case.hpp"
#include "spmv_cuda_device.hpp"
#include "spmv_cusparse.hpp"
#include "table.hpp"
#include "timing.hpp"

namespace tessera::bench {

namespace {

// A timed batch lasts about this long: far above the events' resolution (~0.5 µs) and the
// launch of the batch, short enough for many turns.
constexpr double kBatchSeconds = 2e-3;
constexpr int kMaxBatch = 20000;

std::string tessera_failure(tsr_status s) {
    return std::string(tsr_status_string(s)) + ": " + tsr_last_error();
}

// The Tessera matrices of one record, destroyed with it.
struct Matrices {
    std::vector<tsr_sparse> list;
    ~Matrices() {
        for (tsr_sparse A : list) tsr_sparse_destroy(A);
    }
};

// One product enqueued (device vectors) or run to completion (host vectors), and where its
// timings go.
struct Contender {
    Contender(size_t s, bool h, std::function<void()> l) : side(s), host(h), launch(std::move(l)) {}
    size_t side; // index into the record's sides
    bool host;   // host vectors: timed by the host's clock, end to end
    std::function<void()> launch;
    int batch = 1;
    std::vector<double> walls; // device sides: the host's time of each batch
};

// Host-pointer calls: the library copies x in and y out; the clock runs until the device is idle.
double host_batch(const std::function<void()> &launch, int count) {
    const double t0 = now_seconds();
    for (int k = 0; k < count; ++k) launch();
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return now_seconds() - t0;
}

} // namespace

struct GpuSpmvBench::State {
    SpmvOptions o;
    tsr_handle h = nullptr;
    cudaStream_t stream = nullptr;
    cusparseHandle_t sparse = nullptr;
    GpuDeviceInfo device;
    std::unique_ptr<EventTimer> timer;
    std::unique_ptr<DeviceCopy> copy;
    CopyResult copy_alone;

    ~State() {
        copy.reset();
        timer.reset();
        if (sparse) cusparseDestroy(sparse);
        if (h) tsr_destroy(h);
        if (stream) cudaStreamDestroy(stream);
    }

    template <typename V, typename I> GpuSpmvRecord run(const CsrMatrix &m, char op);
};

GpuSpmvBench::GpuSpmvBench(const SpmvOptions &o) : s_(std::make_unique<State>()) {
    State &s = *s_;
    s.o = o;
    if (tsr_create(&s.h) != TSR_SUCCESS)
        throw std::runtime_error(std::string("tsr_create: ") + tsr_last_error());
    if (tsr_set_backend(s.h, TSR_BACKEND_CUDA) != TSR_SUCCESS)
        throw CudaBackendUnavailable(tsr_last_error());
    int devices = 0;
    if (cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0)
        throw CudaBackendUnavailable(e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    s.device = probe_device();
    // A blocking stream (not cudaStreamNonBlocking): should a call still use the legacy default
    // stream, the events recorded here wait for it rather than miss it.
    cuda_check(cudaStreamCreate(&s.stream), "cudaStreamCreate");
    if (tsr_set_cuda_stream(s.h, s.stream) != TSR_SUCCESS)
        throw CudaBackendUnavailable(std::string("tsr_set_cuda_stream: ") + tsr_last_error());
    s.timer = std::make_unique<EventTimer>(s.stream);
    if (o.cusparse) {
        if (cusparseStatus_t e = cusparseCreate(&s.sparse); e != CUSPARSE_STATUS_SUCCESS)
            throw std::runtime_error(std::string("cusparseCreate: ") + cusparseGetErrorString(e));
        cusparseSetStream(s.sparse, s.stream);
        s.device.cusparse_version = cusparse_version();
    }
    if (o.stream) {
        // 1 GiB (less on a small device): far beyond the L2 cache of any GPU.
        size_t free = 0, total = 0;
        cuda_check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
        size_t bytes = size_t(1) << 30;
        while (bytes > (size_t(64) << 20) && 8 * bytes > free) bytes /= 2;
        s.copy = std::make_unique<DeviceCopy>(s.stream, bytes);
        s.copy_alone = measure_copy(*s.copy, *s.timer);
    }
}

GpuSpmvBench::~GpuSpmvBench() = default;

const GpuDeviceInfo &GpuSpmvBench::device() const { return s_->device; }

const CopyResult &GpuSpmvBench::copy_alone() const { return s_->copy_alone; }

template <typename V, typename I>
GpuSpmvRecord GpuSpmvBench::State::run(const CsrMatrix &m, char op) {
    constexpr tsr_dtype dtype = sizeof(V) == 4 ? TSR_F32 : TSR_F64;
    constexpr tsr_index_type itype = sizeof(I) == 4 ? TSR_INDEX_I32 : TSR_INDEX_I64;
    const bool trans = op == 't';
    const tsr_op top = trans ? TSR_OP_T : TSR_OP_N;
    SpmvCase<V, I> c(m, trans, o.seed);

    GpuSpmvRecord rec;
    rec.describe<V, I>(m, op);

    const size_t y_len = size_t(std::max<int64_t>(1, trans ? m.cols : m.rows));
    DeviceBuffer dx(c.x.size() * sizeof(V)), dy(y_len * sizeof(V));
    dx.upload(c.x.data(), dx.bytes());
    const V *x = static_cast<const V *>(dx.get());
    V *y = static_cast<V *>(dy.get());
    std::vector<V> y_back(y_len), y_host(y_len);
    const V *xh = c.x.data();
    V *yh = y_host.data();

    // ok when every entry is inside its componentwise bound (SpmvCase::check).
    auto judge = [&](const std::vector<V> &result, std::string &status, std::string &message) {
        const BoundCheck b = c.check(result);
        status = b.outside == 0 ? "ok" : "wrong";
        if (b.outside)
            message = std::to_string(b.outside) + " of " + std::to_string(result.size()) +
                      " entries outside the error bound (worst " + significant(b.worst) + "x it)";
        return b;
    };
    // Runs one product on y = NaN and checks it; a failure is the side's, not the record's.
    auto check_device = [&](GpuSpmvSide &side, const std::function<void()> &launch) {
        try {
            dy.fill_nan();
            launch();
            cuda_check(cudaDeviceSynchronize(), "the product");
            dy.download(y_back.data(), dy.bytes());
            side.rel_error = c.error(y_back);
            const BoundCheck b = judge(y_back, side.status, side.message);
            side.outside = b.outside;
            side.worst_of_bound = b.worst;
        } catch (const std::exception &e) {
            side.status = "failed";
            side.message = e.what();
            (void)cudaGetLastError(); // clear what can be cleared; a broken context stays broken
        }
    };

    std::deque<Contender> contenders;
    Matrices matrices;
    for (const std::string &name : o.formats) {
        GpuSpmvSide side;
        side.name = name;
        side.library = "tessera";
        tsr_sparse A = nullptr;
        tsr_status st = tsr_sparse_create_csr(h, &A, dtype, itype, m.rows, m.cols, m.nnz(),
                                              c.row_ptr.data(), c.col.data(), c.val.data());
        if (st == TSR_SUCCESS) matrices.list.push_back(A);
        if (st == TSR_SUCCESS) st = tsr_sparse_optimize(h, A, spmv_format_of(name));
        if (st != TSR_SUCCESS) {
            side.status = st == TSR_ERR_NOT_SUPPORTED ? "refused" : "failed";
            side.message = tessera_failure(st);
            rec.sides.push_back(side);
            continue;
        }
        tsr_format chosen = TSR_FORMAT_AUTO;
        tsr_sparse_get_format(A, &chosen);
        side.format = spmv_format_name(chosen);
        tsr_handle hd = h;
        auto call = [hd, top, A](const V *in, V *out) {
            tsr_status r;
            if constexpr (sizeof(V) == 4) r = tsr_sspmv(hd, top, 1.0f, A, in, 0.0f, out);
            else r = tsr_dspmv(hd, top, 1.0, A, in, 0.0, out);
            if (r != TSR_SUCCESS) throw std::runtime_error(tessera_failure(r));
        };
        std::function<void()> launch = [call, x, y] { call(x, y); };
        check_device(side, launch);
        // With host vectors, end to end (csr and auto): only where the device-vector call ran,
        // since a backend without sparse kernels would run these on the CPU.
        if (name == "csr" || name == "auto") {
            if (!side.timed()) {
                side.host_status = "skipped";
                side.host_message = "the device-vector call did not run";
            } else {
                try {
                    std::fill(y_host.begin(), y_host.end(), std::numeric_limits<V>::quiet_NaN());
                    call(xh, yh);
                    cuda_check(cudaDeviceSynchronize(), "the product");
                    side.host_rel_error = c.error(y_host);
                    side.host_outside = judge(y_host, side.host_status, side.host_message).outside;
                } catch (const std::exception &e) {
                    side.host_status = "failed";
                    side.host_message = e.what();
                    (void)cudaGetLastError();
                }
            }
        }
        rec.sides.push_back(side);
        if (side.timed()) contenders.emplace_back(rec.sides.size() - 1, false, launch);
        if (side.host_status == "ok" || side.host_status == "wrong")
            contenders.emplace_back(rec.sides.size() - 1, true, [call, xh, yh] { call(xh, yh); });
    }

    std::unique_ptr<CusparseSpmv> anchor;
    if (sparse) {
        const CusparseInput in{m.rows,       m.cols,       m.nnz(),        c.row_ptr.data(),
                               c.col.data(), c.val.data(), sizeof(V) == 4, sizeof(I) == 8};
        try {
            anchor = std::make_unique<CusparseSpmv>(sparse, in, trans, dx.get(), dy.get());
        } catch (const std::exception &e) {
            GpuSpmvSide side;
            side.name = "cusparse";
            side.library = "cusparse";
            side.status = "failed";
            side.message = e.what();
            rec.sides.push_back(side);
        }
        if (anchor)
            for (CusparseSpmv::Algorithm &a : anchor->algorithms()) {
                GpuSpmvSide side;
                side.name = a.name;
                side.library = "cusparse";
                side.format = a.format;
                side.status = a.status;
                side.message = a.message;
                if (a.status == "ok") check_device(side, a.launch);
                rec.sides.push_back(side);
                if (side.timed()) contenders.emplace_back(rec.sides.size() - 1, false, a.launch);
            }
    }

    try {
        // Batches of about kBatchSeconds, from the fastest of three single products (by the host's
        // clock where the events saw less than half of it: work off the stream must not make
        // the batches huge).
        for (Contender &k : contenders) {
            double one = std::numeric_limits<double>::infinity();
            for (int r = 0; r < 3; ++r) {
                double wall = 0;
                const double t =
                    k.host ? host_batch(k.launch, 1) : timer->batch(k.launch, 1, &wall);
                one = std::min(one, !k.host && 2 * t < wall ? wall : t);
            }
            k.batch = int(
                std::clamp(std::ceil(kBatchSeconds / std::max(one, 1e-9)), 1.0, double(kMaxBatch)));
        }
        std::vector<TimedSide> timed;
        for (Contender &k : contenders) {
            const std::string name = rec.sides[k.side].name + (k.host ? "/host" : "");
            if (k.host) timed.push_back({name, [&k] { return host_batch(k.launch, k.batch); }});
            else
                timed.push_back({name, [this, &k] {
                                     double wall = 0;
                                     const double t = timer->batch(k.launch, k.batch, &wall);
                                     k.walls.push_back(wall);
                                     return t;
                                 }});
        }
        // The copy takes turns with products whose bytes leave the L2 cache; smaller ones quote
        // the copy measured alone (between them it would evict their matrix every turn).
        rec.copy_in_turns = copy && rec.bytes >= device.l2_bytes;
        const std::function<void()> pass = [this] { copy->pass(); };
        if (rec.copy_in_turns)
            timed.push_back({"copy", [this, &pass] { return timer->batch(pass, 1); }});

        TimingPlan plan;
        plan.min_reps = o.min_reps;
        plan.min_time = o.min_time;
        plan.turn_time = std::min(0.1, o.min_time / 5);
        plan.settle = 0;
        const auto samples = run_interleaved(std::span<const TimedSide>(timed), plan);
        if (rec.copy_in_turns)
            rec.copy_gbs = copy->bytes() / summarize(samples.back()).median * 1e-9;
        else rec.copy_gbs = copy_alone.median_gbs;

        for (size_t k = 0; k < contenders.size(); ++k) {
            const Contender &con = contenders[k];
            GpuSpmvSide &side = rec.sides[con.side];
            std::vector<double> per_product = samples[k];
            for (double &t : per_product) t /= con.batch;
            if (con.host) {
                side.host_batch = con.batch;
                side.host_time = summarize(per_product);
                continue;
            }
            side.batch = con.batch;
            side.time = summarize(per_product);
            side.wall_median = summarize(con.walls).median / con.batch;
            side.gflops = 2.0 * double(m.nnz()) / side.time.median * 1e-9;
            side.gbs = rec.bytes / side.time.median * 1e-9;
        }
    } catch (const std::exception &e) {
        rec.note = std::string("timing failed: ") + e.what();
        for (const Contender &k : contenders) {
            GpuSpmvSide &side = rec.sides[k.side];
            if (k.host) side.host_status = "failed", side.host_message = rec.note;
            else side.status = "failed", side.message = rec.note;
        }
    }
    return rec;
}

GpuSpmvRecord GpuSpmvBench::measure(const CsrMatrix &m, char dtype, char op) {
    State &s = *s_;
    if (dtype == 's')
        return s.o.index_bits == 64 ? s.run<float, int64_t>(m, op) : s.run<float, int32_t>(m, op);
    return s.o.index_bits == 64 ? s.run<double, int64_t>(m, op) : s.run<double, int32_t>(m, op);
}

} // namespace tessera::bench
