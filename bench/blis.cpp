// BLIS loaded at run time (see blis.hpp); its sub-configuration is probed in forked children
// first, because BLIS aborts on a BLIS_ARCH_TYPE it was not built with.
#include "blis.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "machine_info.hpp"

namespace tessera::bench {
namespace {

constexpr const char *kCandidates[] = {
    "libblis.so.4",
    "/usr/lib/x86_64-linux-gnu/libblis.so.4",
    "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4",
    "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4",
    "/usr/lib/x86_64-linux-gnu/blis-serial/libblis.so.4",
};

// Every BLIS since 0.6 numbers its Intel configurations first (skx, knl, knc, haswell,
// sandybridge, penryn): ids 0..5 are always inside its name table.
constexpr int kIntelArchIds = 6;

// Configurations that are weaker than skx / haswell wherever those two can run.
constexpr const char *kWeakerThanSkx[] = {"haswell", "sandybridge", "penryn", "generic"};
constexpr const char *kWeakerThanHaswell[] = {"sandybridge", "penryn", "generic"};

template <class F> F symbol(void *library, const char *name) {
    return reinterpret_cast<F>(dlsym(library, name));
}

// BLIS's info getters return its integer type (32 or 64 bits); the values are small, so
// the low 32 bits, which both widths return in eax, are read.
using info_fn = int (*)();

struct ArchApi {
    void (*init)() = nullptr;
    info_fn query_id = nullptr;
    const char *(*name)(int) = nullptr;
};

// In a forked child: initialise BLIS with BLIS_ARCH_TYPE=id (or unset for id < 0) and
// return the configuration id it ends up with; -1 when it aborts or cannot tell.
int probe_arch(const ArchApi &api, int id) {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        if (id >= 0) {
            char text[16];
            std::snprintf(text, sizeof text, "%d", id);
            setenv("BLIS_ARCH_TYPE", text, 1);
        } else {
            unsetenv("BLIS_ARCH_TYPE");
        }
        api.init();
        int got = api.query_id();
        _exit(got >= 0 && got < 250 ? got + 1 : 255);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    if (!WIFEXITED(status)) return -1;
    int code = WEXITSTATUS(status);
    return code >= 1 && code <= 250 ? code - 1 : -1;
}

template <std::size_t N> bool listed(const char *const (&names)[N], const std::string &name) {
    for (const char *n : names)
        if (name == n) return true;
    return false;
}

} // namespace

const char *choose_blis_arch() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (!isa_narrowed_to_avx2() && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq"))
        return "skx";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "haswell";
#endif
    return nullptr;
}

std::unique_ptr<Blis> Blis::load(const std::string &path, int threads, std::string *why_not) {
    std::vector<std::string> candidates;
    if (!path.empty()) candidates.push_back(path);
    else candidates.assign(std::begin(kCandidates), std::end(kCandidates));

    bool preloaded = false;
    for (const auto &name : candidates) {
        if (void *h = dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
            preloaded = true;
            dlclose(h);
        }
    }

    std::unique_ptr<Blis> lib(new Blis());
    std::string errors;
    for (const auto &name : candidates) {
        dlerror();
        lib->library_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
        if (lib->library_) {
            lib->path_ = name;
            break;
        }
        const char *e = dlerror();
        if (!errors.empty()) errors += "; ";
        errors += e ? std::string(e) : name + ": cannot load";
    }
    if (!lib->library_) {
        if (why_not) *why_not = errors + " (Debian: apt-get install libblis-dev)";
        return nullptr;
    }
    void *h = lib->library_;
    Dl_info info{};
    if (auto probe = dlsym(h, "cblas_sgemm"); probe && dladdr(probe, &info) && info.dli_fname)
        lib->path_ = info.dli_fname;

    auto version = symbol<const char *(*)()>(h, "bli_info_get_version_str");
    if (!version) {
        if (why_not) *why_not = lib->path_ + " lacks bli_info_get_version_str: is it BLIS?";
        return nullptr; // left loaded, see the class comment
    }
    if (const char *v = version()) lib->version_ = v;
    if (auto bits = symbol<info_fn>(h, "bli_info_get_blas_int_type_size"))
        lib->blas_int_bits_ = bits();
    if (auto bits = symbol<info_fn>(h, "bli_info_get_int_type_size")) lib->int_bits_ = bits();
    if (lib->blas_int_bits_ == 64) {
        lib->sgemm64 = symbol<sgemm64_fn>(h, "cblas_sgemm");
        lib->dgemm64 = symbol<dgemm64_fn>(h, "cblas_dgemm");
    } else {
        lib->sgemm32 = symbol<sgemm32_fn>(h, "cblas_sgemm");
        lib->dgemm32 = symbol<dgemm32_fn>(h, "cblas_dgemm");
    }
    if (!(lib->sgemm32 || lib->sgemm64) || !(lib->dgemm32 || lib->dgemm64)) {
        if (why_not)
            *why_not = lib->path_ + " (BLIS " + lib->version_ +
                       ") lacks cblas_sgemm / cblas_dgemm: it was built without CBLAS";
        return nullptr;
    }
    auto openmp = symbol<info_fn>(h, "bli_info_get_enable_openmp");
    auto pthreads = symbol<info_fn>(h, "bli_info_get_enable_pthreads");
    lib->threading_ = openmp && openmp() ? "openmp" : pthreads && pthreads() ? "pthreads" : "none";
    lib->set_num_threads_ = symbol<void (*)(std::int64_t)>(h, "bli_thread_set_num_threads");
    lib->get_num_threads_ = symbol<std::int64_t (*)()>(h, "bli_thread_get_num_threads");

    // The sub-configuration, chosen before BLIS initialises in this process.
    ArchApi api;
    api.init = symbol<void (*)()>(h, "bli_init");
    api.query_id = symbol<info_fn>(h, "bli_arch_query_id");
    api.name = symbol<const char *(*)(int)>(h, "bli_arch_string");
    const char *wanted = choose_blis_arch();
    if (const char *env = std::getenv("BLIS_ARCH_TYPE"); env && *env) {
        lib->arch_origin_ = std::string("from the environment (BLIS_ARCH_TYPE=") + env + ")";
    } else if (preloaded) {
        lib->arch_origin_ = "BLIS's own choice (it was loaded before the bench could pick one)";
    } else if (!api.init || !api.query_id || !api.name) {
        lib->arch_origin_ = "BLIS's own choice (it does not export bli_arch_query_id)";
    } else {
        lib->arch_origin_ = "BLIS's own choice";
        int own = probe_arch(api, -1);
        const char *own_text = own >= 0 ? api.name(own) : nullptr; // an id BLIS gave us
        std::string own_name = own_text ? own_text : "";
        int wanted_id = -1;
        for (int id = 0; wanted && id < kIntelArchIds; ++id)
            if (std::strcmp(api.name(id), wanted) == 0) wanted_id = id;
        const bool weaker =
            wanted &&
            ((std::strcmp(wanted, "skx") == 0 && listed(kWeakerThanSkx, own_name)) ||
             (std::strcmp(wanted, "haswell") == 0 && listed(kWeakerThanHaswell, own_name)));
        // With Tessera narrowed to AVX2, BLIS's AVX-512 choice is narrowed too.
        const bool wider = wanted && isa_narrowed_to_avx2() && own_name == "skx";
        if (own >= 0 && (weaker || wider) && wanted_id >= 0) {
            if (probe_arch(api, wanted_id) == wanted_id) {
                setenv("BLIS_ARCH_TYPE", std::to_string(wanted_id).c_str(), 1);
                lib->arch_origin_ =
                    "set by tessera-bench (BLIS_ARCH_TYPE=" + std::to_string(wanted_id) +
                    "); BLIS alone picks " + own_name;
            } else {
                lib->warning_ = std::string("BLIS picks ") + own_name + " and cannot start " +
                                wanted + " (not built in): its speed is not its best on this CPU";
            }
        }
    }

    // Threads before the first call: through the API, or the variable BLIS reads at start.
    lib->threads_set_ = lib->threading_ == "none" ? 1 : threads;
    if (!lib->set_num_threads_)
        setenv("BLIS_NUM_THREADS", std::to_string(lib->threads_set_).c_str(), 1);
    if (api.init) api.init();
    if (api.query_id && api.name)
        if (const char *n = api.name(api.query_id())) lib->arch_ = n;
    if (lib->set_num_threads_) lib->set_num_threads(lib->threads_set_);
    if (lib->threading_ == "none" && threads > 1)
        lib->warning_ += std::string(lib->warning_.empty() ? "" : "; ") +
                         "this BLIS is built without threads: it runs on one";
    return lib;
}

void Blis::set_num_threads(int threads) const {
    if (set_num_threads_) set_num_threads_(threads);
}

int Blis::num_threads() const {
    if (!get_num_threads_) return -1;
    // dim_t is 64 or 32 bits; a 32-bit return leaves the upper half of rax undefined.
    std::int64_t n = get_num_threads_();
    return int_bits_ == 32 ? int(std::int32_t(n)) : int(n);
}

std::string Blis::description() const {
    std::string d = "BLIS " + version_;
    if (!arch_.empty()) d += ", sub-configuration " + arch_;
    d += ", " + threading_ + " threading, " + std::to_string(blas_int_bits_) + "-bit BLAS integers";
    return d;
}

} // namespace tessera::bench
