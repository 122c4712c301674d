// Launchers of the sparse kernels, one per format, on device arrays and device vectors:
// every launch is checked and returns the CUDA error. Instantiated for float and double
// values with 32- and 64-bit indices.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sparse_device.hpp"

namespace tessera::cuda {

// y = alpha·A·x + beta·y with device x and y (beta == 0: y not read).
template <typename V> struct Vectors {
    V alpha;
    const V *x;
    V beta;
    V *y;
};

// Carries of the balanced kernels: 2·blocks values (tails, then heads), from the state's pool.
// `ticket`: the state's counter (0 between products) that lets a small merge path finish in
// one launch (merge_one_launch); nullptr for two launches.
template <typename V, typename I>
cudaError_t csr_product(const DeviceCsr &a, const Vectors<V> &v, V *carries, unsigned *ticket,
                        cudaStream_t stream);
// gpu_tiles (spmv_tiles.cu), from csr_product.
template <typename V, typename I>
cudaError_t tiles_product(const DeviceCsr &a, const Vectors<V> &v, cudaStream_t stream);
// Lets the tiles kernel take `bytes` of dynamic shared memory on the current device (a no-op
// up to 48 KiB; an error beyond the device's limit).
template <typename V, typename I> cudaError_t tiles_allow_shared(size_t bytes);
// With v.beta == 1 (HYB's tail) rows without entries are left as they are; otherwise they
// are set to beta·y from the list of empty rows.
template <typename V, typename I>
cudaError_t coo_product(const DeviceCoo &a, const Vectors<V> &v, V *carries, cudaStream_t stream);
template <typename V, typename I>
cudaError_t ell_product(const DeviceEll &a, const Vectors<V> &v, cudaStream_t stream);
// trans: y = alpha·Aᵀ·x + beta·y, read along the same diagonals.
template <typename V>
cudaError_t dia_product(const DeviceDia &a, bool trans, const Vectors<V> &v, cudaStream_t stream);
// y = beta·y over n entries (alpha == 0: neither A nor x is read); beta == 0 zeroes y without
// reading it.
template <typename V> cudaError_t scale_vector(int64_t n, V beta, V *y, cudaStream_t stream);

// Carries (in blocks of 2 values) the product needs: the blocks of its balanced kernel, or 0.
inline int64_t carry_blocks(const DeviceCsr &a) {
    return a.kernel == CsrKernel::merge ? a.blocks : 0;
}

// Whether the merge path of `a` runs in one launch (its last block adds the crossing rows).
inline bool merge_one_launch(const DeviceCsr &a) {
    return a.kernel == CsrKernel::merge && merge_in_one_launch(a.crossings, a.span);
}

} // namespace tessera::cuda
