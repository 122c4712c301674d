// cuBLAS (FP32 or TF32 math) and Tessera/cuda on the device: operands copied to device buffers
// once per case (untimed), each call timed by CUDA events on the provider's stream, C copied
// back when the bench asks for it. With host operands, cuBLAS's calls copy in and out instead,
// timed end to end by the host's clock.
#include "gemm_cublas.hpp"

#ifdef TESSERA_BENCH_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

#include <stdexcept>

#include "timing.hpp"

namespace tessera::bench {

#ifdef TESSERA_BENCH_HAVE_CUDA
namespace {

void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Device copies of one call's operands and the events that time it.
class DeviceSide : public GemmProvider {
public:
    DeviceSide() {
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
        check(cudaEventCreate(&start_), "event");
        check(cudaEventCreate(&stop_), "event");
    }
    ~DeviceSide() override {
        for (void *p : buf_) cudaFree(p);
        cudaEventDestroy(start_), cudaEventDestroy(stop_), cudaStreamDestroy(stream_);
    }
    void gemm(const GemmCall<float> &c) override { (void)timed(c); }
    void gemm(const GemmCall<double> &c) override { (void)timed(c); }
    double timed_gemm(const GemmCall<float> &c) override { return timed(c); }
    double timed_gemm(const GemmCall<double> &c) override { return timed(c); }
    void new_operands() override { fresh_ = true; }
    void fetch_result() override {
        if (!result_host_) return;
        check(cudaMemcpy(result_host_, buf_[2], result_bytes_, cudaMemcpyDeviceToHost),
              "copy C back");
        result_host_ = nullptr;
    }

protected:
    virtual void launch(const GemmCall<float> &c) = 0; // device pointers, column-major
    virtual void launch(const GemmCall<double> &c) = 0;
    cudaStream_t stream_ = nullptr;

private:
    // The device buffer of one operand, grown when needed (then its old contents are gone).
    void *reserve(int slot, size_t bytes) {
        if (bytes > size_[slot]) {
            cudaFree(buf_[slot]);
            buf_[slot] = nullptr, size_[slot] = 0;
            check(cudaMalloc(&buf_[slot], bytes), "cudaMalloc");
            size_[slot] = bytes;
            fresh_ = true;
        }
        return buf_[slot];
    }
    template <class T> double timed(const GemmCall<T> &call) {
        GemmCall<T> c = as_column_major(call);
        const int64_t ar = c.transa == TSR_OP_N ? c.m : c.k, ac = c.transa == TSR_OP_N ? c.k : c.m;
        const int64_t br = c.transb == TSR_OP_N ? c.k : c.n, bc = c.transb == TSR_OP_N ? c.n : c.k;
        const size_t sa = size_t(c.lda) * ac * sizeof(T), sb = size_t(c.ldb) * bc * sizeof(T),
                     sc = size_t(c.ldc) * c.n * sizeof(T);
        (void)ar, (void)br;
        GemmCall<T> d = c;
        d.A = static_cast<const T *>(reserve(0, sa));
        d.B = static_cast<const T *>(reserve(1, sb));
        d.C = static_cast<T *>(reserve(2, sc));
        // Other host operands than the last call's are new data too.
        const void *const seen[3] = {c.A, c.B, c.C};
        const size_t bytes[3] = {sa, sb, sc};
        for (int i = 0; i < 3; ++i)
            if (seen[i] != seen_[i] || bytes[i] != seen_bytes_[i]) fresh_ = true;
        if (fresh_) {
            check(cudaMemcpy(const_cast<T *>(d.A), c.A, sa, cudaMemcpyHostToDevice), "copy A");
            check(cudaMemcpy(const_cast<T *>(d.B), c.B, sb, cudaMemcpyHostToDevice), "copy B");
        }
        // C once per case (the bench fills it with NaN, which a kernel that skips an entry,
        // or reads C although beta = 0, leaves behind); every call when beta != 0 reads it.
        if (fresh_ || c.beta != T(0))
            check(cudaMemcpy(d.C, c.C, sc, cudaMemcpyHostToDevice), "copy C");
        fresh_ = false;
        for (int i = 0; i < 3; ++i) seen_[i] = seen[i], seen_bytes_[i] = bytes[i];
        check(cudaEventRecord(start_, stream_), "event");
        launch(d);
        check(cudaEventRecord(stop_, stream_), "event");
        check(cudaEventSynchronize(stop_), "gemm");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start_, stop_), "event time");
        result_host_ = c.C, result_bytes_ = sc;
        return double(ms) * 1e-3;
    }
    void *buf_[3] = {nullptr, nullptr, nullptr};
    size_t size_[3] = {0, 0, 0};
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
    bool fresh_ = true;
    const void *seen_[3] = {nullptr, nullptr, nullptr};
    size_t seen_bytes_[3] = {0, 0, 0};
    void *result_host_ = nullptr; // where fetch_result() copies the last call's C
    size_t result_bytes_ = 0;
};

