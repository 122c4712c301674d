// The environment variables (TESSERA_BACKEND, _NUM_THREADS, _VERBOSE, _CUDA_DEVICE), seen by
// running the probe program with a controlled environment, and the CUDA plugin loader's fallback.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace fs = std::filesystem;

namespace {

// ---- running the probe ----

struct Outcome {
    int exit_code = -1; // -1 when it did not exit normally
    int signal = 0;
    bool timed_out = false;
    std::string out, err;
    std::string describe() const {
        std::ostringstream s;
        s << "exit " << exit_code << (signal ? " signal " + std::to_string(signal) : "")
          << (timed_out ? " (timed out)" : "") << "\n--- stdout ---\n"
          << out << "--- stderr ---\n"
          << err;
        return s.str();
    }
};

// Runs `program` with exactly `env` as its environment and captures stdout and stderr.
// Runs `program` with exactly `env` as its environment and captures stdout and stderr; in
// `cwd` when it is given.
Outcome run_program(const std::string &program, const std::vector<std::string> &args,
                    const std::vector<std::string> &env, const std::string &cwd = {}) {
    Outcome r;
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        r.err = "pipe failed";
        return r;
    }
    std::vector<char *> argv, envp;
    argv.push_back(const_cast<char *>(program.c_str()));
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto &e : env) envp.push_back(const_cast<char *>(e.c_str()));
    envp.push_back(nullptr);

    const pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
        execve(program.c_str(), argv.data(), envp.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        r.err = "fork failed";
        return r;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string *sink[2] = {&r.out, &r.err};
    int open_fds = 2;
    while (open_fds > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            r.timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(fds, 2, int(left.count())) < 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[4096];
            const ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                sink[i]->append(buf, size_t(got));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    for (auto &f : fds)
        if (f.fd >= 0) close(f.fd);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    return r;
}

Outcome probe(const std::vector<std::string> &args, const std::vector<std::string> &env) {
    return run_program(TESSERA_ENV_PROBE, args, env);
}

std::vector<std::string> lines(const std::string &text) {
    std::vector<std::string> v;
    std::istringstream s(text);
    for (std::string line; std::getline(s, line);) v.push_back(line);
    return v;
}

std::vector<std::string> warnings(const Outcome &r) {
    std::vector<std::string> v;
    for (const auto &l : lines(r.err))
        if (l.find("warning") != std::string::npos) v.push_back(l);
    return v;
}

// The TESSERA_VERBOSE call-log lines of the probe's sgemm calls (all 160×160×160, NN), and
// of its one large call (256×256×256); the reason in parentheses, where there is one.
const std::regex kLogLine(
    R"(^tessera: sgemm col NN m=160 n=160 k=160 backend=([a-z]+) threads=([0-9]+) time=[0-9.eE+-]+s [0-9.eE+-]+ GFLOP/s(?: \((.*)\))?$)");
const std::regex kLargeLogLine(
    R"(^tessera: sgemm col NN m=256 n=256 k=256 backend=([a-z]+) threads=([0-9]+) time=[0-9.eE+-]+s [0-9.eE+-]+ GFLOP/s(?: \((.*)\))?$)");

struct LogLine {
    std::string backend;
    int threads;
    std::string why;
};

std::vector<LogLine> log_lines(const Outcome &r, const std::regex &line = kLogLine) {
    std::vector<LogLine> v;
    for (const auto &l : lines(r.err)) {
        std::smatch m;
        if (std::regex_match(l, m, line)) v.push_back({m[1], std::stoi(m[2]), m[3]});
    }
    return v;
}

// stderr holds nothing but warnings and call-log lines.
::testing::AssertionResult only_warnings_and_log(const Outcome &r) {
    for (const auto &l : lines(r.err))
        if (l.find("warning") == std::string::npos && !std::regex_match(l, kLogLine) &&
            !std::regex_match(l, kLargeLogLine))
            return ::testing::AssertionFailure() << "unexpected stderr line: " << l;
    return ::testing::AssertionSuccess();
}

// The value of a key=value line of the probe's stdout ("<missing>" when absent).
std::string value(const Outcome &r, const std::string &key) {
    for (const auto &l : lines(r.out))
        if (l.compare(0, key.size() + 1, key + "=") == 0) return l.substr(key.size() + 1);
    return "<missing>";
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

// The thread count of a plain run (no variables): all cores.
int default_threads() {
    static int threads = [] {
        Outcome r = probe({"cblas"}, {"TESSERA_VERBOSE=1"});
        auto log = log_lines(r);
        return log.size() == 1 ? log[0].threads : -1;
    }();
    return threads;
}

// ---- backend selection ----

TEST(Environment, BackendVariableSelectsTheBackend) {
    struct Want {
        const char *value, *handle, *runs;
    };
    for (Want w : {Want{"cpu", "cpu", "cpu"}, Want{"reference", "reference", "reference"},
                   Want{"auto", "auto", "cpu"}, Want{nullptr, "auto", "cpu"}}) {
        SCOPED_TRACE(w.value ? w.value : "unset");
        std::vector<std::string> env = {"TESSERA_VERBOSE=1"};
        if (w.value) env.push_back(std::string("TESSERA_BACKEND=") + w.value);
        Outcome r = probe({"backend", "cblas", "fortran", "tsr"}, env);
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        EXPECT_EQ(value(r, "handle_backend"), w.handle) << r.describe();
        auto log = log_lines(r);
        ASSERT_EQ(log.size(), 3u) << r.describe();
        for (const auto &l : log) EXPECT_EQ(l.backend, w.runs) << r.describe();
        // Auto says why; a backend named by the variable needs no reason. The probe never loads
        // the CUDA driver, so its small products are not even put to the CUDA backend.
        for (const auto &l : log)
            EXPECT_EQ(l.why,
                      std::string(w.handle) == "auto" ? "auto: host operands, small product" : "")
                << r.describe();
        EXPECT_TRUE(warnings(r).empty()) << r.describe();
        EXPECT_TRUE(only_warnings_and_log(r));
    }
}

TEST(Environment, UnknownBackendWarnsOnceAndMeansAuto) {
    Outcome r = probe({"backend", "cblas", "tsr", "fortran", "backend"},
                      {"TESSERA_BACKEND=bogus", "TESSERA_VERBOSE=1"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 1u) << r.describe();
    EXPECT_TRUE(contains(w[0], "TESSERA_BACKEND")) << w[0];
    EXPECT_TRUE(contains(w[0], "bogus")) << w[0];
    EXPECT_EQ(value(r, "handle_backend"), "auto");
    auto log = log_lines(r);
    ASSERT_EQ(log.size(), 3u) << r.describe();
    for (const auto &l : log) EXPECT_EQ(l.backend, "cpu");
    EXPECT_TRUE(only_warnings_and_log(r));
}

// ---- thread counts ----

// A value of 100 KB is named by its first 64 bytes, not echoed whole.
TEST(Environment, LongBadValuesAreCutInTheWarning) {
    const std::string huge(100000, 'x');
    Outcome r = probe({"backend"}, {"TESSERA_BACKEND=" + huge, "TESSERA_NUM_THREADS=" + huge});
    ASSERT_EQ(r.exit_code, 0) << r.describe().substr(0, 2000);
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 2u) << r.err.size();
    for (const auto &line : w) {
        EXPECT_LT(line.size(), 300u) << line.substr(0, 300);
        EXPECT_TRUE(contains(line, std::string(64, 'x') + "'... (cut)")) << line.substr(0, 300);
        EXPECT_FALSE(contains(line, std::string(65, 'x'))) << line.substr(0, 300);
    }
    EXPECT_EQ(value(r, "handle_backend"), "auto");
}

TEST(Environment, NumThreadsVariableSetsTheThreadCount) {
    for (int n : {1, 3}) {
        SCOPED_TRACE(n);
        Outcome r = probe({"cblas", "tsr"},
                          {"TESSERA_VERBOSE=1", "TESSERA_NUM_THREADS=" + std::to_string(n)});
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        auto log = log_lines(r);
        ASSERT_EQ(log.size(), 2u) << r.describe();
        for (const auto &l : log) EXPECT_EQ(l.threads, n) << r.describe();
        EXPECT_TRUE(warnings(r).empty()) << r.describe();
    }
}

TEST(Environment, BadNumThreadsWarnsOnceAndUsesAllCores) {
    const int all = default_threads();
    ASSERT_GE(all, 1);
    for (const char *bad : {"0", "abc", "-2", "3x", "99999999999"}) {
        SCOPED_TRACE(bad);
        Outcome r = probe({"cblas", "tsr"},
                          {"TESSERA_VERBOSE=1", std::string("TESSERA_NUM_THREADS=") + bad});
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        auto w = warnings(r);
        ASSERT_EQ(w.size(), 1u) << r.describe();
        EXPECT_TRUE(contains(w[0], "TESSERA_NUM_THREADS")) << w[0];
        EXPECT_TRUE(contains(w[0], bad)) << w[0];
        auto log = log_lines(r);
        ASSERT_EQ(log.size(), 2u) << r.describe();
        for (const auto &l : log) EXPECT_EQ(l.threads, all) << r.describe();
    }
}

TEST(Environment, OmpNumThreadsIsTheFallback) {
    struct Want {
        std::vector<std::string> env;
        int threads;
    };
    for (const Want &w :
         {Want{{"OMP_NUM_THREADS=1"}, 1}, Want{{"OMP_NUM_THREADS=3"}, 3},
          Want{{"OMP_NUM_THREADS=3,1"}, 3}, Want{{"OMP_NUM_THREADS=1", "TESSERA_NUM_THREADS=2"}, 2},
          Want{{"OMP_NUM_THREADS=3", "TESSERA_NUM_THREADS=1"}, 1}}) {
        std::vector<std::string> env = w.env;
        env.push_back("TESSERA_VERBOSE=1");
        SCOPED_TRACE(::testing::PrintToString(w.env));
        Outcome r = probe({"cblas", "tsr"}, env);
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        auto log = log_lines(r);
        ASSERT_EQ(log.size(), 2u) << r.describe();
        for (const auto &l : log) EXPECT_EQ(l.threads, w.threads) << r.describe();
        EXPECT_TRUE(warnings(r).empty()) << r.describe();
    }
}

// A call made inside an OpenMP parallel region runs on one thread, even with nesting allowed.
TEST(Environment, CallsInsideOpenMpRegionsRunOnOneThread) {
    Outcome r = probe({"tsr", "omp"}, {"TESSERA_VERBOSE=1", "TESSERA_NUM_THREADS=2"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(value(r, "omp"), "ok");
    auto log = log_lines(r);
    ASSERT_EQ(log.size(), 3u) << r.describe();
    EXPECT_EQ(log[0].threads, 2) << "outside the region\n" << r.describe();
    EXPECT_EQ(log[1].threads, 1) << "inside the region\n" << r.describe();
    EXPECT_EQ(log[2].threads, 1) << "inside the region\n" << r.describe();
}

// ---- the call log ----

TEST(Environment, VerboseOnePrintsOneLinePerCall) {
    Outcome r = probe({"cblas", "fortran", "tsr", "cblas"}, {"TESSERA_VERBOSE=1"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(log_lines(r).size(), 4u) << r.describe();
    EXPECT_EQ(lines(r.err).size(), 4u) << r.describe();
    EXPECT_TRUE(only_warnings_and_log(r)) << r.describe();
}

TEST(Environment, VerboseZeroOrUnsetPrintsNothing) {
    for (const std::vector<std::string> &env :
         {std::vector<std::string>{}, {"TESSERA_VERBOSE=0"}, {"TESSERA_VERBOSE="}}) {
        SCOPED_TRACE(::testing::PrintToString(env));
        Outcome r = probe({"cblas", "fortran", "tsr", "backend"}, env);
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        EXPECT_EQ(r.err, "") << r.describe();
        EXPECT_EQ(value(r, "cblas"), "ok");
        EXPECT_EQ(value(r, "fortran"), "ok");
        EXPECT_EQ(value(r, "tsr"), "ok");
    }
}

TEST(Environment, BadVerboseWarnsOnce) {
    Outcome r = probe({"cblas", "tsr"}, {"TESSERA_VERBOSE=yes"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 1u) << r.describe();
    EXPECT_TRUE(contains(w[0], "TESSERA_VERBOSE")) << w[0];
    EXPECT_TRUE(contains(w[0], "yes")) << w[0];
    EXPECT_EQ(log_lines(r).size(), 0u) << "an unusable value means the default, off\n"
                                       << r.describe();
    EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
}

TEST(Environment, BadCudaDeviceWarnsOnce) {
    for (const char *bad : {"-1", "gpu0"}) {
        SCOPED_TRACE(bad);
        Outcome r = probe({"cblas", "tsr", "backend"}, {std::string("TESSERA_CUDA_DEVICE=") + bad});
        ASSERT_EQ(r.exit_code, 0) << r.describe();
        auto w = warnings(r);
        ASSERT_EQ(w.size(), 1u) << r.describe();
        EXPECT_TRUE(contains(w[0], "TESSERA_CUDA_DEVICE")) << w[0];
        EXPECT_TRUE(contains(w[0], bad)) << w[0];
        EXPECT_EQ(lines(r.err).size(), 1u) << r.describe();
    }
}

// ---- the CUDA plugin: absent, present but refusing, only on the search path ----

// A fresh directory (unique, so ctest -j can run these at once) removed at the end.
class TempDir {
public:
    TempDir() {
        const char *base = getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/tessera-env-XXXXXX";
        std::vector<char> buf(pattern.begin(), pattern.end());
        buf.push_back('\0');
        if (mkdtemp(buf.data())) path_ = buf.data();
    }
    ~TempDir() {
        std::error_code ec;
        if (!path_.empty()) fs::remove_all(path_, ec);
    }
    const std::string &path() const { return path_; }

private:
    std::string path_;
};

void copy_executable(const fs::path &from, const fs::path &to) {
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    fs::permissions(to, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
}

// A private install: the probe and libtessera.so.0 (the real file) side by side, optionally
// with a plugin file named libtessera_cuda.so.
struct Install {
    TempDir dir;
    std::string probe;
    explicit Install(const char *plugin = nullptr) {
        if (dir.path().empty()) return;
        copy_executable(fs::canonical(TESSERA_LIBRARY_FILE),
                        fs::path(dir.path()) / "libtessera.so.0");
        probe = dir.path() + "/tessera_env_probe";
        copy_executable(TESSERA_ENV_PROBE, probe);
        if (plugin) copy_executable(plugin, fs::path(dir.path()) / "libtessera_cuda.so");
    }
    Outcome run_probe(const std::vector<std::string> &args, std::vector<std::string> env,
                      const std::string &library_path, const std::string &cwd = {}) const {
        env.push_back("LD_LIBRARY_PATH=" + library_path);
        return run_program(probe, args, env, cwd);
    }
};

const std::vector<std::string> kCudaQuestions = {
    "library", "backend", "cblas", "tsr", "set_cuda", "available_cuda", "cuda_stream", "fortran"};

// What every "cuda cannot run here" case has in common.
void expect_cuda_unavailable(const Outcome &r, const Install &in) {
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(value(r, "library"), in.dir.path() + "/libtessera.so.0")
        << "the probe did not load the library copy next to it\n"
        << r.describe();
    EXPECT_EQ(value(r, "set_cuda"), std::to_string(TSR_ERR_BACKEND_UNAVAILABLE)) << r.describe();
    EXPECT_TRUE(contains(value(r, "set_cuda_error"), "cuda")) << r.describe();
    EXPECT_EQ(value(r, "set_cuda_kept"), "yes") << "a refused backend must keep the previous one";
    EXPECT_EQ(value(r, "available_cuda_status"), std::to_string(TSR_SUCCESS)) << r.describe();
    EXPECT_EQ(value(r, "available_cuda"), "0") << r.describe();
    EXPECT_NE(value(r, "available_cuda_error"), "") << "no reason given\n" << r.describe();
    EXPECT_EQ(value(r, "cuda_stream"), std::to_string(TSR_ERR_BACKEND_UNAVAILABLE)) << r.describe();
    EXPECT_NE(value(r, "cuda_stream_error"), "") << r.describe();
    for (const char *call : {"cblas", "tsr", "fortran"}) EXPECT_EQ(value(r, call), "ok") << call;
    EXPECT_TRUE(only_warnings_and_log(r)) << r.describe();
}

TEST(Plugin, AbsentPluginFallsBackToCpuWithOneWarning) {
    Install in;
    ASSERT_FALSE(in.dir.path().empty()) << "mkdtemp failed";
    Outcome r =
        in.run_probe(kCudaQuestions, {"TESSERA_BACKEND=cuda", "TESSERA_VERBOSE=1"}, in.dir.path());
    expect_cuda_unavailable(r, in);
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 1u) << r.describe();
    EXPECT_TRUE(contains(w[0], "cuda")) << w[0];
    EXPECT_TRUE(contains(w[0], "libtessera_cuda.so"))
        << "the reason should name the missing plugin: " << w[0];
    EXPECT_EQ(value(r, "handle_backend"), "cpu") << r.describe();
    auto log = log_lines(r);
    ASSERT_EQ(log.size(), 3u) << r.describe();
    for (const auto &l : log) EXPECT_EQ(l.backend, "cpu") << r.describe();
}

// Nobody asked for CUDA: the same questions get the same answers, and nothing is printed.
TEST(Plugin, AbsentPluginIsSilentUnlessCudaWasAskedFor) {
    Install in;
    ASSERT_FALSE(in.dir.path().empty()) << "mkdtemp failed";
    Outcome r = in.run_probe(kCudaQuestions, {}, in.dir.path());
    expect_cuda_unavailable(r, in);
    EXPECT_EQ(r.err, "") << r.describe();
    EXPECT_EQ(value(r, "handle_backend"), "auto");
}

// Auto's reason in the log: a small product is not put to the CUDA backend; a large one is,
// and the plugin (here the fake one, which finds no device) declines it.
TEST(Plugin, AutoSaysWhyTheCpuRan) {
    Install in(TESSERA_FAKE_CUDA_PLUGIN);
    ASSERT_FALSE(in.dir.path().empty()) << "mkdtemp failed";
    Outcome r = in.run_probe({"cblas", "large", "cblas"}, {"TESSERA_VERBOSE=1"}, in.dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(value(r, "large"), "ok") << r.describe();
    auto small = log_lines(r), large = log_lines(r, kLargeLogLine);
    ASSERT_EQ(small.size(), 2u) << r.describe();
    ASSERT_EQ(large.size(), 1u) << r.describe();
    EXPECT_EQ(small[0].why, "auto: host operands, small product") << r.describe();
    EXPECT_EQ(large[0].backend, "cpu") << r.describe();
    EXPECT_EQ(large[0].why, "auto: no CUDA device") << r.describe();
    // Once the CUDA backend has been asked, small products are put to it as well.
    EXPECT_EQ(small[1].why, "auto: no CUDA device") << r.describe();
    EXPECT_TRUE(only_warnings_and_log(r)) << r.describe();
}

TEST(Plugin, FakePluginNextToTheLibraryIsLoadedAndItsReasonReported) {
    Install in(TESSERA_FAKE_CUDA_PLUGIN);
    ASSERT_FALSE(in.dir.path().empty()) << "mkdtemp failed";
    Outcome r = in.run_probe(kCudaQuestions,
                             {"TESSERA_BACKEND=cuda", "TESSERA_VERBOSE=1", "TESSERA_CUDA_DEVICE=3"},
                             in.dir.path());
    expect_cuda_unavailable(r, in);
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 1u) << r.describe();
    EXPECT_TRUE(contains(w[0], "fake plugin: no CUDA device")) << w[0];
    EXPECT_TRUE(contains(w[0], "device 3"))
        << "TESSERA_CUDA_DEVICE was not passed to the plugin: " << w[0];
    EXPECT_TRUE(contains(value(r, "set_cuda_error"), "fake plugin: no CUDA device"))
        << r.describe();
    EXPECT_TRUE(contains(value(r, "available_cuda_error"), "fake plugin: no CUDA device"))
        << r.describe();
    EXPECT_EQ(value(r, "handle_backend"), "cpu");
    auto log = log_lines(r);
    ASSERT_EQ(log.size(), 3u) << r.describe();
    for (const auto &l : log) EXPECT_EQ(l.backend, "cpu") << r.describe();
}

// A plugin built for another table layout is refused, not called.
TEST(Plugin, FakePluginOfAnotherAbiIsRefused) {
    Install in(TESSERA_FAKE_CUDA_PLUGIN);
    ASSERT_FALSE(in.dir.path().empty()) << "mkdtemp failed";
    Outcome r =
        in.run_probe(kCudaQuestions,
                     {"TESSERA_BACKEND=cuda", "TESSERA_VERBOSE=1", "TESSERA_FAKE_PLUGIN=wrong-abi"},
                     in.dir.path());
    expect_cuda_unavailable(r, in);
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 1u) << r.describe();
    EXPECT_TRUE(contains(w[0], "cuda")) << w[0];
    for (const auto &l : log_lines(r)) EXPECT_EQ(l.backend, "cpu") << r.describe();
}

// The plugin is looked for next to libtessera.so by absolute path, never through the search
// path: one that is only on LD_LIBRARY_PATH is not loaded.
TEST(Plugin, PluginOnlyOnTheSearchPathIsNotLoaded) {
    Install in;
    TempDir elsewhere;
    ASSERT_FALSE(in.dir.path().empty() || elsewhere.path().empty()) << "mkdtemp failed";
    copy_executable(TESSERA_FAKE_CUDA_PLUGIN, fs::path(elsewhere.path()) / "libtessera_cuda.so");
    Outcome r = in.run_probe(kCudaQuestions, {"TESSERA_BACKEND=cuda"},
                             in.dir.path() + ":" + elsewhere.path());
    expect_cuda_unavailable(r, in);
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 1u) << r.describe();
    EXPECT_FALSE(contains(r.err + r.out, "fake plugin")) << "the plugin was found by a search\n"
                                                         << r.describe();
}

// The library loaded by a relative path (LD_LIBRARY_PATH=.), then the program changes
// directory: a plugin in the new directory must not be loaded. The library's own directory is
// resolved to an absolute path when it is loaded, not read against the working directory of
// the first CUDA question.
TEST(Plugin, RelativeLoadThenChdirCannotRedirectThePlugin) {
    Install in;
    TempDir elsewhere;
    ASSERT_FALSE(in.dir.path().empty() || elsewhere.path().empty()) << "mkdtemp failed";
    copy_executable(TESSERA_FAKE_CUDA_PLUGIN, fs::path(elsewhere.path()) / "libtessera_cuda.so");
    std::vector<std::string> questions = {"chdir=" + elsewhere.path()};
    questions.insert(questions.end(), kCudaQuestions.begin(), kCudaQuestions.end());
    Outcome r = in.run_probe(questions, {"TESSERA_BACKEND=cuda"}, ".", in.dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(value(r, "set_cuda"), std::to_string(TSR_ERR_BACKEND_UNAVAILABLE)) << r.describe();
    EXPECT_FALSE(contains(r.err + r.out, "fake plugin"))
        << "the plugin was loaded from the new working directory\n"
        << r.describe();
    auto w = warnings(r);
    ASSERT_EQ(w.size(), 1u) << r.describe();
    EXPECT_TRUE(contains(w[0], fs::canonical(in.dir.path()).string() + "/libtessera_cuda.so"))
        << "the reason should name the plugin's absolute path beside the library: " << w[0];
}

} // namespace
