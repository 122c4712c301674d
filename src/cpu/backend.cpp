// The CPU backend's table: the packed, blocked, OpenMP-threaded gemm of gemm_driver.cpp and
// the sparse products of spmv_*.cpp.
#include "cpu/backend.hpp"

namespace tessera::cpu {

template <typename T> tsr_status gemm(const core::ExecContext *ctx, const core::GemmArgs<T> *g);

// The sparse products (spmv_backend.cpp).
tsr_status sparse_prepare(const core::ExecContext *ctx, const core::SparseView *A, void **prepared);
template <typename T> tsr_status spmv(const core::ExecContext *ctx, const core::SpmvArgs<T> *a);
template <typename T> tsr_status spmm(const core::ExecContext *ctx, const core::SpmmArgs<T> *a);
void sparse_release(void *prepared);
void sparse_plan(const core::SparsePlanRequest *q, core::SparsePlanAnswer *a);
const char *sparse_kernel_name(const core::SparseView *A);

const core::BackendTable &backend() {
    static const core::BackendTable table{core::kBackendAbiVersion,
                                          "cpu",
                                          nullptr,
                                          nullptr,
                                          nullptr,
                                          gemm<float>,
                                          gemm<double>,
                                          nullptr,
                                          sparse_prepare,
                                          spmv<float>,
                                          spmv<double>,
                                          sparse_release,
                                          nullptr,
                                          0,
                                          sparse_plan,
                                          sparse_kernel_name,
                                          nullptr,
                                          nullptr,
                                          spmm<float>,
                                          spmm<double>};
    return table;
}

} // namespace tessera::cpu