cublasOperation_t op(tsr_op o) { return o == TSR_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T; }

class CublasGemm final : public DeviceSide {
public:
    CublasGemm(CublasMath math, bool host_operands) : math_(math), host_(host_operands) {
        if (cublasCreate(&h_) != CUBLAS_STATUS_SUCCESS)
            throw std::runtime_error("cublasCreate failed");
        cublasSetStream(h_, stream_);
        // FP32: no TF32, an FP32 product against FP32. TF32: SGEMM on the tensor cores with
        // inputs rounded to TF32, the anchor of TESSERA_CUDA_MATH=tf32 (DGEMM is unaffected).
        const cublasMath_t mode =
            math == CublasMath::tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
        if (cublasSetMathMode(h_, mode) != CUBLAS_STATUS_SUCCESS)
            throw std::runtime_error("cublasSetMathMode failed");
    }
    ~CublasGemm() override {
        for (void *p : host_buf_) cudaFree(p);
        cublasDestroy(h_);
    }
    std::string name() const override {
        return std::string(math_ == CublasMath::tf32 ? "cublas-tf32" : "cublas") +
               (host_ ? "+copies" : "");
    }
    // Host operands: copies in, the product and the copy out, by the host's clock.
    void gemm(const GemmCall<float> &c) override {
        host_ ? (void)end_to_end(c) : DeviceSide::gemm(c);
    }
    void gemm(const GemmCall<double> &c) override {
        host_ ? (void)end_to_end(c) : DeviceSide::gemm(c);
    }
    double timed_gemm(const GemmCall<float> &c) override {
        return host_ ? end_to_end(c) : DeviceSide::timed_gemm(c);
    }
    double timed_gemm(const GemmCall<double> &c) override {
        return host_ ? end_to_end(c) : DeviceSide::timed_gemm(c);
    }
    void new_operands() override {
        if (!host_) DeviceSide::new_operands();
    }
    void fetch_result() override {
        if (!host_) DeviceSide::fetch_result();
    }

private:
    template <class T> double end_to_end(const GemmCall<T> &call) {
        GemmCall<T> c = as_column_major(call);
        const int64_t ac = c.transa == TSR_OP_N ? c.k : c.m, bc = c.transb == TSR_OP_N ? c.n : c.k;
        const size_t bytes[3] = {size_t(c.lda) * ac * sizeof(T), size_t(c.ldb) * bc * sizeof(T),
                                 size_t(c.ldc) * c.n * sizeof(T)};
        for (int i = 0; i < 3; ++i) // grown outside the timed part (the warm-up does it)
            if (bytes[i] > host_size_[i]) {
                cudaFree(host_buf_[i]);
                host_buf_[i] = nullptr, host_size_[i] = 0;
                check(cudaMalloc(&host_buf_[i], bytes[i]), "cudaMalloc");
                host_size_[i] = bytes[i];
            }
        GemmCall<T> d = c;
        d.A = static_cast<const T *>(host_buf_[0]), d.B = static_cast<const T *>(host_buf_[1]);
        d.C = static_cast<T *>(host_buf_[2]);
        const double start = now_seconds();
        check(cudaMemcpyAsync(host_buf_[0], c.A, bytes[0], cudaMemcpyHostToDevice, stream_),
              "copy A");
        check(cudaMemcpyAsync(host_buf_[1], c.B, bytes[1], cudaMemcpyHostToDevice, stream_),
              "copy B");
        if (c.beta != T(0))
            check(cudaMemcpyAsync(host_buf_[2], c.C, bytes[2], cudaMemcpyHostToDevice, stream_),
                  "copy C");
        launch(d);
        check(cudaMemcpyAsync(c.C, host_buf_[2], bytes[2], cudaMemcpyDeviceToHost, stream_),
              "copy C back");
        check(cudaStreamSynchronize(stream_), "gemm");
        return now_seconds() - start;
    }

