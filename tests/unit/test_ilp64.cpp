// The ILP64 doors (sgemm_64_, dgemm_64_, cblas_?gemm_64) compute what the LP64 ones do, and
// index arithmetic is 64-bit: matrices whose elements lie beyond 2^31 (sparse mmap) are right.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <climits>
#include <functional>
#include <string>
#include <vector>

#include "behaviour_support.hpp"

namespace {

using behaviour::Problem;

// ---- the ILP64 doors against the LP64 ones on random data ----

struct Shape {
    int64_t m, n, k;
};
const Shape kShapes[] = {{7, 5, 6}, {33, 17, 29}, {64, 64, 64}, {1, 13, 1}, {70, 3, 130}};
const tsr_op kOps[] = {TSR_OP_N, TSR_OP_T, TSR_OP_C};

template <typename T> void fortran_lp64(const Problem<T> &p, T *C) {
    const char ta = behaviour::op_char(p.ta), tb = behaviour::op_char(p.tb);
    const int m = int(p.m), n = int(p.n), k = int(p.k), lda = int(p.lda), ldb = int(p.ldb),
              ldc = int(p.ldc);
    if constexpr (std::is_same_v<T, float>)
        sgemm_(&ta, &tb, &m, &n, &k, &p.alpha, p.A.data(), &lda, p.B.data(), &ldb, &p.beta, C, &ldc,
               1, 1);
    else
        dgemm_(&ta, &tb, &m, &n, &k, &p.alpha, p.A.data(), &lda, p.B.data(), &ldb, &p.beta, C, &ldc,
               1, 1);
}

template <typename T> void fortran_ilp64(const Problem<T> &p, T *C) {
    const char ta = behaviour::op_char(p.ta), tb = behaviour::op_char(p.tb);
    if constexpr (std::is_same_v<T, float>)
        sgemm_64_(&ta, &tb, &p.m, &p.n, &p.k, &p.alpha, p.A.data(), &p.lda, p.B.data(), &p.ldb,
                  &p.beta, C, &p.ldc, 1, 1);
    else
        dgemm_64_(&ta, &tb, &p.m, &p.n, &p.k, &p.alpha, p.A.data(), &p.lda, p.B.data(), &p.ldb,
                  &p.beta, C, &p.ldc, 1, 1);
}

template <typename T> void cblas_lp64(const Problem<T> &p, T *C) {
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(p.layout, p.ta, p.tb, int(p.m), int(p.n), int(p.k), p.alpha, p.A.data(),
                    int(p.lda), p.B.data(), int(p.ldb), p.beta, C, int(p.ldc));
    else
        cblas_dgemm(p.layout, p.ta, p.tb, int(p.m), int(p.n), int(p.k), p.alpha, p.A.data(),
                    int(p.lda), p.B.data(), int(p.ldb), p.beta, C, int(p.ldc));
}

template <typename T> void cblas_ilp64(const Problem<T> &p, T *C) {
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm_64(p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.A.data(), p.lda, p.B.data(),
                       p.ldb, p.beta, C, p.ldc);
    else
        cblas_dgemm_64(p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.A.data(), p.lda, p.B.data(),
                       p.ldb, p.beta, C, p.ldc);
}

// Both doors give the float64 oracle's answer, and the very same bits (they share one path).
template <typename T>
void compare_doors(const Problem<T> &p, void (*lp64)(const Problem<T> &, T *),
                   void (*ilp64)(const Problem<T> &, T *)) {
    std::vector<T> C32 = p.C0, C64 = p.C0;
    lp64(p, C32.data());
    ilp64(p, C64.data());
    EXPECT_TRUE(p.check(C32.data())) << "LP64 door";
    EXPECT_TRUE(p.check(C64.data())) << "ILP64 door";
    EXPECT_TRUE(behaviour::same_bytes(C32.data(), C64.data(), C32.size() * sizeof(T)))
        << "the LP64 and ILP64 doors differ";
}

template <typename T> void check_fortran_twins() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    for (const Shape &s : kShapes)
        for (tsr_op ta : kOps)
            for (tsr_op tb : kOps) {
                auto p = Problem<T>::make(rng, TSR_COL_MAJOR, ta, tb, s.m, s.n, s.k, T(0.8),
                                          T(-0.3), int64_t(s.m % 3));
                compare_doors<T>(p, fortran_lp64<T>, fortran_ilp64<T>);
            }
}

