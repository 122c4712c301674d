// Format conversions through the canonical CSR. Each builds its arrays in one pass (ELL and
// DIA slot by slot inside blocks of rows, so that writes stay contiguous).
#include "sparse/convert.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tessera::sparse {

Fault padding_fault(const char *format, int64_t slots, int64_t nnz, const char *detail) {
    const int64_t limit = std::max(kPaddingFactor * nnz, kPaddingFloor);
    if (slots <= limit) return {};
    char text[320];
    std::snprintf(text, sizeof text,
                  "%s would store %" PRId64 " slots for %" PRId64
                  " nonzeros (%s), more than the limit of %" PRId64 " x nnz; use CSR, HYB or "
                  "TSR_FORMAT_AUTO",
                  format, slots, nnz, detail, kPaddingFactor);
    return text;
}

template <typename V, typename I> Coo<V, I> csr_to_coo(const Csr<V, I> &a) {
    Coo<V, I> c;
    c.rows = a.rows;
    c.cols = a.cols;
    c.nnz = a.nnz();
    c.row = Array<I>(c.nnz);
    c.col = Array<I>(c.nnz);
    c.val = Array<V>(c.nnz);
    for (int64_t i = 0; i < a.rows; ++i)
        for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p) c.row[p] = I(i);
    if (c.nnz) {
        std::memcpy(c.col.data(), a.col.data(), c.col.bytes());
        std::memcpy(c.val.data(), a.val.data(), c.val.bytes());
    }
    return c;
}

namespace {

// The first min(len, width) entries of every row, slot by slot.
template <typename V, typename I> Ell<V, I> ell_part(const Csr<V, I> &a, int64_t width) {
    Ell<V, I> e;
    e.rows = a.rows;
    e.cols = a.cols;
    e.width = width;
    e.stride = round_up(a.rows, kEllRowAlign);
    e.len = Array<I>(e.stride, I(0));
    e.col = Array<I>(e.slots());
    e.val = Array<V>(e.slots());
    for (int64_t b = 0; b < e.stride; b += kEllRowAlign) {
        int64_t longest = 0;
        for (int64_t i = b; i < std::min(a.rows, b + kEllRowAlign); ++i) {
            e.len[i] =
                I(std::min<int64_t>(width, int64_t(a.row_ptr[i + 1]) - int64_t(a.row_ptr[i])));
            longest = std::max<int64_t>(longest, int64_t(e.len[i]));
        }
        e.visited += longest * kEllRowAlign;
        for (int64_t k = 0; k < width; ++k) {
            for (int64_t i = b; i < b + kEllRowAlign; ++i) {
                const int64_t slot = k * e.stride + i;
                if (i < a.rows && k < int64_t(e.len[i])) {
                    e.col[slot] = a.col[int64_t(a.row_ptr[i]) + k];
                    e.val[slot] = a.val[int64_t(a.row_ptr[i]) + k];
                } else {
                    e.col[slot] = I(0);
                    e.val[slot] = V(0);
                }
            }
        }
    }
    return e;
}

} // namespace

template <typename V, typename I> Ell<V, I> csr_to_ell(const Csr<V, I> &a, int64_t width) {
    return ell_part(a, width);
}

template <typename V, typename I> Hyb<V, I> csr_to_hyb(const Csr<V, I> &a, int64_t width) {
    Hyb<V, I> h;
    h.ell = ell_part(a, width);
    Coo<V, I> &t = h.tail;
    t.rows = a.rows;
    t.cols = a.cols;
    for (int64_t i = 0; i < a.rows; ++i)
        t.nnz += std::max<int64_t>(0, int64_t(a.row_ptr[i + 1]) - int64_t(a.row_ptr[i]) - width);
    t.row = Array<I>(t.nnz);
    t.col = Array<I>(t.nnz);
    t.val = Array<V>(t.nnz);
    int64_t out = 0;
    for (int64_t i = 0; i < a.rows; ++i)
        for (int64_t p = int64_t(a.row_ptr[i]) + width; p < int64_t(a.row_ptr[i + 1]); ++p, ++out) {
            t.row[out] = I(i);
            t.col[out] = a.col[p];
            t.val[out] = a.val[p];
        }
    return h;
}

