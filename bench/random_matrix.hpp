// Column-major matrices for the bench, 64-byte aligned (a padded leading dimension leaves the
// columns after the first unaligned, as users' matrices often are), filled with uniform random
// numbers in [-1, 1] that are never exactly zero (so no kernel meets a degenerate input).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <vector>

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

// Fills every entry with a uniform draw from [-1, 1], redrawing exact zeros. A large matrix is
// filled in chunks of 2^20 entries, each from its own generator seeded by `rng` in chunk order,
// on all threads: the same entries whatever the thread count, and seconds less per case for the
// sweep's largest operands. Small ones (under 2^22 entries) stay on this thread, so that the
// bench's CPU measurements do not follow a parallel region of its own.
template <class T> void fill_uniform(Matrix<T> &a, std::mt19937_64 &rng) {
    constexpr std::size_t kChunk = std::size_t(1) << 20, kParallel = std::size_t(1) << 22;
    const std::size_t n = a.size(), chunks = (n + kChunk - 1) / kChunk;
    std::vector<std::uint64_t> seeds(chunks);
    for (std::uint64_t &s : seeds) s = rng();
    T *p = a.data();
#pragma omp parallel for schedule(dynamic, 1) if (n >= kParallel)
    for (std::int64_t c = 0; c < std::int64_t(chunks); ++c) {
        std::mt19937_64 local(seeds[std::size_t(c)]);
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        const std::size_t end = std::min(n, std::size_t(c + 1) * kChunk);
        for (std::size_t i = std::size_t(c) * kChunk; i < end; ++i) {
            T x;
            do x = static_cast<T>(dist(local));
            while (x == T(0));
            p[i] = x;
        }
    }
}

} // namespace tessera::bench
