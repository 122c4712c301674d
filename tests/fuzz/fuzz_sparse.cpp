// libFuzzer harness for the sparse API: bytes become CSR or COO arrays (valid, broken or huge),
// created, converted to every format and multiplied on the CPU backend against the reference,
// with vectors and with a block of columns (tsr_?spmm).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"
#include "tessera/tessera.h"

// Sizes no memory holds must come back as TSR_ERR_OUT_OF_MEMORY (or be refused), not end the
// process: let the sanitizer's allocator say "no" instead of reporting the request.
extern "C" const char *__asan_default_options() { return "allocator_may_return_null=1"; }
extern "C" const char *__ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

namespace tessera::fuzz {
namespace {

constexpr int64_t kMaxSide = 64;     // rows and columns of the matrices that are multiplied
constexpr int64_t kMaxEntries = 256; // entries of those
constexpr int64_t kHugeFrom = int64_t(1) << 40;

// Sizes far beyond any memory (a matrix that big is refused or fails as memory, cheaply).
constexpr int64_t kHuge[] = {int64_t(1) << 40, (int64_t(1) << 40) + 1, int64_t(1) << 48,
                             int64_t(1) << 60, (int64_t(1) << 60) + 1, (int64_t(1) << 61) - 1,
                             int64_t(1) << 61, int64_t(1) << 62,       INT64_MAX};
// Beyond 32-bit indices: used with TSR_INDEX_I32 only (with 64-bit indices they would be honest
// requests for gigabytes).
constexpr int64_t kBeyond32[] = {int64_t(INT32_MAX) + 1, int64_t(1) << 32, (int64_t(1) << 32) + 1};
constexpr int64_t kNegative[] = {-1, -2, -(int64_t(1) << 40), INT64_MIN};

// The arguments of one create call, before they are typed.
struct Case {
    bool coo = false;
    int dtype = TSR_F64, itype = TSR_INDEX_I64; // ints: some inputs carry values outside the enums
    int64_t rows = 0, cols = 0, nnz = 0;
    std::vector<int64_t> first; // CSR: row_ptr (rows + 1 of them); COO: row indices
    std::vector<int64_t> col;
    std::vector<double> val;
    bool null_first = false, null_col = false, null_val = false;
};

template <typename E, size_t N> E pick(FuzzedDataProvider &in, const E (&table)[N]) {
    return table[in.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

bool i32(const Case &c) { return c.itype == TSR_INDEX_I32; }

// An index that the index type can hold: out-of-range values for 32-bit arrays stay 32-bit.
int64_t bad_index(FuzzedDataProvider &in, const Case &c, int64_t limit) {
    const int64_t wide[] = {limit,     limit + 1, limit + 7, -1,        -limit - 1,
                            INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, int64_t(1) << 40};
    int64_t v = pick(in, wide);
    if (i32(c) && (v > INT32_MAX || v < INT32_MIN)) v = v > 0 ? INT32_MAX : INT32_MIN;
    return v;
}

// A well-formed small matrix: random or banded entries, duplicates and stored zeros included.
Case well_formed(FuzzedDataProvider &in) {
    Case c;
    c.coo = in.ConsumeBool();
    c.dtype = in.ConsumeBool() ? TSR_F64 : TSR_F32;
    c.itype = in.ConsumeBool() ? TSR_INDEX_I64 : TSR_INDEX_I32;
    c.rows = in.ConsumeIntegralInRange<int64_t>(0, kMaxSide);
    c.cols = in.ConsumeIntegralInRange<int64_t>(0, kMaxSide);
    const bool banded = in.ConsumeBool();
    int64_t count = in.ConsumeIntegralInRange<int64_t>(0, kMaxEntries);
    if (c.rows == 0 || c.cols == 0) count = 0;
    struct Entry {
        int64_t r, j;
        double v;
    };
    std::vector<Entry> entries;
    for (int64_t e = 0; e < count && in.remaining_bytes() > 0; ++e) {
        const int64_t r = in.ConsumeIntegralInRange<int64_t>(0, c.rows - 1);
        int64_t j = banded ? r + in.ConsumeIntegralInRange<int64_t>(-3, 3)
                           : in.ConsumeIntegralInRange<int64_t>(0, c.cols - 1);
        j = ((j % c.cols) + c.cols) % c.cols;
        const uint8_t kind = in.ConsumeIntegral<uint8_t>();
        double v = kind < 4 ? non_finite<double>(in) : kind < 24 ? 0.0 : small_value<double>(in);
        entries.push_back({r, j, v});
    }
    if (!c.coo) // CSR: entries grouped by row, in their drawn order inside a row
        std::stable_sort(entries.begin(), entries.end(),
                         [](const Entry &a, const Entry &b) { return a.r < b.r; });
    c.nnz = int64_t(entries.size());
    for (const Entry &e : entries) {
        if (c.coo) c.first.push_back(e.r);
        c.col.push_back(e.j);
        c.val.push_back(e.v);
    }
    if (!c.coo) {
        c.first.assign(size_t(c.rows + 1), 0);
        for (const Entry &e : entries) ++c.first[size_t(e.r + 1)];
        for (int64_t i = 0; i < c.rows; ++i) c.first[size_t(i + 1)] += c.first[size_t(i)];
    }
    return c;
}

// Declared nnz different from the arrays: the arrays grow (with valid entries) so that the
// library may read as many as it was told.
void declare_nnz(Case &c, int64_t nnz) {
    c.nnz = nnz;
    if (nnz > int64_t(c.col.size())) {
        if (c.coo) c.first.resize(size_t(nnz), 0);
        c.col.resize(size_t(nnz), 0);
        c.val.resize(size_t(nnz), 1.0);
    }
}

// One fault (or a huge size) applied to a well-formed case; `mode` says which.
void spoil(FuzzedDataProvider &in, Case &c, int mode) {
    const int64_t len = int64_t(c.col.size());
    switch (mode) {
    case 0: { // huge rows, cols or nnz; NULL arrays where they could not be allocated
        const bool small_table = i32(c) && in.ConsumeBool();
        auto huge = [&] { return small_table ? pick(in, kBeyond32) : pick(in, kHuge); };
        switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: // rows: CSR needs rows + 1 pointers, so row_ptr is NULL and nnz 0
            c.rows = huge();
            if (!c.coo || in.ConsumeBool()) {
                c.null_first = c.null_col = c.null_val = true;
                c.nnz = 0;
            }
            break;
        case 1: c.cols = huge(); break;
        case 2:
            c.rows = huge();
            c.cols = huge();
            c.null_first = c.null_col = c.null_val = true;
            c.nnz = 0;
            break;
        default: // nnz beyond the arrays, which are NULL: refused
            c.nnz = huge();
            c.null_first = c.null_col = c.null_val = true;
        }
        return;
    }
    case 1: { // a negative size
        const int64_t v = pick(in, kNegative);
        switch (in.ConsumeIntegralInRange<int>(0, 2)) {
        case 0: c.rows = v; break;
        case 1: c.cols = v; break;
        default: c.nnz = v;
        }
        return;
    }
    case 2: // a column outside [0, cols)
        if (len > 0) {
            const size_t p = in.ConsumeIntegralInRange<size_t>(0, size_t(len - 1));
            c.col[p] = bad_index(in, c, c.cols);
        }
        return;
    case 3: // CSR: row_ptr not monotone; COO: a row outside [0, rows)
        if (c.coo) {
            if (len > 0) {
                const size_t p = in.ConsumeIntegralInRange<size_t>(0, size_t(len - 1));
                c.first[p] = bad_index(in, c, c.rows);
            }
        } else if (c.rows >= 1) {
            const size_t i = in.ConsumeIntegralInRange<size_t>(1, size_t(c.rows));
            const int64_t d = in.ConsumeIntegralInRange<int64_t>(1, 3);
            c.first[i] = in.ConsumeBool() ? c.first[i - 1] - d : c.first[i] + d;
            if (i < size_t(c.rows) && in.ConsumeBool()) std::swap(c.first[i], c.first[i + 1]);
        }
        return;
    case 4: // row_ptr[0] != 0, row_ptr[rows] != nnz, or a declared nnz other than the arrays'
        if (!c.coo && in.ConsumeBool()) {
            const int64_t d = in.ConsumeIntegralInRange<int64_t>(-2, 2);
            if (in.ConsumeBool()) c.first.front() += d;
            else c.first.back() += d;
        } else {
            declare_nnz(c, std::max<int64_t>(0, len + in.ConsumeIntegralInRange<int64_t>(-3, 3)));
        }
        return;
    default: // a NULL array, or a dtype or index type outside its enum
        switch (in.ConsumeIntegralInRange<int>(0, 4)) {
        case 0: c.null_first = true; break;
        case 1: c.null_col = true; break;
        case 2: c.null_val = true; break;
        case 3: c.dtype = pick(in, {-1, 2, 7, 1 << 30}); break;
        default: c.itype = pick(in, {-1, 2, 9, 1 << 30});
        }
    }
}

// The documented rules of tsr_sparse_create_csr / _coo, written out independently.
bool valid(const Case &c) {
    if (c.dtype != TSR_F32 && c.dtype != TSR_F64) return false;
    if (c.itype != TSR_INDEX_I32 && c.itype != TSR_INDEX_I64) return false;
    if (c.rows < 0 || c.cols < 0 || c.nnz < 0) return false;
    if (i32(c) && (c.rows > INT32_MAX || c.cols > INT32_MAX || c.nnz > INT32_MAX)) return false;
    if (c.nnz > 0 && (c.null_first || c.null_col || c.null_val)) return false;
    if (!c.coo && !c.null_first) {
        if (c.first[0] != 0 || c.first[size_t(c.rows)] != c.nnz) return false;
        for (int64_t i = 0; i < c.rows; ++i)
            if (c.first[size_t(i + 1)] < c.first[size_t(i)]) return false;
    }
    for (int64_t p = 0; p < c.nnz; ++p) {
        if (c.col[size_t(p)] < 0 || c.col[size_t(p)] >= c.cols) return false;
        if (c.coo && (c.first[size_t(p)] < 0 || c.first[size_t(p)] >= c.rows)) return false;
    }
    return true;
}

bool huge(const Case &c) {
    return c.rows >= kHugeFrom || c.cols >= kHugeFrom || c.nnz >= kHugeFrom;
}

// The arrays in the types the call names (garbage types keep 64-bit arrays: never read).
template <typename I, typename V> struct Typed {
    std::vector<I> first, col;
    std::vector<V> val;
    const void *first_ptr = nullptr, *col_ptr = nullptr, *val_ptr = nullptr;

    explicit Typed(const Case &c)
        : first(c.first.begin(), c.first.end()), col(c.col.begin(), c.col.end()),
          val(c.val.begin(), c.val.end()) {
        first_ptr = c.null_first ? nullptr : first.data();
        col_ptr = c.null_col ? nullptr : col.data();
        val_ptr = c.null_val ? nullptr : val.data();
    }
    int64_t first_at(size_t i) const { return int64_t(first[i]); }
};

template <typename I, typename V>
tsr_status create(tsr_handle h, const Case &c, const Typed<I, V> &t, tsr_sparse *m) {
    return c.coo ? tsr_sparse_create_coo(h, m, tsr_dtype(c.dtype), tsr_index_type(c.itype), c.rows,
                                         c.cols, c.nnz, t.first_ptr, t.col_ptr, t.val_ptr)
                 : tsr_sparse_create_csr(h, m, tsr_dtype(c.dtype), tsr_index_type(c.itype), c.rows,
                                         c.cols, c.nnz, t.first_ptr, t.col_ptr, t.val_ptr);
}

struct Handles {
    tsr_handle cpu[2] = {}; // one thread, two threads
    tsr_handle ref = nullptr;
    Handles() {
        for (int t = 0; t < 2; ++t)
            if (tsr_create(&cpu[t]) != TSR_SUCCESS ||
                tsr_set_backend(cpu[t], TSR_BACKEND_CPU) != TSR_SUCCESS ||
                tsr_set_num_threads(cpu[t], t + 1) != TSR_SUCCESS)
                broken("cannot make a CPU handle: %s", tsr_last_error());
        if (tsr_create(&ref) != TSR_SUCCESS ||
            tsr_set_backend(ref, TSR_BACKEND_REFERENCE) != TSR_SUCCESS)
            broken("cannot make a reference handle: %s", tsr_last_error());
    }
};

Handles &handles() {
    static Handles h;
    return h;
}

const char *format_label(tsr_format f) {
    switch (f) {
    case TSR_FORMAT_AUTO: return "AUTO";
    case TSR_FORMAT_CSR: return "CSR";
    case TSR_FORMAT_COO: return "COO";
    case TSR_FORMAT_ELL: return "ELL";
    case TSR_FORMAT_DIA: return "DIA";
    case TSR_FORMAT_HYB: return "HYB";
    }
    return "?";
}

constexpr tsr_format kFormats[] = {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL,
                                   TSR_FORMAT_DIA, TSR_FORMAT_HYB, TSR_FORMAT_AUTO};

// One product's inputs and its long double oracle: value, bound and class for every output.
template <typename T> struct Product {
    tsr_op op = TSR_OP_N;
    T alpha = 0, beta = 0;
    std::vector<T> x, y0;
    const T *x_ptr = nullptr;
    std::vector<long double> want, bound;
    std::vector<Class> want_class;
};

// A product with its oracle; `scalars` (for the columns of a block product) gives alpha and beta.
template <typename T, typename I, typename V>
Product<T> make_product(FuzzedDataProvider &in, const Case &c, const Typed<I, V> &t, tsr_op op,
                        const Product<T> *scalars = nullptr) {
    Product<T> p;
    p.op = op;
    const bool trans = op != TSR_OP_N;
    const int64_t n_in = trans ? c.rows : c.cols, n_out = trans ? c.cols : c.rows;
    p.alpha = scalars ? scalars->alpha : scale<T>(in);
    p.beta = scalars ? scalars->beta : scale<T>(in);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    p.x.resize(size_t(n_in));
    for (T &v : p.x) v = p.alpha == T(0) ? nan : small_value<T>(in); // alpha == 0: x is not read
    if (p.alpha != T(0) && n_in > 0 && in.ConsumeIntegralInRange<int>(0, 3) == 0)
        for (int k = in.ConsumeIntegralInRange<int>(1, 2); k > 0; --k) {
            const size_t i = in.ConsumeIntegralInRange<size_t>(0, size_t(n_in - 1));
            p.x[i] = non_finite<T>(in);
        }
    p.y0.resize(size_t(n_out));
    for (T &v : p.y0) v = p.beta == T(0) ? nan : small_value<T>(in); // beta == 0: y is not read
    p.x_ptr = p.alpha == T(0) && in.ConsumeBool() ? nullptr : p.x.data();

    // The matrix the library holds: duplicates summed (in T, exactly for finite grid values;
    // Inf + -Inf is NaN in any order), then y = alpha·op(A)·x + beta·y0 from its entries.
    std::map<std::pair<int64_t, int64_t>, T> a;
    if (p.alpha != T(0)) {
        if (c.coo)
            for (int64_t e = 0; e < c.nnz; ++e)
                a[{t.first_at(size_t(e)), int64_t(t.col[size_t(e)])}] += T(t.val[size_t(e)]);
        else
            for (int64_t i = 0; i < c.rows; ++i)
                for (int64_t e = t.first_at(size_t(i)); e < t.first_at(size_t(i + 1)); ++e)
                    a[{i, int64_t(t.col[size_t(e)])}] += T(t.val[size_t(e)]);
    }
    std::vector<long double> sum(size_t(n_out), 0), mag(size_t(n_out), 0);
    std::vector<int64_t> terms(size_t(n_out), 0);
    for (const auto &[ij, v] : a) {
        const int64_t o = trans ? ij.second : ij.first, k = trans ? ij.first : ij.second;
        const long double prod = (long double)v * (long double)p.x[size_t(k)];
        sum[size_t(o)] += prod;
        mag[size_t(o)] += std::fabs(prod);
        ++terms[size_t(o)];
    }
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    p.want.resize(size_t(n_out));
    p.bound.resize(size_t(n_out));
    p.want_class.resize(size_t(n_out));
    for (int64_t o = 0; o < n_out; ++o) {
        long double w = p.alpha != T(0) ? (long double)p.alpha * sum[size_t(o)] : 0.0L;
        long double b = std::fabs((long double)p.alpha) * mag[size_t(o)];
        if (p.beta != T(0)) {
            w += (long double)p.beta * (long double)p.y0[size_t(o)];
            b += std::fabs((long double)p.beta * (long double)p.y0[size_t(o)]);
        }
        if (p.alpha == T(0) && p.beta == T(1)) w = p.y0[size_t(o)]; // quick return: y untouched
        p.want[size_t(o)] = w;
        p.want_class[size_t(o)] = class_of(w);
        p.bound[size_t(o)] = 2.0L * (long double)(terms[size_t(o)] + 3) * u * b +
                             (long double)std::numeric_limits<T>::denorm_min();
    }
    return p;
}

template <typename T>
tsr_status spmv(tsr_handle h, tsr_op op, T alpha, tsr_sparse A, const T *x, T beta, T *y) {
    if constexpr (sizeof(T) == 4) return tsr_sspmv(h, op, alpha, A, x, beta, y);
    else return tsr_dspmv(h, op, alpha, A, x, beta, y);
}

// y against the oracle of `p` (class, then bound) and, when given, against another backend's
// result (class, then twice the bound: both carry rounding errors).
template <typename T>
void check_y(const std::vector<T> &y, const Product<T> &p, const std::vector<T> *other,
             const char *who, char op, tsr_format format) {
    for (size_t o = 0; o < y.size(); ++o) {
        const Class got = class_of(y[o]);
        if (got != p.want_class[o])
            broken("%s spmv op %c on %s (alpha %g, beta %g): y[%zu] = %g is %s, the oracle's %Lg "
                   "is %s",
                   who, op, format_label(format), double(p.alpha), double(p.beta), o, double(y[o]),
                   class_name(got), p.want[o], class_name(p.want_class[o]));
        if (other && got != class_of((*other)[o]))
            broken("%s spmv op %c on %s: y[%zu] = %g but the reference gives %g", who, op,
                   format_label(format), o, double(y[o]), double((*other)[o]));
        if (got != Class::finite) continue;
        const long double err = std::fabs((long double)y[o] - p.want[o]);
        if (err > p.bound[o])
            broken("%s spmv op %c on %s (alpha %g, beta %g): y[%zu] = %.9g, oracle %.9Lg, error "
                   "%Lg > bound %Lg",
                   who, op, format_label(format), double(p.alpha), double(p.beta), o, double(y[o]),
                   p.want[o], err, p.bound[o]);
        if (other && std::fabs((long double)y[o] - (long double)(*other)[o]) > 2 * p.bound[o])
            broken("%s spmv op %c on %s: y[%zu] = %.9g, reference %.9g, beyond twice the bound %Lg",
                   who, op, format_label(format), o, double(y[o]), double((*other)[o]), p.bound[o]);
    }
}

// Runs the product on `h` and checks it (check_y).
template <typename T>
std::vector<T> run_checked(tsr_handle h, tsr_sparse A, const Product<T> &p,
                           const std::vector<T> *other, const char *who, tsr_format format) {
    std::vector<T> y = p.y0;
    const std::vector<T> x_before = p.x;
    const char op = p.op == TSR_OP_N ? 'N' : p.op == TSR_OP_T ? 'T' : 'C';
    if (trace())
        std::fprintf(stderr, "  %s spmv op %c on %s, alpha %g, beta %g\n", who, op,
                     format_label(format), double(p.alpha), double(p.beta));
    const tsr_status s = spmv<T>(h, p.op, p.alpha, A, p.x_ptr, p.beta, y.data());
    if (s != TSR_SUCCESS)
        broken("%s spmv op %c on %s: status %s: %s", who, op, format_label(format),
               tsr_status_string(s), tsr_last_error());
    if (!same_bytes(x_before, p.x))
        broken("%s spmv op %c on %s wrote to x", who, op, format_label(format));
    check_y(y, p, other, who, op, format);
    return y;
}

// A block product Y = alpha·op(A)·X + beta·Y of 1 to 5 columns, each column a product of its
// own with the first one's alpha and beta, in one tsr_?spmm on `h`, row- or column-major with
// padded leading dimensions: every column checked as a vector is (check_y), the padding of Y
// left as it was (a sentinel) and that of X never read (NaN).
template <typename T, typename I, typename V>
void block_product(FuzzedDataProvider &in, const Case &c, const Typed<I, V> &t, tsr_sparse A,
                   tsr_handle h, tsr_format format) {
    const tsr_op op = in.ConsumeBool() ? TSR_OP_N : TSR_OP_T;
    const int64_t k = in.ConsumeIntegralInRange<int64_t>(1, 5);
    const bool row_major = in.ConsumeBool();
    const int64_t pad = in.ConsumeIntegralInRange<int64_t>(0, 2);
    std::vector<Product<T>> cols;
    cols.push_back(make_product<T>(in, c, t, op));
    for (int64_t j = 1; j < k; ++j) cols.push_back(make_product<T>(in, c, t, op, &cols[0]));
    const bool trans = op != TSR_OP_N;
    const int64_t n_in = trans ? c.rows : c.cols, n_out = trans ? c.cols : c.rows;
    const int64_t ldx = (row_major ? k : std::max<int64_t>(1, n_in)) + pad;
    const int64_t ldy = (row_major ? k : std::max<int64_t>(1, n_out)) + pad;
    auto at = [&](int64_t i, int64_t j, int64_t ld) {
        return size_t(row_major ? i * ld + j : i + j * ld);
    };
    const T sentinel = T(-7.25);
    std::vector<T> X(size_t(row_major ? n_in * ldx : k * ldx), std::numeric_limits<T>::quiet_NaN());
    std::vector<T> Y(size_t(row_major ? n_out * ldy : k * ldy), sentinel);
    for (int64_t j = 0; j < k; ++j) {
        for (int64_t i = 0; i < n_in; ++i) X[at(i, j, ldx)] = cols[size_t(j)].x[size_t(i)];
        for (int64_t i = 0; i < n_out; ++i) Y[at(i, j, ldy)] = cols[size_t(j)].y0[size_t(i)];
    }
    std::vector<bool> inside(Y.size(), false);
    for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < n_out; ++i) inside[at(i, j, ldy)] = true;
    const T alpha = cols[0].alpha, beta = cols[0].beta;
    const T *x = cols[0].x_ptr ? X.data() : nullptr; // NULL only where alpha == 0
    const tsr_layout layout = row_major ? TSR_ROW_MAJOR : TSR_COL_MAJOR;
    tsr_status s;
    if constexpr (sizeof(T) == 4)
        s = tsr_sspmm(h, layout, op, k, alpha, A, x, ldx, beta, Y.data(), ldy);
    else s = tsr_dspmm(h, layout, op, k, alpha, A, x, ldx, beta, Y.data(), ldy);
    if (s != TSR_SUCCESS)
        broken("spmm k %lld op %c on %s: status %s: %s", (long long)k, trans ? 'T' : 'N',
               format_label(format), tsr_status_string(s), tsr_last_error());
    for (size_t e = 0; e < Y.size(); ++e)
        if (!inside[e] && !same_bytes(std::vector<T>{Y[e]}, std::vector<T>{sentinel}))
            broken("spmm k %lld on %s wrote the padding of Y (element %zu)", (long long)k,
                   format_label(format), e);
    for (int64_t j = 0; j < k; ++j) {
        std::vector<T> y(static_cast<size_t>(n_out));
        for (int64_t i = 0; i < n_out; ++i) y[size_t(i)] = Y[at(i, j, ldy)];
        check_y<T>(y, cols[size_t(j)], nullptr, row_major ? "cpu spmm (row-major)" : "cpu spmm",
                   trans ? 'T' : 'N', format);
    }
}

// Every format on the CPU backend (and the reference backend over the same converted storage),
// op N and T, against the reference backend on the matrix as created.
template <typename T, typename I>
void products(FuzzedDataProvider &in, const Case &c, const Typed<I, T> &t, tsr_sparse A,
              tsr_sparse A_ref) {
    Handles &hs = handles();
    tsr_handle cpu = hs.cpu[in.ConsumeBool() ? 1 : 0];
    std::array<Product<T>, 2> prods = {
        make_product<T>(in, c, t, TSR_OP_N),
        make_product<T>(in, c, t, in.ConsumeBool() ? TSR_OP_T : TSR_OP_C)};
    std::array<std::vector<T>, 2> ref;
    for (size_t k = 0; k < 2; ++k)
        ref[k] = run_checked<T>(hs.ref, A_ref, prods[k], nullptr, "reference", TSR_FORMAT_CSR);

    const size_t start = in.ConsumeIntegralInRange<size_t>(0, std::size(kFormats) - 1);
    for (size_t f = 0; f < std::size(kFormats); ++f) {
        const tsr_format format = kFormats[(start + f) % std::size(kFormats)];
        tsr_format before = TSR_FORMAT_AUTO, after = TSR_FORMAT_AUTO;
        if (tsr_sparse_get_format(A, &before) != TSR_SUCCESS)
            broken("get_format: %s", tsr_last_error());
        const tsr_status s = tsr_sparse_optimize(cpu, A, format);
        if (tsr_sparse_get_format(A, &after) != TSR_SUCCESS)
            broken("get_format: %s", tsr_last_error());
        if (s == TSR_ERR_NOT_SUPPORTED && (format == TSR_FORMAT_ELL || format == TSR_FORMAT_DIA)) {
            if (after != before)
                broken("optimize to %s was refused but the format went from %s to %s",
                       format_label(format), format_label(before), format_label(after));
        } else if (s != TSR_SUCCESS) {
            broken("optimize to %s: status %s: %s", format_label(format), tsr_status_string(s),
                   tsr_last_error());
        } else if (format == TSR_FORMAT_AUTO ? after == TSR_FORMAT_AUTO : after != format) {
            broken("optimize to %s left the matrix in %s", format_label(format),
                   format_label(after));
        }
        for (size_t k = 0; k < 2; ++k) {
            run_checked<T>(cpu, A, prods[k], &ref[k], "cpu", after);
            run_checked<T>(hs.ref, A, prods[k], &ref[k], "reference (converted)", after);
        }
    }

    tsr_format last = TSR_FORMAT_CSR;
    tsr_sparse_get_format(A, &last);
    block_product<T>(in, c, t, A, cpu, last);

    // Refusals leave y alone: an op outside the enum, the other precision's entry point.
    std::vector<T> y = prods[0].y0;
    std::vector<T> y_before = y;
    if (spmv<T>(cpu, tsr_op(110), T(1), A, prods[0].x.data(), T(0), y.data()) !=
        TSR_ERR_INVALID_ARGUMENT)
        broken("spmv with op 110 was not refused");
    using Other = std::conditional_t<sizeof(T) == 4, double, float>;
    std::vector<Other> xo(prods[0].x.begin(), prods[0].x.end()), yo(y.begin(), y.end());
    const std::vector<Other> yo_before = yo;
    if (spmv<Other>(cpu, TSR_OP_N, Other(1), A, xo.data(), Other(0), yo.data()) !=
        TSR_ERR_INVALID_ARGUMENT)
        broken("spmv of the other precision was not refused");
    if (!same_bytes(y, y_before) || !same_bytes(yo, yo_before)) broken("a refused spmv wrote y");
}

template <typename I, typename V> void run_case(FuzzedDataProvider &in, const Case &c) {
    const Typed<I, V> t(c);
    Handles &hs = handles();
    if (trace()) {
        std::fprintf(
            stderr, "create_%s(dtype %d, itype %d, rows %lld, cols %lld, nnz %lld, arrays%s%s%s)\n",
            c.coo ? "coo" : "csr", c.dtype, c.itype, (long long)c.rows, (long long)c.cols,
            (long long)c.nnz, c.null_first ? " first=NULL" : "", c.null_col ? " col=NULL" : "",
            c.null_val ? " val=NULL" : "");
        for (size_t p = 0; p < c.first.size() && p < 300; ++p)
            std::fprintf(stderr, " %lld", (long long)c.first[p]);
        std::fputs(c.coo ? "  (rows)\n" : "  (row_ptr)\n", stderr);
        for (size_t p = 0; p < c.col.size() && p < 300; ++p)
            std::fprintf(stderr, " %lld:%g", (long long)c.col[p], c.val[p]);
        std::fputs("  (col:value)\n", stderr);
    }
    tsr_sparse poison = reinterpret_cast<tsr_sparse>(uintptr_t(0x7e55e7a));
    tsr_sparse A = poison;
    const tsr_status s = create(hs.cpu[0], c, t, &A);
    const bool ok = valid(c);
    const char *door = c.coo ? "coo" : "csr";
    if (!ok) {
        if (s != TSR_ERR_INVALID_ARGUMENT)
            broken("create_%s(rows %lld, cols %lld, nnz %lld, dtype %d, itype %d) of invalid "
                   "arrays: status %s",
                   door, (long long)c.rows, (long long)c.cols, (long long)c.nnz, c.dtype, c.itype,
                   tsr_status_string(s));
        if (A != poison) broken("a refused create_%s wrote *matrix", door);
        if (std::string_view(tsr_last_error()).empty())
            broken("a refused create_%s left no message", door);
        return;
    }
    if (huge(c)) { // refused as too big, failed as memory, or made cheaply
        if (s != TSR_SUCCESS && s != TSR_ERR_OUT_OF_MEMORY && s != TSR_ERR_INVALID_ARGUMENT)
            broken("create_%s(rows %lld, cols %lld, nnz %lld): status %s: %s", door,
                   (long long)c.rows, (long long)c.cols, (long long)c.nnz, tsr_status_string(s),
                   tsr_last_error());
        if (s != TSR_SUCCESS) {
            if (A != poison) broken("a failed create_%s wrote *matrix", door);
            return;
        }
        // A few rows and a vast number of columns: every format must stay as cheap as the entries.
        if (c.rows <= kMaxSide)
            for (tsr_format f : kFormats) {
                const tsr_status o = tsr_sparse_optimize(hs.cpu[0], A, f);
                if (o != TSR_SUCCESS && o != TSR_ERR_NOT_SUPPORTED && o != TSR_ERR_OUT_OF_MEMORY)
                    broken("optimize to %s of a %lld x %lld matrix: status %s: %s", format_label(f),
                           (long long)c.rows, (long long)c.cols, tsr_status_string(o),
                           tsr_last_error());
            }
        tsr_sparse_destroy(A);
        return;
    }
    if (s != TSR_SUCCESS)
        broken("create_%s(rows %lld, cols %lld, nnz %lld) of valid arrays: status %s: %s", door,
               (long long)c.rows, (long long)c.cols, (long long)c.nnz, tsr_status_string(s),
               tsr_last_error());
    tsr_sparse A_ref = poison;
    if (create(hs.ref, c, t, &A_ref) != TSR_SUCCESS)
        broken("the second create failed: %s", tsr_last_error());
    products<V, I>(in, c, t, A, A_ref);
    tsr_sparse_destroy(A);
    tsr_sparse_destroy(A_ref);
}

} // namespace
} // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace tessera::fuzz;
    FuzzedDataProvider in(data, size);
    const int mode = in.ConsumeIntegralInRange<int>(0, 15); // 0-9: well formed; 10-15: one fault
    Case c = well_formed(in);
    if (mode >= 10) spoil(in, c, mode - 10);
    const bool f64 = c.dtype != TSR_F32, wide = c.itype != TSR_INDEX_I32;
    if (f64 && wide) run_case<int64_t, double>(in, c);
    else if (f64) run_case<int32_t, double>(in, c);
    else if (wide) run_case<int64_t, float>(in, c);
    else run_case<int32_t, float>(in, c);
    return 0;
}
