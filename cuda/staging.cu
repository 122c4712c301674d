// Host operands through pinned buffers: pageable memory is copied in column chunks into the
// two pinned halves in turn (by several threads, host_copy.cpp), each half's transfer
// overlapping the host copy of the next chunk.
#include "staging.hpp"

#include <algorithm>

#include "error.hpp"
#include "host_copy.hpp"

namespace tessera::cuda {

namespace {
constexpr size_t kChunkBytes = size_t(8) << 20; // of each pinned half

int64_t chunk_cols(int64_t rows, int64_t elem) {
    return std::max<int64_t>(1, int64_t(kChunkBytes) / (rows * elem));
}
} // namespace

Memory classify(const void *ptr, int *device) {
    if (device) *device = -1;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return Memory::pageable_host;
    }
    if (device && attr.type == cudaMemoryTypeDevice) *device = attr.device;
    switch (attr.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged: return Memory::device;
    case cudaMemoryTypeHost: return Memory::pinned_host;
    default: return Memory::pageable_host;
    }
}

tsr_status upload(State &s, void *dst, const void *src, int64_t rows, int64_t cols, int64_t ld,
                  int64_t elem, Memory kind, cudaStream_t stream, int64_t dst_ld) {
    if (!stream) stream = s.stream;
    const size_t pitch = size_t(rows * elem), dpitch = size_t((dst_ld > 0 ? dst_ld : rows) * elem);
    if (kind != Memory::pageable_host) { // pinned or device: one strided DMA copy
        cudaError_t e = cudaMemcpy2DAsync(dst, dpitch, src, size_t(ld * elem), pitch, size_t(cols),
                                          cudaMemcpyDefault, stream);
        return e == cudaSuccess ? TSR_SUCCESS
                                : fail_cuda(e, "cannot copy an operand to the device");
    }
    const int64_t per = chunk_cols(rows, elem);
    if (tsr_status st = s.pinned.reserve(size_t(per) * pitch); st != TSR_SUCCESS) return st;
    int turn = 0;
    for (int64_t c0 = 0; c0 < cols; c0 += per, turn ^= 1) {
        const int64_t nc = std::min(per, cols - c0);
        // The half's previous transfer must have left it before the host overwrites it.
        if (cudaError_t e = cudaEventSynchronize(s.pinned.done[turn]); e != cudaSuccess)
            return fail_cuda(e, "staging wait");
        auto *stage = static_cast<unsigned char *>(s.pinned.half[turn]);
        const auto *from = static_cast<const unsigned char *>(src);
        copy_columns(stage, pitch, from + size_t(c0 * ld * elem), size_t(ld * elem), pitch, nc);
        cudaError_t e =
            cudaMemcpy2DAsync(static_cast<unsigned char *>(dst) + size_t(c0) * dpitch, dpitch,
                              stage, pitch, pitch, size_t(nc), cudaMemcpyHostToDevice, stream);
        if (e == cudaSuccess) e = cudaEventRecord(s.pinned.done[turn], stream);
        if (e != cudaSuccess) return fail_cuda(e, "cannot copy an operand to the device");
    }
    return TSR_SUCCESS;
}

tsr_status download(State &s, void *dst, const void *src, int64_t rows, int64_t cols, int64_t ld,
                    int64_t elem, Memory kind, cudaStream_t stream, const double *beta) {
    if (!stream) stream = s.stream;
    const size_t pitch = size_t(rows * elem);
    if (beta && (kind != Memory::pageable_host || (elem != 4 && elem != 8)))
        return fail(TSR_ERR_INTERNAL, "download: beta applies to pageable float or double only");
    if (kind != Memory::pageable_host) {
        cudaError_t e = cudaMemcpy2DAsync(dst, size_t(ld * elem), src, pitch, pitch, size_t(cols),
                                          cudaMemcpyDefault, stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
        return e == cudaSuccess ? TSR_SUCCESS : fail_cuda(e, "cannot copy C back from the device");
    }
    const int64_t per = chunk_cols(rows, elem);
    if (tsr_status st = s.pinned.reserve(size_t(per) * pitch); st != TSR_SUCCESS) return st;
    const int64_t chunks = (cols + per - 1) / per;
    auto issue = [&](int64_t c) -> cudaError_t {
        const int64_t c0 = c * per, nc = std::min(per, cols - c0);
        cudaError_t e = cudaMemcpyAsync(
            s.pinned.half[c & 1], static_cast<const unsigned char *>(src) + size_t(c0) * pitch,
            size_t(nc) * pitch, cudaMemcpyDeviceToHost, stream);
        return e == cudaSuccess ? cudaEventRecord(s.pinned.done[c & 1], stream) : e;
    };
    for (int64_t c = 0; c < std::min<int64_t>(2, chunks); ++c)
        if (cudaError_t e = issue(c); e != cudaSuccess) return fail_cuda(e, "cannot copy C back");
    for (int64_t c = 0; c < chunks; ++c) {
        if (cudaError_t e = cudaEventSynchronize(s.pinned.done[c & 1]); e != cudaSuccess)
            return fail_cuda(e, "cannot copy C back from the device");
        const int64_t c0 = c * per, nc = std::min(per, cols - c0);
        const auto *stage = static_cast<const unsigned char *>(s.pinned.half[c & 1]);
        auto *to = static_cast<unsigned char *>(dst) + size_t(c0 * ld * elem);
        if (!beta) copy_columns(to, size_t(ld * elem), stage, pitch, pitch, nc);
        else if (elem == 4)
            add_columns(reinterpret_cast<float *>(to), ld, reinterpret_cast<const float *>(stage),
                        rows, rows, nc, float(*beta));
        else
            add_columns(reinterpret_cast<double *>(to), ld, reinterpret_cast<const double *>(stage),
                        rows, rows, nc, *beta);
        if (c + 2 < chunks)
            if (cudaError_t e = issue(c + 2); e != cudaSuccess)
                return fail_cuda(e, "cannot copy C back");
    }
    return TSR_SUCCESS;
}

// A vector as a matrix of 1 MiB columns (so that upload and download move it in 8 MiB chunks
// through the pinned halves) plus the bytes left over.
namespace {
constexpr int64_t kVectorColumn = int64_t(1) << 20;
}

tsr_status upload_bytes(State &s, void *dst, const void *src, int64_t bytes, Memory kind) {
    const int64_t whole = bytes / kVectorColumn, rest = bytes % kVectorColumn,
                  done = whole * kVectorColumn;
    if (whole > 0)
        if (tsr_status st = upload(s, dst, src, kVectorColumn, whole, kVectorColumn, 1, kind);
            st != TSR_SUCCESS)
            return st;
    if (rest == 0) return TSR_SUCCESS;
    return upload(s, static_cast<unsigned char *>(dst) + done,
                  static_cast<const unsigned char *>(src) + done, rest, 1, rest, 1, kind);
}

tsr_status download_bytes(State &s, void *dst, const void *src, int64_t bytes, Memory kind) {
    const int64_t whole = bytes / kVectorColumn, rest = bytes % kVectorColumn,
                  done = whole * kVectorColumn;
    if (whole > 0)
        if (tsr_status st = download(s, dst, src, kVectorColumn, whole, kVectorColumn, 1, kind);
            st != TSR_SUCCESS)
            return st;
    if (rest == 0) return TSR_SUCCESS;
    return download(s, static_cast<unsigned char *>(dst) + done,
                    static_cast<const unsigned char *>(src) + done, rest, 1, rest, 1, kind);
}

} // namespace tessera::cuda
