// The CUDA backend's sparse entries: the device copy of a matrix made once (sparse_prepare)
// and freed (sparse_release), and the products with x and y in host or device memory.
#pragma once

#include "core/backend.hpp"

namespace tessera::cuda {

tsr_status sparse_prepare(const core::ExecContext *ctx, const core::SparseView *A, void **prepared);
tsr_status spmv_f32(const core::ExecContext *ctx, const core::SpmvArgs<float> *args);
tsr_status spmv_f64(const core::ExecContext *ctx, const core::SpmvArgs<double> *args);
void sparse_release(void *prepared);
// Sparse × dense (spmm.cu), on the device CSR of A or Aᵀ.
tsr_status spmm_f32(const core::ExecContext *ctx, const core::SpmmArgs<float> *args);
tsr_status spmm_f64(const core::ExecContext *ctx, const core::SpmmArgs<double> *args);

} // namespace tessera::cuda
