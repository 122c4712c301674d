// Column-major matrices for the bench, 64-byte aligned (a padded leading dimension leaves the
// columns after the first unaligned, as users' matrices often are), filled with uniform random
// numbers in [-1, 1] that are never exactly zero (so no kernel meets a degenerate input).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>

namespace tessera::bench {

template <class T> class Matrix {
public:
    // ld: the leading dimension, rows (tight) when 0; the bench's sweep pads it.
    Matrix(std::int64_t rows, std::int64_t cols, std::int64_t ld = 0)
        : rows_(rows), cols_(cols), ld_(ld > 0 ? ld : (rows > 0 ? rows : 1)) {
        std::size_t bytes = std::size_t(ld_) * std::size_t(cols) * sizeof(T);
        bytes = (bytes + 63) / 64 * 64;
        data_.reset(static_cast<T *>(std::aligned_alloc(64, bytes ? bytes : 64)));
        if (!data_) throw std::bad_alloc();
    }

    std::int64_t rows() const { return rows_; }
    std::int64_t cols() const { return cols_; }
    std::int64_t ld() const { return ld_; }
    std::size_t size() const { return std::size_t(ld_) * std::size_t(cols_); } // padding included
    T *data() { return data_.get(); }
    const T *data() const { return data_.get(); }
    T &operator()(std::int64_t i, std::int64_t j) { return data_[std::size_t(i + j * ld())]; }
    const T &operator()(std::int64_t i, std::int64_t j) const {
        return data_[std::size_t(i + j * ld())];
    }

private:
    struct Free {
        void operator()(T *p) const { std::free(p); }
    };
    std::int64_t rows_, cols_, ld_;
    std::unique_ptr<T[], Free> data_;
};

// Fills every entry with a uniform draw from [-1, 1], redrawing exact zeros.
template <class T> void fill_uniform(Matrix<T> &a, std::mt19937_64 &rng) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    T *p = a.data();
    for (std::size_t i = 0, n = a.size(); i < n; ++i) {
        T x;
        do x = static_cast<T>(dist(rng));
        while (x == T(0));
        p[i] = x;
    }
}

} // namespace tessera::bench
