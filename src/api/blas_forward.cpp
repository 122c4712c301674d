// Every BLAS/CBLAS name Tessera has no kernel for is forwarded to a backing BLAS loaded at run
// time (DESIGN.md, "How a call flows", step 4; docs/guide.md, "Tessera as the system BLAS").
// The entry points are x86-64 stubs written by cmake/TesseraBlasForward.cmake: each jumps
// through its slot in tsr_forward_slots, and while the slot is empty (first call) or the call
// log is on, goes through tsr_forward_resolve below, which never changes the caller's
// arguments or stack. The backing library is found once per process:
//
//   LP64 names:  TESSERA_FALLBACK_BLAS, else OpenBLAS, BLIS, the reference BLAS (kLp64Search)
//   ILP64 twins: TESSERA_FALLBACK_BLAS64, else the same families' ILP64 builds (kIlp64Search)
//
// A library that is Tessera itself (it exports tsr_create: libblas.so.3 may be Tessera through
// the alternatives) is never taken. A name no backing library provides ends the process with
// a message: there is no value a BLAS routine could return instead.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/config.hpp"

namespace {

struct Entry {
    const char *name;       // the exported name
    const char *lookup;     // its name in the backing BLAS
    const char *lookup_alt; // another spelling there (OpenBLAS's ILP64 suffix), or the same
    int ilp64;              // 1: served by the ILP64 backing BLAS
};

constexpr Entry kEntries[] = {
#include "blas_forward_table.inc"
};
constexpr unsigned kCount = sizeof kEntries / sizeof kEntries[0];

#ifndef TESSERA_LIBDIR_MULTIARCH
#define TESSERA_LIBDIR_MULTIARCH "/usr/lib/x86_64-linux-gnu"
#endif
#define LIBDIR TESSERA_LIBDIR_MULTIARCH

// The documented search order (docs/guide.md): OpenBLAS, BLIS, then the reference BLAS; the
// distribution's own directories first, then the loader's search for the usual names.
constexpr const char *kLp64Search[] = {
    LIBDIR "/openblas-pthread/libblas.so.3",
    LIBDIR "/openblas-openmp/libblas.so.3",
    LIBDIR "/openblas-serial/libblas.so.3",
    "libopenblas.so.0",
    LIBDIR "/blis-openmp/libblas.so.3",
    LIBDIR "/blis-pthread/libblas.so.3",
    LIBDIR "/blis-serial/libblas.so.3",
    "libblis.so.4",
    LIBDIR "/blas/libblas.so.3",
    "libblas.so.3",
};
constexpr const char *kIlp64Search[] = {
    LIBDIR "/openblas64-pthread/libblas64.so.3",
    LIBDIR "/openblas64-openmp/libblas64.so.3",
    LIBDIR "/openblas64-serial/libblas64.so.3",
    "libopenblas64.so.0",
    LIBDIR "/blis64-openmp/libblas64.so.3",
    LIBDIR "/blis64-pthread/libblas64.so.3",
    LIBDIR "/blis64-serial/libblas64.so.3",
    LIBDIR "/blas64/libblas64.so.3",
    "libblas64.so.3",
};

struct Backing {
    void *handle = nullptr;
    std::string path;  // what was loaded
    std::string tried; // what was looked at, for the message when nothing serves a name
};

// This library's own base address: a symbol found there would be a stub calling itself.
void *own_base() {
    static void *base = [] {
        Dl_info info{};
        return dladdr(reinterpret_cast<void *>(&own_base), &info) ? info.dli_fbase : nullptr;
    }();
    return base;
}

bool is_tessera(void *handle) { return dlsym(handle, "tsr_create") != nullptr; }

template <std::size_t N>
Backing find_backing(const char *variable, const char *const (&search)[N]) {
    Backing b;
    auto take = [&](const char *path) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            b.tried += std::string(b.tried.empty() ? "" : ", ") + path + " (absent)";
            return false;
        }
        if (is_tessera(h)) {
            b.tried += std::string(b.tried.empty() ? "" : ", ") + path + " (Tessera itself)";
            dlclose(h);
            return false;
        }
        b.handle = h;
        b.path = path;
        return true;
    };
    if (const char *wanted = secure_getenv(variable); wanted && *wanted) {
        if (take(wanted)) return b;
        std::fprintf(stderr,
                     "tessera: %s cannot be the backing BLAS: %s; searching the usual "
                     "places\n",
                     variable, b.tried.c_str());
    }
    for (const char *path : search)
        if (take(path)) return b;
    return b;
}

const Backing &backing(int ilp64) {
    static std::once_flag once[2];
    static Backing found[2];
    std::call_once(once[ilp64], [&] {
        found[ilp64] = ilp64 ? find_backing("TESSERA_FALLBACK_BLAS64", kIlp64Search)
                             : find_backing("TESSERA_FALLBACK_BLAS", kLp64Search);
    });
    return found[ilp64];
}

void *lookup(const Entry &e) {
    const Backing &b = backing(e.ilp64);
    if (!b.handle) return nullptr;
    for (const char *name : {e.lookup, e.lookup_alt}) {
        void *fn = dlsym(b.handle, name);
        Dl_info info{};
        if (fn && dladdr(fn, &info) && info.dli_fbase == own_base()) fn = nullptr;
        if (fn) return fn;
    }
    return nullptr;
}

[[noreturn]] void unserved(const Entry &e) {
    const Backing &b = backing(e.ilp64);
    if (b.handle)
        std::fprintf(stderr,
                     "tessera: %s is not one of Tessera's routines and the backing BLAS %s does "
                     "not provide it; set %s to a BLAS that does\n",
                     e.name, b.path.c_str(),
                     e.ilp64 ? "TESSERA_FALLBACK_BLAS64" : "TESSERA_FALLBACK_BLAS");
    else
        std::fprintf(stderr,
                     "tessera: %s is not one of Tessera's routines and no %s backing BLAS was "
                     "found to serve it (looked at: %s); install OpenBLAS, BLIS or the reference "
                     "BLAS, or set %s\n",
                     e.name, e.ilp64 ? "ILP64" : "LP64", b.tried.c_str(),
                     e.ilp64 ? "TESSERA_FALLBACK_BLAS64" : "TESSERA_FALLBACK_BLAS");
    std::abort();
}

} // namespace

extern "C" {

// Read by the stubs: a slot per forwarded name, and whether every call goes through the slow
// path to be logged (set from TESSERA_VERBOSE before the first slot is filled).
__attribute__((visibility("hidden"))) void *tsr_forward_slots[kCount];
__attribute__((visibility("hidden"))) unsigned char tsr_forward_verbose = 0;

__attribute__((visibility("hidden"))) void *tsr_forward_resolve(unsigned index) {
    const Entry &e = kEntries[index];
    static const bool verbose = [] {
        bool v = tessera::core::config().verbose;
        __atomic_store_n(&tsr_forward_verbose, v ? 1 : 0, __ATOMIC_RELEASE);
        return v;
    }();
    void *fn = __atomic_load_n(&tsr_forward_slots[index], __ATOMIC_ACQUIRE);
    if (!fn) {
        fn = lookup(e);
        if (!fn) unserved(e);
        __atomic_store_n(&tsr_forward_slots[index], fn, __ATOMIC_RELEASE);
    }
    if (verbose) {
        char line[512];
        std::snprintf(line, sizeof line, "tessera: %s forwarded to %s\n", e.name,
                      backing(e.ilp64).path.c_str());
        std::fputs(line, stderr);
    }
    return fn;
}

} // extern "C"
