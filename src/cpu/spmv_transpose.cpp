// y = alpha·Aᵀ·x + beta·y for CSR, COO, ELL and HYB without races: the entries are split
// evenly over the threads; each scatters alpha·a_ij·x_i into y directly for the columns no
// other thread touches (a banded matrix leaves only thin overlaps) and into a private
// buffer for the rest; after a barrier the buffers are added into y, column range by range.
#include "cpu/spmv_transpose.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "cpu/spmv_common.hpp"
#include "cpu/spmv_kernels.hpp"

namespace tessera::cpu {

std::unique_ptr<ScatterBuffers> TransposeWork::take() {
    std::lock_guard<std::mutex> guard(pool_lock);
    if (pool.empty()) return std::make_unique<ScatterBuffers>();
    std::unique_ptr<ScatterBuffers> b = std::move(pool.back());
    pool.pop_back();
    return b;
}

void TransposeWork::give_back(std::unique_ptr<ScatterBuffers> b) {
    std::lock_guard<std::mutex> guard(pool_lock);
    pool.push_back(std::move(b));
}

namespace {

// The entries of a format as runs of one row: visit(u0, u1, f) calls f(i, cols, vals, n,
// step) for the entries of units [u0, u1), n entries of row i at cols[k·step], vals[k·step].
template <typename V, typename I> struct CsrSource {
    const sparse::Csr<V, I> &a;
    int64_t units() const { return a.nnz(); }
    template <typename F> void visit(int64_t u0, int64_t u1, F &&f) const {
        if (u0 >= u1) return;
        const I *rp = a.row_ptr.data();
        int64_t i = row_of(u0, rp, a.rows), p = u0;
        while (p < u1) {
            const int64_t end = std::min<int64_t>(rp[i + 1], u1);
            if (end > p) f(i, a.col.data() + p, a.val.data() + p, end - p, int64_t(1));
            p = std::max(p, end);
            ++i;
        }
    }
};

template <typename V, typename I> struct CooSource {
    const sparse::Coo<V, I> &a;
    int64_t units() const { return a.nnz; }
    template <typename F> void visit(int64_t u0, int64_t u1, F &&f) const {
        int64_t p = u0;
        while (p < u1) {
            const I i = a.row[p];
            int64_t q = p + 1;
            while (q < u1 && a.row[q] == i) ++q;
            f(int64_t(i), a.col.data() + p, a.val.data() + p, q - p, int64_t(1));
            p = q;
        }
    }
};

// Units are blocks of 16 rows, read slot by slot (each slot of a block is contiguous), one
// entry per call.
template <typename V, typename I> struct EllSource {
    const sparse::Ell<V, I> &a;
    int64_t units() const { return a.stride / 16; }
    template <typename F> void visit(int64_t u0, int64_t u1, F &&f) const {
        const I *len = a.len.data();
        for (int64_t b = u0; b < u1; ++b) {
            const int64_t r0 = b * 16;
            int64_t width = 0;
            for (int64_t i = r0; i < r0 + 16; ++i) width = std::max<int64_t>(width, len[i]);
            for (int64_t k = 0; k < width; ++k) {
                const int64_t at = k * a.stride + r0;
                for (int64_t i = 0; i < 16; ++i)
                    if (k < int64_t(len[r0 + i]))
                        f(r0 + i, a.col.data() + at + i, a.val.data() + at + i, int64_t(1),
                          int64_t(1));
            }
        }
    }
};

template <typename Source> void find_spans(const Source &src, ColumnSpans &s) {
    const int64_t units = src.units();
    s.block = std::max<int64_t>(1, std::min<int64_t>(4096, units / 256 + 1));
    const int64_t blocks = (units + s.block - 1) / s.block;
    s.lo.assign(size_t(blocks), INT64_MAX);
    s.hi.assign(size_t(blocks), -1);
    for (int64_t b = 0; b < blocks; ++b) {
        int64_t lo = INT64_MAX, hi = -1;
        src.visit(b * s.block, std::min(units, (b + 1) * s.block),
                  [&](int64_t, const auto *cols, const auto *, int64_t n, int64_t step) {
                      for (int64_t k = 0; k < n; ++k) {
                          const int64_t j = cols[k * step];
                          lo = std::min(lo, j);
                          hi = std::max(hi, j);
                      }
                  });
        s.lo[size_t(b)] = lo;
        s.hi[size_t(b)] = hi;
    }
}

struct Interval {
    int64_t lo, hi; // [lo, hi]; empty when lo > hi
    bool empty() const { return lo > hi; }
    bool has(int64_t j) const { return j >= lo && j <= hi; }
};

// The scatter of one source into y (out entries): with apply_beta, y's old values are scaled
// by beta first; without, the source's products are added to y as it is.
template <typename V, typename Source>
void scatter(const Source &src, std::once_flag &spans_once, ColumnSpans &spans, TransposeWork &work,
             int threads, int64_t out, const SpmvVectors<V> &v, bool apply_beta) {
    const int64_t units = src.units();
    const V alpha = v.alpha, beta = v.beta;
    const V *x = v.x;
    V *y = v.y;
    auto scale = [&](int64_t from, int64_t to) { // y[from, to) = beta·y
        if (!apply_beta || beta == V(1)) return;
        if (beta == V(0)) std::fill(y + from, y + to, V(0));
        else
            for (int64_t j = from; j < to; ++j) y[j] *= beta;
    };

    const int nt = spmv_threads(units, threads);
    if (nt == 1) {
        scale(0, out);
        src.visit(0, units,
                  [&](int64_t i, const auto *cols, const V *vals, int64_t n, int64_t step) {
                      const V ax = alpha * x[i];
                      for (int64_t k = 0; k < n; ++k) y[cols[k * step]] += vals[k * step] * ax;
                  });
        return;
    }

    std::call_once(spans_once, [&] { find_spans(src, spans); });
    // Range r: units [cut[r], cut[r+1]), touching columns span[r], alone on own[r].
    std::vector<int64_t> cut(size_t(nt) + 1);
    for (int r = 0; r <= nt; ++r) cut[size_t(r)] = units / nt * r + units % nt * r / nt;
    std::vector<Interval> span(static_cast<size_t>(nt)), own(static_cast<size_t>(nt));
    for (int r = 0; r < nt; ++r) {
        Interval s{INT64_MAX, -1};
        if (cut[size_t(r)] < cut[size_t(r) + 1])
            for (int64_t b = cut[size_t(r)] / spans.block;
                 b <= (cut[size_t(r) + 1] - 1) / spans.block; ++b) {
                s.lo = std::min(s.lo, spans.lo[size_t(b)]);
                s.hi = std::max(s.hi, spans.hi[size_t(b)]);
            }
        span[size_t(r)] = s;
    }
    for (int r = 0; r < nt; ++r) {
        Interval o = span[size_t(r)];
        for (int q = 0; q < nt; ++q) {
            if (q == r || span[size_t(q)].empty()) continue;
            if (q < r) o.lo = std::max(o.lo, span[size_t(q)].hi + 1);
            else o.hi = std::min(o.hi, span[size_t(q)].lo - 1);
        }
        // Spans out of order (a later range reaching below an earlier one) leave nothing own.
        for (int q = 0; q < nt && !o.empty(); ++q)
            if (q != r && !span[size_t(q)].empty() && span[size_t(q)].lo <= o.hi &&
                span[size_t(q)].hi >= o.lo)
                o = {1, 0};
        own[size_t(r)] = o;
    }
    // Columns no range owns: the complement of the own intervals, in order.
    std::vector<Interval> owned;
    for (const Interval &o : own)
        if (!o.empty()) owned.push_back(o);
    std::sort(owned.begin(), owned.end(),
              [](const Interval &a, const Interval &b) { return a.lo < b.lo; });
    std::vector<Interval> shared;
    int64_t next = 0;
    for (const Interval &o : owned) {
        if (o.lo > next) shared.push_back({next, o.lo - 1});
        next = o.hi + 1;
    }
    if (next < out) shared.push_back({next, out - 1});

    std::unique_ptr<ScatterBuffers> buffers = work.take();
    buffers->per_range.resize(size_t(nt));
    for (int r = 0; r < nt; ++r) {
        const int64_t need =
            span[size_t(r)].empty() ? 0 : span[size_t(r)].hi - span[size_t(r)].lo + 1;
        const int64_t doubles = (need * int64_t(sizeof(V)) + 7) / 8;
        if (buffers->per_range[size_t(r)].size() < doubles)
            buffers->per_range[size_t(r)] = sparse::Array<double>(doubles);
    }
    auto buffer = [&](int r) {
        return reinterpret_cast<V *>(buffers->per_range[size_t(r)].data());
    };

#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int r = t; r < nt; r += n) {
            const Interval s = span[size_t(r)], o = own[size_t(r)];
            if (s.empty()) continue;
            V *buf = buffer(r);
            if (o.empty()) {
                std::fill(buf, buf + (s.hi - s.lo + 1), V(0));
            } else {
                scale(o.lo, o.hi + 1);
                std::fill(buf, buf + (o.lo - s.lo), V(0));
                std::fill(buf + (o.hi + 1 - s.lo), buf + (s.hi + 1 - s.lo), V(0));
            }
            const int64_t lo = s.lo;
            src.visit(cut[size_t(r)], cut[size_t(r) + 1],
                      [&](int64_t i, const auto *cols, const V *vals, int64_t count, int64_t step) {
                          const V ax = alpha * x[i];
                          for (int64_t k = 0; k < count; ++k) {
                              const int64_t j = cols[k * step];
                              const V add = vals[k * step] * ax;
                              if (o.has(j)) y[j] += add;
                              else buf[j - lo] += add;
                          }
                      });
        }
#pragma omp barrier
        // Shared columns: this thread's slice of [0, out).
        const int64_t c0 = out / n * t + out % n * t / n,
                      c1 = out / n * (t + 1) + out % n * (t + 1) / n;
        for (const Interval &sh : shared) {
            const int64_t a = std::max(sh.lo, c0), b = std::min(sh.hi + 1, c1);
            if (a >= b) continue;
            scale(a, b);
            for (int r = 0; r < nt; ++r) {
                const Interval s = span[size_t(r)];
                const int64_t p = std::max(a, s.lo), q = std::min(b, s.hi + 1);
                const V *buf = buffer(r);
                for (int64_t j = p; j < q; ++j) y[j] += buf[j - s.lo];
            }
        }
    }
    work.give_back(std::move(buffers));
}

} // namespace

