// dlopen of libtessera_cuda.so from this library's own directory (never a search path),
// once per process; libtessera.so itself never links CUDA and runs without a driver.
#include "core/plugin.hpp"

#include <dlfcn.h>
#include <link.h>
#include <time.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <mutex>
#include <string>

#include "core/config.hpp"

namespace tessera::core {

namespace {

struct PluginState {
    const BackendTable *table = nullptr;
    std::string why;
};

// This library's directory as an absolute, canonical path. dladdr reports the name the
// loader was given, which may be relative ("./lib/libtessera.so.0" under LD_PRELOAD, "." on
// LD_LIBRARY_PATH): read against the working directory of a later call, after a chdir, it
// would name another directory. So it is resolved once, while the library is being loaded.
std::string resolve_own_directory() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&cuda_backend), &info) || !info.dli_fname) return {};
    char *real = realpath(info.dli_fname, nullptr);
    if (!real) return {};
    std::string path = real;
    std::free(real);
    auto slash = path.rfind('/');
    return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

std::string &own_directory_storage() {
    static std::string dir;
    return dir;
}

// Runs when the loader maps the library, before any of its callers can change directory.
[[gnu::constructor]] void remember_own_directory() {
    own_directory_storage() = resolve_own_directory();
}

const std::string &own_directory() { return own_directory_storage(); }

// The plugin's own settings, read as the core reads its own (secure_getenv).
const char *plugin_setting(const char *name) {
    static constexpr char kPrefix[] = "TESSERA_CUDA_";
    if (!name || std::strncmp(name, kPrefix, sizeof kPrefix - 1) != 0) return nullptr;
    return secure_getenv(name);
}

PluginState load() {
    PluginState s;
    const std::string &dir = own_directory();
    if (dir.empty()) {
        s.why = "cannot find the directory libtessera.so was loaded from (as an absolute path)";
        return s;
    }
    std::string path = dir + "/libtessera_cuda.so";
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        s.why = "the CUDA plugin could not be loaded (" + std::string(err ? err : path) + ")";
        return s;
    }
    auto entry = reinterpret_cast<CudaEntry>(dlsym(lib, kCudaEntryPoint));
    if (!entry) {
        s.why = path + " does not export " + kCudaEntryPoint;
        return s; // keep it loaded: unloading a half-initialised CUDA runtime is not safe
    }
    static const PluginHost host{kBackendAbiVersion, config().cuda_device,
                                 config().cuda_device_from_rank ? 1 : 0, config().verbose ? 1 : 0,
                                 plugin_setting};
    const char *reason = nullptr;
    const BackendTable *table = entry(&host, &reason);
    if (!table) {
        s.why = reason ? reason : "the CUDA plugin found no usable device";
        return s;
    }
    if (table->abi_version != kBackendAbiVersion) {
        s.why = path + " was built for another version of libtessera.so";
        return s;
    }
    s.table = table;
    return s;
}

} // namespace

const BackendTable *cuda_backend(const char **why) {
    static std::once_flag once;
    static PluginState state;
    std::call_once(once, [] { state = load(); });
    if (!state.table && why) *why = state.why.c_str();
    return state.table;
}

namespace {

int count_loads(dl_phdr_info *info, size_t, void *data) {
    *static_cast<unsigned long long *>(data) = info->dlpi_adds;
    return 1; // the first object is enough: the counters are the loader's
}

int find_driver(dl_phdr_info *info, size_t, void *data) {
    const char *name = info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
    name = name ? name + 1 : info->dlpi_name;
    if (name && std::strncmp(name, "libcuda.so", 10) == 0) {
        *static_cast<bool *>(data) = true;
        return 1;
    }
    return 0;
}

// Whether the coarse clock ticks at least every 4 ms: only then does a tick bound the time
// since a look (cuda_driver_loaded).
bool coarse_clock_usable() {
    static const bool usable = [] {
        timespec r{};
        return clock_getres(CLOCK_MONOTONIC_COARSE, &r) == 0 && r.tv_sec == 0 && r.tv_nsec > 0 &&
               r.tv_nsec <= 4000000;
    }();
    return usable;
}

} // namespace

DriverLooks driver_looks;

bool look_for_cuda_driver(int64_t tick) {
    static std::atomic<unsigned long long> looked_at{~0ull};
    if (driver_looks.loaded.load(std::memory_order_relaxed)) return true;
    if (!coarse_clock_usable()) tick = -1;
    unsigned long long adds = 0;
    dl_iterate_phdr(count_loads, &adds);
    if (adds == looked_at.load(std::memory_order_relaxed)) {
        driver_looks.absent_in_tick.store(tick, std::memory_order_relaxed);
        return false;
    }
    bool found = false;
    dl_iterate_phdr(find_driver, &found);
    looked_at.store(adds, std::memory_order_relaxed);
    if (found) driver_looks.loaded.store(true, std::memory_order_relaxed);
    else driver_looks.absent_in_tick.store(tick, std::memory_order_relaxed);
    return found;
}

const BackendTable *cuda_backend_if_driver_loaded() {
    return cuda_driver_loaded() ? cuda_backend(nullptr) : nullptr;
}

bool any_device_pointer(const void *a, const void *b, const void *c) {
    return any_device_pointer(cuda_backend_if_driver_loaded(), a, b, c);
}

bool any_device_pointer(const BackendTable *cuda, const void *a, const void *b, const void *c) {
    if (!cuda || !cuda->gemm_prefer) return false;
    // A 1×1×1 product is never worth moving: the answer is about the pointers alone.
    return cuda->gemm_prefer(1, 4, 1, 1, 1, a, b, c) != 0;
}

} // namespace tessera::core
