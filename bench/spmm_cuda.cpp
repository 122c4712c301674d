// The spmm subcommand on the cuda backend (built with cuSPARSE only): the matrix, X and Y in
// device memory; Tessera's tsr_?spmm on a handle bound to the bench's stream, and cuSPARSE's
// SpMM on CSR with each of its algorithms (DEFAULT, CSR_ALG1, ALG2, ALG3; preprocessed where
// cuSPARSE offers it) — the fastest one that accepts the layout is the anchor. Both are timed
// with CUDA events in batches, in turns.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <tessera/tessera.h>

#include "spmm_bench.hpp"
#include "spmv_cuda_device.hpp"
#include "spmv_cusparse.hpp"
#include "statistics.hpp"

namespace tessera::bench {

namespace {

void sparse_ok(cusparseStatus_t s, const char *what) {
    if (s != CUSPARSE_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}

struct Algorithm {
    const char *name;
    cusparseSpMMAlg_t alg;
};
constexpr Algorithm kAlgorithms[] = {{"cusparse-default", CUSPARSE_SPMM_ALG_DEFAULT},
                                     {"cusparse-csr-alg1", CUSPARSE_SPMM_CSR_ALG1},
                                     {"cusparse-csr-alg2", CUSPARSE_SPMM_CSR_ALG2},
                                     {"cusparse-csr-alg3", CUSPARSE_SPMM_CSR_ALG3}};

// Median seconds per launch over batches of back-to-back launches (first batch untimed),
// enough for `min_time` seconds or `min_reps` batches.
double time_launches(EventTimer &timer, const std::function<void()> &launch, double min_time,
                     int min_reps) {
    launch();
    double one = timer.batch(launch, 1);
    const int per_batch = int(std::clamp(0.02 / std::max(one, 1e-7), 1.0, 1000.0));
    std::vector<double> samples;
    double spent = 0;
    while (int(samples.size()) < min_reps || spent < min_time) {
        const double t = timer.batch(launch, per_batch);
        samples.push_back(t / per_batch);
        spent += t;
        if (samples.size() > 1000) break;
    }
    return summarize(samples).median;
}

template <typename V, typename I>
SpmmRecord measure(const CsrMatrix &m, const SpmvOptions &o, char layout, int64_t k) {
    SpmmCase<V, I> c(m, o.seed, layout, k);
    SpmmRecord r = c.head;
    const bool row_major = c.row_major;
    const std::vector<I> &row_ptr = c.row_ptr, &col = c.col;
    const std::vector<V> &val = c.val, &X = c.X;
    const int64_t ldx = c.ldx, ldy = c.ldy;
    const size_t y_bytes = size_t(m.rows * k) * sizeof(V);

    cudaStream_t stream = nullptr;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cusparseHandle_t sp = nullptr;
    tsr_handle h = nullptr;
    tsr_sparse A = nullptr;
    cusparseSpMatDescr_t mat = nullptr;
    cusparseDnMatDescr_t dx = nullptr, dy = nullptr;
    try {
        DeviceBuffer d_rp(row_ptr.size() * sizeof(I)), d_col(col.size() * sizeof(I)),
            d_val(val.size() * sizeof(V)), d_x(X.size() * sizeof(V)), d_ours(y_bytes),
            d_theirs(y_bytes);
        d_rp.upload(row_ptr.data(), d_rp.bytes());
        d_col.upload(col.data(), d_col.bytes());
        d_val.upload(val.data(), d_val.bytes());
        d_x.upload(X.data(), d_x.bytes());

        // Tessera: the matrix made from the host arrays in place, then copied to the device by
        // its optimize on the CUDA handle.
        tsr_create(&h);
        if (tsr_set_backend(h, TSR_BACKEND_CUDA) != TSR_SUCCESS ||
            tsr_set_cuda_stream(h, stream) != TSR_SUCCESS ||
            tsr_sparse_create_csr_view(nullptr, &A, sizeof(V) == 4 ? TSR_F32 : TSR_F64,
                                       sizeof(I) == 4 ? TSR_INDEX_I32 : TSR_INDEX_I64, m.rows,
                                       m.cols, m.nnz(), row_ptr.data(), col.data(),
                                       val.data()) != TSR_SUCCESS ||
            tsr_sparse_optimize(h, A, TSR_FORMAT_CSR) != TSR_SUCCESS)
            throw std::runtime_error(std::string("tessera: ") + tsr_last_error());
        const tsr_layout tl = row_major ? TSR_ROW_MAJOR : TSR_COL_MAJOR;
        const V *px = static_cast<const V *>(d_x.get());
        V *py = static_cast<V *>(d_ours.get());
        auto ours = [&] {
            tsr_status s;
            if constexpr (sizeof(V) == 4)
                s = tsr_sspmm(h, tl, TSR_OP_N, k, 1.0f, A, px, ldx, 0.0f, py, ldy);
            else s = tsr_dspmm(h, tl, TSR_OP_N, k, 1.0, A, px, ldx, 0.0, py, ldy);
            if (s != TSR_SUCCESS)
                throw std::runtime_error(std::string("tessera: ") + tsr_last_error());
        };

        // cuSPARSE on the same device arrays.
        sparse_ok(cusparseCreate(&sp), "cusparseCreate");
        sparse_ok(cusparseSetStream(sp, stream), "cusparseSetStream");
        const cudaDataType vt = sizeof(V) == 4 ? CUDA_R_32F : CUDA_R_64F;
        const cusparseIndexType_t it = sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
        const cusparseOrder_t order = row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
        sparse_ok(cusparseCreateCsr(&mat, m.rows, m.cols, m.nnz(), d_rp.get(), d_col.get(),
                                    d_val.get(), it, it, CUSPARSE_INDEX_BASE_ZERO, vt),
                  "cusparseCreateCsr");
        sparse_ok(cusparseCreateDnMat(&dx, m.cols, k, ldx, d_x.get(), vt, order),
                  "cusparseCreateDnMat");
        sparse_ok(cusparseCreateDnMat(&dy, m.rows, k, ldy, d_theirs.get(), vt, order),
                  "cusparseCreateDnMat");
        const V one = 1, zero = 0;
        EventTimer timer(stream);
        ours();
        cuda_check(cudaStreamSynchronize(stream), "tessera spmm");
        const double ours_s = time_launches(timer, ours, o.min_time / 2, o.min_reps);
        double best = 0;
        std::vector<V> y_ours(size_t(m.rows * k)), y_theirs(y_ours.size());
        d_ours.download(y_ours.data(), y_bytes);
        for (const Algorithm &a : kAlgorithms) {
            size_t bytes = 0;
            if (cusparseSpMM_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                        CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, dx, &zero, dy,
                                        vt, a.alg, &bytes) != CUSPARSE_STATUS_SUCCESS)
                continue; // this algorithm does not take the layout
            DeviceBuffer buffer(std::max<size_t>(bytes, 1));
            if (cusparseSpMM_preprocess(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                        CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, dx, &zero, dy,
                                        vt, a.alg, buffer.get()) != CUSPARSE_STATUS_SUCCESS)
                continue;
            auto theirs = [&] {
                sparse_ok(cusparseSpMM(sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, dx, &zero, dy,
                                       vt, a.alg, buffer.get()),
                          "cusparseSpMM");
            };
            try {
                theirs();
                cuda_check(cudaStreamSynchronize(stream), "cusparseSpMM");
            } catch (const std::runtime_error &) {
                continue;
            }
            const double t = time_launches(timer, theirs, o.min_time / 2, o.min_reps);
            if (best == 0 || t < best) {
                best = t;
                r.anchor = a.name;
                d_theirs.download(y_theirs.data(), y_bytes);
            }
        }
        // Tessera once more after the anchor: the two sides' clocks as alike as they get.
        r.ours_s = std::min(ours_s, time_launches(timer, ours, o.min_time / 2, o.min_reps));
        r.anchor_s = best;
        if (best > 0) {
            double most = 0, worst = 0;
            for (size_t i = 0; i < y_ours.size(); ++i) {
                most = std::max(most, std::fabs(double(y_theirs[i])));
                worst = std::max(worst, std::fabs(double(y_ours[i]) - double(y_theirs[i])));
            }
            r.difference = most > 0 ? worst / most : worst;
        } else {
            r.anchor = "none";
            r.note = "no cuSPARSE algorithm took this case";
        }
    } catch (const std::exception &e) {
        r.status = "failed";
        r.note = e.what();
    }
    if (dx) cusparseDestroyDnMat(dx);
    if (dy) cusparseDestroyDnMat(dy);
    if (mat) cusparseDestroySpMat(mat);
    if (sp) cusparseDestroy(sp);
    if (A) tsr_sparse_destroy(A);
    if (h) tsr_destroy(h);
    cudaStreamDestroy(stream);
    return r;
}

} // namespace

SpmmRecord measure_spmm_cuda(const CsrMatrix &m, const SpmvOptions &o, char dtype, char layout,
                             int64_t k) {
    const bool i64 = o.index_bits == 64;
    if (dtype == 's')
        return i64 ? measure<float, int64_t>(m, o, layout, k)
                   : measure<float, int32_t>(m, o, layout, k);
    return i64 ? measure<double, int64_t>(m, o, layout, k)
               : measure<double, int32_t>(m, o, layout, k);
}

std::string spmm_cuda_head() {
    const GpuDeviceInfo d = probe_device();
    return "gpu: " + d.name + "; anchor cuSPARSE " + cusparse_version() + " SpMM (CSR)";
}

} // namespace tessera::bench