template <typename V, typename I> Dia<V> csr_to_dia(const Csr<V, I> &a, const Structure &s) {
    Dia<V> d;
    d.rows = a.rows;
    d.cols = a.cols;
    d.ndiag = s.ndiag;
    d.stride = round_up(a.rows, kEllRowAlign);
    d.offset = Array<int64_t>(d.ndiag);
    d.val = Array<V>(d.slots(), V(0));
    if (d.ndiag == 0) return d;
    // Which diagonal each offset is: slot o + rows - 1 of `index` (-1 where unoccupied); where
    // that table would dwarf the matrix (a 1 x 2^40 matrix), a binary search of the sorted
    // offsets instead, so memory stays O(rows + nnz).
    const int64_t span = a.rows + a.cols - 1, nnz = int64_t(a.row_ptr[a.rows]);
    if (span <= 4 * (a.rows + nnz) + 4096) {
        std::vector<int32_t> index(size_t(span), -1);
        for (int64_t i = 0; i < a.rows; ++i)
            for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p)
                index[size_t(int64_t(a.col[p]) - i + a.rows - 1)] = 0;
        int64_t n = 0;
        for (int64_t o = 0; o < span; ++o)
            if (index[size_t(o)] == 0) {
                d.offset[n] = o - (a.rows - 1);
                index[size_t(o)] = int32_t(n++);
            }
        for (int64_t i = 0; i < a.rows; ++i)
            for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p) {
                int64_t k = index[size_t(int64_t(a.col[p]) - i + a.rows - 1)];
                d.val[k * d.stride + i] = a.val[p];
            }
        return d;
    }
    std::vector<int64_t> offsets;
    offsets.reserve(size_t(nnz));
    for (int64_t i = 0; i < a.rows; ++i)
        for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p)
            offsets.push_back(int64_t(a.col[p]) - i);
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    for (int64_t n = 0; n < d.ndiag; ++n) d.offset[n] = offsets[size_t(n)];
    for (int64_t i = 0; i < a.rows; ++i)
        for (int64_t p = a.row_ptr[i]; p < int64_t(a.row_ptr[i + 1]); ++p) {
            const int64_t k =
                std::lower_bound(offsets.begin(), offsets.end(), int64_t(a.col[p]) - i) -
                offsets.begin();
            d.val[k * d.stride + i] = a.val[p];
        }
    return d;
}

namespace {

// CSR from per-row entry lists produced by `emit(i, push)`, which calls push(col, val) in
// column order.
template <typename V, typename I, typename Emit>
Csr<V, I> gather_rows(int64_t rows, int64_t cols, int64_t nnz, Emit emit) {
    Csr<V, I> c;
    c.rows = rows;
    c.cols = cols;
    c.row_ptr = Array<I>(rows + 1);
    c.col = Array<I>(nnz);
    c.val = Array<V>(nnz);
    int64_t out = 0;
    c.row_ptr[0] = I(0);
    for (int64_t i = 0; i < rows; ++i) {
        emit(i, [&](int64_t j, V v) {
            c.col[out] = I(j);
            c.val[out] = v;
            ++out;
        });
        c.row_ptr[i + 1] = I(out);
    }
    return c;
}

} // namespace

template <typename V, typename I> Csr<V, I> coo_to_csr(const Coo<V, I> &a) {
    int64_t p = 0;
    return gather_rows<V, I>(a.rows, a.cols, a.nnz, [&](int64_t i, auto push) {
        for (; p < a.nnz && int64_t(a.row[p]) == i; ++p) push(a.col[p], a.val[p]);
    });
}

template <typename V, typename I> Csr<V, I> ell_to_csr(const Ell<V, I> &a) {
    int64_t nnz = 0;
    for (int64_t i = 0; i < a.rows; ++i) nnz += a.len[i];
    return gather_rows<V, I>(a.rows, a.cols, nnz, [&](int64_t i, auto push) {
        for (int64_t k = 0; k < int64_t(a.len[i]); ++k)
            push(a.col[k * a.stride + i], a.val[k * a.stride + i]);
    });
}

template <typename V, typename I> Csr<V, I> dia_to_csr(const Dia<V> &a) {
    int64_t nnz = 0;
    for (int64_t k = 0; k < a.slots(); ++k) nnz += a.val[k] != V(0);
    return gather_rows<V, I>(a.rows, a.cols, nnz, [&](int64_t i, auto push) {
        for (int64_t k = 0; k < a.ndiag; ++k) { // offsets ascend, so columns do
            int64_t j = i + a.offset[k];
            V v = a.val[k * a.stride + i];
            if (j >= 0 && j < a.cols && v != V(0)) push(j, v);
        }
    });
}

template <typename V, typename I> Csr<V, I> hyb_to_csr(const Hyb<V, I> &a) {
    int64_t nnz = a.tail.nnz;
    for (int64_t i = 0; i < a.ell.rows; ++i) nnz += a.ell.len[i];
    int64_t p = 0;
    return gather_rows<V, I>(a.ell.rows, a.ell.cols, nnz, [&](int64_t i, auto push) {
        for (int64_t k = 0; k < int64_t(a.ell.len[i]); ++k)
            push(a.ell.col[k * a.ell.stride + i], a.ell.val[k * a.ell.stride + i]);
        for (; p < a.tail.nnz && int64_t(a.tail.row[p]) == i; ++p)
            push(a.tail.col[p], a.tail.val[p]);
    });
}

#define TSR_CONVERT(V, I)                                                                          \
    template Coo<V, I> csr_to_coo<V, I>(const Csr<V, I> &);                                        \
    template Ell<V, I> csr_to_ell<V, I>(const Csr<V, I> &, int64_t);                               \
    template Dia<V> csr_to_dia<V, I>(const Csr<V, I> &, const Structure &);                        \
    template Hyb<V, I> csr_to_hyb<V, I>(const Csr<V, I> &, int64_t);                               \
    template Csr<V, I> coo_to_csr<V, I>(const Coo<V, I> &);                                        \
    template Csr<V, I> ell_to_csr<V, I>(const Ell<V, I> &);                                        \
    template Csr<V, I> dia_to_csr<V, I>(const Dia<V> &);                                           \
    template Csr<V, I> hyb_to_csr<V, I>(const Hyb<V, I> &);
TSR_CONVERT(float, int32_t)
TSR_CONVERT(float, int64_t)
TSR_CONVERT(double, int32_t)
TSR_CONVERT(double, int64_t)
#undef TSR_CONVERT

} // namespace tessera::sparse
