// sgemv/dgemv through all eight doors against a long double oracle: shapes 0, 1, odd and
// large (every thread split), ld > rows, increments ±1 and ±3, alpha/beta special values,
// beta == 0 over NaN, calls inside OpenMP regions, the call log, and every argument error.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "../support/seed.hpp"

// Tessera ships no BLAS header: a program declares the symbols itself, as here.
extern "C" {
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *A,
            const int *lda, const float *x, const int *incx, const float *beta, float *y,
            const int *incy, size_t trans_len);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *A,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy, size_t trans_len);
void sgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha,
               const float *A, const int64_t *lda, const float *x, const int64_t *incx,
               const float *beta, float *y, const int64_t *incy, size_t trans_len);
void dgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const double *alpha,
               const double *A, const int64_t *lda, const double *x, const int64_t *incx,
               const double *beta, double *y, const int64_t *incy, size_t trans_len);
void cblas_sgemv(int layout, int trans, int M, int N, float alpha, const float *A, int lda,
                 const float *X, int incX, float beta, float *Y, int incY);
void cblas_dgemv(int layout, int trans, int M, int N, double alpha, const double *A, int lda,
                 const double *X, int incX, double beta, double *Y, int incY);
void cblas_sgemv_64(int layout, int trans, int64_t M, int64_t N, float alpha, const float *A,
                    int64_t lda, const float *X, int64_t incX, float beta, float *Y, int64_t incY);
void cblas_dgemv_64(int layout, int trans, int64_t M, int64_t N, double alpha, const double *A,
                    int64_t lda, const double *X, int64_t incX, double beta, double *Y,
                    int64_t incY);
}

namespace {

// What the test's own error handlers saw. The binary is linked with ENABLE_EXPORTS, so these
// strong definitions replace Tessera's weak xerbla_ / cblas_xerbla.
struct Seen {
    int fortran_calls = 0;
    std::string fortran_name;
    int info = 0;
    int cblas_calls = 0;
    std::string cblas_name;
    int cblas_info = 0;
};
std::mutex g_mutex;
Seen g_seen;

void reset_seen() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_seen = Seen{};
}
Seen seen() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_seen;
}

} // namespace

extern "C" void xerbla_(const char *srname, const int *info, size_t srname_len) {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_seen.fortran_calls;
    g_seen.fortran_name.assign(srname, srname_len);
    g_seen.info = *info;
}

extern "C" void cblas_xerbla(int info, const char *rout, const char *, ...) {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_seen.cblas_calls;
    g_seen.cblas_name = rout ? rout : "(null)";
    g_seen.cblas_info = info;
}

