// Threads: concurrent calls on shared and own handles, everything a program does (first calls,
// handles, configuration, gemm, sparse products) from many threads at once, calls from inside
// an OpenMP region, the same answer for any thread count, and a child forked after threads ran
// still computes. scripts/tsan.sh runs the tests of many user threads under ThreadSanitizer.
#include <gtest/gtest.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <latch>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "behaviour_support.hpp"

namespace {

using behaviour::Problem;

constexpr int kThreads = 8;

// A random problem of modest size in either layout, with any ops, alpha and beta.
template <typename T> Problem<T> random_problem(std::mt19937_64 &rng) {
    std::uniform_int_distribution<int64_t> size(1, 90);
    const tsr_op ops[] = {TSR_OP_N, TSR_OP_T, TSR_OP_C};
    const tsr_layout layout = rng() % 2 ? TSR_COL_MAJOR : TSR_ROW_MAJOR;
    const T alphas[] = {T(1), T(-1), T(0.7)}, betas[] = {T(0), T(1), T(-0.4)};
    const int64_t m = size(rng), n = size(rng), k = size(rng);
    const tsr_op ta = ops[rng() % 3], tb = ops[rng() % 3];
    const T alpha = alphas[rng() % 3], beta = betas[rng() % 3];
    return Problem<T>::make(rng, layout, ta, tb, m, n, k, alpha, beta, int64_t(rng() % 3));
}

template <typename T> tsr_status tsr_gemm(tsr_handle h, const Problem<T> &p, T *C) {
    if constexpr (std::is_same_v<T, float>)
        return tsr_sgemm(h, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.A.data(), p.lda,
                         p.B.data(), p.ldb, p.beta, C, p.ldc);
    else
        return tsr_dgemm(h, p.layout, p.ta, p.tb, p.m, p.n, p.k, p.alpha, p.A.data(), p.lda,
                         p.B.data(), p.ldb, p.beta, C, p.ldc);
}

template <typename T> void cblas_gemm(const Problem<T> &p, T *C) {
    if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(p.layout, p.ta, p.tb, int(p.m), int(p.n), int(p.k), p.alpha, p.A.data(),
                    int(p.lda), p.B.data(), int(p.ldb), p.beta, C, int(p.ldc));
    else
        cblas_dgemm(p.layout, p.ta, p.tb, int(p.m), int(p.n), int(p.k), p.alpha, p.A.data(),
                    int(p.lda), p.B.data(), int(p.ldb), p.beta, C, int(p.ldc));
}

// One worker's verdict: empty when every product was right.
template <typename T> std::string run_one(tsr_handle h, bool blas_door, std::mt19937_64 &rng) {
    const Problem<T> p = random_problem<T>(rng);
    std::vector<T> C = p.C0;
    if (blas_door) {
        cblas_gemm(p, C.data());
    } else if (tsr_status s = tsr_gemm(h, p, C.data()); s != TSR_SUCCESS) {
        return std::string("status ") + tsr_status_string(s) + ": " + tsr_last_error();
    }
    auto r = p.check(C.data());
    return r ? std::string() : r.message();
}

// Runs kThreads std::threads at once, each with its own data and its own handle from
// `handle_for` (which may return one shared handle), and reports every wrong result.
template <typename HandleFor>
void run_workers(const std::string &label, HandleFor handle_for, bool blas_door) {
    std::vector<std::string> verdicts(kThreads);
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t)
        workers.emplace_back([&, t] {
            auto rng = behaviour::rng_for(label + "#" + std::to_string(t));
            tsr_handle h = handle_for(t);
            for (int call = 0; call < 6 && verdicts[t].empty(); ++call)
                verdicts[t] = call % 2 ? run_one<double>(h, blas_door, rng)
                                       : run_one<float>(h, blas_door, rng);
        });
    for (auto &w : workers) w.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(verdicts[t], "") << "thread " << t;
}

