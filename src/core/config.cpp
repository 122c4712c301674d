// Reads Tessera's environment variables once per process with secure_getenv, so a setuid
// program is not steered by its caller; an unusable value gets one warning and the default.
#include "core/config.hpp"

#include <omp.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace tessera::core {

namespace {

const char *env(const char *name) {
    const char *value = secure_getenv(name);
    return (value && *value) ? value : nullptr;
}

// Parses a whole decimal integer in [lo, hi]; false on anything else.
bool parse_int(const char *text, long lo, long hi, int *out) {
    errno = 0;
    char *end = nullptr;
    long v = std::strtol(text, &end, 10);
    while (end && (*end == ' ' || *end == '\t' || *end == '\n')) ++end;
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return false;
    *out = static_cast<int>(v);
    return true;
}

// A value is echoed up to this many bytes: a variable can hold megabytes.
constexpr int kEchoMax = 64;

void warn(const char *name, const char *value, const char *expected, const char *fallback) {
    const bool cut = std::strlen(value) > size_t(kEchoMax);
    std::fprintf(stderr, "tessera: warning: %s='%.*s'%s is not %s; using %s\n", name, kEchoMax,
                 value, cut ? "... (cut)" : "", expected, fallback);
}

int all_cores() { return omp_get_num_procs() > 0 ? omp_get_num_procs() : 1; }

Config read_environment() {
    Config c;
    if (const char *v = env("TESSERA_BACKEND")) {
        if (!strcasecmp(v, "auto")) c.backend = TSR_BACKEND_AUTO;
        else if (!strcasecmp(v, "cpu")) c.backend = TSR_BACKEND_CPU;
        else if (!strcasecmp(v, "cuda")) c.backend = TSR_BACKEND_CUDA;
        else if (!strcasecmp(v, "reference")) c.backend = TSR_BACKEND_REFERENCE;
        else warn("TESSERA_BACKEND", v, "one of auto, cpu, cuda, reference", "auto");
    }

    c.num_threads = all_cores();
    if (const char *v = env("TESSERA_NUM_THREADS")) {
        if (!parse_int(v, 1, kMaxThreads, &c.num_threads)) {
            c.num_threads = all_cores();
            char fallback[64];
            std::snprintf(fallback, sizeof fallback, "%d threads", c.num_threads);
            warn("TESSERA_NUM_THREADS", v, "an integer from 1 to 4096", fallback);
        }
    } else if (const char *omp = env("OMP_NUM_THREADS")) {
        // OpenMP's own variable: the first entry of a nested list; bad values are OpenMP's
        // business, so they silently mean "all cores".
        int n = 0;
        char first[32] = {};
        std::strncpy(first, omp, sizeof first - 1);
        if (char *comma = std::strchr(first, ',')) *comma = '\0';
        if (parse_int(first, 1, kMaxThreads, &n)) c.num_threads = n;
    }

    if (const char *v = env("TESSERA_VERBOSE")) {
        int level = 0;
        if (parse_int(v, 0, 1, &level)) c.verbose = level != 0;
        else warn("TESSERA_VERBOSE", v, "0 or 1", "0");
    }

    if (const char *v = env("TESSERA_CUDA_DEVICE")) {
        if (!parse_int(v, 0, INT_MAX, &c.cuda_device)) {
            c.cuda_device = 0;
            warn("TESSERA_CUDA_DEVICE", v, "a device ordinal >= 0", "device 0");
        }
    } else {
        // One rank per GPU under MPI or Slurm: the rank's number among those of its node picks
        // the device (the plugin takes it modulo the node's device count). A value that is not
        // a number is the launcher's business: it is ignored.
        for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                                 "MV2_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK"}) {
            int rank = 0;
            if (const char *v = env(name); v && parse_int(v, 0, INT_MAX, &rank)) {
                c.cuda_device = rank;
                c.cuda_device_from_rank = true;
                break;
            }
        }
    }
    if (const char *v = env("TESSERA_STRASSEN")) {
        if (!parse_int(v, 0, 2, &c.strassen_levels)) {
            c.strassen_levels = 0;
            warn("TESSERA_STRASSEN", v, "0, 1 or 2 (levels of Strassen's method)", "0 (off)");
        }
    }

    if (const char *v = env("TESSERA_SPARSE_TUNE")) {
        if (!strcasecmp(v, "auto")) c.sparse_tune = SparseTune::automatic;
        else if (!strcasecmp(v, "off")) c.sparse_tune = SparseTune::off;
        else if (!strcasecmp(v, "on")) c.sparse_tune = SparseTune::on;
        else warn("TESSERA_SPARSE_TUNE", v, "one of auto, off, on", "auto");
    }

    if (const char *v = env("TESSERA_CPU_ISA")) {
        if (!strcasecmp(v, "auto")) c.cpu_isa = "auto";
        else if (!strcasecmp(v, "avx512")) c.cpu_isa = "avx512";
        else if (!strcasecmp(v, "avx2")) c.cpu_isa = "avx2";
        else if (!strcasecmp(v, "generic")) c.cpu_isa = "generic";
        else warn("TESSERA_CPU_ISA", v, "one of auto, avx512, avx2, generic", "auto");
    }
    if (const char *v = env("TESSERA_CPU_BLOCKS")) {
        long long mc = 0, kc = 0, nc = 0;
        int used = 0;
        if (std::sscanf(v, "%lld,%lld,%lld%n", &mc, &kc, &nc, &used) == 3 && v[used] == '\0' &&
            mc > 0 && kc > 0 && nc > 0 && mc <= (1 << 20) && kc <= (1 << 20) && nc <= (1 << 24)) {
            c.cpu_mc = mc;
            c.cpu_kc = kc;
            c.cpu_nc = nc;
        } else {
            warn("TESSERA_CPU_BLOCKS", v, "MC,KC,NC (three positive block sizes)",
                 "the kernel's own");
        }
    }
    return c;
}

} // namespace

const Config &config() {
    static const Config c = read_environment(); // thread-safe, and cheap once made
    return c;
}

const char *backend_name(tsr_backend backend) {
    switch (backend) {
    case TSR_BACKEND_AUTO: return "auto";
    case TSR_BACKEND_CPU: return "cpu";
    case TSR_BACKEND_CUDA: return "cuda";
    case TSR_BACKEND_REFERENCE: return "reference";
    }
    return "unknown";
}

} // namespace tessera::core
