// What one spmv record measures, shared by the CPU and GPU benches: the matrix in the value and
// index type asked for, x, the long double reference y with its error measure, and the
// effective byte count of one product.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spmv_generators.hpp"

namespace tessera::bench {

// Bytes of one product as both reports count them, whatever the format: the CSR arrays (values,
// column indices, row pointers) and x and y, each once (rows + cols vector entries).
inline double spmv_effective_bytes(const CsrMatrix &m, double value_bytes, double index_bytes) {
    return double(m.nnz()) * (value_bytes + index_bytes) + double(m.rows + 1) * index_bytes +
           double(m.rows + m.cols) * value_bytes;
}

// What names one record of either spmv report: the matrix, value and index types, the op, and
// the bytes one product counts.
struct SpmvRecordHead {
    std::string matrix;
    int64_t rows = 0, cols = 0, nnz = 0;
    char dtype = 'd';
    int index_bits = 32;
    char op = 'n';
    double bytes = 0; // effective bytes of one product (spmv_effective_bytes)
    template <typename V, typename I> void describe(const CsrMatrix &m, char product_op) {
        matrix = m.name;
        rows = m.rows;
        cols = m.cols;
        nnz = m.nnz();
        dtype = sizeof(V) == 4 ? 's' : 'd';
        index_bits = int(sizeof(I) * 8);
        op = product_op;
        bytes = spmv_effective_bytes(m, sizeof(V), sizeof(I));
    }
};

// What a product's check found: entries of y outside the componentwise bound, and the worst
// |y_i - ref_i| / bound_i (above 1 means outside; NaN entries count as outside).
struct BoundCheck {
    int64_t outside = 0;
    double worst = 0;
};

// The arrays of one record, x uniform in [-1, 1] from the seed, and y_ref = op(A)·x in long
// double with |A||x| and the number of products of each entry beside it.
template <typename V, typename I> struct SpmvCase {
    const CsrMatrix &m;
    bool trans;
    std::vector<I> row_ptr, col;
    std::vector<V> val, x;
    std::vector<long double> ref, mag; // reference y and (|A||x|)
    std::vector<int64_t> terms;        // products summed into each entry of y

    SpmvCase(const CsrMatrix &mat, bool t, uint64_t seed)
        : m(mat), trans(t), row_ptr(mat.row_ptr.begin(), mat.row_ptr.end()),
          col(mat.col.begin(), mat.col.end()), val(mat.val.begin(), mat.val.end()) {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        x.resize(size_t(std::max<int64_t>(1, t ? m.rows : m.cols)));
        for (V &v : x) v = V(u(rng));
        const int64_t out = t ? m.cols : m.rows;
        ref.assign(size_t(out), 0.0L);
        mag.assign(size_t(out), 0.0L);
        terms.assign(size_t(out), 0);
        for (int64_t i = 0; i < m.rows; ++i)
            for (int64_t p = int64_t(row_ptr[size_t(i)]); p < int64_t(row_ptr[size_t(i) + 1]);
                 ++p) {
                const int64_t o = t ? int64_t(col[size_t(p)]) : i,
                              in = t ? i : int64_t(col[size_t(p)]);
                const long double prod = (long double)val[size_t(p)] * (long double)x[size_t(in)];
                ref[size_t(o)] += prod;
                mag[size_t(o)] += std::fabs(prod);
                ++terms[size_t(o)];
            }
    }

    // max |y - ref| / max (|A||x|); NaN when y holds a NaN (an entry never written).
    double error(const std::vector<V> &y) const {
        long double worst = 0, scale = 0;
        for (size_t k = 0; k < ref.size(); ++k) {
            const long double d = std::fabs((long double)y[k] - ref[k]);
            if (std::isnan((double)y[k])) return NAN;
            worst = std::max(worst, d);
            scale = std::max(scale, mag[k]);
        }
        return scale > 0 ? double(worst / scale) : double(worst);
    }

    // Every entry against |y_i - ref_i| <= 2·(n_i + 1)·u·(|A||x|)_i + n_i·tiny, with n_i its
    // number of products, u the unit roundoff of V and tiny its smallest normal number (for
    // flushed subnormals): any order of summation in V stays inside, with room to spare, and a
    // dropped or misplaced product does not, however small its row is next to the others.
    BoundCheck check(const std::vector<V> &y) const {
        const long double u = std::numeric_limits<V>::epsilon() / 2,
                          tiny = std::numeric_limits<V>::min();
        BoundCheck out;
        for (size_t k = 0; k < ref.size(); ++k) {
            const long double d = std::fabs((long double)y[k] - ref[k]);
            const long double n = (long double)terms[k];
            const long double bound = 2 * (n + 1) * u * mag[k] + n * tiny;
            if (std::isnan((double)y[k])) {
                ++out.outside;
                out.worst = INFINITY;
                continue;
            }
            if (d > bound) ++out.outside;
            if (d > 0)
                out.worst = std::max(out.worst, bound > 0 ? double(d / bound) : double(INFINITY));
        }
        return out;
    }
};

} // namespace tessera::bench