template <typename T> void check_cblas_twins() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
        for (const Shape &s : kShapes)
            for (tsr_op ta : kOps)
                for (tsr_op tb : kOps) {
                    auto p = Problem<T>::make(rng, layout, ta, tb, s.m, s.n, s.k, T(-1.1), T(0.6),
                                              int64_t(s.n % 4));
                    compare_doors<T>(p, cblas_lp64<T>, cblas_ilp64<T>);
                }
}

TEST(Ilp64Doors, Sgemm64MatchesSgemm) { check_fortran_twins<float>(); }
TEST(Ilp64Doors, Dgemm64MatchesDgemm) { check_fortran_twins<double>(); }
TEST(Ilp64Doors, CblasSgemm64MatchesCblasSgemm) { check_cblas_twins<float>(); }
TEST(Ilp64Doors, CblasDgemm64MatchesCblasDgemm) { check_cblas_twins<double>(); }

// ---- elements beyond 2^31 ----

constexpr int64_t kFar = (int64_t(1) << 31) + 64; // a leading dimension past INT_MAX
constexpr int64_t kEdge = INT_MAX;                // the largest an LP64 door takes

// An anonymous private mapping with MAP_NORESERVE: gigabytes of address space of which only
// the touched pages take memory (untouched ones read as zero).
template <typename T> class Sparse {
public:
    explicit Sparse(size_t count) : bytes_(count * sizeof(T)) {
        void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        data_ = p == MAP_FAILED ? nullptr : static_cast<T *>(p);
    }
    ~Sparse() {
        if (data_) munmap(data_, bytes_);
    }
    Sparse(const Sparse &) = delete;
    Sparse &operator=(const Sparse &) = delete;
    T *data() const { return data_; }
    size_t bytes() const { return bytes_; }

private:
    size_t bytes_;
    T *data_ = nullptr;
};

enum class Door { Fortran32, Fortran64, Cblas32, Cblas64, TsrCpu, TsrReference };

const char *door_name(Door d) {
    switch (d) {
    case Door::Fortran32: return "?gemm_";
    case Door::Fortran64: return "?gemm_64_";
    case Door::Cblas32: return "cblas_?gemm";
    case Door::Cblas64: return "cblas_?gemm_64";
    case Door::TsrCpu: return "tsr_?gemm (cpu)";
    case Door::TsrReference: return "tsr_?gemm (reference)";
    }
    return "?";
}

struct FarCase {
    Door door;
    tsr_layout layout;
    tsr_op ta, tb;
    int64_t m, n, k, lda, ldb, ldc; // 0: the smallest legal value
};

