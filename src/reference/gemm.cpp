// The reference backend: gemm as the definition writes it, one dot product per element of C.
// Slow and obviously right; the oracle of last resort. Single-threaded on purpose. Sums are
// carried in a wider type (double for float, long double for double), as an oracle's must be.
#include <type_traits>

#include "reference/backend.hpp"

namespace tessera::reference {

namespace {

template <typename T> tsr_status gemm(const core::ExecContext *, const core::GemmArgs<T> *p) {
    using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
    const core::GemmArgs<T> &g = *p;
    auto a = [&](int64_t i, int64_t l) {
        return g.trans_a ? g.A[l + i * g.lda] : g.A[i + l * g.lda];
    };
    auto b = [&](int64_t l, int64_t j) {
        return g.trans_b ? g.B[j + l * g.ldb] : g.B[l + j * g.ldb];
    };
    const bool product = g.k > 0 && g.alpha != T(0); // otherwise A and B are not read
    for (int64_t j = 0; j < g.n; ++j) {
        for (int64_t i = 0; i < g.m; ++i) {
            Wide sum = 0;
            if (product)
                for (int64_t l = 0; l < g.k; ++l) sum += Wide(a(i, l)) * Wide(b(l, j));
            T &c = g.C[i + j * g.ldc];
            T scaled = product ? T(Wide(g.alpha) * sum) : T(0);
            c = g.beta == T(0) ? scaled : scaled + g.beta * c; // beta == 0: C is not read
        }
    }
    return TSR_SUCCESS;
}

} // namespace

// The sparse products (spmv.cpp); they need no prepared data.
template <typename T> tsr_status spmv(const core::ExecContext *ctx, const core::SpmvArgs<T> *a);
template <typename T> tsr_status spmm(const core::ExecContext *ctx, const core::SpmmArgs<T> *a);

const core::BackendTable &backend() {
    static const core::BackendTable table{core::kBackendAbiVersion,
                                          "reference",
                                          nullptr,
                                          nullptr,
                                          nullptr,
                                          gemm<float>,
                                          gemm<double>,
                                          nullptr,
                                          nullptr,
                                          spmv<float>,
                                          spmv<double>,
                                          nullptr,
                                          nullptr,
                                          0,
                                          nullptr,
                                          nullptr,
                                          nullptr,
                                          nullptr,
                                          spmm<float>,
                                          spmm<double>};
    return table;
}

} // namespace tessera::reference
