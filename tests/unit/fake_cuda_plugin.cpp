// A stand-in for libtessera_cuda.so in the environment tests: it exports the plugin's entry
// point and reports no device, or (TESSERA_FAKE_PLUGIN=wrong-abi) offers a table of another ABI.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/backend.hpp"

extern "C" __attribute__((visibility("default"))) const void *
TESSERA_CUDA_ENTRY(const tessera::core::PluginHost *host, const char **why) {
    const int device = host ? host->device : -1;
    const char *mode = std::getenv("TESSERA_FAKE_PLUGIN");
    if (mode && std::strcmp(mode, "wrong-abi") == 0) {
        // A table whose version no libtessera.so accepts; every function pointer is null, so a
        // loader that used it anyway would crash.
        static const struct {
            uint32_t abi_version;
            const void *rest[32];
        } table = {0xDEADu, {}};
        return &table;
    }
    static char reason[96];
    std::snprintf(reason, sizeof reason, "fake plugin: no CUDA device (asked for device %d)",
                  device);
    if (why) *why = reason;
    return nullptr;
}
