// Gemm plans: every argument checked at create with tsr_?gemm's rules, nothing written on a
// refusal; one product, strided batches and pointer batches against the float64 oracle, in both
// layouts, every op pair, padded leading dimensions, alpha/beta cases, shared out over threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "behaviour_support.hpp"

namespace {

using behaviour::Problem;

template <typename T> constexpr tsr_dtype dtype_of() { return sizeof(T) == 4 ? TSR_F32 : TSR_F64; }

template <typename T> tsr_gemm_plan make_plan(tsr_handle h, const Problem<T> &p) {
    tsr_gemm_plan plan = nullptr;
    EXPECT_EQ(tsr_gemm_plan_create(h, &plan, dtype_of<T>(), p.layout, p.ta, p.tb, p.m, p.n, p.k,
                                   p.lda, p.ldb, p.ldc),
              TSR_SUCCESS)
        << tsr_last_error();
    return plan;
}

template <typename T> void check_single(tsr_handle h) {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const int64_t shapes[][3] = {{1, 1, 1},    {4, 4, 4}, {7, 5, 3}, {16, 16, 16},
                                 {33, 17, 65}, {0, 3, 2}, {3, 4, 0}};
    const T scalars[][2] = {{T(1), T(0)}, {T(-0.5), T(2)}, {T(0), T(0.5)}, {T(1.5), T(1)}};
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
        for (tsr_op ta : {TSR_OP_N, TSR_OP_T, TSR_OP_C})
            for (tsr_op tb : {TSR_OP_N, TSR_OP_T})
                for (const auto &s : shapes)
                    for (const auto &ab : scalars) {
                        auto p = Problem<T>::make(rng, layout, ta, tb, s[0], s[1], s[2], ab[0],
                                                  ab[1], 3);
                        tsr_gemm_plan plan = make_plan(h, p);
                        ASSERT_NE(plan, nullptr);
                        for (int rep = 0; rep < 2; ++rep) { // a plan runs any number of times
                            auto C = p.C0;
                            ASSERT_EQ(tsr_gemm_plan_execute(plan, double(p.alpha), p.A.data(),
                                                            p.B.data(), double(p.beta), C.data()),
                                      TSR_SUCCESS)
                                << tsr_last_error();
                            ASSERT_TRUE(p.check(C.data()));
                        }
                        EXPECT_EQ(tsr_gemm_plan_destroy(plan), TSR_SUCCESS);
                    }
}

TEST(GemmPlan, SingleProductsFloat) { check_single<float>(nullptr); }
TEST(GemmPlan, SingleProductsDouble) { check_single<double>(nullptr); }

// The products small enough that a plan on the CPU calls the unpacked kernel itself: every
// row count up to a vector and row counts up to two vectors of every ISA and past (each partial
// store), every column count of a tile and past, k past the one-tile kernels', beta 0 and not; the
// plan's C bit for bit the one tsr_?gemm writes on the same handle, both checked against the oracle
// with the padding untouched. Then the handle moved to the reference backend after the plan was
// made: the plan follows it.
template <typename T> void check_tiny_plans() {
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    auto rng = behaviour::rng_for(behaviour::test_label());
    for (tsr_backend backend : {TSR_BACKEND_CPU, TSR_BACKEND_REFERENCE})
        for (tsr_op tb : {TSR_OP_N, TSR_OP_T})
            for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 19, 24, 32, 33})
                for (int64_t n = 1; n <= 13; ++n)
                    for (int64_t k : {1, 5, 257})
                        for (T beta : {T(0), T(-0.5)}) {
                            auto p = Problem<T>::make(rng, TSR_COL_MAJOR, TSR_OP_N, tb, m, n, k,
                                                      T(1.25), beta, 2);
                            ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
                            tsr_gemm_plan plan = make_plan(h, p);
                            ASSERT_NE(plan, nullptr);
                            ASSERT_EQ(tsr_set_backend(h, backend), TSR_SUCCESS);
                            auto by_plan = p.C0, by_call = p.C0;
                            ASSERT_EQ(tsr_gemm_plan_execute(plan, double(p.alpha), p.A.data(),
                                                            p.B.data(), double(beta),
                                                            by_plan.data()),
                                      TSR_SUCCESS)
                                << tsr_last_error();
                            ASSERT_TRUE(p.check(by_plan.data())) << m << "x" << n << "x" << k;
                            tsr_status called;
                            if constexpr (sizeof(T) == 4)
                                called = tsr_sgemm(h, p.layout, p.ta, p.tb, m, n, k, p.alpha,
                                                   p.A.data(), p.lda, p.B.data(), p.ldb, beta,
                                                   by_call.data(), p.ldc);
                            else
                                called = tsr_dgemm(h, p.layout, p.ta, p.tb, m, n, k, p.alpha,
                                                   p.A.data(), p.lda, p.B.data(), p.ldb, beta,
                                                   by_call.data(), p.ldc);
                            ASSERT_EQ(called, TSR_SUCCESS) << tsr_last_error();
                            ASSERT_EQ(std::memcmp(by_plan.data(), by_call.data(),
                                                  by_plan.size() * sizeof(T)),
                                      0)
                                << m << "x" << n << "x" << k << " on backend " << int(backend);
                            EXPECT_EQ(tsr_gemm_plan_destroy(plan), TSR_SUCCESS);
                        }
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(GemmPlan, TinyProductsFloat) { check_tiny_plans<float>(); }
TEST(GemmPlan, TinyProductsDouble) { check_tiny_plans<double>(); }