template <typename T>
void call(Door door, tsr_layout layout, tsr_op ta, tsr_op tb, int64_t m, int64_t n, int64_t k,
          T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C, int64_t ldc) {
    constexpr bool f32 = std::is_same_v<T, float>;
    const char cta = behaviour::op_char(ta), ctb = behaviour::op_char(tb);
    switch (door) {
    case Door::Fortran32: {
        const int m32 = int(m), n32 = int(n), k32 = int(k), a32 = int(lda), b32 = int(ldb),
                  c32 = int(ldc);
        if constexpr (f32)
            sgemm_(&cta, &ctb, &m32, &n32, &k32, &alpha, A, &a32, B, &b32, &beta, C, &c32, 1, 1);
        else dgemm_(&cta, &ctb, &m32, &n32, &k32, &alpha, A, &a32, B, &b32, &beta, C, &c32, 1, 1);
        break;
    }
    case Door::Fortran64:
        if constexpr (f32)
            sgemm_64_(&cta, &ctb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
        else dgemm_64_(&cta, &ctb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
        break;
    case Door::Cblas32:
        if constexpr (f32)
            cblas_sgemm(layout, ta, tb, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb),
                        beta, C, int(ldc));
        else
            cblas_dgemm(layout, ta, tb, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb),
                        beta, C, int(ldc));
        break;
    case Door::Cblas64:
        if constexpr (f32)
            cblas_sgemm_64(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        else cblas_dgemm_64(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        break;
    case Door::TsrCpu:
    case Door::TsrReference: {
        tsr_handle h = nullptr;
        ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
        ASSERT_EQ(
            tsr_set_backend(h, door == Door::TsrCpu ? TSR_BACKEND_CPU : TSR_BACKEND_REFERENCE),
            TSR_SUCCESS);
        tsr_status s;
        if constexpr (f32)
            s = tsr_sgemm(h, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        else s = tsr_dgemm(h, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        EXPECT_EQ(s, TSR_SUCCESS) << tsr_last_error();
        tsr_destroy(h);
        break;
    }
    }
}

// One product in which one matrix has elements beyond index 2^31. Only the matrix elements
// are written (a few pages); everything between them stays untouched address space.
template <typename T> void check_far(const FarCase &c) {
    SCOPED_TRACE(std::string(door_name(c.door)) + (c.layout == TSR_COL_MAJOR ? " col" : " row") +
                 " ta=" + behaviour::op_char(c.ta) + " tb=" + behaviour::op_char(c.tb) +
                 " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                 " k=" + std::to_string(c.k) + " lda=" + std::to_string(c.lda) +
                 " ldb=" + std::to_string(c.ldb) + " ldc=" + std::to_string(c.ldc));
    using behaviour::at;
    const bool col = c.layout == TSR_COL_MAJOR;
    const int64_t ar = behaviour::stored_rows(c.ta, c.m, c.k),
                  ac = behaviour::stored_cols(c.ta, c.m, c.k);
    const int64_t br = behaviour::stored_rows(c.tb, c.k, c.n),
                  bc = behaviour::stored_cols(c.tb, c.k, c.n);
    const int64_t lda = c.lda ? c.lda : (col ? ar : ac), ldb = c.ldb ? c.ldb : (col ? br : bc);
    const int64_t ldc = c.ldc ? c.ldc : (col ? c.m : c.n);

    // One extra element after C, to see that nothing past the matrix is written.
    Sparse<T> A(behaviour::storage(c.layout, ar, ac, lda)),
        B(behaviour::storage(c.layout, br, bc, ldb)),
        C(behaviour::storage(c.layout, c.m, c.n, ldc) + 1);
    if (!A.data() || !B.data() || !C.data())
        GTEST_SKIP() << "mmap(MAP_NORESERVE) of " << (A.bytes() + B.bytes() + C.bytes()) / (1 << 20)
                     << " MiB of address space failed here";

    auto rng = behaviour::rng_for(behaviour::test_label() + door_name(c.door) +
                                  std::to_string(c.lda) + std::to_string(c.ldb) +
                                  std::to_string(c.ldc) + std::to_string(int(c.layout)));
    std::uniform_real_distribution<double> dist(0.5, 1.5); // away from zero: each term counts
    auto fill = [&](T *X, int64_t rows, int64_t cols, int64_t ld) {
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) X[at(c.layout, i, j, ld)] = T(dist(rng));
    };
    fill(A.data(), ar, ac, lda);
    fill(B.data(), br, bc, ldb);
    fill(C.data(), c.m, c.n, ldc);
    const int64_t past = int64_t(behaviour::storage(c.layout, c.m, c.n, ldc));
    C.data()[past] = std::numeric_limits<T>::quiet_NaN();
    // The elements just after the first column (row) of C, inside the gap, are poisoned too.
    const int64_t gap = col ? c.m : c.n;
    const bool has_gap = ldc > gap && (col ? c.n : c.m) > 1;
    if (has_gap) C.data()[gap] = std::numeric_limits<T>::quiet_NaN();

    auto a = [&](int64_t i, int64_t l) {
        return behaviour::transposes(c.ta) ? at(c.layout, l, i, lda) : at(c.layout, i, l, lda);
    };
    auto b = [&](int64_t l, int64_t j) {
        return behaviour::transposes(c.tb) ? at(c.layout, j, l, ldb) : at(c.layout, l, j, ldb);
    };
    const T alpha = T(1.25), beta = T(0.5);
    const double u = std::numeric_limits<T>::epsilon() / 2;
    std::vector<double> expected, without_far, bound;
    int64_t far_elements = 0;
    for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
            double sum = 0, near = 0, mag = 0;
            for (int64_t l = 0; l < c.k; ++l) {
                const int64_t ia = a(i, l), ib = b(l, j);
                const double t = double(A.data()[ia]) * double(B.data()[ib]);
                sum += t;
                mag += std::fabs(t);
                if (ia <= INT_MAX && ib <= INT_MAX) near += t;
            }
            const int64_t ic = at(c.layout, i, j, ldc);
            if (ic > INT_MAX) ++far_elements;
            const double c0 = C.data()[ic];
            expected.push_back(double(alpha) * sum + double(beta) * c0);
            without_far.push_back(double(alpha) * near + double(beta) * c0);
            bound.push_back(4.0 * double(c.k + 2) * u * (double(alpha) * mag + double(beta) * c0));
        }
    // The case is built so that elements beyond 2^31 matter (of A or B, or of C itself).
    bool far_matters = far_elements > 0;
    for (size_t e = 0; e < expected.size(); ++e)
        far_matters = far_matters || std::fabs(expected[e] - without_far[e]) > 100 * bound[e];
    ASSERT_TRUE(far_matters) << "test case does not reach beyond 2^31";

    call<T>(c.door, c.layout, c.ta, c.tb, c.m, c.n, c.k, alpha, A.data(), lda, B.data(), ldb, beta,
            C.data(), ldc);

    size_t e = 0;
    for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j, ++e) {
            const int64_t ic = at(c.layout, i, j, ldc);
            const double got = C.data()[ic];
            EXPECT_LE(std::fabs(got - expected[e]), bound[e])
                << "C(" << i << "," << j << ") at element " << ic << " = " << got << ", expected "
                << expected[e] << " (ignoring elements beyond 2^31 would give " << without_far[e]
                << ")";
        }
    EXPECT_TRUE(std::isnan(C.data()[past])) << "the element after C was written";
    if (has_gap) {
        EXPECT_TRUE(std::isnan(C.data()[gap]))
            << "an element between columns (rows) of C was written";
    }
}

TEST(Ilp64Far, LeadingDimensionOfABeyond2To31) {
    check_far<float>({Door::Fortran64, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 5, 3, 2, kFar, 0, 0});
    check_far<double>({Door::Fortran64, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 2, 3, 3, kFar, 0, 0});
    check_far<float>({Door::Cblas64, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_N, 3, 2, 4, kFar, 0, 0});
    check_far<double>({Door::TsrCpu, TSR_ROW_MAJOR, TSR_OP_T, TSR_OP_N, 3, 2, 2, kFar, 0, 0});
    check_far<float>({Door::TsrReference, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 4, 3, 2, kFar, 0, 0});
}

TEST(Ilp64Far, LeadingDimensionOfBBeyond2To31) {
    check_far<double>({Door::Cblas64, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_T, 3, 3, 2, 0, kFar, 0});
    check_far<float>({Door::TsrReference, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 2, 2, 0, kFar, 0});
    check_far<float>({Door::TsrCpu, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 3, 3, 2, 0, kFar, 0});
    check_far<double>({Door::Fortran64, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 2, 2, 3, 0, kFar, 0});
}

TEST(Ilp64Far, LeadingDimensionOfCBeyond2To31) {
    check_far<float>({Door::Fortran64, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 4, 2, 3, 0, 0, kFar});
    check_far<double>({Door::Cblas64, TSR_ROW_MAJOR, TSR_OP_T, TSR_OP_N, 2, 3, 3, 0, 0, kFar});
    check_far<double>({Door::TsrReference, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 3, 2, 2, 0, 0, kFar});
}

// The LP64 doors take leading dimensions up to INT_MAX: m·lda beyond 2^31 must not overflow.
TEST(Ilp64Far, Lp64DoorsComputeOffsetsIn64Bits) {
    check_far<float>({Door::Fortran32, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 4, 2, 3, kEdge, 0, 0});
    check_far<double>({Door::Fortran32, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 3, 3, 3, 0, kEdge, 0});
    check_far<float>({Door::Cblas32, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_N, 3, 2, 2, 0, 0, kEdge});
    check_far<float>({Door::Cblas32, TSR_COL_MAJOR, TSR_OP_T, TSR_OP_N, 3, 2, 2, kEdge, 0, 0});
}

} // namespace
