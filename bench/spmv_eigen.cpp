// Eigen's sparse × dense vector product over the bench's CSR arrays (Eigen::Map, no copy).
// Eigen runs the row-major product in an OpenMP loop when it has more than one thread and
// more than 20000 nonzeros; its transposed product is a scatter on one thread.
#include "spmv_eigen.hpp"

#ifdef TESSERA_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#include <Eigen/SparseCore>
#endif

namespace tessera::bench {

#ifdef TESSERA_BENCH_HAVE_EIGEN

namespace {

template <typename V, typename I>
std::function<void()> product(const CsrView &a, const void *x, void *y, bool trans) {
    using Sparse = Eigen::SparseMatrix<V, Eigen::RowMajor, I>;
    using Vector = Eigen::Matrix<V, Eigen::Dynamic, 1>;
    Eigen::Map<const Sparse> A(a.rows, a.cols, a.nnz, static_cast<const I *>(a.row_ptr),
                               static_cast<const I *>(a.col), static_cast<const V *>(a.val));
    const int64_t in = trans ? a.rows : a.cols, out = trans ? a.cols : a.rows;
    Eigen::Map<const Vector> xv(static_cast<const V *>(x), in);
    Eigen::Map<Vector> yv(static_cast<V *>(y), out);
    if (trans) return [A, xv, yv]() mutable { yv.noalias() = A.transpose() * xv; };
    return [A, xv, yv]() mutable { yv.noalias() = A * xv; };
}

} // namespace

std::function<void()> eigen_product(const CsrView &a, const void *x, void *y, bool trans,
                                    int threads, std::string *) {
    Eigen::setNbThreads(threads);
    if (a.f32)
        return a.i64 ? product<float, int64_t>(a, x, y, trans)
                     : product<float, int32_t>(a, x, y, trans);
    return a.i64 ? product<double, int64_t>(a, x, y, trans)
                 : product<double, int32_t>(a, x, y, trans);
}

std::string eigen_version() {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
}

#else

std::function<void()> eigen_product(const CsrView &, const void *, void *, bool, int,
                                    std::string *why) {
    if (why) *why = "tessera-bench was built without Eigen (install libeigen3-dev and reconfigure)";
    return nullptr;
}

std::string eigen_version() { return "not built in"; }

#endif

} // namespace tessera::bench