    void launch(const GemmCall<float> &c) override {
        if (cublasSgemm(h_, op(c.transa), op(c.transb), int(c.m), int(c.n), int(c.k), &c.alpha, c.A,
                        int(c.lda), c.B, int(c.ldb), &c.beta, c.C,
                        int(c.ldc)) != CUBLAS_STATUS_SUCCESS)
            throw std::runtime_error("cublasSgemm failed");
    }
    void launch(const GemmCall<double> &c) override {
        if (cublasDgemm(h_, op(c.transa), op(c.transb), int(c.m), int(c.n), int(c.k), &c.alpha, c.A,
                        int(c.lda), c.B, int(c.ldb), &c.beta, c.C,
                        int(c.ldc)) != CUBLAS_STATUS_SUCCESS)
            throw std::runtime_error("cublasDgemm failed");
    }
    cublasHandle_t h_ = nullptr;
    CublasMath math_;
    bool host_;
    void *host_buf_[3] = {nullptr, nullptr, nullptr}; // device copies for host operands
    size_t host_size_[3] = {0, 0, 0};
};

class TesseraCudaGemm final : public DeviceSide {
public:
    TesseraCudaGemm() {
        if (tsr_create(&h_) != TSR_SUCCESS ||
            tsr_set_backend(h_, TSR_BACKEND_CUDA) != TSR_SUCCESS ||
            tsr_set_cuda_stream(h_, stream_) != TSR_SUCCESS)
            throw std::runtime_error(tsr_last_error());
    }
    ~TesseraCudaGemm() override { tsr_destroy(h_); }
    std::string name() const override { return "tessera/cuda"; }

private:
    void launch(const GemmCall<float> &c) override {
        if (tsr_sgemm(h_, TSR_COL_MAJOR, c.transa, c.transb, c.m, c.n, c.k, c.alpha, c.A, c.lda,
                      c.B, c.ldb, c.beta, c.C, c.ldc) != TSR_SUCCESS)
            throw std::runtime_error(tsr_last_error());
    }
    void launch(const GemmCall<double> &c) override {
        if (tsr_dgemm(h_, TSR_COL_MAJOR, c.transa, c.transb, c.m, c.n, c.k, c.alpha, c.A, c.lda,
                      c.B, c.ldb, c.beta, c.C, c.ldc) != TSR_SUCCESS)
            throw std::runtime_error(tsr_last_error());
    }
    tsr_handle h_ = nullptr;
};

bool have_device(std::string *why_not) {
    int n = 0;
    if (cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess || n == 0) {
        *why_not = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
        return false;
    }
    return true;
}

} // namespace

std::unique_ptr<GemmProvider> make_cublas_gemm(CublasMath math, std::string *why_not,
                                               bool host_operands) {
    if (!have_device(why_not)) return nullptr;
    try {
        return std::make_unique<CublasGemm>(math, host_operands);
    } catch (const std::exception &e) {
        *why_not = e.what();
        return nullptr;
    }
}

std::unique_ptr<GemmProvider> make_tessera_cuda_gemm(std::string *why_not) {
    if (!have_device(why_not)) return nullptr;
    try {
        return std::make_unique<TesseraCudaGemm>();
    } catch (const std::exception &e) {
        *why_not = e.what();
        return nullptr;
    }
}

#else

std::unique_ptr<GemmProvider> make_cublas_gemm(CublasMath, std::string *why_not, bool) {
    *why_not = "tessera-bench was built without CUDA";
    return nullptr;
}
std::unique_ptr<GemmProvider> make_tessera_cuda_gemm(std::string *why_not) {
    *why_not = "tessera-bench was built without CUDA";
    return nullptr;
}

#endif

} // namespace tessera::bench
