// What the probes that load two builds of libtessera side by side share: opening one build on
// its own (RTLD_LOCAL, so the two keep their own symbols) and the steady clock in seconds.
#pragma once

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace probe {

// The build at `path`, opened on its own; exits with dlerror's text where it cannot be.
inline void *open_build(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        std::fprintf(stderr, "%s\n", dlerror());
        std::exit(1);
    }
    return h;
}

inline double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace probe
