// The reference backend's sparse product: y = alpha·op(A)·x + beta·y as plain loops over the
// entries of whichever format the matrix is stored in, summed in a wider type. One thread; an
// oracle, not a kernel.
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

template tsr_status spmv<float>(const core::ExecContext *, const core::SpmvArgs<float> *);
template tsr_status spmv<double>(const core::ExecContext *, const core::SpmvArgs<double> *);

} // namespace tessera::reference
