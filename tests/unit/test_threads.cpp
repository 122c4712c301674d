// Threads: concurrent calls on shared and own handles, calls from inside an OpenMP region,
// the same answer for any thread count, and a child forked after threads ran still computes.
#include <gtest/gtest.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
template <typename HandleFor> void run_workers(const std::string &label, HandleFor handle_for, bool blas_door) {
    std::vector<std::string> verdicts(kThreads);
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t)
        workers.emplace_back([&, t] {
            auto rng = behaviour::rng_for(label + "#" + std::to_string(t));
            tsr_handle h = handle_for(t);
            for (int call = 0; call < 6 && verdicts[t].empty(); ++call)
                verdicts[t] = call % 2 ? run_one<double>(h, blas_door, rng) : run_one<float>(h, blas_door, rng);
        });
    for (auto &w : workers) w.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(verdicts[t], "") << "thread " << t;
}

TEST(Threads, ManyThreadsOnOneSharedHandle) {
    tsr_handle shared = nullptr;
    ASSERT_EQ(tsr_create(&shared), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(shared, TSR_BACKEND_CPU), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_num_threads(shared, 2), TSR_SUCCESS);
    run_workers(behaviour::test_label(), [&](int) { return shared; }, false);
    EXPECT_EQ(tsr_destroy(shared), TSR_SUCCESS);
}

TEST(Threads, ManyThreadsOnTheirOwnHandles) {
    std::vector<tsr_handle> own(kThreads, nullptr);
    for (int t = 0; t < kThreads; ++t) {
        ASSERT_EQ(tsr_create(&own[t]), TSR_SUCCESS);
        // A mix: CPU with 1, 2 or 3 threads, and the reference backend.
        ASSERT_EQ(tsr_set_backend(own[t], t % 4 == 3 ? TSR_BACKEND_REFERENCE : TSR_BACKEND_CPU), TSR_SUCCESS);
        ASSERT_EQ(tsr_set_num_threads(own[t], 1 + t % 3), TSR_SUCCESS);
    }
    run_workers(behaviour::test_label(), [&](int t) { return own[t]; }, false);
    for (tsr_handle h : own) EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

TEST(Threads, ManyThreadsOnTheDefaultHandle) {
    run_workers(behaviour::test_label(), [](int) { return tsr_handle(nullptr); }, false);
    run_workers(behaviour::test_label() + "/cblas", [](int) { return tsr_handle(nullptr); }, true);
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
            EXPECT_EQ(verdicts[size_t(t)], "") << "OpenMP thread " << t << ", max active levels " << levels;
    }
    omp_set_max_active_levels(saved_levels);
    EXPECT_EQ(tsr_destroy(shared), TSR_SUCCESS);
}

// A product big enough for several blocks in every direction gives the same answer (within
// rounding) on 1, 2 and 3 threads, and on the reference backend.
template <typename T> void check_thread_counts() {
    auto rng = behaviour::rng_for(behaviour::test_label());
    const auto p = Problem<T>::make(rng, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_T, 301, 263, 317, T(0.9),
                                    T(-0.7), 5);
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
    const auto big = Problem<float>::make(rng, TSR_COL_MAJOR, TSR_OP_N, TSR_OP_N, 240, 200, 220,
                                          1.0f, 0.0f);
    const auto small = Problem<double>::make(rng, TSR_ROW_MAJOR, TSR_OP_T, TSR_OP_N, 67, 45, 51,
                                             -0.5, 0.25, 2);
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
        if (tsr_gemm<float>(nullptr, big, E.data()) != TSR_SUCCESS || !big.check(E.data())) code |= 8;
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
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        FAIL() << "the forked child did not finish within 30 s (hung in gemm?)";
    }
    ASSERT_EQ(done, pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "child failures (bits): 1 status of tsr_sgemm on the parent's handle, 2 its result, "
           "4 cblas_dgemm, 8 default handle, 16 a new two-thread handle";
    EXPECT_EQ(tsr_destroy(h), TSR_SUCCESS);
}

} // namespace