TEST(Threads, ManyThreadsOnOneSharedHandle) {
    tsr_handle shared = nullptr;
    ASSERT_EQ(tsr_create(&shared), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(shared, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_num_threads(shared, 2), TSR_SUCCESS);
    run_workers(
        behaviour::test_label(), [&](int) { return shared; }, false);
    EXPECT_EQ(tsr_destroy(shared), TSR_SUCCESS);
}

TEST(Threads, ManyThreadsOnTheirOwnHandles) {
    std::vector<tsr_handle> own(kThreads, nullptr);
    for (int t = 0; t < kThreads; ++t) {
        ASSERT_EQ(tsr_create(&own[t]), TSR_SUCCESS);
        // A mix: CPU with 1, 2 or 3 threads, and the reference backend.
        ASSERT_EQ(tsr_set_backend(own[t], t % 4 == 3 ? TSR_BACKEND_REFERENCE : TSR_BACKEND_CPU),
                  TSR_SUCCESS);
        ASSERT_EQ(tsr_set_num_threads(own[t], 1 + t % 3), TSR_SUCCESS);
    }
    run_workers(
        behaviour::test_label(), [&](int t) { return own[t]; }, false);
    for (tsr_handle h : own) EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(Threads, ManyThreadsOnTheDefaultHandle) {
    run_workers(
        behaviour::test_label(), [](int) { return tsr_handle(nullptr); }, false);
    run_workers(
        behaviour::test_label() + "/cblas", [](int) { return tsr_handle(nullptr); }, true);
}

// A random sparse matrix in CSR with 32-bit indices, about `fill` of its entries stored.
struct Csr {
    int64_t rows = 0, cols = 0;
    std::vector<int32_t> row_ptr{0}, col;
    std::vector<double> val;
};

Csr random_csr(std::mt19937_64 &rng, int64_t rows, int64_t cols, double fill) {
    Csr m;
    m.rows = rows, m.cols = cols;
    std::bernoulli_distribution keep(fill);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j)
            if (keep(rng)) m.col.push_back(int32_t(j)), m.val.push_back(u(rng));
        m.row_ptr.push_back(int32_t(m.col.size()));
    }
    return m;
}

template <typename T> tsr_status create_sparse(tsr_handle h, const Csr &m, tsr_sparse *A) {
    const std::vector<T> values(m.val.begin(), m.val.end());
    return tsr_sparse_create_csr(h, A, sizeof(T) == 4 ? TSR_F32 : TSR_F64, TSR_INDEX_I32, m.rows,
                                 m.cols, int64_t(values.size()), m.row_ptr.data(), m.col.data(),
                                 values.data());
}

// y = 0.75·op(A)·x - 0.5·y on fresh random x and y, checked element by element against a
// float64 sum: |y - ref| <= 4·(terms + 2)·u·(|alpha|·sum|a||x| + |beta·y0|). Empty when right.
template <typename T>
std::string spmv_verdict(tsr_handle h, tsr_sparse A, const Csr &m, tsr_op op,
                         std::mt19937_64 &rng) {
    const bool trans = op != TSR_OP_N;
    const int64_t in = trans ? m.rows : m.cols, out = trans ? m.cols : m.rows;
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<T> x(size_t(std::max<int64_t>(in, 1))), y(size_t(std::max<int64_t>(out, 1)));
    for (T &v : x) v = T(u(rng));
    for (T &v : y) v = T(u(rng));
    const std::vector<T> y0 = y;
    const T alpha = T(0.75), beta = T(-0.5);
    tsr_status s;
    if constexpr (sizeof(T) == 4) s = tsr_sspmv(h, op, alpha, A, x.data(), beta, y.data());
    else s = tsr_dspmv(h, op, alpha, A, x.data(), beta, y.data());
    if (s != TSR_SUCCESS)
        return std::string("spmv status ") + tsr_status_string(s) + ": " + tsr_last_error();
    std::vector<double> ref(size_t(out), 0.0), mag(size_t(out), 0.0);
    std::vector<int64_t> terms(size_t(out), 0);
    for (int64_t i = 0; i < m.rows; ++i)
        for (int32_t p = m.row_ptr[size_t(i)]; p < m.row_ptr[size_t(i) + 1]; ++p) {
            const int64_t j = m.col[size_t(p)], o = trans ? j : i, k = trans ? i : j;
            const double prod = double(T(m.val[size_t(p)])) * double(x[size_t(k)]);
            ref[size_t(o)] += prod, mag[size_t(o)] += std::fabs(prod), ++terms[size_t(o)];
        }
    const double unit = std::numeric_limits<T>::epsilon() / 2;
    for (int64_t o = 0; o < out; ++o) {
        const double want = double(alpha) * ref[size_t(o)] + double(beta) * double(y0[size_t(o)]);
        const double bound = 4.0 * double(terms[size_t(o)] + 2) * unit *
                                 (std::fabs(double(alpha)) * mag[size_t(o)] +
                                  std::fabs(double(beta) * y0[size_t(o)])) +
                             std::numeric_limits<T>::min();
        if (!(std::fabs(double(y[size_t(o)]) - want) <= bound))
            return "spmv " + std::string(trans ? "T" : "N") + " " + std::to_string(m.rows) + "x" +
                   std::to_string(m.cols) + ": y[" + std::to_string(o) +
                   "] = " + std::to_string(y[size_t(o)]) + ", expected " + std::to_string(want);
    }
    return "";
}

