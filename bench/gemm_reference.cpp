// How accurate a gemm result is (see gemm_reference.hpp): a float64 full reference or a
// sampled long-double one, and the relative Frobenius error against either.
#include "gemm_reference.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

namespace tessera::bench {
namespace {

// The element (r, c) of op(X) for a column-major X with leading dimension ld.
template <class T>
T op_element(const T *X, std::int64_t ld, tsr_op op, std::int64_t r, std::int64_t c) {
    return op == TSR_OP_N ? X[r + c * ld] : X[c + r * ld];
}

// Both references work on the column-major form of the call (as_column_major): for a
// row-major C they hold C^T, which is the same memory, so relative_error reads C as given.

// X as stored (rows×cols with leading dimension ld), copied to a packed double matrix.
template <class T>
std::vector<double> promote(const T *X, std::int64_t ld, std::int64_t rows, std::int64_t cols) {
    std::vector<double> out(std::size_t(rows) * std::size_t(cols));
    for (std::int64_t c = 0; c < cols; ++c)
        for (std::int64_t r = 0; r < rows; ++r) out[std::size_t(r + c * rows)] = X[r + c * ld];
    return out;
}

template <class T> void require_beta_zero(const GemmCall<T> &call) {
    if (call.beta != T(0)) throw std::logic_error("GemmReference: only beta = 0 is supported");
}

} // namespace

GemmReference GemmReference::full_from_f64(const GemmCall<float> &given, GemmProvider &dgemm) {
    const GemmCall<float> call = as_column_major(given);
    require_beta_zero(call);
    const bool an = call.transa == TSR_OP_N, bn = call.transb == TSR_OP_N;
    const std::int64_t a_rows = an ? call.m : call.k, a_cols = an ? call.k : call.m;
    const std::int64_t b_rows = bn ? call.k : call.n, b_cols = bn ? call.n : call.k;
    std::vector<double> A = promote(call.A, call.lda, a_rows, a_cols);
    std::vector<double> B = promote(call.B, call.ldb, b_rows, b_cols);

    GemmReference ref;
    ref.m_ = call.m;
    ref.n_ = call.n;
    ref.full_.assign(std::size_t(call.m) * std::size_t(call.n), 0.0);
    GemmCall<double> d;
    d.layout = TSR_COL_MAJOR;
    d.transa = call.transa, d.transb = call.transb;
    d.m = call.m, d.n = call.n, d.k = call.k;
    d.alpha = double(call.alpha), d.beta = 0.0;
    d.A = A.data(), d.lda = std::max<std::int64_t>(a_rows, 1);
    d.B = B.data(), d.ldb = std::max<std::int64_t>(b_rows, 1);
    d.C = ref.full_.data(), d.ldc = std::max<std::int64_t>(call.m, 1);
    dgemm.gemm(d);
    ref.method_ = "float64 (" + dgemm.name() + " dgemm on promoted inputs), all entries";
    return ref;
}

template <class T>
GemmReference GemmReference::sampled(const GemmCall<T> &given, std::int64_t samples,
                                     std::uint64_t seed) {
    const GemmCall<T> call = as_column_major(given);
    require_beta_zero(call);
    GemmReference ref;
    ref.m_ = call.m;
    ref.n_ = call.n;
    std::vector<std::pair<std::int64_t, std::int64_t>> where;
    const bool all = double(call.m) * double(call.n) <= double(samples);
    if (all) {
        for (std::int64_t j = 0; j < call.n; ++j)
            for (std::int64_t i = 0; i < call.m; ++i) where.emplace_back(i, j);
    } else {
        std::mt19937_64 rng(seed);
        std::uniform_int_distribution<std::int64_t> row(0, call.m - 1), col(0, call.n - 1);
        for (std::int64_t s = 0; s < samples; ++s) where.emplace_back(row(rng), col(rng));
    }
    for (auto [i, j] : where) {
        long double sum = 0, compensation = 0;
        for (std::int64_t l = 0; l < call.k; ++l) {
            long double term = (long double)op_element(call.A, call.lda, call.transa, i, l) *
                               (long double)op_element(call.B, call.ldb, call.transb, l, j);
            long double t = sum + term;
            compensation += std::fabs(sum) >= std::fabs(term) ? (sum - t) + term : (term - t) + sum;
            sum = t;
        }
        ref.sampled_.push_back({i, j, (long double)call.alpha * (sum + compensation)});
    }
    ref.method_ = all ? "long double (compensated dot products), all entries"
                      : "long double (compensated dot products), " +
                            std::to_string(ref.sampled_.size()) + " sampled entries";
    return ref;
}

std::int64_t GemmReference::entries() const {
    return full_.empty() ? std::int64_t(sampled_.size()) : std::int64_t(full_.size());
}

template <class T> double GemmReference::relative_error(const T *C, std::int64_t ldc) const {
    long double diff2 = 0, ref2 = 0;
    if (!full_.empty()) {
        for (std::int64_t j = 0; j < n_; ++j) {
            for (std::int64_t i = 0; i < m_; ++i) {
                long double r = full_[std::size_t(i + j * m_)];
                long double d = (long double)C[i + j * ldc] - r;
                diff2 += d * d;
                ref2 += r * r;
            }
        }
    } else {
        for (const Entry &e : sampled_) {
            long double d = (long double)C[e.i + e.j * ldc] - e.value;
            diff2 += d * d;
            ref2 += e.value * e.value;
        }
    }
    if (ref2 == 0) return diff2 == 0 ? 0.0 : INFINITY;
    return double(std::sqrt(diff2 / ref2));
}

template GemmReference GemmReference::sampled(const GemmCall<float> &, std::int64_t, std::uint64_t);
template GemmReference GemmReference::sampled(const GemmCall<double> &, std::int64_t,
                                              std::uint64_t);
template double GemmReference::relative_error(const float *, std::int64_t) const;
template double GemmReference::relative_error(const double *, std::int64_t) const;

} // namespace tessera::bench
