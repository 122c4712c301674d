// dlopen of libtessera_cuda.so from this library's own directory (never a search path),
// once per process; libtessera.so itself never links CUDA and runs without a driver.
#include "core/plugin.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "core/config.hpp"

namespace tessera::core {

namespace {

struct PluginState {
    const BackendTable *table = nullptr;
    std::string why;
};

std::string own_directory() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&cuda_backend), &info) || !info.dli_fname) return {};
    std::string path = info.dli_fname;
    auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

PluginState load() {
    PluginState s;
    std::string dir = own_directory();
    if (dir.empty()) {
        s.why = "cannot find the directory libtessera.so was loaded from";
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
    const char *reason = nullptr;
    const BackendTable *table = entry(config().cuda_device, &reason);
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

} // namespace tessera::core
