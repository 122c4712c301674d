// The kernel instantiations (two tile shapes for each precision, every transpose) and the
// choice among them: large tiles once the product has a tile for every multiprocessor.
#include "kernels.hpp"

#include <mutex>

#include "dmma_gemm.cuh"
#include "simt_gemm.cuh"

namespace tessera::cuda {

namespace {

// Launches `kernel` on ceil(m/BM)·ceil(n/BN) blocks with `smem` bytes of dynamic shared memory.
template <typename T, auto kernel>
cudaError_t launch(int bm, int bn, int threads, int smem, cudaStream_t stream, GemmParams<T> p) {
    // Above 48 KB a kernel must opt in; once per kernel instantiation (the attribute sticks to it).
    static std::once_flag once;
    static cudaError_t attr = cudaSuccess;
    std::call_once(once, [&] {
        attr = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    });
    if (attr != cudaSuccess) return attr;
    p.tiles_m = (p.m + bm - 1) / bm;
    p.tiles_n = (p.n + bn - 1) / bn;
    const int64_t blocks = p.tiles_m * p.tiles_n;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    kernel<<<unsigned(blocks), threads, smem, stream>>>(p);
    return cudaGetLastError();
}

template <typename T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int GM, int GN, int STAGES,
          int MIN_BLOCKS>
cudaError_t simt(cudaStream_t stream, bool ta, bool tb, const GemmParams<T> &p) {
    constexpr int threads = WARPS_M * WARPS_N * 32;
    constexpr int pad = 16 / int(sizeof(T));
    constexpr int smem = STAGES * BK * (BM + pad + BN + pad) * int(sizeof(T));
#define TSR_SIMT(TA, TB) simt_gemm_kernel<T, BM, BN, BK, WARPS_M, WARPS_N, GM, GN, STAGES, MIN_BLOCKS, TA, TB>
    if (!ta && !tb) return launch<T, TSR_SIMT(false, false)>(BM, BN, threads, smem, stream, p);
    if (!ta && tb) return launch<T, TSR_SIMT(false, true)>(BM, BN, threads, smem, stream, p);
    if (ta && !tb) return launch<T, TSR_SIMT(true, false)>(BM, BN, threads, smem, stream, p);
    return launch<T, TSR_SIMT(true, true)>(BM, BN, threads, smem, stream, p);
#undef TSR_SIMT
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
cudaError_t dmma(cudaStream_t stream, bool ta, bool tb, const GemmParams<double> &p) {
    constexpr int threads = WARPS_M * WARPS_N * 32;
    constexpr int smem = STAGES * BK * (BM + 4 + BN + 4) * int(sizeof(double));
#define TSR_DMMA(TA, TB) dmma_gemm_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, TA, TB>
    if (!ta && !tb) return launch<double, TSR_DMMA(false, false)>(BM, BN, threads, smem, stream, p);
    if (!ta && tb) return launch<double, TSR_DMMA(false, true)>(BM, BN, threads, smem, stream, p);
    if (ta && !tb) return launch<double, TSR_DMMA(true, false)>(BM, BN, threads, smem, stream, p);
    return launch<double, TSR_DMMA(true, true)>(BM, BN, threads, smem, stream, p);
#undef TSR_DMMA
}

bool large_tiles(const DeviceInfo &dev, int64_t m, int64_t n) {
    return ((m + 127) / 128) * ((n + 127) / 128) >= dev.sm_count;
}

template <typename T>
__global__ void scale_kernel(int64_t m, int64_t n, T beta, T *C, int64_t ldc) {
    const int64_t total = m * n;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
         e += int64_t(gridDim.x) * blockDim.x) {
        T *c = C + (e % m) + (e / m) * ldc;
        *c = beta == T(0) ? T(0) : beta * *c;
    }
}

} // namespace

cudaError_t launch_sgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb, GemmParams<float> p) {
    if (large_tiles(dev, p.m, p.n)) return simt<float, 128, 128, 16, 2, 4, 2, 2, 4, 2>(stream, ta, tb, p);
    return simt<float, 64, 64, 16, 2, 2, 1, 2, 4, 1>(stream, ta, tb, p);
}

cudaError_t launch_dgemm(const DeviceInfo &dev, cudaStream_t stream, bool ta, bool tb, GemmParams<double> p,
                         bool simt_only) {
    if (simt_only || dev.cc_major < 8) return simt<double, 64, 64, 16, 2, 2, 1, 2, 3, 1>(stream, ta, tb, p);
    if (large_tiles(dev, p.m, p.n)) return dmma<128, 128, 16, 4, 4, 3>(stream, ta, tb, p);
    return dmma<64, 64, 16, 2, 2, 3>(stream, ta, tb, p);
}

const char *gemm_kernel_name(const DeviceInfo &dev, int elem_size, int64_t m, int64_t n, bool simt_only) {
    const bool large = large_tiles(dev, m, n);
    if (elem_size == 4) return large ? "simt-f32-128x128" : "simt-f32-64x64";
    if (simt_only || dev.cc_major < 8) return "simt-f64-64x64";
    return large ? "dmma-f64-128x128" : "dmma-f64-64x64";
}

template <typename T>
cudaError_t launch_scale(cudaStream_t stream, int64_t m, int64_t n, T beta, T *C, int64_t ldc) {
    const int64_t total = m * n;
    const int64_t blocks = total / 256 + 1 < 4096 ? total / 256 + 1 : 4096;
    scale_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(m, n, beta, C, ldc);
    return cudaGetLastError();
}

template cudaError_t launch_scale<float>(cudaStream_t, int64_t, int64_t, float, float *, int64_t);
template cudaError_t launch_scale<double>(cudaStream_t, int64_t, int64_t, double, double *, int64_t);

} // namespace tessera::cuda
