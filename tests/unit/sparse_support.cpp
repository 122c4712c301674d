// The sparse test helpers: both create doors from one entry list, random vectors with NaN
// where nothing may be read, and the long double oracle with its per-row bound.
#include "sparse_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>

namespace tessera::test {

Entries empty_matrix(int64_t rows, int64_t cols) {
    Entries e;
    e.name = "empty-" + std::to_string(rows) + "x" + std::to_string(cols);
    e.rows = rows;
    e.cols = cols;
    return e;
}

Entries from_csr(const bench::CsrMatrix &m) {
    Entries e;
    e.name = m.name;
    e.rows = m.rows;
    e.cols = m.cols;
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t p = m.row_ptr[size_t(i)]; p < m.row_ptr[size_t(i) + 1]; ++p) {
            e.row.push_back(i);
            e.col.push_back(m.col[size_t(p)]);
            e.val.push_back(m.val[size_t(p)]);
        }
    return e;
}

Entries from_coo(const bench::CooMatrix &m) {
    Entries e;
    e.rows = m.rows;
    e.cols = m.cols;
    e.row = m.row;
    e.col = m.col;
    e.val = m.val;
    return e;
}

const char *door_name(Door d) { return d == Door::csr ? "csr" : "coo"; }

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

namespace {

template <typename T, typename I>
tsr_status create_typed(tsr_handle h, const Entries &e, tsr_index_type itype, Door door,
                        tsr_sparse *A) {
    constexpr tsr_dtype dtype = sizeof(T) == 4 ? TSR_F32 : TSR_F64;
    std::vector<T> val(e.val.begin(), e.val.end());
    std::vector<I> col(e.col.begin(), e.col.end());
    if (door == Door::coo) {
        std::vector<I> row(e.row.begin(), e.row.end());
        return tsr_sparse_create_coo(h, A, dtype, itype, e.rows, e.cols, e.nnz(), row.data(),
                                     col.data(), val.data());
    }
    // Group by row (stable: the order inside a row is the entries' order).
    std::vector<I> row_ptr(size_t(e.rows) + 1, 0);
    for (int64_t r : e.row) ++row_ptr[size_t(r) + 1];
    for (int64_t i = 0; i < e.rows; ++i) row_ptr[size_t(i) + 1] += row_ptr[size_t(i)];
    std::vector<I> next(row_ptr.begin(), row_ptr.end() - 1);
    std::vector<I> grouped_col(col.size());
    std::vector<T> grouped_val(val.size());
    for (size_t k = 0; k < val.size(); ++k) {
        I p = next[size_t(e.row[k])]++;
        grouped_col[size_t(p)] = col[k];
        grouped_val[size_t(p)] = val[k];
    }
    return tsr_sparse_create_csr(h, A, dtype, itype, e.rows, e.cols, e.nnz(), row_ptr.data(),
                                 grouped_col.data(), grouped_val.data());
}

} // namespace

template <typename T>
tsr_status create_matrix(tsr_handle h, const Entries &e, tsr_index_type itype, Door door,
                         tsr_sparse *A) {
    return itype == TSR_INDEX_I32 ? create_typed<T, int32_t>(h, e, itype, door, A)
                                  : create_typed<T, int64_t>(h, e, itype, door, A);
}

std::string describe(const ProductCase &c) {
    char text[128];
    std::snprintf(text, sizeof text, "op=%s alpha=%g beta=%g TESSERA_TEST_SEED=%llu",
                  c.op == TSR_OP_N   ? "N"
                  : c.op == TSR_OP_T ? "T"
                                     : "C",
                  c.alpha, c.beta, static_cast<unsigned long long>(base_seed()));
    return text;
}

std::vector<ProductCase> standard_cases(tsr_op op) {
    return {{op, 1, 0}, {op, -1, 1}, {op, 0.5, -2}, {op, 0, 0.5}, {op, 0, 0}};
}

// op(A)·x summed over the stored entries in long double, with values rounded to T: per output,
// the sum, the sum of magnitudes and the number of terms.
struct OracleSums {
    std::vector<long double> ref, mag;
    std::vector<int64_t> terms;
};

template <typename T>
OracleSums oracle_sums(const Entries &e, bool trans, const std::vector<T> &x, bool read) {
    const int64_t out = trans ? e.cols : e.rows;
    OracleSums s{std::vector<long double>(size_t(out), 0.0L),
                 std::vector<long double>(size_t(out), 0.0L), std::vector<int64_t>(size_t(out), 0)};
    if (read)
        for (int64_t k = 0; k < e.nnz(); ++k) {
            const int64_t o = trans ? e.col[size_t(k)] : e.row[size_t(k)];
            const int64_t i = trans ? e.row[size_t(k)] : e.col[size_t(k)];
            const long double p = (long double)T(e.val[size_t(k)]) * (long double)x[size_t(i)];
            s.ref[size_t(o)] += p;
            s.mag[size_t(o)] += std::fabs(p);
            ++s.terms[size_t(o)];
        }
    return s;
}