namespace {

constexpr int kRow = 101, kCol = 102, kOpN = 111, kOpT = 112, kOpC = 113;

// The eight doors of one type, as a program calls them.
enum class Door { fortran, fortran64, cblas, cblas64 };
const char *door_name(Door d) {
    switch (d) {
    case Door::fortran: return "fortran";
    case Door::fortran64: return "fortran64";
    case Door::cblas: return "cblas";
    case Door::cblas64: return "cblas64";
    }
    return "?";
}

// One call: layout (kRow/kCol; the Fortran doors take kCol only), op as a CBLAS value.
struct Call {
    Door door = Door::cblas;
    int layout = kCol, op = kOpN;
    int64_t m = 0, n = 0, lda = 1, incx = 1, incy = 1;
    double alpha = 1, beta = 0;
};

char op_letter(int op) { return op == kOpN ? 'N' : op == kOpT ? 'T' : op == kOpC ? 'c' : 'X'; }

template <typename T> void call(const Call &c, const T *A, const T *x, T *y) {
    const T alpha = T(c.alpha), beta = T(c.beta);
    const char t = op_letter(c.op);
    if (c.door == Door::fortran) {
        const int m = int(c.m), n = int(c.n), lda = int(c.lda), incx = int(c.incx),
                  incy = int(c.incy);
        if constexpr (sizeof(T) == 4)
            sgemv_(&t, &m, &n, &alpha, A, &lda, x, &incx, &beta, y, &incy, 1);
        else dgemv_(&t, &m, &n, &alpha, A, &lda, x, &incx, &beta, y, &incy, 1);
    } else if (c.door == Door::fortran64) {
        if constexpr (sizeof(T) == 4)
            sgemv_64_(&t, &c.m, &c.n, &alpha, A, &c.lda, x, &c.incx, &beta, y, &c.incy, 1);
        else dgemv_64_(&t, &c.m, &c.n, &alpha, A, &c.lda, x, &c.incx, &beta, y, &c.incy, 1);
    } else if (c.door == Door::cblas) {
        if constexpr (sizeof(T) == 4)
            cblas_sgemv(c.layout, c.op, int(c.m), int(c.n), alpha, A, int(c.lda), x, int(c.incx),
                        beta, y, int(c.incy));
        else
            cblas_dgemv(c.layout, c.op, int(c.m), int(c.n), alpha, A, int(c.lda), x, int(c.incx),
                        beta, y, int(c.incy));
    } else {
        if constexpr (sizeof(T) == 4)
            cblas_sgemv_64(c.layout, c.op, c.m, c.n, alpha, A, c.lda, x, c.incx, beta, y, c.incy);
        else cblas_dgemv_64(c.layout, c.op, c.m, c.n, alpha, A, c.lda, x, c.incx, beta, y, c.incy);
    }
}

// Where element k of a vector of len elements with increment inc lives (reference BLAS: a
// negative increment starts at the end).
size_t slot(int64_t k, int64_t len, int64_t inc) {
    return size_t(inc > 0 ? k * inc : (len - 1 - k) * -inc);
}
size_t span(int64_t len, int64_t inc) {
    return len == 0 ? 1 : size_t(1 + (len - 1) * std::llabs(inc));
}

// Random operands (never zero), the padding of A and the gaps of x and y filled with NaN that
// must never be read or written.
template <typename T> struct Operands { std::vector<T> A, x, y; };

template <typename T> Operands<T> make(const Call &c, std::mt19937_64 &rng, bool nan_y) {
    const bool row = c.layout == kRow;
    const int64_t rows = row ? c.n : c.m, cols = row ? c.m : c.n; // as stored, column-major
    const bool trans = c.op != kOpN;
    const int64_t xlen = trans ? c.m : c.n, ylen = trans ? c.n : c.m;
    std::uniform_real_distribution<double> d(0.1, 1.0);
    auto value = [&] { return T(rng() & 1 ? d(rng) : -d(rng)); };
    const T nan = std::numeric_limits<T>::quiet_NaN();
    Operands<T> o;
    o.A.assign(size_t(std::max<int64_t>(1, cols * c.lda)), nan);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) o.A[size_t(i + j * c.lda)] = value();
    o.x.assign(span(xlen, c.incx), nan);
    for (int64_t k = 0; k < xlen; ++k) o.x[slot(k, xlen, c.incx)] = value();
    o.y.assign(span(ylen, c.incy), nan);
    if (!nan_y)
        for (int64_t k = 0; k < ylen; ++k) o.y[slot(k, ylen, c.incy)] = value();
    return o;
}

// Checks y after the call against the long double oracle, componentwise:
// |y - y_ref| <= c·(len + 2)·u·(|alpha|·Σ|A||x| + |beta|·|y0|), and the gaps of y untouched.
template <typename T>
void check(const Call &c, const Operands<T> &in, const std::vector<T> &y, const std::string &what) {
    const bool row = c.layout == kRow, trans = c.op != kOpN;
    const int64_t xlen = trans ? c.m : c.n, ylen = trans ? c.n : c.m;
    auto a = [&](int64_t i, int64_t j) { // user's A(i, j), m × n
        return (long double)(row ? in.A[size_t(i * c.lda + j)] : in.A[size_t(i + j * c.lda)]);
    };
    // Quick return (reference BLAS: even where op(A) has rows, as m == 0 with op T): y as it was.
    if (c.m == 0 || c.n == 0 || (c.alpha == 0 && c.beta == 1)) {
        ASSERT_TRUE(std::memcmp(y.data(), in.y.data(), y.size() * sizeof(T)) == 0)
            << what << " a quick return wrote y";
        return;
    }
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    std::vector<bool> is_slot(y.size(), false);
    for (int64_t k = 0; k < ylen; ++k) {
        const size_t s = slot(k, ylen, c.incy);
        is_slot[s] = true;
        long double sum = 0, mag = 0;
        if (c.alpha != 0)
            for (int64_t l = 0; l < xlen; ++l) {
                const long double p =
                    (trans ? a(l, k) : a(k, l)) * (long double)in.x[slot(l, xlen, c.incx)];
                sum += p;
                mag += std::fabs(p);
            }
        long double want = (long double)c.alpha * sum, bound = std::fabs(c.alpha) * mag;
        if (c.beta != 0) {
            want += (long double)c.beta * in.y[s];
            bound += std::fabs((long double)c.beta * in.y[s]);
        }
        bound *= 2 * (xlen + 2) * u;
        ASSERT_FALSE(std::isnan(y[s])) << what << " y[" << k << "] is NaN";
        ASSERT_LE(std::fabs(y[s] - want), bound)
            << what << " y[" << k << "] = " << y[s] << ", want " << double(want);
    }
    for (size_t s = 0; s < y.size(); ++s)
        if (!is_slot[s]) ASSERT_TRUE(std::isnan(y[s])) << what << " wrote the gap y[" << s << "]";
}