// Everything at once from many user threads, released together: the first calls (the
// environment read, the default handle, the CUDA plugin's load or its failure), a shared handle
// and matrix made by whichever thread comes first, handles created, configured and destroyed,
// gemm on own, shared and default handles and through CBLAS, sparse matrices created,
// optimised, multiplied and destroyed, and products on the shared matrix (its first transposed
// product builds shared data). Fresh random data; every result checked.
TEST(Threads, EverythingAtOnceFromManyThreads) {
    const std::string label = behaviour::test_label();
    constexpr int kWorkers = 8, kRounds = 6;
    const tsr_format formats[] = {TSR_FORMAT_AUTO, TSR_FORMAT_CSR, TSR_FORMAT_COO,
                                  TSR_FORMAT_ELL,  TSR_FORMAT_DIA, TSR_FORMAT_HYB};
    std::once_flag shared_made;
    tsr_handle shared = nullptr;
    tsr_sparse shared_A = nullptr;
    Csr shared_m;
    std::string shared_verdict;
    auto make_shared = [&] {
        std::call_once(shared_made, [&] {
            auto rng = behaviour::rng_for(label + "/shared");
            shared_m = random_csr(rng, 300, 200, 0.05);
            if (tsr_create(&shared) != TSR_SUCCESS ||
                tsr_set_backend(shared, TSR_BACKEND_CPU) != TSR_SUCCESS ||
                tsr_set_num_threads(shared, 2) != TSR_SUCCESS ||
                create_sparse<double>(shared, shared_m, &shared_A) != TSR_SUCCESS ||
                tsr_sparse_optimize(shared, shared_A, TSR_FORMAT_AUTO) != TSR_SUCCESS)
                shared_verdict =
                    std::string("making the shared handle and matrix: ") + tsr_last_error();
        });
        return shared_verdict.empty();
    };

    std::latch start(kWorkers);
    std::vector<std::string> verdicts(kWorkers);
    std::vector<std::thread> workers;
    for (int t = 0; t < kWorkers; ++t)
        workers.emplace_back([&, t] {
            auto rng = behaviour::rng_for(label + "#" + std::to_string(t));
            std::string &v = verdicts[size_t(t)];
            auto fail = [&](const std::string &what) {
                if (v.empty()) v = what;
            };
            auto expect_ok = [&](tsr_status s, const char *what) {
                if (s != TSR_SUCCESS)
                    fail(std::string(what) + ": " + tsr_status_string(s) + ": " + tsr_last_error());
            };
            start.arrive_and_wait();
            int cuda = -1;
            expect_ok(tsr_backend_available(TSR_BACKEND_CUDA, &cuda),
                      "tsr_backend_available(CUDA)");
            if (t % 2) fail(run_one<double>(nullptr, true, rng)); // the default handle's first use
            if (!make_shared()) return;
            tsr_handle own = nullptr;
            expect_ok(tsr_create(&own), "tsr_create");
            if (!own) return;
            for (int round = 0; round < kRounds && v.empty(); ++round) {
                // Configuration of the thread's own handle (never of one another thread uses).
                const tsr_status to_cuda = tsr_set_backend(own, TSR_BACKEND_CUDA);
                if ((to_cuda == TSR_SUCCESS) != (cuda == 1))
                    fail(std::string("tsr_set_backend(CUDA) gave ") + tsr_status_string(to_cuda) +
                         " where tsr_backend_available said " + std::to_string(cuda));
                expect_ok(tsr_set_backend(own, (t + round) % 4 == 3 ? TSR_BACKEND_REFERENCE
                                                                    : TSR_BACKEND_CPU),
                          "tsr_set_backend");
                expect_ok(tsr_set_num_threads(own, 1 + (t + round) % 3), "tsr_set_num_threads");
                expect_ok(tsr_set_strassen(own, 0, 0), "tsr_set_strassen");
                fail(run_one<float>(own, false, rng));
                fail(run_one<double>(shared, false, rng));
                fail(run_one<float>(nullptr, false, rng));
                fail(run_one<double>(nullptr, true, rng));

                // A sparse matrix of the thread's own, in a format by turn, multiplied both ways.
                const Csr m =
                    random_csr(rng, 1 + int64_t(rng() % 150), 1 + int64_t(rng() % 150), 0.08);
                const bool single = (t + round) % 2 == 0;
                tsr_sparse A = nullptr;
                expect_ok(single ? create_sparse<float>(own, m, &A)
                                 : create_sparse<double>(own, m, &A),
                          "tsr_sparse_create_csr");
                if (!A) break;
                const tsr_status opt = tsr_sparse_optimize(own, A, formats[size_t(t + round) % 6]);
                if (opt != TSR_SUCCESS && opt != TSR_ERR_NOT_SUPPORTED)
                    expect_ok(opt, "tsr_sparse_optimize");
                for (tsr_op op : {TSR_OP_N, TSR_OP_T})
                    fail(single ? spmv_verdict<float>(own, A, m, op, rng)
                                : spmv_verdict<double>(own, A, m, op, rng));
                expect_ok(tsr_sparse_destroy(A), "tsr_sparse_destroy");

                // The shared matrix, from the shared, own and default handles.
                const tsr_handle via[] = {shared, own, nullptr};
                fail(spmv_verdict<double>(via[size_t(round) % 3], shared_A, shared_m,
                                          (t + round) % 2 ? TSR_OP_T : TSR_OP_N, rng));

                // A short-lived handle.
                tsr_handle brief = nullptr;
                expect_ok(tsr_create(&brief), "tsr_create");
                if (!brief) break;
                expect_ok(tsr_set_num_threads(brief, 2), "tsr_set_num_threads");
                fail(run_one<double>(brief, false, rng));
                expect_ok(tsr_destroy(brief), "tsr_destroy");
            }
            expect_ok(tsr_destroy(own), "tsr_destroy");
        });
    for (auto &w : workers) w.join();
    EXPECT_EQ(shared_verdict, "");
    for (int t = 0; t < kWorkers; ++t) EXPECT_EQ(verdicts[size_t(t)], "") << "thread " << t;
    if (shared_A) EXPECT_EQ(tsr_sparse_destroy(shared_A), TSR_SUCCESS);
    if (shared) EXPECT_EQ(tsr_destroy(shared), TSR_SUCCESS);
}