template <typename T>
::testing::AssertionResult check_product(tsr_handle h, tsr_sparse A, const Entries &e,
                                         const ProductCase &c, uint64_t seed,
                                         const ProductRunner<T> &run) {
    const bool trans = c.op != TSR_OP_N;
    const int64_t in = trans ? e.rows : e.cols, out = trans ? e.cols : e.rows;
    std::mt19937_64 rng = rng_for(test_label() + "/" + std::to_string(seed));
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    std::vector<T> x(size_t(std::max<int64_t>(in, 1))), y(size_t(std::max<int64_t>(out, 1)));
    for (T &v : x) v = c.alpha == 0 ? nan : T(uniform(rng));
    for (T &v : y) v = c.beta == 0 ? nan : T(uniform(rng));
    const std::vector<T> y0 = y;
    const T alpha = T(c.alpha), beta = T(c.beta);

    tsr_status s;
    if (run) s = run(h, c.op, alpha, A, x, beta, y);
    else if constexpr (sizeof(T) == 4) s = tsr_sspmv(h, c.op, alpha, A, x.data(), beta, y.data());
    else s = tsr_dspmv(h, c.op, alpha, A, x.data(), beta, y.data());
    if (s != TSR_SUCCESS)
        return ::testing::AssertionFailure()
               << describe(c) << ": status " << tsr_status_string(s) << ": " << tsr_last_error();

    // The oracle, from the entries with their values rounded to T.
    const OracleSums sums = oracle_sums(e, trans, x, c.alpha != 0);
    const auto &ref = sums.ref, &mag = sums.mag;
    const auto &terms = sums.terms;
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    for (int64_t o = 0; o < out; ++o) {
        long double expect = (long double)alpha * ref[size_t(o)];
        long double bound_mag = std::fabs((long double)alpha) * mag[size_t(o)];
        if (c.beta != 0) {
            expect += (long double)beta * (long double)y0[size_t(o)];
            bound_mag += std::fabs((long double)beta * (long double)y0[size_t(o)]);
        }
        const long double bound = 2.0L * (long double)(terms[size_t(o)] + 3) * u * bound_mag +
                                  (long double)std::numeric_limits<T>::denorm_min();
        const long double got = y[size_t(o)];
        if (std::isnan((double)got) || std::fabs(got - expect) > bound)
            return ::testing::AssertionFailure()
                   << describe(c) << ": y[" << o << "] = " << (double)got << ", expected "
                   << (double)expect << " (bound " << (double)bound << ", " << terms[size_t(o)]
                   << " terms)";
    }
    return ::testing::AssertionSuccess();
}

// The 6 x 6 case: row 0 = {0, 1, 2} (A(0,0..2) = 1, 1, 1), rows 1..5 diagonal. DIA stores
// diagonals +1 and +2 padded with zeros on rows 1..5; multiplying that fill by x = NaN, Inf
// once turned finite outputs into NaN.
Entries row_and_diagonal() {
    Entries e;
    e.name = "row0-and-diagonal";
    e.rows = e.cols = 6;
    auto add = [&](int64_t i, int64_t j, double v) {
        e.row.push_back(i), e.col.push_back(j), e.val.push_back(v);
    };
    add(0, 0, 1), add(0, 1, 1), add(0, 2, 1);
    for (int64_t i = 1; i < 6; ++i) add(i, i, 1);
    return e;
}

// A banded random matrix with a few rows emptied and some long rows (DIA, ELL and HYB all
// pad it), and x holding NaN, +Inf and -Inf at random places.
Entries padded_band(std::mt19937_64 &rng) {
    Entries e;
    e.name = "banded";
    e.rows = 97, e.cols = 89;
    std::uniform_real_distribution<double> u(-1, 1);
    std::bernoulli_distribution keep(0.6);
    for (int64_t i = 0; i < e.rows; ++i) {
        if (i % 11 == 5) continue;
        const int64_t reach = i % 13 == 0 ? 8 : 3;
        for (int64_t j = std::max<int64_t>(0, i - reach); j < std::min<int64_t>(e.cols, i + reach);
             ++j)
            if (keep(rng)) e.row.push_back(i), e.col.push_back(j), e.val.push_back(u(rng));
    }
    return e;
}

