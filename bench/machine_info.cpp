// What the numbers were measured on (see machine_info.hpp): read from /proc/cpuinfo,
// uname, the CPU's feature bits and the clock.
#include "machine_info.hpp"

#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>

namespace tessera::bench {
namespace {

std::string cpu_model_from_proc() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("model name")) {
            auto colon = line.find(':');
            if (colon == std::string::npos) break;
            auto start = line.find_first_not_of(" \t", colon + 1);
            return start == std::string::npos ? std::string() : line.substr(start);
        }
    }
    return "unknown";
}

std::string simd_features() {
    std::string out;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    auto add = [&](bool has, const char *name) {
        if (!has) return;
        if (!out.empty()) out += ' ';
        out += name;
    };
    add(__builtin_cpu_supports("avx512f"), "avx512f");
    add(__builtin_cpu_supports("avx512vl"), "avx512vl");
    add(__builtin_cpu_supports("avx512bw"), "avx512bw");
    add(__builtin_cpu_supports("avx512dq"), "avx512dq");
    add(__builtin_cpu_supports("avx2"), "avx2");
    add(__builtin_cpu_supports("fma"), "fma");
    add(__builtin_cpu_supports("avx"), "avx");
#endif
    return out.empty() ? "none" : out;
}

} // namespace

MachineInfo probe_machine() {
    MachineInfo info;
    info.cpu_model = cpu_model_from_proc();
    info.logical_cpus = int(sysconf(_SC_NPROCESSORS_ONLN));
    info.cpu_features = simd_features();
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) info.hostname = host;
    if (utsname u{}; uname(&u) == 0) info.kernel = std::string(u.sysname) + " " + u.release;
#if defined(__clang__)
    info.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    info.compiler = "gcc " __VERSION__;
#endif
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    info.date_utc = date;
    return info;
}

bool isa_narrowed_to_avx2() {
    const char *isa = std::getenv("TESSERA_CPU_ISA");
    return isa && strcasecmp(isa, "avx2") == 0;
}

} // namespace tessera::bench
