// The reference backend's sparse products: y = alpha·op(A)·x + beta·y and its block form
// Y = alpha·op(A)·X + beta·Y, as plain loops over the entries of whichever format the matrix
// is stored in, summed in a wider type. One thread; an oracle, not a kernel.
#include <type_traits>
#include <variant>
#include <vector>

#include "core/backend.hpp"
#include "sparse/entries.hpp"

namespace tessera::reference {

template <typename T> tsr_status spmv(const core::ExecContext *, const core::SpmvArgs<T> *p) {
    const core::SpmvArgs<T> &a = *p;
    return std::visit(
        [&](const auto &t) {
            using V = typename std::decay_t<decltype(t)>::value_type;
            if constexpr (!std::is_same_v<V, T>) {
                return TSR_ERR_INTERNAL;
            } else {
                using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
                const int64_t out = a.trans ? t.csr.cols : t.csr.rows;
                std::vector<Wide> sum(size_t(out), Wide(0));
                if (a.alpha != T(0)) // otherwise A and x are not read
                    sparse::for_each_entry(t, [&](int64_t i, int64_t j, T v) {
                        if (a.trans) sum[size_t(j)] += Wide(v) * Wide(a.x[i]);
                        else sum[size_t(i)] += Wide(v) * Wide(a.x[j]);
                    });
                for (int64_t i = 0; i < out; ++i) {
                    T scaled = a.alpha != T(0) ? T(Wide(a.alpha) * sum[size_t(i)]) : T(0);
                    a.y[i] = a.beta == T(0) ? scaled
                                            : scaled + a.beta * a.y[i]; // beta == 0: y is not read
                }
                return TSR_SUCCESS;
            }
        },
        static_cast<const sparse::Storage *>(a.A->owner)->typed);
}

// Y = alpha·op(A)·X + beta·Y: the same loops with k columns.
template <typename T> tsr_status spmm(const core::ExecContext *, const core::SpmmArgs<T> *p) {
    const core::SpmmArgs<T> &a = *p;
    return std::visit(
        [&](const auto &t) {
            using V = typename std::decay_t<decltype(t)>::value_type;
            if constexpr (!std::is_same_v<V, T>) {
                return TSR_ERR_INTERNAL;
            } else {
                using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
                const int64_t out = a.trans ? t.csr.cols : t.csr.rows, k = a.k;
                auto x = [&](int64_t i, int64_t j) {
                    return a.row_major ? a.X[i * a.ldx + j] : a.X[i + j * a.ldx];
                };
                auto y = [&](int64_t i, int64_t j) -> T & {
                    return a.row_major ? a.Y[i * a.ldy + j] : a.Y[i + j * a.ldy];
                };
                std::vector<Wide> sum(size_t(out * k), Wide(0)); // sum[i·k + j]
                if (a.alpha != T(0))
                    sparse::for_each_entry(t, [&](int64_t i, int64_t c, T v) {
                        const int64_t to = a.trans ? c : i, from = a.trans ? i : c;
                        for (int64_t j = 0; j < k; ++j)
                            sum[size_t(to * k + j)] += Wide(v) * Wide(x(from, j));
                    });
                for (int64_t i = 0; i < out; ++i)
                    for (int64_t j = 0; j < k; ++j) {
                        T scaled =
                            a.alpha != T(0) ? T(Wide(a.alpha) * sum[size_t(i * k + j)]) : T(0);
                        y(i, j) = a.beta == T(0) ? scaled : scaled + a.beta * y(i, j);
                    }
                return TSR_SUCCESS;
            }
        },
        static_cast<const sparse::Storage *>(a.A->owner)->typed);
}

template tsr_status spmv<float>(const core::ExecContext *, const core::SpmvArgs<float> *);
template tsr_status spmv<double>(const core::ExecContext *, const core::SpmvArgs<double> *);
template tsr_status spmm<float>(const core::ExecContext *, const core::SpmmArgs<float> *);
template tsr_status spmm<double>(const core::ExecContext *, const core::SpmmArgs<double> *);

} // namespace tessera::reference
