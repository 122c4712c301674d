// A stand-in for libtessera_cuda.so in the environment tests: it exports the plugin's entry
// point and reports no device, or (TESSERA_FAKE_PLUGIN=wrong-abi) offers a table of another ABI.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" __attribute__((visibility("default"))) const void *tessera_cuda_backend_v1(int device,
                                                                                     const char **why) {
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
    std::snprintf(reason, sizeof reason, "fake plugin: no CUDA device (asked for device %d)", device);
    if (why) *why = reason;
    return nullptr;
}