template <typename T>
std::vector<T> nonfinite_x(const Entries &e, tsr_op op, std::mt19937_64 &rng) {
    const int64_t in = op == TSR_OP_N ? e.cols : e.rows;
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    if (e.name == "row-and-diagonal" && in == 6) return {T(1), T(2), T(3), nan, inf, T(6)};
    std::vector<T> x(static_cast<size_t>(in));
    std::uniform_real_distribution<double> u(-1, 1);
    for (T &v : x) v = T(u(rng));
    std::uniform_int_distribution<int64_t> at(0, in - 1);
    for (T bad : {nan, inf, -inf, nan}) x[size_t(at(rng))] = bad;
    return x;
}

template <typename T>
::testing::AssertionResult check_nonfinite_x(tsr_handle h, tsr_sparse A, const Entries &e,
                                             tsr_op op, const std::vector<T> &x,
                                             const ProductRunner<T> &run) {
    const bool trans = op != TSR_OP_N;
    const int64_t out = trans ? e.cols : e.rows;
    std::vector<T> y(size_t(std::max<int64_t>(out, 1)), std::numeric_limits<T>::quiet_NaN());
    tsr_status s;
    if (run) s = run(h, op, T(1), A, x, T(0), y);
    else if constexpr (sizeof(T) == 4) s = tsr_sspmv(h, op, 1.0f, A, x.data(), 0.0f, y.data());
    else s = tsr_dspmv(h, op, 1.0, A, x.data(), 0.0, y.data());
    if (s != TSR_SUCCESS)
        return ::testing::AssertionFailure()
               << "status " << tsr_status_string(s) << ": " << tsr_last_error();
    // The oracle sums only the stored entries: IEEE's NaN and Inf reach exactly the outputs of
    // the rows (columns, transposed) that hold an entry in a non-finite x's column.
    const OracleSums sums = oracle_sums(e, trans, x, true);
    const auto &ref = sums.ref, &mag = sums.mag;
    const auto &terms = sums.terms;
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    for (int64_t o = 0; o < out; ++o) {
        const long double want = ref[size_t(o)], got = y[size_t(o)];
        bool ok;
        if (std::isnan(want)) ok = std::isnan(got);
        else if (std::isinf(want)) ok = got == want;
        else
            ok = std::isfinite(got) &&
                 std::fabs(got - want) <=
                     2.0L * (long double)(terms[size_t(o)] + 3) * u * mag[size_t(o)] +
                         (long double)std::numeric_limits<T>::denorm_min();
        if (!ok)
            return ::testing::AssertionFailure()
                   << "y[" << o << "] = " << (double)got << ", expected " << (double)want << " ("
                   << terms[size_t(o)] << " entries)";
    }
    return ::testing::AssertionSuccess();
}

std::string shared_matrices_dir() {
#ifdef TESSERA_SHARED_MATRICES
    std::error_code ec;
    if (std::filesystem::is_directory(TESSERA_SHARED_MATRICES, ec)) return TESSERA_SHARED_MATRICES;
#endif
    return {};
}

std::vector<std::string> shared_matrix_names() {
    std::vector<std::string> names;
    const std::string dir = shared_matrices_dir();
    if (!dir.empty())
        for (const auto &entry : std::filesystem::directory_iterator(dir))
            if (entry.path().extension() == ".mtx") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    if (names.empty()) names.push_back("none");
    return names;
}

template tsr_status create_matrix<float>(tsr_handle, const Entries &, tsr_index_type, Door,
                                         tsr_sparse *);
template tsr_status create_matrix<double>(tsr_handle, const Entries &, tsr_index_type, Door,
                                          tsr_sparse *);
template ::testing::AssertionResult check_product<float>(tsr_handle, tsr_sparse, const Entries &,
                                                         const ProductCase &, uint64_t,
                                                         const ProductRunner<float> &);
template ::testing::AssertionResult check_product<double>(tsr_handle, tsr_sparse, const Entries &,
                                                          const ProductCase &, uint64_t,
                                                          const ProductRunner<double> &);
template std::vector<float> nonfinite_x<float>(const Entries &, tsr_op, std::mt19937_64 &);
template std::vector<double> nonfinite_x<double>(const Entries &, tsr_op, std::mt19937_64 &);
template ::testing::AssertionResult check_nonfinite_x<float>(tsr_handle, tsr_sparse,
                                                             const Entries &, tsr_op,
                                                             const std::vector<float> &,
                                                             const ProductRunner<float> &);
template ::testing::AssertionResult check_nonfinite_x<double>(tsr_handle, tsr_sparse,
                                                              const Entries &, tsr_op,
                                                              const std::vector<double> &,
                                                              const ProductRunner<double> &);

} // namespace tessera::test