// Each OpenMP thread computes its own product; nested parallelism is allowed here, so a
// library that did not drop to one thread inside the region would nest teams.
TEST(Threads, CallsFromInsideAnOpenMpRegion) {
    tsr_handle shared = nullptr;
    ASSERT_EQ(tsr_create(&shared), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(shared, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_num_threads(shared, 2), TSR_SUCCESS);
    const int saved_levels = omp_get_max_active_levels();
    const std::string label = behaviour::test_label();
    for (int levels : {1, 4}) {
        omp_set_max_active_levels(levels);
        constexpr int team = 4;
        std::vector<std::string> verdicts(team, "did not run");
#pragma omp parallel num_threads(team)
        {
            const int t = omp_get_thread_num();
            auto rng = behaviour::rng_for(label + std::to_string(levels) + "#" + std::to_string(t));
            std::string v;
            for (int call = 0; call < 4 && v.empty(); ++call) {
                if (call == 0) v = run_one<float>(shared, false, rng);
                else if (call == 1) v = run_one<double>(nullptr, false, rng);
                else if (call == 2) v = run_one<float>(nullptr, true, rng);
                else v = run_one<double>(shared, false, rng);
            }
            verdicts[size_t(t)] = v;
        }
        for (int t = 0; t < team; ++t)
            EXPECT_EQ(verdicts[size_t(t)], "")
                << "OpenMP thread " << t << ", max active levels " << levels;
    }
    omp_set_max_active_levels(saved_levels);
    EXPECT_EQ(tsr_destroy(shared), TSR_SUCCESS);
}

// A product big enough for several blocks in every direction gives the same answer (within
// rounding) on 1, 2 and 3 threads, and on the reference backend.
template <typename T> void check_thread_counts() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const auto p =
        Problem<T>::make(rng, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 301, 263, 317, T(0.9), T(-0.7), 5);
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    std::vector<std::vector<T>> results;
    for (int threads : {1, 2, 3}) {
        ASSERT_EQ(tsr_set_num_threads(h, threads), TSR_SUCCESS);
        std::vector<T> C = p.C0;
        ASSERT_EQ(tsr_gemm(h, p, C.data()), TSR_SUCCESS) << tsr_last_error();
        EXPECT_TRUE(p.check(C.data())) << threads << " threads";
        results.push_back(std::move(C));
    }
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_REFERENCE), TSR_SUCCESS);
    std::vector<T> R = p.C0;
    ASSERT_EQ(tsr_gemm(h, p, R.data()), TSR_SUCCESS) << tsr_last_error();
    EXPECT_TRUE(p.check(R.data())) << "reference backend";
    // Pairwise: within a few ulps of the larger magnitude times k.
    const double tol = 4.0 * double(p.k) * std::numeric_limits<T>::epsilon();
    for (size_t r = 1; r < results.size(); ++r)
        for (size_t i = 0; i < R.size(); ++i) {
            const double a = results[0][i], b = results[r][i];
            ASSERT_LE(std::fabs(a - b), tol * (1.0 + std::fabs(a)))
                << "element " << i << ": 1 thread " << a << " vs " << (r + 1) << " threads " << b;
        }
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(Threads, SgemmSameResultOnOneTwoThreeThreads) { check_thread_counts<float>(); }
TEST(Threads, DgemmSameResultOnOneTwoThreeThreads) { check_thread_counts<double>(); }