template <typename V, typename I>
void scatter_t(const sparse::Typed<V, I> &t, TransposeWork &work, int threads,
               const SpmvVectors<V> &v) {
    const int64_t out = t.csr.cols;
    switch (t.plan.format) {
    case TSR_FORMAT_COO: {
        scatter(CooSource<V, I>{t.coo}, work.main_once, work.main, work, threads, out, v, true);
        return;
    }
    case TSR_FORMAT_ELL: {
        scatter(EllSource<V, I>{t.ell}, work.main_once, work.main, work, threads, out, v, true);
        return;
    }
    case TSR_FORMAT_HYB: {
        scatter(EllSource<V, I>{t.hyb.ell}, work.main_once, work.main, work, threads, out, v, true);
        if (t.hyb.tail.nnz > 0)
            scatter(CooSource<V, I>{t.hyb.tail}, work.tail_once, work.tail, work, threads, out, v,
                    false);
        return;
    }
    default: {
        scatter(CsrSource<V, I>{t.csr}, work.main_once, work.main, work, threads, out, v, true);
        return;
    }
    }
}

template <typename V> void scale_y(int64_t n, V beta, V *y, int threads) {
    if (beta == V(1)) return;
    const int nt = spmv_threads(n, threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < n; ++i) y[i] = beta == V(0) ? V(0) : beta * y[i];
}

#define TSR_TRANSPOSE(V, I)                                                                        \
    template void scatter_t<V, I>(const sparse::Typed<V, I> &, TransposeWork &, int,               \
                                  const SpmvVectors<V> &);
TSR_TRANSPOSE(float, int32_t)
TSR_TRANSPOSE(float, int64_t)
TSR_TRANSPOSE(double, int32_t)
TSR_TRANSPOSE(double, int64_t)
#undef TSR_TRANSPOSE
template void scale_y<float>(int64_t, float, float *, int);
template void scale_y<double>(int64_t, double, double *, int);

} // namespace tessera::cpu
