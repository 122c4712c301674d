// Sparse products on the CUDA backend: device x and y are used in place, asynchronously on the
// handle's stream; host ones go through the state's pinned ring and grow-only device buffers
// (no allocation per call), and the call waits for the result. The matrix is on the device
// already (sparse_prepare); Aᵀ's CSR is copied there on the first transposed product.
#include "spmv.hpp"

#include <mutex>
#include <variant>

#include "error.hpp"
#include "sparse_device.hpp"
#include "spmv_launch.hpp"
#include "staging.hpp"
#include "state.hpp"

namespace tessera::cuda {

namespace {

template <typename T, typename I>
cudaError_t launch(const DeviceMatrix &m, const DeviceCsr *at, bool trans, const Vectors<T> &v,
                   T *carries, unsigned *ticket, cudaStream_t stream) {
    if (at) return csr_product<T, I>(*at, v, carries, ticket, stream);
    switch (m.format) {
    case TSR_FORMAT_COO: return coo_product<T, I>(m.coo, v, carries, stream);
    case TSR_FORMAT_ELL: return ell_product<T, I>(m.ell, v, stream);
    case TSR_FORMAT_DIA:
        return dia_product<T>(m.dia, trans, v, stream); // Aᵀ from A's own diagonals
    case TSR_FORMAT_HYB: {
        if (cudaError_t e = ell_product<T, I>(m.ell, v, stream); e != cudaSuccess) return e;
        return coo_product<T, I>(m.hyb_tail, Vectors<T>{v.alpha, v.x, T(1), v.y}, carries, stream);
    }
    default: return csr_product<T, I>(m.csr, v, carries, ticket, stream);
    }
}

// Blocks of carries the product needs (2 values each).
int64_t carries_for(const DeviceMatrix &m, const DeviceCsr *at) {
    if (at) return carry_blocks(*at);
    switch (m.format) {
    case TSR_FORMAT_COO: return m.coo.blocks;
    case TSR_FORMAT_HYB: return m.hyb_tail.blocks;
    case TSR_FORMAT_CSR: return carry_blocks(m.csr);
    default: return 0;
    }
}

template <typename T> void scale_on_host(int64_t n, T beta, T *y) {
    if (beta == T(0))
        for (int64_t i = 0; i < n; ++i) y[i] = T(0);
    else
        for (int64_t i = 0; i < n; ++i) y[i] *= beta;
}

template <typename T> tsr_status run(const core::ExecContext *ctx, const core::SpmvArgs<T> &a) {
    State *s = state_of(ctx);
    if (!s) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    auto *m = static_cast<DeviceMatrix *>(a.prepared);
    if (!m || m->value_bytes != int(sizeof(T)))
        return fail(TSR_ERR_INTERNAL, "the sparse matrix has no device copy of this precision");
    if (m->device != s->dev.ordinal)
        return fail(TSR_ERR_NOT_SUPPORTED,
                    "the sparse matrix was copied to CUDA device %d; this handle uses device %d",
                    m->device, s->dev.ordinal);
    DeviceScope scope(s->dev.ordinal);
    if (scope.status() != cudaSuccess)
        return fail_cuda(scope.status(), "cannot select the CUDA device");

    const int64_t out = a.trans ? m->cols : m->rows, in = a.trans ? m->rows : m->cols;
    const bool product = a.alpha != T(0);       // else y = beta·y, A and x not read
    const bool reads_x = product && m->nnz > 0; // x may be NULL when nothing reads it
    const Memory ky = classify(a.y);
    const Memory kx = reads_x ? classify(a.x) : Memory::device;
    if (!product && ky != Memory::device) {
        scale_on_host(out, a.beta, a.y);
        return TSR_SUCCESS;
    }

    const DeviceCsr *at = nullptr; // the CSR of Aᵀ; DIA reads Aᵀ from its own diagonals
    if (product && a.trans && m->format != TSR_FORMAT_DIA)
        if (tsr_status st = transposed(*s, *a.A, ctx ? ctx->num_threads : 1, *m, &at);
            st != TSR_SUCCESS)
            return st;

    std::lock_guard<std::mutex> lock(s->staging);
    const T *dx = a.x;
    T *dy = a.y;
    const int64_t elem = int64_t(sizeof(T));
    if (kx != Memory::device) {
        if (tsr_status st = s->vector[0].reserve(size_t(in * elem)); st != TSR_SUCCESS) return st;
        if (tsr_status st = upload_bytes(*s, s->vector[0].ptr, a.x, in * elem, kx);
            st != TSR_SUCCESS)
            return st;
        dx = static_cast<const T *>(s->vector[0].ptr);
    }
    if (ky != Memory::device) {
        if (tsr_status st = s->vector[1].reserve(size_t(out * elem)); st != TSR_SUCCESS) return st;
        dy = static_cast<T *>(s->vector[1].ptr);
        if (a.beta != T(0))
            if (tsr_status st = upload_bytes(*s, dy, a.y, out * elem, ky); st != TSR_SUCCESS)
                return st;
    }

    cudaError_t e = cudaSuccess;
    if (!product) {
        e = scale_vector<T>(out, a.beta, dy, s->stream);
    } else {
        const int64_t blocks = carries_for(*m, at);
        T *carries = nullptr;
        unsigned *ticket = nullptr;
        if (blocks > 0) {
            if (!s->carries_free)
                if (e = cudaEventCreateWithFlags(&s->carries_free, cudaEventDisableTiming);
                    e != cudaSuccess) {
                    s->carries_free = nullptr;
                    return fail_cuda(e, "cannot create an event");
                }
            if (tsr_status st = s->carries.reserve(size_t(2 * blocks * elem)); st != TSR_SUCCESS)
                return st;
            carries = static_cast<T *>(s->carries.ptr);
            if (!s->ticket.ptr) { // made once, zero; every product leaves it zero
                if (tsr_status st = s->ticket.reserve(sizeof(unsigned)); st != TSR_SUCCESS)
                    return st;
                e = cudaMemsetAsync(s->ticket.ptr, 0, sizeof(unsigned), s->stream);
                if (e != cudaSuccess) {
                    s->ticket.release();
                    return fail_cuda(e, "cannot clear the merge path's counter");
                }
            }
            ticket = static_cast<unsigned *>(s->ticket.ptr);
            e = cudaStreamWaitEvent(s->stream, s->carries_free, 0);
        }
        const Vectors<T> v{a.alpha, dx, a.beta, dy};
        if (e == cudaSuccess)
            e = m->index_bytes == 4
                    ? launch<T, int32_t>(*m, at, a.trans, v, carries, ticket, s->stream)
                    : launch<T, int64_t>(*m, at, a.trans, v, carries, ticket, s->stream);
        if (e == cudaSuccess && blocks > 0) e = cudaEventRecord(s->carries_free, s->stream);
    }
    if (e != cudaSuccess) return fail_cuda(e, "sparse product kernel launch");

    if (ky != Memory::device) return download_bytes(*s, a.y, dy, out * elem, ky); // waits
    // x was read from the pinned ring or the user's pinned memory: done before returning.
    if (kx != Memory::device)
        if (e = cudaStreamSynchronize(s->stream); e != cudaSuccess)
            return fail_cuda(e, "sparse product");
    return TSR_SUCCESS;
}

} // namespace

tsr_status sparse_prepare(const core::ExecContext *ctx, const core::SparseView *A,
                          void **prepared) {
    *prepared = nullptr;
    State *s = state_of(ctx);
    if (!s) return fail(TSR_ERR_BACKEND_UNAVAILABLE, "the CUDA backend has no device state");
    DeviceScope scope(s->dev.ordinal);
    if (scope.status() != cudaSuccess)
        return fail_cuda(scope.status(), "cannot select the CUDA device");
    DeviceMatrix *m = nullptr;
    if (tsr_status st = prepare_matrix(*s, *A, ctx ? ctx->num_threads : 1, &m); st != TSR_SUCCESS)
        return st;
    *prepared = m;
    return TSR_SUCCESS;
}

tsr_status spmv_f32(const core::ExecContext *ctx, const core::SpmvArgs<float> *args) {
    return run(ctx, *args);
}
tsr_status spmv_f64(const core::ExecContext *ctx, const core::SpmvArgs<double> *args) {
    return run(ctx, *args);
}

void sparse_release(void *prepared) { release_matrix(static_cast<DeviceMatrix *>(prepared)); }

} // namespace tessera::cuda
