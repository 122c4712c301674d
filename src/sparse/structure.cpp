// Row-length statistics from row_ptr, occupied diagonals from one pass over the columns (a
// bit per diagonal), and the sizes ELL, DIA and HYB would have.
#include "sparse/structure.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

namespace tessera::sparse {

namespace {

// a·b for non-negative counts, INT64_MAX where it would overflow (a size no memory holds).
int64_t saturating_product(int64_t a, int64_t b) {
    int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

} // namespace

template <typename I> RowStats row_stats(int64_t rows, int64_t cols, const I *row_ptr) {
    RowStats s;
    s.rows = rows;
    s.cols = cols;
    s.nnz = rows > 0 ? int64_t(row_ptr[rows]) : 0;
    if (rows == 0) return s;
    s.min_len = INT64_MAX;
    double sum_sq = 0;
    for (int64_t i = 0; i < rows; ++i) {
        int64_t len = int64_t(row_ptr[i + 1]) - int64_t(row_ptr[i]);
        s.min_len = std::min(s.min_len, len);
        s.max_len = std::max(s.max_len, len);
        s.empty_rows += len == 0;
        sum_sq += double(len) * double(len);
    }
    s.mean = double(s.nnz) / double(rows);
    s.stddev = std::sqrt(std::max(0.0, sum_sq / double(rows) - s.mean * s.mean));
    return s;
}

template <typename I> int64_t hyb_width(int64_t rows, const I *row_ptr, int64_t max_len) {
    if (rows == 0 || max_len == 0) return 0;
    // at_least[k] = rows with length >= k.
    std::vector<int64_t> at_least(size_t(max_len) + 2, 0);
    for (int64_t i = 0; i < rows; ++i) ++at_least[size_t(row_ptr[i + 1] - row_ptr[i])];
    for (int64_t k = max_len - 1; k >= 0; --k) at_least[size_t(k)] += at_least[size_t(k) + 1];
    int64_t width = 0;
    for (int64_t k = 1; k <= max_len; ++k)
        if (2 * at_least[size_t(k)] >= rows) width = k;
    return width;
}

template <typename V, typename I> Structure analyze(const Csr<V, I> &a, const RowStats &row) {
    Structure s;
    s.row = row;
    const int64_t rows = a.rows, cols = a.cols;
    if (rows == 0 || cols == 0) return s;
    const int64_t stride = round_up(rows, kEllRowAlign);

    // Diagonal offset o = j - i lies in [-(rows-1), cols-1]: bit o + rows - 1 of a bitmap, or,
    // where that bitmap (or a last-row-block per tile of columns) would dwarf the matrix
    // itself (a 1 x 2^40 matrix of two entries), a sorted list of offsets and a hash map:
    // memory stays O(rows + nnz).
    const int64_t nnz = row.nnz;
    const int64_t budget = 4 * (rows + nnz) + 4096;
    const int64_t span = rows + cols - 1;
    const bool bitmap = (span + 63) / 64 <= budget;
    std::vector<uint64_t> seen(bitmap ? size_t((span + 63) / 64) : 0, 0);
    std::vector<int64_t> offsets;
    if (!bitmap) offsets.reserve(size_t(nnz));
    const double slope = double(cols) / double(rows);
    const int64_t near = int64_t(1) << kTileShift;
    const int64_t tile_count = (cols >> kTileShift) + 1;
    const bool tile_array = tile_count <= budget;
    std::vector<int64_t> tile_seen(tile_array ? size_t(tile_count) : 0, -1); // last row block seen
    std::unordered_map<int64_t, int64_t> tile_map;
    for (int64_t i = 0; i < rows; ++i) {
        const int64_t place = int64_t(double(i) * slope), block = i >> kTileShift;
        for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p) {
            const int64_t j = a.col[p];
            const int64_t bit = j - i + rows - 1;
            if (bitmap) seen[size_t(bit >> 6)] |= uint64_t(1) << (bit & 63);
            else offsets.push_back(j - i);
            s.far += (j > place + near) | (j < place - near);
            int64_t &last = tile_array ? tile_seen[size_t(j >> kTileShift)]
                                       : tile_map.try_emplace(j >> kTileShift, -1).first->second;
            s.tiles += last != block;
            last = block;
        }
    }
    for (int64_t p = 0; p < nnz; ++p) s.stored_zeros += a.val[p] == V(0);
    auto count_diagonal = [&](int64_t off) {
        int64_t first = std::max<int64_t>(0, -off), last = std::min(rows, cols - off);
        ++s.ndiag;
        s.dia_cover += last - first;
    };
    for (size_t w = 0; w < seen.size(); ++w)
        for (uint64_t bits = seen[w]; bits; bits &= bits - 1)
            count_diagonal(int64_t(w) * 64 + __builtin_ctzll(bits) - (rows - 1));
    if (!bitmap) {
        std::sort(offsets.begin(), offsets.end());
        offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
        for (int64_t off : offsets) count_diagonal(off);
    }
    s.dia_slots = saturating_product(s.ndiag, stride);
    s.ell_slots = saturating_product(row.max_len, stride);

    s.hyb_width = hyb_width(rows, a.row_ptr.data(), row.max_len);
    for (int64_t b = 0; b < rows; b += kEllRowAlign) {
        int64_t block_max = 0;
        for (int64_t i = b; i < std::min(rows, b + kEllRowAlign); ++i) {
            int64_t len = int64_t(a.row_ptr[i + 1]) - int64_t(a.row_ptr[i]);
            block_max = std::max(block_max, len);
            s.hyb_tail += std::max<int64_t>(0, len - s.hyb_width);
            s.hyb_tail_rows += len > s.hyb_width;
        }
        s.ell_blocked += block_max * kEllRowAlign;
        s.hyb_blocked += std::min(block_max, s.hyb_width) * kEllRowAlign;
    }
    return s;
}

#define TSR_STRUCTURE(V, I) template Structure analyze<V, I>(const Csr<V, I> &, const RowStats &);
TSR_STRUCTURE(float, int32_t)
TSR_STRUCTURE(float, int64_t)
TSR_STRUCTURE(double, int32_t)
TSR_STRUCTURE(double, int64_t)
#undef TSR_STRUCTURE
template RowStats row_stats<int32_t>(int64_t, int64_t, const int32_t *);
template RowStats row_stats<int64_t>(int64_t, int64_t, const int64_t *);
template int64_t hyb_width<int32_t>(int64_t, const int32_t *, int64_t);
template int64_t hyb_width<int64_t>(int64_t, const int64_t *, int64_t);

} // namespace tessera::sparse