// The bare kernel of a plan: where the CPU runs the product unpacked (every ISA that has such
// a kernel), its C bit for bit the one tsr_gemm_plan_execute writes, both layouts, op(B) either
// way, partial and whole vectors of rows, alpha 0 reading neither A nor B (NaN there) and beta 0
// never reading C (NaN there). Where the plan has no kernel, nothing is written to *kernel.
template <typename T> struct KernelOf;
template <> struct KernelOf<float> {
    using type = tsr_sgemm_kernel;
    static tsr_status get(tsr_gemm_plan p, type *k) { return tsr_gemm_plan_sgemm_kernel(p, k); }
};
template <> struct KernelOf<double> {
    using type = tsr_dgemm_kernel;
    static tsr_status get(tsr_gemm_plan p, type *k) { return tsr_gemm_plan_dgemm_kernel(p, k); }
};

// Whether this run's CPU kernels have an unpacked path (AVX2 or AVX-512; not the generic ISA).
bool expect_bare_kernels() {
#if defined(__x86_64__)
    const char *isa = std::getenv("TESSERA_CPU_ISA");
    if (isa && !std::strcmp(isa, "generic")) return false;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

template <typename T> void check_bare_kernels() {
    using Kernel = typename KernelOf<T>::type;
    const Kernel untouched = reinterpret_cast<Kernel>(uintptr_t(0x1234));
    const bool expected = expect_bare_kernels();
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    auto rng = behaviour::rng_for(behaviour::test_label());
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const T scalars[][2] = {
        {T(1.25), T(0)}, {T(-0.5), T(1)}, {T(0.75), T(-2)}, {T(0), T(0.5)}, {T(0), T(0)}};
    int ran = 0;
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
        for (tsr_op other : {TSR_OP_N, TSR_OP_T}) {
            // op(A) of the column-major call untransposed: the user's op(B) in row-major terms
            const tsr_op ta = layout == TSR_COL_MAJOR ? TSR_OP_N : other;
            const tsr_op tb = layout == TSR_COL_MAJOR ? other : TSR_OP_N;
            for (int64_t m : {1, 3, 4, 7, 8, 12, 16, 17, 33})
                for (int64_t n : {1, 5, 6, 8, 13})
                    for (int64_t k : {1, 4, 9, 64})
                        for (const auto &ab : scalars) {
                            auto p =
                                Problem<T>::make(rng, layout, ta, tb, m, n, k, ab[0], ab[1], 2);
                            // What the calls get: NaN where nothing may be read (A and B with
                            // alpha 0, C's elements with beta 0); the oracle keeps p's own.
                            auto A = p.A, B = p.B, C = p.C0;
                            if (ab[0] == T(0)) A.assign(A.size(), nan), B.assign(B.size(), nan);
                            if (ab[1] == T(0))
                                for (int64_t i = 0; i < m; ++i)
                                    for (int64_t j = 0; j < n; ++j)
                                        C[size_t(layout == TSR_COL_MAJOR ? i + j * p.ldc
                                                                         : i * p.ldc + j)] = nan;
                            tsr_gemm_plan plan = make_plan(h, p);
                            ASSERT_NE(plan, nullptr);
                            Kernel kernel = untouched;
                            const tsr_status got = KernelOf<T>::get(plan, &kernel);
                            if (!expected) {
                                EXPECT_EQ(got, TSR_ERR_NOT_SUPPORTED);
                                EXPECT_EQ(kernel, untouched);
                                EXPECT_EQ(tsr_gemm_plan_destroy(plan), TSR_SUCCESS);
                                continue;
                            }
                            ASSERT_EQ(got, TSR_SUCCESS) << tsr_last_error();
                            auto by_kernel = p.C0, by_plan = p.C0;
                            kernel(plan, p.alpha, p.A.data(), p.B.data(), p.beta, by_kernel.data());
                            ASSERT_TRUE(p.check(by_kernel.data()))
                                << m << "x" << n << "x" << k << " alpha " << p.alpha << " beta "
                                << p.beta;
                            ASSERT_EQ(tsr_gemm_plan_execute(plan, double(p.alpha), A.data(),
                                                            B.data(), double(p.beta),
                                                            by_plan.data()),
                                      TSR_SUCCESS)
                                << tsr_last_error();
                            ASSERT_EQ(std::memcmp(by_kernel.data(), by_plan.data(),
                                                  by_plan.size() * sizeof(T)),
                                      0)
                                << m << "x" << n << "x" << k;
                            ++ran;
                            EXPECT_EQ(tsr_gemm_plan_destroy(plan), TSR_SUCCESS);
                        }
        }
    EXPECT_EQ(ran > 0, expected);
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(GemmPlan, BareKernelsFloat) { check_bare_kernels<float>(); }
TEST(GemmPlan, BareKernelsDouble) { check_bare_kernels<double>(); }

// The getters refuse a NULL plan or kernel, the other dtype's getter, and plans without a bare
// kernel (a product too large for one thread, op(A) transposed, a handle on the reference
// backend), writing nothing; the message names the way to go.
TEST(GemmPlan, BareKernelRefusals) {
    const tsr_dgemm_kernel untouched = reinterpret_cast<tsr_dgemm_kernel>(uintptr_t(0x1234));
    tsr_dgemm_kernel kernel = untouched;
    tsr_sgemm_kernel skernel = nullptr;
    auto plan_of = [](tsr_handle h, tsr_op ta, int64_t m, int64_t n, int64_t k) {
        tsr_gemm_plan p = nullptr;
        EXPECT_EQ(tsr_gemm_plan_create(h, &p, TSR_F64, TSR_COL_MAJOR, ta, TSR_OP_N, m, n, k,
                                       ta == TSR_OP_N ? m : k, k, m),
                  TSR_SUCCESS)
            << tsr_last_error();
        return p;
    };
    EXPECT_EQ(tsr_gemm_plan_dgemm_kernel(nullptr, &kernel), TSR_ERR_INVALID_ARGUMENT);
    tsr_gemm_plan small = plan_of(nullptr, TSR_OP_N, 8, 8, 8);
    EXPECT_EQ(tsr_gemm_plan_dgemm_kernel(small, nullptr), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_gemm_plan_sgemm_kernel(small, &skernel), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("tsr_gemm_plan_dgemm_kernel"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(skernel, nullptr);
    tsr_gemm_plan large = plan_of(nullptr, TSR_OP_N, 300, 300, 300);
    tsr_gemm_plan trans = plan_of(nullptr, TSR_OP_T, 8, 8, 8);
    for (tsr_gemm_plan p : {large, trans}) {
        EXPECT_EQ(tsr_gemm_plan_dgemm_kernel(p, &kernel), TSR_ERR_NOT_SUPPORTED);
        EXPECT_NE(std::string(tsr_last_error()).find("tsr_gemm_plan_execute"), std::string::npos)
            << tsr_last_error();
    }
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_REFERENCE), TSR_SUCCESS);
    tsr_gemm_plan on_reference = plan_of(h, TSR_OP_N, 8, 8, 8);
    EXPECT_EQ(tsr_gemm_plan_dgemm_kernel(on_reference, &kernel), TSR_ERR_NOT_SUPPORTED);
    EXPECT_NE(std::string(tsr_last_error()).find("backend"), std::string::npos) << tsr_last_error();
    EXPECT_EQ(kernel, untouched);
    for (tsr_gemm_plan p : {small, large, trans, on_reference})
        EXPECT_EQ(tsr_gemm_plan_destroy(p), TSR_SUCCESS);
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

// Strided and pointer batches: many small products shared out over two threads, and a batch
// smaller than the threads, each product checked; A shared by every product (stride 0).
template <typename T> void check_batches(int64_t count) {
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_num_threads(h, 2), TSR_SUCCESS);
    auto rng = behaviour::rng_for(behaviour::test_label() + std::to_string(count));
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR}) {
        std::vector<Problem<T>> ps;
        for (int64_t i = 0; i < count; ++i)
            ps.push_back(
                Problem<T>::make(rng, layout, TSR_OP_T, TSR_OP_N, 9, 6, 5, T(0.75), T(-1), 2));
        for (int64_t i = 1; i < count; ++i) ps[size_t(i)].A = ps[0].A; // one A for all (stride 0)
        tsr_gemm_plan plan = make_plan(h, ps[0]);
        ASSERT_NE(plan, nullptr);
        const int64_t sa = int64_t(ps[0].A.size()), sb = int64_t(ps[0].B.size()),
                      sc = int64_t(ps[0].C0.size());
        std::vector<T> B(size_t(sb * count)), C(size_t(sc * count));
        for (int64_t i = 0; i < count; ++i) {
            std::copy(ps[size_t(i)].B.begin(), ps[size_t(i)].B.end(), B.begin() + i * sb);
            std::copy(ps[size_t(i)].C0.begin(), ps[size_t(i)].C0.end(), C.begin() + i * sc);
        }
        auto pointer_C = C;
        ASSERT_EQ(tsr_gemm_plan_execute_strided(plan, count, 0.75, ps[0].A.data(), 0, B.data(), sb,
                                                -1.0, C.data(), sc),
                  TSR_SUCCESS)
            << tsr_last_error();
        std::vector<const void *> pa, pb;
        std::vector<void *> pc;
        for (int64_t i = 0; i < count; ++i) {
            pa.push_back(ps[0].A.data());
            pb.push_back(B.data() + i * sb);
            pc.push_back(pointer_C.data() + i * sc);
        }
        ASSERT_EQ(
            tsr_gemm_plan_execute_batch(plan, count, 0.75, pa.data(), pb.data(), -1.0, pc.data()),
            TSR_SUCCESS)
            << tsr_last_error();
        for (int64_t i = 0; i < count; ++i) {
            ASSERT_TRUE(ps[size_t(i)].check(C.data() + i * sc)) << "strided, product " << i;
            ASSERT_TRUE(ps[size_t(i)].check(pointer_C.data() + i * sc))
                << "pointers, product " << i;
        }
        EXPECT_EQ(tsr_gemm_plan_destroy(plan), TSR_SUCCESS);
    }
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(GemmPlan, BatchesFloat) { check_batches<float>(37); }
TEST(GemmPlan, BatchesDouble) { check_batches<double>(37); }
TEST(GemmPlan, SmallBatchDouble) { check_batches<double>(1); }

// Create refuses what tsr_?gemm refuses, with its message, and writes no plan; execute refuses
// NULL pointers and bad counts or strides with C untouched.
TEST(GemmPlan, BadArgumentsAreRefused) {
    tsr_gemm_plan untouched = reinterpret_cast<tsr_gemm_plan>(uintptr_t(0x1234)), plan = untouched;
    auto refused = [&](tsr_status s, const char *word) {
        EXPECT_EQ(s, TSR_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(tsr_last_error()).find(word), std::string::npos) << tsr_last_error();
        EXPECT_EQ(plan, untouched);
    };
    refused(tsr_gemm_plan_create(nullptr, &plan, tsr_dtype(7), TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 2,
                                 2, 2, 2, 2, 2),
            "dtype");
    refused(tsr_gemm_plan_create(nullptr, &plan, TSR_F64, tsr_layout(5), TSR_OP_N, TSR_OP_N, 2, 2,
                                 2, 2, 2, 2),
            "layout");
    refused(tsr_gemm_plan_create(nullptr, &plan, TSR_F64, TSR_COL_MAJOR, tsr_op(0), TSR_OP_N, 2, 2,
                                 2, 2, 2, 2),
            "transa");
    refused(tsr_gemm_plan_create(nullptr, &plan, TSR_F64, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, -1, 2,
                                 2, 2, 2, 2),
            "m = -1");
    refused(tsr_gemm_plan_create(nullptr, &plan, TSR_F64, TSR_ROW_MAJOR, TSR_OP_N, TSR_OP_N, 2, 3,
                                 2, 1, 3, 3),
            "lda = 1");
    refused(tsr_gemm_plan_create(nullptr, &plan, TSR_F32, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 2, 3,
                                 2, 2, 2, INT64_MAX),
            "address space");
    EXPECT_EQ(tsr_gemm_plan_create(nullptr, nullptr, TSR_F64, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 2,
                                   2, 2, 2, 2, 2),
              TSR_ERR_INVALID_ARGUMENT);

    ASSERT_EQ(tsr_gemm_plan_create(nullptr, &plan, TSR_F64, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 2, 2,
                                   2, 2, 2, 2),
              TSR_SUCCESS);
    std::vector<double> a(4, 1.0), c = behaviour::poisoned<double>(8);
    const std::vector<double> before = c;
    EXPECT_EQ(tsr_gemm_plan_execute(nullptr, 1, a.data(), a.data(), 0, c.data()),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_gemm_plan_execute(plan, 1, nullptr, a.data(), 0, c.data()),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_gemm_plan_execute(plan, 1, a.data(), a.data(), 0, nullptr),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_gemm_plan_execute_strided(plan, -1, 1, a.data(), 0, a.data(), 0, 0, c.data(), 4),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tsr_gemm_plan_execute_strided(plan, 2, 1, a.data(), -4, a.data(), 0, 0, c.data(), 4),
              TSR_ERR_INVALID_ARGUMENT);
    // Cs 3 elements apart would overlap (each spans 4)
    EXPECT_EQ(tsr_gemm_plan_execute_strided(plan, 2, 1, a.data(), 0, a.data(), 0, 0, c.data(), 3),
              TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("stride_c"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(tsr_gemm_plan_execute_strided(plan, 2, 1, a.data(), INT64_MAX / 2, a.data(), 0, 0,
                                            c.data(), 4),
              TSR_ERR_INVALID_ARGUMENT);
    // a batch with one NULL C among valid ones: refused before any product runs
    const void *pa[2] = {a.data(), a.data()};
    void *pc[2] = {c.data(), nullptr};
    EXPECT_EQ(tsr_gemm_plan_execute_batch(plan, 2, 1, pa, pa, 0, pc), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsr_last_error()).find("product 1"), std::string::npos)
        << tsr_last_error();
    EXPECT_EQ(std::memcmp(c.data(), before.data(), c.size() * sizeof(double)), 0)
        << "C was written";
    // count 0 and alpha 0 without A and B are fine
    EXPECT_EQ(tsr_gemm_plan_execute_strided(plan, 0, 1, nullptr, 0, nullptr, 0, 0, nullptr, 0),
              TSR_SUCCESS);
    EXPECT_EQ(tsr_gemm_plan_execute(plan, 0, nullptr, nullptr, 0, c.data()), TSR_SUCCESS)
        << tsr_last_error();
    EXPECT_EQ(c[0], 0.0);
    EXPECT_EQ(tsr_gemm_plan_destroy(plan), TSR_SUCCESS);
    EXPECT_EQ(tsr_gemm_plan_destroy(nullptr), TSR_ERR_INVALID_ARGUMENT);
}

} // namespace
