// The transpose of a CSR matrix. Scattering entries straight to their columns' rows of Aᵀ
// writes all over memory, a cache miss per entry once Aᵀ outgrows the caches; instead the
// entries are first bucketed by blocks of columns (streams written in order), then each
// bucket, whose rows of Aᵀ are small enough to stay in cache, is filled on its own, buckets in
// parallel. Much of what remains is the page faults of the new arrays.
#include <algorithm>
#include <vector>

#include "sparse/convert.hpp"

namespace tessera::sparse {

namespace {

constexpr int kBucketShift = 13; // 8 Ki columns per bucket: their rows of Aᵀ stay near L2

template <typename V, typename I> Csr<V, I> transpose_small(const CsrRef<V, I> &a) {
    const int64_t nnz = a.nnz();
    Csr<V, I> t;
    t.rows = a.cols;
    t.cols = a.rows;
    t.row_ptr = Array<I>(t.rows + 1, I(0));
    t.col = Array<I>(nnz);
    t.val = Array<V>(nnz);
    for (int64_t p = 0; p < nnz; ++p) ++t.row_ptr[int64_t(a.col[p]) + 1];
    for (int64_t j = 0; j < t.rows; ++j) t.row_ptr[j + 1] += t.row_ptr[j];
    std::vector<I> next(t.row_ptr.data(), t.row_ptr.data() + t.rows);
    for (int64_t i = 0; i < a.rows; ++i)
        for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p) {
            const int64_t q = next[size_t(a.col[p])]++;
            t.col[q] = I(i);
            t.val[q] = a.val[p];
        }
    return t;
}

} // namespace

template <typename V, typename I> Csr<V, I> transpose(const CsrRef<V, I> &a, int threads) {
    const int64_t nnz = a.nnz();
    const int64_t buckets = (a.cols + (int64_t(1) << kBucketShift) - 1) >> kBucketShift;
    if (nnz < (int64_t(1) << 18) || buckets <= 1) return transpose_small(a);
    const int nt = std::max(1, threads);

    // Each part is a run of rows with about nnz / nt entries.
    std::vector<int64_t> first_row(size_t(nt) + 1, a.rows);
    first_row[0] = 0;
    for (int t = 1; t < nt; ++t) {
        const int64_t goal = nnz / nt * t;
        first_row[size_t(t)] =
            std::upper_bound(a.row_ptr.data(), a.row_ptr.data() + a.rows + 1, I(goal)) -
            a.row_ptr.data() - 1;
    }
    // count[t·buckets + b]: entries of part t in bucket b; then where they go in the buffer,
    // bucket by bucket and, inside a bucket, part by part (so rows stay in order).
    std::vector<int64_t> count(size_t(nt * buckets), 0);
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; ++t) {
        int64_t *c = count.data() + int64_t(t) * buckets;
        for (int64_t p = a.row_ptr[first_row[size_t(t)]];
             p < int64_t(a.row_ptr[first_row[size_t(t) + 1]]); ++p)
            ++c[int64_t(a.col[p]) >> kBucketShift];
    }
    std::vector<int64_t> bucket_start(size_t(buckets) + 1, 0), where(size_t(nt * buckets));
    for (int64_t b = 0, at = 0; b < buckets; ++b) {
        bucket_start[size_t(b)] = at;
        for (int t = 0; t < nt; ++t) {
            where[size_t(int64_t(t) * buckets + b)] = at;
            at += count[size_t(int64_t(t) * buckets + b)];
        }
        bucket_start[size_t(b) + 1] = at;
    }

    Array<I> row_of(nnz), col_of(nnz);
    Array<V> val_of(nnz);
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (int t = 0; t < nt; ++t) {
        int64_t *w = where.data() + int64_t(t) * buckets;
        for (int64_t i = first_row[size_t(t)]; i < first_row[size_t(t) + 1]; ++i)
            for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p) {
                const int64_t q = w[int64_t(a.col[p]) >> kBucketShift]++;
                row_of[q] = I(i);
                col_of[q] = a.col[p];
                val_of[q] = a.val[p];
            }
    }

    Csr<V, I> t;
    t.rows = a.cols;
    t.cols = a.rows;
    t.row_ptr = Array<I>(t.rows + 1);
    t.col = Array<I>(nnz);
    t.val = Array<V>(nnz);
    t.row_ptr[0] = I(0);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int64_t b = 0; b < buckets; ++b) {
        const int64_t c0 = b << kBucketShift, c1 = std::min(a.cols, (b + 1) << kBucketShift);
        std::vector<int64_t> next(size_t(c1 - c0) + 1, 0);
        for (int64_t q = bucket_start[size_t(b)]; q < bucket_start[size_t(b) + 1]; ++q)
            ++next[size_t(int64_t(col_of[q]) - c0) + 1];
        next[0] = bucket_start[size_t(b)];
        for (int64_t c = c0; c < c1; ++c) {
            next[size_t(c - c0) + 1] += next[size_t(c - c0)];
            t.row_ptr[c + 1] = I(next[size_t(c - c0) + 1]);
        }
        for (int64_t q = bucket_start[size_t(b)]; q < bucket_start[size_t(b) + 1]; ++q) {
            const int64_t at = next[size_t(int64_t(col_of[q]) - c0)]++;
            t.col[at] = row_of[q];
            t.val[at] = val_of[q];
        }
    }
    return t;
}

template Csr<float, int32_t> transpose<float, int32_t>(const CsrRef<float, int32_t> &, int);
template Csr<float, int64_t> transpose<float, int64_t>(const CsrRef<float, int64_t> &, int);
template Csr<double, int32_t> transpose<double, int32_t>(const CsrRef<double, int32_t> &, int);
template Csr<double, int64_t> transpose<double, int64_t>(const CsrRef<double, int64_t> &, int);

} // namespace tessera::sparse