struct Shape {
    int64_t m, n;
};

// 0, 1, odd and prime sizes; then sizes that take two threads along each split (rows or
// columns for op N, columns or rows for op T) and the vector tails of every ISA.
const Shape kShapes[] = {{0, 0},     {0, 3},     {3, 0},     {1, 1},     {1, 7},     {7, 1},
                         {2, 3},     {17, 33},   {33, 17},   {64, 64},   {127, 129}, {300, 257},
                         {1031, 97}, {37, 4000}, {4000, 37}, {20000, 7}, {7, 20000}};
const std::pair<int64_t, int64_t> kIncs[] = {{1, 1}, {3, -1}, {-3, 3}, {-1, -3}, {1, -1}};
const std::pair<double, double> kAlphaBeta[] = {{1, 0}, {1.5, 0.5}, {0, 0}, {0, 2}, {-1, 1}};

template <typename T> void sweep(const char *label) {
    auto rng = tessera::test::test_rng(label);
    int64_t combo = 0; // counts every combination, so the subsets below rotate through them
    for (const Shape &s : kShapes)
        for (int op : {kOpN, kOpT, kOpC})
            for (Door door : {Door::fortran, Door::fortran64, Door::cblas, Door::cblas64})
                for (int layout : {kCol, kRow}) {
                    if (layout == kRow && (door == Door::fortran || door == Door::fortran64))
                        continue;
                    for (auto [incx, incy] : kIncs)
                        for (auto [alpha, beta] : kAlphaBeta) {
                            // Every combination on small shapes; a rotating subset on large ones.
                            ++combo;
                            if (s.m * s.n > 10000 && combo % 11 != 0) continue;
                            Call c;
                            c.door = door;
                            c.layout = layout;
                            c.op = op;
                            c.m = s.m;
                            c.n = s.n;
                            const int64_t stored_rows = layout == kRow ? s.n : s.m;
                            c.lda = std::max<int64_t>(1, stored_rows) + (combo % 3 == 0 ? 0 : 5);
                            c.incx = incx;
                            c.incy = incy;
                            c.alpha = alpha;
                            c.beta = beta;
                            // beta == 0: y starts as NaN, and no NaN may survive.
                            const Operands<T> in = make<T>(c, rng, beta == 0);
                            std::vector<T> y = in.y;
                            call<T>(c, in.A.data(), in.x.data(), y.data());
                            const std::string what =
                                std::string(door_name(door)) + (layout == kRow ? " row" : " col") +
                                " " + op_letter(op) + " m=" + std::to_string(s.m) +
                                " n=" + std::to_string(s.n) + " lda=" + std::to_string(c.lda) +
                                " incx=" + std::to_string(incx) + " incy=" + std::to_string(incy) +
                                " alpha=" + std::to_string(alpha) +
                                " beta=" + std::to_string(beta) + ":";
                            check<T>(c, in, y, what);
                            if (::testing::Test::HasFatalFailure()) return;
                        }
                }
}

TEST(GemvProperties, FloatEveryDoorShapeAndIncrement) { sweep<float>("s"); }
TEST(GemvProperties, DoubleEveryDoorShapeAndIncrement) { sweep<double>("d"); }

// NaN and Inf in A or x propagate when alpha != 0 (no shortcut skips them).
TEST(GemvProperties, NonFiniteOperandsPropagate) {
    for (int op : {kOpN, kOpT}) {
        const int64_t m = 40, n = 24;
        std::vector<double> A(size_t(m * n), 1.0), x(size_t(std::max(m, n)), 0.0),
            y(size_t(std::max(m, n)), 0.0);
        A[5 + 3 * m] = std::numeric_limits<double>::infinity();
        x[3] = op == kOpN ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        x[5] = op == kOpT ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        cblas_dgemv(kCol, op, int(m), int(n), 1.0, A.data(), int(m), x.data(), 1, 0.0, y.data(), 1);
        // op N: x[3] = NaN meets column 3, so every y is NaN; op T: x[5] = NaN meets row 5.
        const int64_t ylen = op == kOpN ? m : n;
        for (int64_t k = 0; k < ylen; ++k) EXPECT_TRUE(std::isnan(y[size_t(k)])) << op << " " << k;
    }
}

