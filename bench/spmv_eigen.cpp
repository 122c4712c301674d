// Eigen's sparse × dense vector and block products over the bench's CSR arrays (Eigen::Map,
// no copy).
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

template <typename V, typename I, int Order>
std::function<void()> block_product(const CsrView &a, const void *X, void *Y, int64_t k) {
    using Sparse = Eigen::SparseMatrix<V, Eigen::RowMajor, I>;
    using Dense = Eigen::Matrix<V, Eigen::Dynamic, Eigen::Dynamic, Order>;
    Eigen::Map<const Sparse> A(a.rows, a.cols, a.nnz, static_cast<const I *>(a.row_ptr),
                               static_cast<const I *>(a.col), static_cast<const V *>(a.val));
    Eigen::Map<const Dense> x(static_cast<const V *>(X), a.cols, k);
    Eigen::Map<Dense> y(static_cast<V *>(Y), a.rows, k);
    return [A, x, y]() mutable { y.noalias() = A * x; };
}

template <typename V, typename I>
std::function<void()> block_product(const CsrView &a, const void *X, void *Y, int64_t k,
                                    bool row_major) {
    return row_major ? block_product<V, I, Eigen::RowMajor>(a, X, Y, k)
                     : block_product<V, I, Eigen::ColMajor>(a, X, Y, k);
}

} // namespace

std::function<void()> eigen_block_product(const CsrView &a, const void *X, void *Y, int64_t k,
                                          bool row_major, int threads, std::string *) {
    Eigen::setNbThreads(threads);
    if (a.f32)
        return a.i64 ? block_product<float, int64_t>(a, X, Y, k, row_major)
                     : block_product<float, int32_t>(a, X, Y, k, row_major);
    return a.i64 ? block_product<double, int64_t>(a, X, Y, k, row_major)
                 : block_product<double, int32_t>(a, X, Y, k, row_major);
}

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
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) + " (" +
           Eigen::SimdInstructionSetsInUse() + ")";
}

#else

std::function<void()> eigen_product(const CsrView &, const void *, void *, bool, int,
                                    std::string *why) {
    if (why) *why = "tessera-bench was built without Eigen (install libeigen3-dev and reconfigure)";
    return nullptr;
}

std::function<void()> eigen_block_product(const CsrView &, const void *, void *, int64_t, bool, int,
                                          std::string *why) {
    if (why) *why = "tessera-bench was built without Eigen (install libeigen3-dev and reconfigure)";
    return nullptr;
}

std::string eigen_version() { return "not built in"; }

#endif

} // namespace tessera::bench
