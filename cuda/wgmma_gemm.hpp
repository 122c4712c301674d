// The opt-in TF32 SGEMM paths on Hopper's warpgroup MMA (wgmma, sm_90a): op(A) and op(B) are
// first packed into TF32 panels (k-contiguous, zero-padded to whole tiles, in the swizzled order
// the tensor cores read), then one kernel multiplies the panels. Built only where the plugin
// targets sm_90; run only on devices of compute capability 9.0.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tessera::cuda {

template <typename T> struct GemmParams;

// The block tile: 128 rows of C by wgmma_bn(terms) columns (256 for TF32, 128 for 3xTF32), k
// in steps of 32.
constexpr int kWgmmaBM = 128, kWgmmaBK = 32;
int wgmma_bn(int terms);

// Whether this plugin holds the sm_90a kernels (false: built without an sm_90 target).
bool wgmma_built();

// Whether an m×n×k product fits these kernels' grids (at most 65535 tiles of rows, of columns).
bool wgmma_fits(int64_t m, int64_t n, int64_t k, int terms);

// Bytes of device memory the panels of an m×n×k product take: the TF32 high parts of op(A) and
// op(B), and for 3xTF32 (terms == 3) their low parts too.
size_t wgmma_panel_bytes(int64_t m, int64_t n, int64_t k, int terms);

// Packs op(A) and op(B) (p.A, p.lda, p.B, p.ldb with the transposes ta, tb; p.m, p.n, p.k) into
// `panels` (wgmma_panel_bytes of them), on `stream`.
cudaError_t launch_wgmma_pack(cudaStream_t stream, bool ta, bool tb, const GemmParams<float> &p,
                              int terms, void *panels);

// C = alpha·op(A)·op(B) + beta·C from the packed panels (p.A and p.B are not read), over p.splits
// slices of k when p.splits > 1 (each slice's partial product to its slab of p.C, as the other
// kernels do). terms: 1 for TF32, 3 for 3xTF32.
cudaError_t launch_wgmma_tf32(cudaStream_t stream, const GemmParams<float> &p, int terms,
                              const void *panels);

} // namespace tessera::cuda