// Products of 32 MiB and more are cut into several chunks per thread: every split (op N by
// columns and, tall, by rows; op T by columns and, with few columns, by rows) at that size.
template <typename T> void large(const char *label) {
    auto rng = tessera::test::test_rng(label);
    const int64_t elems = (int64_t(33) << 20) / int64_t(sizeof(T));
    const Shape shapes[] = {
        {int64_t(2048), elems / 2048 + 1}, {elems / 200 + 1, 200}, {elems / 9 + 1, 9}};
    for (const Shape &s : shapes)
        for (int op : {kOpN, kOpT}) {
            Call c;
            c.op = op;
            c.m = s.m;
            c.n = s.n;
            c.lda = s.m;
            c.incy = op == kOpN ? 1 : -2;
            c.alpha = 1.5;
            c.beta = 0.5;
            const Operands<T> in = make<T>(c, rng, false);
            std::vector<T> y = in.y;
            call<T>(c, in.A.data(), in.x.data(), y.data());
            check<T>(c, in, y,
                     std::string(op_letter(op), 1) + " m=" + std::to_string(s.m) +
                         " n=" + std::to_string(s.n) + ":");
            if (::testing::Test::HasFatalFailure()) return;
        }
}

TEST(GemvThreads, FloatLargeProductsInChunks) { large<float>("s"); }
TEST(GemvThreads, DoubleLargeProductsInChunks) { large<double>("d"); }

// Calls from inside an OpenMP parallel region run on one thread each and stay correct.
TEST(GemvThreads, InsideAnOpenMpRegion) {
    const int64_t m = 600, n = 500;
    auto rng = tessera::test::test_rng();
    std::uniform_real_distribution<double> d(-1, 1);
    std::vector<double> A(static_cast<size_t>(m * n)), x(static_cast<size_t>(m));
    for (auto &v : A) v = d(rng);
    for (auto &v : x) v = d(rng);
    std::vector<double> want(size_t(n), 0.0);
    cblas_dgemv(kCol, kOpT, int(m), int(n), 1.0, A.data(), int(m), x.data(), 1, 0.0, want.data(),
                1);
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        std::vector<double> y(size_t(n), std::numeric_limits<double>::quiet_NaN());
        for (int rep = 0; rep < 20; ++rep) {
            cblas_dgemv(kCol, kOpT, int(m), int(n), 1.0, A.data(), int(m), x.data(), 1, 0.0,
                        y.data(), 1);
            for (int64_t j = 0; j < n; ++j) bad += y[size_t(j)] != want[size_t(j)];
        }
    }
    EXPECT_EQ(bad, 0);
}

// With TESSERA_VERBOSE=1 (the gemv_verbose CTest entry) every call logs one line.
TEST(GemvVerbose, OneLinePerCall) {
    const char *v = std::getenv("TESSERA_VERBOSE");
    if (!v || std::strcmp(v, "1") != 0) GTEST_SKIP() << "run with TESSERA_VERBOSE=1";
    std::vector<float> A(300 * 200, 0.5f), x(300, 1.0f), y(300, 0.0f);
    ::testing::internal::CaptureStderr();
    cblas_sgemv(kRow, kOpT, 200, 300, 1.0f, A.data(), 300, x.data(), 1, 0.0f, y.data(), 1);
    cblas_sgemv(kCol, kOpN, 0, 300, 1.0f, A.data(), 1, x.data(), 1, 0.0f, y.data(), 1);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("tessera: sgemv row T m=200 n=300 incx=1 incy=1 backend=cpu threads="),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("GB/s"), std::string::npos) << log;
    EXPECT_NE(log.find("tessera: sgemv col N m=0 n=300"), std::string::npos) << log;
    EXPECT_NE(log.find("quick return"), std::string::npos) << log;
}

// Argument errors: the first bad argument in reference order, its number, the routine's name,
// and y untouched (checks come before the quick return).
struct ErrorCase {
    const char *what;
    Call call;
    int info;
};

Call with(Door door, int layout, void (*change)(Call &)) {
    Call c;
    c.door = door;
    c.layout = layout;
    c.m = 3;
    c.n = 4;
    c.lda = 3;
    c.alpha = 1.5;
    c.beta = 0.5;
    change(c);
    return c;
}

