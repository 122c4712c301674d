// Visits the stored entries (i, j, value) of a matrix in the representation its plan uses:
// the plain-loop view of every format, for the reference backend and for checks.
#pragma once

#include <cstdint>

#include "sparse/storage.hpp"

namespace tessera::sparse {

// Calls f(i, j, v) for every entry the plan's format stores (DIA: every position of its
// diagonals inside the matrix whose value is not zero, as DIA's kernels skip its fill), row by
// row for CSR, COO, ELL and HYB.
template <typename V, typename I, typename F> void for_each_entry(const Typed<V, I> &t, F &&f) {
    switch (t.plan.format) {
    case TSR_FORMAT_COO:
        for (int64_t p = 0; p < t.coo.nnz; ++p)
            f(int64_t(t.coo.row[p]), int64_t(t.coo.col[p]), t.coo.val[p]);
        return;
    case TSR_FORMAT_ELL:
    case TSR_FORMAT_HYB: {
        const Ell<V, I> &e = t.plan.format == TSR_FORMAT_ELL ? t.ell : t.hyb.ell;
        for (int64_t i = 0; i < e.rows; ++i)
            for (int64_t k = 0; k < int64_t(e.len[i]); ++k)
                f(i, int64_t(e.col[k * e.stride + i]), e.val[k * e.stride + i]);
        if (t.plan.format == TSR_FORMAT_HYB)
            for (int64_t p = 0; p < t.hyb.tail.nnz; ++p)
                f(int64_t(t.hyb.tail.row[p]), int64_t(t.hyb.tail.col[p]), t.hyb.tail.val[p]);
        return;
    }
    case TSR_FORMAT_DIA:
        for (int64_t d = 0; d < t.dia.ndiag; ++d) {
            const int64_t off = t.dia.offset[d];
            const int64_t first = off < 0 ? -off : 0;
            const int64_t last = t.dia.rows < t.dia.cols - off ? t.dia.rows : t.dia.cols - off;
            for (int64_t i = first; i < last; ++i)
                if (const V v = t.dia.val[d * t.dia.stride + i]; v != V(0)) f(i, i + off, v);
        }
        return;
    default:
        for (int64_t i = 0; i < t.csr.rows; ++i)
            for (int64_t p = t.csr.row_ptr[i]; p < int64_t(t.csr.row_ptr[i + 1]); ++p)
                f(i, int64_t(t.csr.col[p]), t.csr.val[p]);
        return;
    }
}

} // namespace tessera::sparse