// After the parent ran a multi-threaded product, a forked child computes right (through the
// BLAS doors, the default handle and a two-thread handle) and does not hang.
TEST(Threads, ForkedChildAfterThreadedCallsComputes) {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const auto big =
        Problem<float>::make(rng, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 240, 200, 220, 1.0f, 0.0f);
    const auto small =
        Problem<double>::make(rng, TSR_ROW_MAJOR, TSR_OP_T, TSR_OP_N, 67, 45, 51, -0.5, 0.25, 2);
    tsr_handle h = nullptr;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_num_threads(h, 2), TSR_SUCCESS);
    {
        std::vector<float> C = big.C0;
        ASSERT_EQ(tsr_gemm(h, big, C.data()), TSR_SUCCESS);
        ASSERT_TRUE(big.check(C.data())) << "parent";
        std::vector<double> D = small.C0;
        cblas_gemm(small, D.data()); // the default handle has run too
        ASSERT_TRUE(small.check(D.data())) << "parent";
    }

    fflush(nullptr);
    const pid_t pid = fork();
    ASSERT_NE(pid, -1) << "fork failed";
    if (pid == 0) {
        alarm(60); // a backstop: a hung child dies even if the parent does not kill it
        int code = 0;
        std::vector<float> C = big.C0;
        if (tsr_gemm(h, big, C.data()) != TSR_SUCCESS) code |= 1;
        else if (!big.check(C.data())) code |= 2;
        std::vector<double> D = small.C0;
        cblas_gemm(small, D.data());
        if (!small.check(D.data())) code |= 4;
        std::vector<float> E = big.C0;
        if (tsr_gemm<float>(nullptr, big, E.data()) != TSR_SUCCESS || !big.check(E.data()))
            code |= 8;
        tsr_handle fresh = nullptr;
        std::vector<double> F = small.C0;
        if (tsr_create(&fresh) != TSR_SUCCESS || tsr_set_num_threads(fresh, 2) != TSR_SUCCESS ||
            tsr_gemm(fresh, small, F.data()) != TSR_SUCCESS || !small.check(F.data()))
            code |= 16;
        _exit(code);
    }

    // Wait at most 30 s, then kill: a hang is a failure, not a stuck test run.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int status = 0;
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        FAIL() << "the forked child did not finish within 30 s (hung in gemm?)";
    }
    ASSERT_EQ(done, pid);
    ASSERT_TRUE(WIFEXITED(status))
        << "child ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "child failures (bits): 1 status of tsr_sgemm on the parent's handle, 2 its result, "
           "4 cblas_dgemm, 8 default handle, 16 a new two-thread handle";
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

} // namespace
