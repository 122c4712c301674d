// The CPU backend's table: the packed, blocked, OpenMP-threaded gemm of gemm_driver.cpp.
#include "core/backend.hpp"

namespace tessera::cpu {

template <typename T> tsr_status gemm(const core::ExecContext *ctx, const core::GemmArgs<T> *g);

const core::BackendTable &backend() {
    static const core::BackendTable table{core::kBackendAbiVersion, "cpu", nullptr, nullptr,
                                          nullptr, gemm<float>, gemm<double>, nullptr};
    return table;
}

} // namespace tessera::cpu
