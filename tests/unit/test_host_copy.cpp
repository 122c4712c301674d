// The CUDA backend's host-side copies between pageable and pinned memory (cuda/host_copy.*),
// without a GPU: every byte of every column lands where it belongs and nothing between the
// columns is touched, for small copies (one thread) and large ones (shared among threads, wide
// columns cut in pieces), with destinations at every alignment and widths that end anywhere;
// and the copy back of C that applies beta (add_columns) on the same splits, in whole elements.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "../support/seed.hpp"
#include "host_copy.hpp"

namespace {

void check_copy(size_t width, int64_t cols, size_t spitch, size_t dpitch, size_t dst_offset,
                std::mt19937 &rng) {
    std::vector<unsigned char> src(spitch * size_t(cols) + 64),
        dst(dpitch * size_t(cols) + dst_offset + 64);
    for (auto &b : src) b = static_cast<unsigned char>(rng());
    constexpr unsigned char kPoison = 0xA5;
    std::fill(dst.begin(), dst.end(), kPoison);
    const size_t src_offset = rng() % 16; // the source at any alignment too
    tessera::cuda::copy_columns(dst.data() + dst_offset, dpitch, src.data() + src_offset, spitch,
                                width, cols);
    size_t wrong = 0, touched = 0;
    for (size_t i = 0; i < dst.size(); ++i) {
        const bool inside = i >= dst_offset && (i - dst_offset) / dpitch < size_t(cols) &&
                            (i - dst_offset) % dpitch < width;
        if (inside) {
            const size_t j = (i - dst_offset) / dpitch, b = (i - dst_offset) % dpitch;
            wrong += dst[i] != src[src_offset + j * spitch + b];
        } else {
            touched += dst[i] != kPoison;
        }
    }
    EXPECT_EQ(wrong, 0u) << "width " << width << " cols " << cols << " dst offset " << dst_offset;
    EXPECT_EQ(touched, 0u) << "width " << width << " cols " << cols << " dst offset " << dst_offset;
}

TEST(HostCopy, SmallCopiesEveryAlignment) {
    std::mt19937 rng(
        std::mt19937::result_type(tessera::test::seed_for(tessera::test::test_label())));
    for (size_t offset = 0; offset < 16; ++offset)
        for (size_t width : {size_t(1), size_t(15), size_t(64), size_t(100), size_t(4099)})
            check_copy(width, 3, width + 7, width + 13, offset, rng);
    check_copy(0, 4, 8, 8, 0, rng);
    check_copy(16, 0, 16, 16, 0, rng);
}

TEST(HostCopy, LargeCopiesSharedAmongThreads) {
    std::mt19937 rng(
        std::mt19937::result_type(tessera::test::seed_for(tessera::test::test_label())));
    // Many columns (a column or more per thread), a few wide ones (columns cut in pieces),
    // one column, pitches with gaps and destinations off every 16-byte boundary.
    check_copy(32768, 160, 32768, 32768, 0, rng);
    check_copy(32771, 97, 32800, 32779, 5, rng);
    check_copy(size_t(3) << 20, 2, (size_t(3) << 20) + 3, (size_t(3) << 20) + 64, 9, rng);
    check_copy((size_t(5) << 20) + 17, 1, (size_t(5) << 20) + 17, (size_t(5) << 20) + 17, 15, rng);
}

// dst = src + beta·dst over `cols` columns of `rows` elements, leading dimensions with gaps
// (poisoned, must stay so), infinities and NaN in dst carried as the expression carries them.
template <typename T>
void check_add(int64_t rows, int64_t cols, int64_t lds, int64_t ldd, T beta, std::mt19937 &rng) {
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<T> src(size_t(lds * cols) + 1), dst(size_t(ldd * cols) + 1);
    for (T &x : src) x = T(value(rng));
    const T poison = T(-7.25);
    for (size_t i = 0; i < dst.size(); ++i) {
        const bool inside = int64_t(i) / ldd < cols && int64_t(i) % ldd < rows;
        dst[i] = inside ? T(value(rng)) : poison;
    }
    if (rows > 2 && cols > 1) {
        dst[1] = std::numeric_limits<T>::infinity();
        dst[size_t(ldd) + 2] = std::numeric_limits<T>::quiet_NaN();
    }
    const std::vector<T> before = dst;
    tessera::cuda::add_columns(dst.data(), ldd, src.data(), lds, rows, cols, beta);
    const double u = std::numeric_limits<T>::epsilon() / 2;
    size_t wrong = 0, touched = 0;
    for (size_t i = 0; i < dst.size(); ++i) {
        const int64_t j = int64_t(i) / ldd, r = int64_t(i) % ldd;
        if (j >= cols || r >= rows) {
            touched += dst[i] != poison;
            continue;
        }
        const double s = double(src[size_t(j * lds + r)]), d = double(before[i]);
        const double want = s + double(beta) * d;
        if (std::isnan(want) || std::isinf(want))
            wrong += !(std::isnan(want) ? std::isnan(double(dst[i])) : double(dst[i]) == want);
        else
            wrong += std::fabs(double(dst[i]) - want) >
                     2 * u * (std::fabs(s) + std::fabs(double(beta) * d));
    }
    EXPECT_EQ(wrong, 0u) << "rows " << rows << " cols " << cols << " elem " << sizeof(T);
    EXPECT_EQ(touched, 0u) << "rows " << rows << " cols " << cols << " elem " << sizeof(T);
}

TEST(HostCopy, BetaAppliedAsCComesBack) {
    std::mt19937 rng(
        std::mt19937::result_type(tessera::test::seed_for(tessera::test::test_label())));
    // Small (one thread), many columns (shared), and a few tall odd columns cut into pieces
    // that must hold whole elements.
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{5, 3},
                              {1000, 300},
                              {(1 << 17) + 3, 3},
                              {(1 << 19) + 1, 1},
                              {0, 4},
                              {7, 0}}) {
        check_add<float>(rows, cols, rows + 3, rows + 1, -0.75f, rng);
        check_add<double>(rows, cols, rows, rows + 5, 0.5, rng);
    }
    check_add<double>(64, 40, 64, 64, 1.0, rng);
}

} // namespace
