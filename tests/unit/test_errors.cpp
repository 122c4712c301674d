// Argument errors through the three doors (Fortran, CBLAS, tsr_*) and the small tsr_* API:
// reference-BLAS routine names and parameter numbers, C untouched, checks before quick return.
#include <gtest/gtest.h>

#include <climits>
#include <algorithm>
#include <cstdarg>
#include <functional>
#include <cstdio>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "behaviour_support.hpp"

namespace {

// What the test's own error handlers saw. The binary is linked with ENABLE_EXPORTS, so these
// strong definitions replace Tessera's weak xerbla_ / cblas_xerbla.
struct Seen {
    int fortran_calls = 0;
    std::string fortran_name; // all srname_len characters
    size_t fortran_len = 0;
    int info32 = 0;
    int64_t info64 = 0;
    int cblas_calls = 0;
    std::string cblas_name;
    int cblas_info = 0;
    std::string cblas_text;
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
    g_seen.fortran_name.assign(srname ? srname : "", srname ? srname_len : 0);
    g_seen.fortran_len = srname_len;
    g_seen.info32 = *info;
    // Tessera documents that INFO lives in an int64 whose first 4 bytes are the int32 value,
    // so that an ILP64 XERBLA reads it right too.
    std::memcpy(&g_seen.info64, info, sizeof(int64_t));
}

extern "C" void cblas_xerbla(int info, const char *rout, const char *form, ...) {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_seen.cblas_calls;
    g_seen.cblas_name = rout ? rout : "(null)";
    g_seen.cblas_info = info;
    char text[256] = "";
    if (form) {
        va_list ap;
        va_start(ap, form);
        std::vsnprintf(text, sizeof text, form, ap);
        va_end(ap);
    }
    g_seen.cblas_text = text;
}

namespace {

using behaviour::poisoned;
using behaviour::same_bytes;

// Enough room for every call below, so a door that wrongly goes on computing stays in bounds.
constexpr size_t kRoom = 64 * 64;

// One call's arguments as the Fortran door takes them (column-major).
struct FArgs {
    char ta = 'N', tb = 'N';
    int64_t m = 3, n = 4, k = 5, lda = 3, ldb = 5, ldc = 3;
    double alpha = 1.5, beta = 0.5;
};

struct FCase {
    const char *what;
    FArgs args;
    int info;
};

FArgs with(std::function<void(FArgs &)> change) {
    FArgs a;
    change(a);
    return a;
}

// Reference xGEMM checks, numbered as reference BLAS numbers them; m=3, n=4, k=5 by default.
std::vector<FCase> fortran_cases() {
    return {
        {"TRANSA = 'X'", with([](FArgs &a) { a.ta = 'X'; }), 1},
        {"TRANSA = 0", with([](FArgs &a) { a.ta = '\0'; }), 1},
        {"TRANSB = '?'", with([](FArgs &a) { a.tb = '?'; }), 2},
        {"M < 0", with([](FArgs &a) { a.m = -1; }), 3},
        {"N < 0", with([](FArgs &a) { a.n = -1; }), 4},
        {"K < 0", with([](FArgs &a) { a.k = -1; }), 5},
        {"LDA < M (N)", with([](FArgs &a) { a.lda = 2; }), 8},
        {"LDA < K (T)", with([](FArgs &a) {
             a.ta = 'T';
             a.lda = 4;
         }),
         8},
        {"LDA < K (c)", with([](FArgs &a) {
             a.ta = 'c';
             a.lda = 4;
         }),
         8},
        {"LDB < K (N)", with([](FArgs &a) { a.ldb = 4; }), 10},
        {"LDB < N (T)", with([](FArgs &a) {
             a.tb = 'T';
             a.ldb = 3;
         }),
         10},
        {"LDC < M", with([](FArgs &a) { a.ldc = 2; }), 13},
        // The first bad argument wins, in reference order.
        {"TRANSA and M", with([](FArgs &a) {
             a.ta = 'X';
             a.m = -1;
         }),
         1},
        {"M and N", with([](FArgs &a) {
             a.m = -1;
             a.n = -1;
         }),
         3},
        {"K and LDA", with([](FArgs &a) {
             a.k = -1;
             a.lda = 0;
         }),
         5},
        {"LDA, LDB, LDC", with([](FArgs &a) {
             a.lda = 0;
             a.ldb = 0;
             a.ldc = 0;
         }),
         8},
        {"LDB, LDC", with([](FArgs &a) {
             a.ldb = 0;
             a.ldc = 0;
         }),
         10},
        // Checks come before the quick return, and use max(1, rows).
        {"M = 0, LDA = 0", with([](FArgs &a) {
             a.m = 0;
             a.lda = 0;
             a.ldc = 1;
         }),
         8},
        {"M = 0, LDC = 0", with([](FArgs &a) {
             a.m = 0;
             a.lda = 1;
             a.ldc = 0;
         }),
         13},
        {"N = 0, LDC < M", with([](FArgs &a) {
             a.n = 0;
             a.ldc = 2;
         }),
         13},
        {"K = 0 (T), LDA = 0", with([](FArgs &a) {
             a.k = 0;
             a.ta = 'T';
             a.lda = 0;
         }),
         8},
        {"K = 0 (N), LDB = 0", with([](FArgs &a) {
             a.k = 0;
             a.ldb = 0;
         }),
         10},
        {"alpha = 0, beta = 1, LDC < M", with([](FArgs &a) {
             a.alpha = 0;
             a.beta = 1;
             a.ldc = 2;
         }),
         13},
    };
}

template <typename T, typename I> void call_fortran(const FArgs &a, const T *A, const T *B, T *C) {
    const I m = I(a.m), n = I(a.n), k = I(a.k), lda = I(a.lda), ldb = I(a.ldb), ldc = I(a.ldc);
    const T alpha = T(a.alpha), beta = T(a.beta);
    if constexpr (std::is_same_v<I, int>) {
        if constexpr (std::is_same_v<T, float>)
            sgemm_(&a.ta, &a.tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
        else dgemm_(&a.ta, &a.tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
    } else {
        if constexpr (std::is_same_v<T, float>)
            sgemm_64_(&a.ta, &a.tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
        else dgemm_64_(&a.ta, &a.tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
    }
}

template <typename T> const char *fortran_name() {
    return std::is_same_v<T, float> ? "SGEMM " : "DGEMM ";
}
template <typename T> const char *cblas_name() {
    return std::is_same_v<T, float> ? "cblas_sgemm" : "cblas_dgemm";
}

// Runs each bad call through sgemm_/dgemm_ (I = int) or their ILP64 twins (I = int64_t).
template <typename T, typename I> void check_fortran_errors() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const auto A = behaviour::random_values<T>(kRoom, rng);
    const auto B = behaviour::random_values<T>(kRoom, rng);
    for (const FCase &c : fortran_cases()) {
        SCOPED_TRACE(c.what);
        auto C = poisoned<T>(kRoom);
        const auto C0 = C;
        reset_seen();
        call_fortran<T, I>(c.args, A.data(), B.data(), C.data());
        const Seen s = seen();
        EXPECT_EQ(s.fortran_calls, 1);
        EXPECT_EQ(s.cblas_calls, 0);
        EXPECT_EQ(s.fortran_name, fortran_name<T>());
        EXPECT_EQ(s.fortran_len, 6u);
        EXPECT_EQ(s.info32, c.info);
        if constexpr (std::is_same_v<I, int64_t>) {
            EXPECT_EQ(s.info64, c.info);
        }
        EXPECT_TRUE(same_bytes(C.data(), C0.data(), C.size() * sizeof(T))) << "C was written";
    }
}

TEST(FortranErrors, SgemmReportsReferenceNumbers) { check_fortran_errors<float, int>(); }
TEST(FortranErrors, DgemmReportsReferenceNumbers) { check_fortran_errors<double, int>(); }
TEST(FortranErrors, Sgemm64ReportsReferenceNumbersAsInt32AndInt64) {
    check_fortran_errors<float, int64_t>();
}
TEST(FortranErrors, Dgemm64ReportsReferenceNumbersAsInt32AndInt64) {
    check_fortran_errors<double, int64_t>();
}

// Every valid op letter, in either case, is accepted and computes the right product; an
// empty problem with leading dimensions of 1 (the max(1, rows) rule) is no error.
template <typename T> void check_fortran_valid() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const char letters[] = {'N', 'n', 'T', 't', 'C', 'c'};
    for (char la : letters)
        for (char lb : letters) {
            SCOPED_TRACE(std::string("transa=") + la + " transb=" + lb);
            auto op = [](char c) {
                return (c == 'N' || c == 'n')   ? TSR_OP_N
                       : (c == 'T' || c == 't') ? TSR_OP_T
                                                : TSR_OP_C;
            };
            auto p = behaviour::Problem<T>::make(rng, TSR_COL_MAJOR, op(la), op(lb), 7, 5, 6,
                                                 T(0.75), T(-1.25), 2);
            std::vector<T> C = p.C0;
            FArgs a{la, lb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, double(p.alpha), double(p.beta)};
            reset_seen();
            call_fortran<T, int>(a, p.A.data(), p.B.data(), C.data());
            EXPECT_EQ(seen().fortran_calls, 0);
            EXPECT_TRUE(p.check(C.data()));
        }
    auto C = poisoned<T>(4);
    const auto C0 = C;
    reset_seen();
    call_fortran<T, int>(FArgs{'N', 'N', 0, 0, 0, 1, 1, 1, 1.0, 0.0}, C.data(), C.data(), C.data());
    EXPECT_EQ(seen().fortran_calls, 0);
    EXPECT_TRUE(same_bytes(C.data(), C0.data(), C.size() * sizeof(T)));
}

TEST(FortranErrors, SgemmAcceptsEveryOpLetter) { check_fortran_valid<float>(); }
TEST(FortranErrors, DgemmAcceptsEveryOpLetter) { check_fortran_valid<double>(); }

// Values only 64-bit integers hold: truncating them to 32 bits would change the verdict.
TEST(FortranErrors, Ilp64ChecksUseAll64Bits) {
    const auto A = poisoned<float>(kRoom), B = poisoned<float>(kRoom);
    auto C = poisoned<float>(kRoom);
    const auto C0 = C;
    // m = -2^32 is negative (its low 32 bits are 0, which would be a quick return).
    reset_seen();
    call_fortran<float, int64_t>(with([](FArgs &a) { a.m = -(int64_t(1) << 32); }), A.data(),
                                 B.data(), C.data());
    EXPECT_EQ(seen().fortran_calls, 1);
    EXPECT_EQ(seen().info64, 3);
    // lda = 2^32 + 2 >= m = 3 is valid (its low 32 bits, 2, would not be); n = 0 returns.
    reset_seen();
    call_fortran<float, int64_t>(with([](FArgs &a) {
                                     a.n = 0;
                                     a.lda = (int64_t(1) << 32) + 2;
                                 }),
                                 A.data(), B.data(), C.data());
    EXPECT_EQ(seen().fortran_calls, 0);
    // k = 2^32 + 5 with TRANSA = 'T' needs lda >= k: lda = 6 is bad (against the low 32 bits,
    // k = 5, every argument would be valid).
    reset_seen();
    call_fortran<double, int64_t>(with([](FArgs &a) {
                                      a.ta = 'T';
                                      a.k = (int64_t(1) << 32) + 5;
                                      a.lda = 6;
                                  }),
                                  reinterpret_cast<const double *>(A.data()),
                                  reinterpret_cast<const double *>(B.data()),
                                  reinterpret_cast<double *>(C.data()));
    EXPECT_EQ(seen().fortran_calls, 1);
    EXPECT_EQ(seen().fortran_name, "DGEMM ");
    EXPECT_EQ(seen().info64, 8);
    EXPECT_TRUE(same_bytes(C.data(), C0.data(), C.size() * sizeof(float)));
}

// ---- CBLAS ----

struct CArgs {
    int layout = TSR_COL_MAJOR, ta = TSR_OP_N, tb = TSR_OP_N;
    int64_t m = 3, n = 4, k = 5, lda = 3, ldb = 5, ldc = 3;
    double alpha = 1.5, beta = 0.5;
};

struct CCase {
    const char *what;
    CArgs args;
    int info;
};

CArgs col(std::function<void(CArgs &)> change) {
    CArgs a;
    change(a);
    return a;
}

// Row-major with m=3, n=4, k=5: A is 3×5 (lda >= 5), B 5×4 (ldb >= 4), C 3×4 (ldc >= 4).
CArgs row(std::function<void(CArgs &)> change) {
    CArgs a;
    a.layout = TSR_ROW_MAJOR;
    a.lda = 5, a.ldb = 4, a.ldc = 4;
    change(a);
    return a;
}

// Reference CBLAS numbers: layout 1, TransA 2, TransB 3, then those of the Fortran checks
// (on the swapped call for row-major) plus one.
std::vector<CCase> cblas_cases() {
    return {
        {"layout = 0", col([](CArgs &a) { a.layout = 0; }), 1},
        {"layout = 103", col([](CArgs &a) { a.layout = 103; }), 1},
        {"layout and TransA", col([](CArgs &a) {
             a.layout = 0;
             a.ta = 0;
         }),
         1},
        {"col TransA = 'N'", col([](CArgs &a) { a.ta = 'N'; }), 2},
        {"col TransA = 114", col([](CArgs &a) { a.ta = 114; }), 2},
        {"col TransB = 110", col([](CArgs &a) { a.tb = 110; }), 3},
        {"col TransA and TransB", col([](CArgs &a) {
             a.ta = 0;
             a.tb = 0;
         }),
         2},
        {"col M < 0", col([](CArgs &a) { a.m = -1; }), 4},
        {"col N < 0", col([](CArgs &a) { a.n = -1; }), 5},
        {"col K < 0", col([](CArgs &a) { a.k = -1; }), 6},
        {"col lda < M", col([](CArgs &a) { a.lda = 2; }), 9},
        {"col lda < K (T)", col([](CArgs &a) {
             a.ta = TSR_OP_T;
             a.lda = 4;
         }),
         9},
        {"col ldb < K", col([](CArgs &a) { a.ldb = 4; }), 11},
        {"col ldb < N (C)", col([](CArgs &a) {
             a.tb = TSR_OP_C;
             a.ldb = 3;
         }),
         11},
        {"col ldc < M", col([](CArgs &a) { a.ldc = 2; }), 14},
        {"col M = 0, ldc = 0", col([](CArgs &a) {
             a.m = 0;
             a.lda = 1;
             a.ldc = 0;
         }),
         14},
        {"col M = 0, lda = 0", col([](CArgs &a) {
             a.m = 0;
             a.lda = 0;
             a.ldc = 1;
         }),
         9},
        {"row TransA = 0", row([](CArgs &a) { a.ta = 0; }), 2},
        {"row TransB = 0", row([](CArgs &a) { a.tb = 0; }), 3},
        {"row M < 0", row([](CArgs &a) { a.m = -1; }), 5},
        {"row N < 0", row([](CArgs &a) { a.n = -1; }), 4},
        {"row M and N < 0", row([](CArgs &a) {
             a.m = -1;
             a.n = -1;
         }),
         4},
        {"row K < 0", row([](CArgs &a) { a.k = -1; }), 6},
        {"row lda < K", row([](CArgs &a) { a.lda = 4; }), 11},
        {"row lda < M (T)", row([](CArgs &a) {
             a.ta = TSR_OP_T;
             a.lda = 2;
         }),
         11},
        {"row ldb < N", row([](CArgs &a) { a.ldb = 3; }), 9},
        {"row ldb < K (T)", row([](CArgs &a) {
             a.tb = TSR_OP_T;
             a.ldb = 4;
         }),
         9},
        {"row lda and ldb", row([](CArgs &a) {
             a.lda = 0;
             a.ldb = 0;
         }),
         9},
        {"row ldc < N", row([](CArgs &a) { a.ldc = 3; }), 14},
        {"row M = 0, ldc < N", row([](CArgs &a) {
             a.m = 0;
             a.ldc = 3;
         }),
         14},
        {"row N = 0, ldc = 0", row([](CArgs &a) {
             a.n = 0;
             a.ldb = 1;
             a.ldc = 0;
         }),
         14},
        {"row alpha = 0, beta = 1, ldc < N", row([](CArgs &a) {
             a.alpha = 0;
             a.beta = 1;
             a.ldc = 3;
         }),
         14},
    };
}

template <typename T, typename I> void call_cblas(const CArgs &a, const T *A, const T *B, T *C) {
    const I m = I(a.m), n = I(a.n), k = I(a.k), lda = I(a.lda), ldb = I(a.ldb), ldc = I(a.ldc);
    const T alpha = T(a.alpha), beta = T(a.beta);
    if constexpr (std::is_same_v<I, int>) {
        if constexpr (std::is_same_v<T, float>)
            cblas_sgemm(a.layout, a.ta, a.tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        else cblas_dgemm(a.layout, a.ta, a.tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    } else {
        if constexpr (std::is_same_v<T, float>)
            cblas_sgemm_64(a.layout, a.ta, a.tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        else cblas_dgemm_64(a.layout, a.ta, a.tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    }
}

template <typename T, typename I> void check_cblas_errors() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const auto A = behaviour::random_values<T>(kRoom, rng);
    const auto B = behaviour::random_values<T>(kRoom, rng);
    for (const CCase &c : cblas_cases()) {
        SCOPED_TRACE(c.what);
        auto C = poisoned<T>(kRoom);
        const auto C0 = C;
        reset_seen();
        call_cblas<T, I>(c.args, A.data(), B.data(), C.data());
        const Seen s = seen();
        EXPECT_EQ(s.cblas_calls, 1);
        EXPECT_EQ(s.fortran_calls, 0);
        EXPECT_EQ(s.cblas_name, cblas_name<T>());
        EXPECT_EQ(s.cblas_info, c.info);
        EXPECT_TRUE(same_bytes(C.data(), C0.data(), C.size() * sizeof(T))) << "C was written";
    }
}

TEST(CblasErrors, SgemmReportsReferenceNumbers) { check_cblas_errors<float, int>(); }
TEST(CblasErrors, DgemmReportsReferenceNumbers) { check_cblas_errors<double, int>(); }
TEST(CblasErrors, Sgemm64ReportsReferenceNumbers) { check_cblas_errors<float, int64_t>(); }
TEST(CblasErrors, Dgemm64ReportsReferenceNumbers) { check_cblas_errors<double, int64_t>(); }

// The message of a bad enum value carries the value itself, as reference CBLAS prints it.
TEST(CblasErrors, BadEnumMessageShowsTheValue) {
    float x = 0;
    reset_seen();
    cblas_sgemm(TSR_COL_MAJOR, 117, TSR_OP_N, 1, 1, 1, 1.0f, &x, 1, &x, 1, 0.0f, &x, 1);
    EXPECT_EQ(seen().cblas_info, 2);
    EXPECT_NE(seen().cblas_text.find("117"), std::string::npos) << seen().cblas_text;
}

// ---- tsr_* ----

struct TCase {
    const char *what;
    CArgs args;
    const char *names; // the argument the message must name (as "<name> = ")
};

std::vector<TCase> tsr_cases() {
    return {
        {"layout", col([](CArgs &a) { a.layout = 0; }), "layout"},
        {"transa", col([](CArgs &a) { a.ta = 'T'; }), "transa"},
        {"transb", col([](CArgs &a) { a.tb = 0; }), "transb"},
        {"col m", col([](CArgs &a) { a.m = -1; }), "m"},
        {"col n", col([](CArgs &a) { a.n = -2; }), "n"},
        {"col k", col([](CArgs &a) { a.k = -3; }), "k"},
        {"col lda", col([](CArgs &a) { a.lda = 2; }), "lda"},
        {"col lda (T)", col([](CArgs &a) {
             a.ta = TSR_OP_T;
             a.lda = 4;
         }),
         "lda"},
        {"col ldb", col([](CArgs &a) { a.ldb = 4; }), "ldb"},
        {"col ldc", col([](CArgs &a) { a.ldc = 2; }), "ldc"},
        {"col m = 0, ldc = 0", col([](CArgs &a) {
             a.m = 0;
             a.lda = 1;
             a.ldc = 0;
         }),
         "ldc"},
        {"row m", row([](CArgs &a) { a.m = -1; }), "m"},
        {"row n", row([](CArgs &a) { a.n = -1; }), "n"},
        {"row lda", row([](CArgs &a) { a.lda = 4; }), "lda"},
        {"row lda (T)", row([](CArgs &a) {
             a.ta = TSR_OP_T;
             a.lda = 2;
         }),
         "lda"},
        {"row ldb", row([](CArgs &a) { a.ldb = 3; }), "ldb"},
        {"row ldb (T)", row([](CArgs &a) {
             a.tb = TSR_OP_T;
             a.ldb = 4;
         }),
         "ldb"},
        {"row ldc", row([](CArgs &a) { a.ldc = 3; }), "ldc"},
        {"row n = 0, ldc = 0", row([](CArgs &a) {
             a.n = 0;
             a.ldb = 1;
             a.ldc = 0;
         }),
         "ldc"},
    };
}

template <typename T>
tsr_status call_tsr(tsr_handle h, const CArgs &a, const T *A, const T *B, T *C) {
    if constexpr (std::is_same_v<T, float>)
        return tsr_sgemm(h, tsr_layout(a.layout), tsr_op(a.ta), tsr_op(a.tb), a.m, a.n, a.k,
                         float(a.alpha), A, a.lda, B, a.ldb, float(a.beta), C, a.ldc);
    else
        return tsr_dgemm(h, tsr_layout(a.layout), tsr_op(a.ta), tsr_op(a.tb), a.m, a.n, a.k,
                         a.alpha, A, a.lda, B, a.ldb, a.beta, C, a.ldc);
}

// Arguments a layout-aware message must not mix up (row-major swaps m with n and lda with ldb
// internally).
const std::vector<std::vector<std::string>> kConfusable = {{"m", "n", "k"}, {"lda", "ldb", "ldc"}};

// Whether `message` names argument `name` as a whole word ("m" does not match "tsr_sgemm").
bool names(const std::string &message, const std::string &name) {
    return std::regex_search(message, std::regex("(^|[^A-Za-z0-9_])" + name + "($|[^A-Za-z0-9_])"));
}

template <typename T> void check_tsr_errors() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const auto A = behaviour::random_values<T>(kRoom, rng);
    const auto B = behaviour::random_values<T>(kRoom, rng);
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    for (const TCase &c : tsr_cases()) {
        for (tsr_handle handle : {h, tsr_handle(nullptr)}) {
            SCOPED_TRACE(std::string(c.what) + (handle ? " (own handle)" : " (default handle)"));
            auto C = poisoned<T>(kRoom);
            const auto C0 = C;
            reset_seen();
            EXPECT_EQ(call_tsr<T>(handle, c.args, A.data(), B.data(), C.data()),
                      TSR_ERR_INVALID_ARGUMENT);
            const std::string message = tsr_last_error();
            EXPECT_TRUE(names(message, c.names)) << "message: " << message;
            for (const auto &group : kConfusable)
                for (const std::string &other : group)
                    if (other != c.names && std::find(group.begin(), group.end(),
                                                      std::string(c.names)) != group.end()) {
                        EXPECT_FALSE(names(message, other))
                            << "message also names " << other << ": " << message;
                    }
            EXPECT_EQ(seen().fortran_calls + seen().cblas_calls, 0) << "the tsr door called xerbla";
            EXPECT_TRUE(same_bytes(C.data(), C0.data(), C.size() * sizeof(T))) << "C was written";
        }
    }
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(TsrErrors, SgemmNamesTheBadArgument) { check_tsr_errors<float>(); }
TEST(TsrErrors, DgemmNamesTheBadArgument) { check_tsr_errors<double>(); }

// A NULL matrix that would be used is an error naming it; one that is not used is fine.
TEST(TsrErrors, NullMatrices) {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const auto A = behaviour::random_values<float>(kRoom, rng);
    const auto B = behaviour::random_values<float>(kRoom, rng);
    auto C = poisoned<float>(kRoom);
    const auto C0 = C;
    const std::regex word_c("(^|[^A-Za-z0-9_])C($|[^A-Za-z0-9_])");
    const std::regex word_a("(^|[^A-Za-z0-9_])A($|[^A-Za-z0-9_])");
    const std::regex word_b("(^|[^A-Za-z0-9_])B($|[^A-Za-z0-9_])");
    EXPECT_EQ(tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 4, 5, 1.0f, A.data(), 3,
                        B.data(), 5, 0.0f, nullptr, 3),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(std::regex_search(std::string(tsr_last_error()), word_c)) << tsr_last_error();
    EXPECT_EQ(tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 4, 5, 1.0f, nullptr, 3,
                        B.data(), 5, 0.0f, C.data(), 3),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(std::regex_search(std::string(tsr_last_error()), word_a)) << tsr_last_error();
    EXPECT_EQ(tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 4, 5, 1.0f, A.data(), 3,
                        nullptr, 5, 0.0f, C.data(), 3),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(std::regex_search(std::string(tsr_last_error()), word_b)) << tsr_last_error();
    EXPECT_TRUE(same_bytes(C.data(), C0.data(), C.size() * sizeof(float)));

    // alpha = 0: A and B are not read, so they may be NULL; C = beta·C.
    std::vector<float> D(12, 2.0f);
    EXPECT_EQ(tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 4, 5, 0.0f, nullptr, 3,
                        nullptr, 5, 0.5f, D.data(), 3),
              TSR_SUCCESS)
        << tsr_last_error();
    for (float d : D) EXPECT_EQ(d, 1.0f);
    // m = 0: nothing is touched, so every matrix may be NULL.
    EXPECT_EQ(tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 0, 4, 5, 1.0f, nullptr, 1,
                        nullptr, 5, 0.0f, nullptr, 1),
              TSR_SUCCESS)
        << tsr_last_error();
}

// tsr_last_error() belongs to the calling thread.
TEST(TsrErrors, LastErrorIsThreadLocal) {
    float x[16] = {};
    ASSERT_EQ(tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 3, 3, 1.0f, x, 1, x, 3, 0.0f,
                        x, 3),
              TSR_ERR_INVALID_ARGUMENT);
    const std::string mine = tsr_last_error();
    ASSERT_TRUE(names(mine, "lda")) << mine;

    std::string fresh, theirs;
    std::thread other([&] {
        fresh = tsr_last_error();
        float y[16] = {};
        tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 3, 3, 1.0f, y, 3, y, 3, 0.0f, y,
                  2);
        theirs = tsr_last_error();
    });
    other.join();
    EXPECT_EQ(fresh, "") << "a new thread sees another thread's error";
    EXPECT_TRUE(names(theirs, "ldc")) << theirs;
    EXPECT_EQ(std::string(tsr_last_error()), mine) << "another thread's error replaced ours";
}

// ---- the small tsr_* API ----

// The same entry points as a C caller sees them: an enum argument is an int, and any int may
// arrive. (In C++, an enum variable outside its enumerators' range is undefined behaviour.)
extern "C" {
const char *status_string_of_int(int status) __asm__("tsr_status_string");
tsr_status set_backend_int(tsr_handle handle, int backend) __asm__("tsr_set_backend");
tsr_status backend_available_int(int backend, int *available) __asm__("tsr_backend_available");
}

TEST(TsrApi, StatusStrings) {
    const tsr_status all[] = {
        TSR_SUCCESS,           TSR_ERR_INVALID_ARGUMENT, TSR_ERR_BACKEND_UNAVAILABLE,
        TSR_ERR_OUT_OF_MEMORY, TSR_ERR_DEVICE,           TSR_ERR_NOT_SUPPORTED,
        TSR_ERR_INTERNAL};
    const std::string unknown = status_string_of_int(12345);
    EXPECT_EQ(unknown, "unknown status");
    EXPECT_EQ(std::string(status_string_of_int(-1)), unknown);
    EXPECT_EQ(std::string(status_string_of_int(TSR_ERR_INTERNAL + 1)), unknown);
    std::set<std::string> texts;
    for (tsr_status s : all) {
        const char *t = tsr_status_string(s);
        ASSERT_NE(t, nullptr);
        EXPECT_NE(std::string(t), "") << int(s);
        EXPECT_NE(std::string(t), unknown) << int(s);
        texts.insert(t);
    }
    EXPECT_EQ(texts.size(), std::size(all)) << "two codes share a text";
    EXPECT_NE(std::string(tsr_status_string(TSR_SUCCESS)).find("success"), std::string::npos);
    EXPECT_NE(std::string(tsr_status_string(TSR_ERR_INVALID_ARGUMENT)).find("argument"),
              std::string::npos);
}

TEST(TsrApi, Version) {
    const char *v = tsr_version();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(std::string(v), std::to_string(TSR_VERSION_MAJOR) + "." +
                                  std::to_string(TSR_VERSION_MINOR) + "." +
                                  std::to_string(TSR_VERSION_PATCH));
}

TEST(TsrApi, NullAndBadArguments) {
    EXPECT_EQ(tsr_create(nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()), "");
    EXPECT_EQ(tsr_destroy(nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_backend(nullptr, TSR_BACKEND_CPU), TSR_ERR_INVALID_ARGUMENT);
    tsr_backend b = TSR_BACKEND_REFERENCE;
    EXPECT_EQ(tsr_get_backend(nullptr, &b), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(b, TSR_BACKEND_REFERENCE) << "output written on failure";
    EXPECT_EQ(tsr_set_num_threads(nullptr, 2), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_cuda_stream(nullptr, nullptr), TSR_ERR_INVALID_ARGUMENT);
    const int device_zero[1] = {0};
    EXPECT_EQ(tsr_set_cuda_devices(nullptr, 1, device_zero), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_backend_available(TSR_BACKEND_CPU, nullptr), TSR_ERR_INVALID_ARGUMENT);
    int available = 77;
    EXPECT_EQ(backend_available_int(9, &available), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(available, 77) << "output written on failure";

    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(tsr_get_backend(h, nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_num_threads(h, 0), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("num_threads"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(tsr_set_num_threads(h, -3), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_num_threads(h, 1), TSR_SUCCESS);
    EXPECT_EQ(set_backend_int(h, -1), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(set_backend_int(h, 4), TSR_ERR_INVALID_ARGUMENT);

    // Switching backends round-trips, and a rejected value keeps the previous one.
    EXPECT_EQ(tsr_set_backend(h, TSR_BACKEND_REFERENCE), TSR_SUCCESS);
    EXPECT_EQ(set_backend_int(h, 42), TSR_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(tsr_get_backend(h, &b), TSR_SUCCESS);
    EXPECT_EQ(b, TSR_BACKEND_REFERENCE);
    EXPECT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_get_backend(h, &b), TSR_SUCCESS);
    EXPECT_EQ(b, TSR_BACKEND_CPU);
    EXPECT_EQ(tsr_set_backend(h, TSR_BACKEND_AUTO), TSR_SUCCESS);
    ASSERT_EQ(tsr_get_backend(h, &b), TSR_SUCCESS);
    EXPECT_EQ(b, TSR_BACKEND_AUTO);

    for (tsr_backend always : {TSR_BACKEND_AUTO, TSR_BACKEND_CPU, TSR_BACKEND_REFERENCE}) {
        available = 77;
        EXPECT_EQ(tsr_backend_available(always, &available), TSR_SUCCESS);
        EXPECT_EQ(available, 1) << int(always);
    }
    available = 77;
    EXPECT_EQ(tsr_backend_available(TSR_BACKEND_CUDA, &available), TSR_SUCCESS);
    EXPECT_TRUE(available == 0 || available == 1) << available;
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

// handle = NULL means the default handle: the product is computed.
template <typename T> void check_null_handle() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR}) {
        auto p = behaviour::Problem<T>::make(rng, layout, TSR_OP_T, TSR_OP_N, 33, 21, 17, T(-0.5),
                                             T(2), 3);
        auto C = p.C0;
        tsr_status s;
        if constexpr (std::is_same_v<T, float>)
            s = tsr_sgemm(nullptr, layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.A.data(), p.lda,
                          p.B.data(), p.ldb, p.beta, C.data(), p.ldc);
        else
            s = tsr_dgemm(nullptr, layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.A.data(), p.lda,
                          p.B.data(), p.ldb, p.beta, C.data(), p.ldc);
        ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
        EXPECT_TRUE(p.check(C.data()));
    }
}

TEST(TsrApi, SgemmWithNullHandleUsesTheDefaultHandle) { check_null_handle<float>(); }
TEST(TsrApi, DgemmWithNullHandleUsesTheDefaultHandle) { check_null_handle<double>(); }

// Sizes whose extents no pointer can span: refused through every door before any memory is
// touched. The buffers are a few elements, poisoned, with a guard of poison around C; every
// case once crashed, hung, or wrote before C and returned success.
struct ExtentCase {
    const char *what;
    char ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    int info; // the parameter the Fortran door names: the leading dimension of the matrix
};

const int64_t kBig = int64_t(1) << 40, kHuge = int64_t(1) << 61;
const ExtentCase kExtentCases[] = {
    {"m = n = k = ld = 2^40", 'N', 'N', kBig, kBig, kBig, kBig, kBig, kBig, 8},
    {"ldc = INT64_MAX on a 2 x 3 C", 'N', 'N', 2, 3, 2, 2, 2, INT64_MAX, 13},
    {"every size INT64_MAX", 'N', 'N', INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX,
     INT64_MAX, 8},
    {"transposed A, m = 2, k = 2^61", 'T', 'N', 2, 2, kHuge, kHuge, kHuge, 2, 8},
    {"B of 2^40 columns of 2^40", 'N', 'N', 1, kBig, kBig, 1, kBig, 1, 10},
    {"C of 2^40 x 2^40 with k = 0", 'N', 'N', kBig, kBig, 0, kBig, 1, kBig, 13},
};

template <typename T> void check_extents_refused() {
    // A small call first: the library's own scratch buffers exist and are small.
    {
        std::vector<T> a(4, T(1)), b(4, T(1)), c(4, T(0));
        tsr_status s;
        if constexpr (sizeof(T) == 4)
            s = tsr_sgemm(nullptr, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 2, 2, 2, T(1), a.data(), 2,
                          b.data(), 2, T(0), c.data(), 2);
        else
            s = tsr_dgemm(nullptr, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 2, 2, 2, T(1), a.data(), 2,
                          b.data(), 2, T(0), c.data(), 2);
        ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    }
    constexpr size_t guard = 64;
    for (const ExtentCase &e : kExtentCases) {
        SCOPED_TRACE(e.what);
        std::vector<T> a = poisoned<T>(16), b = poisoned<T>(16), all = poisoned<T>(3 * guard);
        const std::vector<T> before = all;
        T *C = all.data() + guard;
        const T alpha = T(1), beta = T(0.5);
        // tsr_*: both layouts (a row-major call swaps the roles of A and B)
        for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR}) {
            const tsr_op ta = e.ta == 'N' ? TSR_OP_N : TSR_OP_T,
                         tb = e.tb == 'N' ? TSR_OP_N : TSR_OP_T;
            const int64_t m = layout == TSR_COL_MAJOR ? e.m : e.n,
                          n = layout == TSR_COL_MAJOR ? e.n : e.m;
            const T *A = layout == TSR_COL_MAJOR ? a.data() : b.data(),
                    *B = layout == TSR_COL_MAJOR ? b.data() : a.data();
            const tsr_op opa = layout == TSR_COL_MAJOR ? ta : tb,
                         opb = layout == TSR_COL_MAJOR ? tb : ta;
            const int64_t lda = layout == TSR_COL_MAJOR ? e.lda : e.ldb,
                          ldb = layout == TSR_COL_MAJOR ? e.ldb : e.lda;
            tsr_status s;
            if constexpr (sizeof(T) == 4)
                s = tsr_sgemm(nullptr, layout, opa, opb, m, n, e.k, alpha, A, lda, B, ldb, beta, C,
                              e.ldc);
            else
                s = tsr_dgemm(nullptr, layout, opa, opb, m, n, e.k, alpha, A, lda, B, ldb, beta, C,
                              e.ldc);
            EXPECT_EQ(s, TSR_ERR_INVALID_ARGUMENT) << tsr_last_error();
            EXPECT_NE(std::string(tsr_last_error()).find("beyond the address space"),
                      std::string::npos)
                << tsr_last_error();
        }
        // the ILP64 Fortran door
        reset_seen();
        const T tbeta = beta;
        if constexpr (sizeof(T) == 4)
            sgemm_64_(&e.ta, &e.tb, &e.m, &e.n, &e.k, &alpha, a.data(), &e.lda, b.data(), &e.ldb,
                      &tbeta, C, &e.ldc, 1, 1);
        else
            dgemm_64_(&e.ta, &e.tb, &e.m, &e.n, &e.k, &alpha, a.data(), &e.lda, b.data(), &e.ldb,
                      &tbeta, C, &e.ldc, 1, 1);
        EXPECT_EQ(seen().fortran_calls, 1);
        EXPECT_EQ(seen().info32, e.info);
        // the ILP64 CBLAS door, column-major: the Fortran number plus one
        reset_seen();
        const int cta = e.ta == 'N' ? 111 : 112, ctb = e.tb == 'N' ? 111 : 112;
        if constexpr (sizeof(T) == 4)
            cblas_sgemm_64(102, cta, ctb, e.m, e.n, e.k, alpha, a.data(), e.lda, b.data(), e.ldb,
                           beta, C, e.ldc);
        else
            cblas_dgemm_64(102, cta, ctb, e.m, e.n, e.k, alpha, a.data(), e.lda, b.data(), e.ldb,
                           beta, C, e.ldc);
        EXPECT_EQ(seen().cblas_calls, 1);
        EXPECT_EQ(seen().cblas_info, e.info + 1);
        EXPECT_TRUE(same_bytes(all.data(), before.data(), all.size() * sizeof(T)))
            << "memory around C was written";
    }
}

TEST(ExtentErrors, SgemmRefusesExtentsBeyondTheAddressSpace) { check_extents_refused<float>(); }
TEST(ExtentErrors, DgemmRefusesExtentsBeyondTheAddressSpace) { check_extents_refused<double>(); }

// Only what the call reads is held to the address space: with m = 0 nothing is read (a quick
// return), however large B is described.
TEST(ExtentErrors, MatricesTheCallDoesNotReadAreNotChecked) {
    const int big = INT32_MAX, two = 2, zero_m = 0;
    const double one = 1, zero = 0;
    std::vector<double> c = poisoned<double>(4);
    const std::vector<double> before = c;
    reset_seen();
    dgemm_("N", "N", &zero_m, &two, &big, &one, c.data(), &two, c.data(), &big, &zero, c.data(),
           &two, 1, 1);
    EXPECT_EQ(seen().fortran_calls, 0);
    EXPECT_TRUE(same_bytes(c.data(), before.data(), c.size() * sizeof(double)));
}

// tsr_set_num_threads: 1 to 4096, as the environment variable; more once made 12,874 OS
// threads, and INT_MAX crashed inside the OpenMP runtime.
TEST(TsrApi, NumThreadsIsBounded) {
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    EXPECT_EQ(tsr_set_num_threads(h, 4096), TSR_SUCCESS);
    EXPECT_EQ(tsr_set_num_threads(h, 2), TSR_SUCCESS);
    for (int bad : {0, -1, 4097, 100000, INT_MAX}) {
        EXPECT_EQ(tsr_set_num_threads(h, bad), TSR_ERR_INVALID_ARGUMENT) << bad;
        EXPECT_NE(std::string(tsr_last_error()).find("4096"), std::string::npos)
            << tsr_last_error();
    }
    // the refused values left the handle's count as it was: a product runs on 2 threads
    std::vector<double> a(64 * 64, 1.0), c(64 * 64, 0.0);
    EXPECT_EQ(tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 64, 64, 64, 1.0, a.data(), 64,
                        a.data(), 64, 0.0, c.data(), 64),
              TSR_SUCCESS);
    EXPECT_EQ(c[0], 64.0);
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

} // namespace

// tsr_set_cuda_devices checks its list before it looks for the CUDA backend; where that backend
// cannot run, a good list is refused as unavailable and the handle keeps working on the CPU.
TEST(TsrApi, CudaDevicesArguments) {
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    const int ids[2] = {0, 1};
    EXPECT_EQ(tsr_set_cuda_devices(h, -1, nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_cuda_devices(h, 2, nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_set_cuda_devices(h, 0, ids), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("count"), std::string::npos) << tsr_last_error();
    int cuda = 0;
    ASSERT_EQ(tsr_backend_available(TSR_BACKEND_CUDA, &cuda), TSR_SUCCESS);
    if (!cuda) {
        EXPECT_EQ(tsr_set_cuda_devices(h, 1, ids), TSR_ERR_BACKEND_UNAVAILABLE);
        EXPECT_EQ(tsr_set_cuda_devices(h, 0, nullptr), TSR_ERR_BACKEND_UNAVAILABLE);
        double a = 2, b = 3, c = 0;
        EXPECT_EQ(
            tsr_dgemm(h, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1),
            TSR_SUCCESS);
        EXPECT_EQ(c, 6.0);
    }
    tsr_destroy(h);
}