template <typename T> void expect_error(const ErrorCase &e) {
    std::vector<T> A(64, T(1)), x(64, T(1)), y(64, T(7));
    const std::vector<T> y0 = y;
    reset_seen();
    call<T>(e.call, A.data(), x.data(), y.data());
    const Seen s = seen();
    const bool fortran = e.call.door == Door::fortran || e.call.door == Door::fortran64;
    const std::string name = sizeof(T) == 4 ? "SGEMV " : "DGEMV ";
    if (fortran) {
        EXPECT_EQ(s.fortran_calls, 1) << e.what;
        EXPECT_EQ(s.cblas_calls, 0) << e.what;
        EXPECT_EQ(s.fortran_name, name) << e.what;
        EXPECT_EQ(s.info, e.info) << e.what;
    } else {
        EXPECT_EQ(s.cblas_calls, 1) << e.what;
        EXPECT_EQ(s.fortran_calls, 0) << e.what;
        EXPECT_EQ(s.cblas_name, sizeof(T) == 4 ? "cblas_sgemv" : "cblas_dgemv") << e.what;
        EXPECT_EQ(s.cblas_info, e.info) << e.what;
    }
    EXPECT_TRUE(std::memcmp(y.data(), y0.data(), y.size() * sizeof(T)) == 0) << e.what;
}

std::vector<ErrorCase> error_cases() {
    std::vector<ErrorCase> cases;
    for (Door d : {Door::fortran, Door::fortran64}) {
        cases.push_back({"TRANS = 'X'", with(d, kCol, [](Call &c) { c.op = 0; }), 1});
        cases.push_back({"M < 0", with(d, kCol, [](Call &c) { c.m = -1; }), 2});
        cases.push_back({"N < 0", with(d, kCol, [](Call &c) { c.n = -1; }), 3});
        cases.push_back({"LDA < M", with(d, kCol, [](Call &c) { c.lda = 2; }), 6});
        cases.push_back({"LDA < 1, M = 0",
                         with(d, kCol,
                              [](Call &c) {
                                  c.m = 0;
                                  c.lda = 0;
                              }),
                         6});
        cases.push_back({"INCX = 0", with(d, kCol, [](Call &c) { c.incx = 0; }), 8});
        cases.push_back({"INCY = 0", with(d, kCol, [](Call &c) { c.incy = 0; }), 11});
        cases.push_back({"TRANS and M",
                         with(d, kCol,
                              [](Call &c) {
                                  c.op = 0;
                                  c.m = -1;
                              }),
                         1});
        cases.push_back({"INCX and INCY, N = 0",
                         with(d, kCol,
                              [](Call &c) {
                                  c.n = 0;
                                  c.incx = 0;
                                  c.incy = 0;
                              }),
                         8});
    }
    // Reference CBLAS: 1 layout, 2 trans, then the Fortran checks of the column-major call it
    // makes (m and n swapped for row-major) plus one.
    for (Door d : {Door::cblas, Door::cblas64}) {
        cases.push_back({"layout", with(d, 0, [](Call &) {}), 1});
        cases.push_back({"trans (col)", with(d, kCol, [](Call &c) { c.op = 0; }), 2});
        cases.push_back({"trans (row)", with(d, kRow, [](Call &c) { c.op = 114; }), 2});
        cases.push_back({"M < 0 (col)", with(d, kCol, [](Call &c) { c.m = -1; }), 3});
        cases.push_back({"N < 0 (col)", with(d, kCol, [](Call &c) { c.n = -1; }), 4});
        cases.push_back({"lda < M (col)", with(d, kCol, [](Call &c) { c.lda = 2; }), 7});
        cases.push_back({"incX = 0 (col)", with(d, kCol, [](Call &c) { c.incx = 0; }), 9});
        cases.push_back({"incY = 0 (col)", with(d, kCol, [](Call &c) { c.incy = 0; }), 12});
        cases.push_back({"M < 0 (row)",
                         with(d, kRow,
                              [](Call &c) {
                                  c.m = -1;
                                  c.lda = 4;
                              }),
                         4});
        cases.push_back({"N < 0 (row)", with(d, kRow, [](Call &c) { c.n = -1; }), 3});
        cases.push_back({"lda < N (row)", with(d, kRow, [](Call &c) { c.lda = 3; }), 7});
        cases.push_back({"incX = 0 (row)",
                         with(d, kRow,
                              [](Call &c) {
                                  c.lda = 4;
                                  c.incx = 0;
                              }),
                         9});
        cases.push_back({"incY = 0 (row)",
                         with(d, kRow,
                              [](Call &c) {
                                  c.lda = 4;
                                  c.incy = 0;
                              }),
                         12});
    }
    return cases;
}

TEST(GemvErrors, FloatEveryBadArgument) {
    for (const ErrorCase &e : error_cases()) expect_error<float>(e);
}
TEST(GemvErrors, DoubleEveryBadArgument) {
    for (const ErrorCase &e : error_cases()) expect_error<double>(e);
}

} // namespace
