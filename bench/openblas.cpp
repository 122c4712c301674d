// OpenBLAS loaded at run time (see openblas.hpp). The core type must be in the environment
// before dlopen: OpenBLAS picks its kernels once, in its constructor.
#include "openblas.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <strings.h>
#include <vector>

#include "machine_info.hpp"

namespace tessera::bench {
namespace {

constexpr const char *kCandidates[] = {"libopenblas.so.0",
                                       "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"};

template <class F> F symbol(void *library, const char *name) {
    return reinterpret_cast<F>(dlsym(library, name));
}

} // namespace

const char *choose_coretype() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (!isa_narrowed_to_avx2() && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
    return nullptr;
}

std::unique_ptr<OpenBlas> OpenBlas::load(const std::string &path, std::string *why_not) {
    std::vector<std::string> candidates;
    if (!path.empty()) candidates.push_back(path);
    else candidates.assign(std::begin(kCandidates), std::end(kCandidates));

    std::unique_ptr<OpenBlas> lib(new OpenBlas());

    // Already in the process (LD_PRELOAD, a dependency)? Then its kernels are chosen.
    bool preloaded = false;
    for (const auto &name : candidates) {
        if (void *h = dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
            preloaded = true;
            dlclose(h);
        }
    }

    const char *wanted = nullptr;
    if (const char *env = std::getenv("OPENBLAS_CORETYPE"); env && *env) {
        lib->coretype_ = env;
        lib->coretype_origin_ = "from the environment";
    } else if ((wanted = choose_coretype())) {
        setenv("OPENBLAS_CORETYPE", wanted, 0);
        lib->coretype_ = wanted;
        lib->coretype_origin_ = "set by tessera-bench";
    } else {
        lib->coretype_origin_ = "unset: the CPU has neither AVX-512 nor AVX2+FMA";
    }
    if (preloaded) lib->coretype_origin_ += "; OpenBLAS was loaded before, so it may not apply";

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
        if (why_not) *why_not = errors;
        return nullptr;
    }
    // Where the loader found it, for the record.
    Dl_info info{};
    if (auto probe = dlsym(lib->library_, "cblas_sgemm");
        probe && dladdr(probe, &info) && info.dli_fname)
        lib->path_ = info.dli_fname;

    lib->sgemm = symbol<sgemm_fn>(lib->library_, "cblas_sgemm");
    lib->dgemm = symbol<dgemm_fn>(lib->library_, "cblas_dgemm");
    lib->sgemv = symbol<sgemv_fn>(lib->library_, "cblas_sgemv");
    lib->dgemv = symbol<dgemv_fn>(lib->library_, "cblas_dgemv");
    lib->set_num_threads_ = symbol<void (*)(int)>(lib->library_, "openblas_set_num_threads");
    lib->get_num_threads_ = symbol<int (*)()>(lib->library_, "openblas_get_num_threads");
    auto corename = symbol<char *(*)()>(lib->library_, "openblas_get_corename");
    auto config = symbol<char *(*)()>(lib->library_, "openblas_get_config");
    if (!lib->sgemm || !lib->dgemm || !lib->set_num_threads_ || !corename) {
        if (why_not)
            *why_not = lib->path_ + " lacks cblas_sgemm, cblas_dgemm, openblas_set_num_threads "
                                    "or openblas_get_corename: is it OpenBLAS?";
        return nullptr; // deliberately left loaded, see the class comment
    }
    if (const char *c = corename()) lib->corename_ = c;
    if (config)
        if (const char *c = config()) lib->config_ = c;

    const char *best = choose_coretype();
    if (!wanted && best && !lib->coretype_.empty() && strcasecmp(best, lib->coretype_.c_str()) != 0)
        lib->warning_ = "OPENBLAS_CORETYPE=" + lib->coretype_ +
                        " comes from the environment, but " + "this CPU supports " + best +
                        ": unset it to compare against OpenBLAS " + "at its best";
    else if (wanted && strcasecmp(wanted, lib->corename_.c_str()) != 0)
        lib->warning_ = "OpenBLAS runs its " + lib->corename_ + " kernels, not the " + wanted +
                        " ones asked for: its speed is not its best on this CPU";
    return lib;
}

void OpenBlas::set_num_threads(int threads) const { set_num_threads_(threads); }

int OpenBlas::num_threads() const { return get_num_threads_ ? get_num_threads_() : -1; }

} // namespace tessera::bench
