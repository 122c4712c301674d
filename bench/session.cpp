// What every subcommand sets up before measuring (see session.hpp). Threads follow the
// library's own rule (TESSERA_NUM_THREADS, OMP_NUM_THREADS, all cores) unless --threads says.
#include "session.hpp"

#include <omp.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <tessera/tessera.h>

namespace tessera::bench {
namespace {

int positive_env(const char *name) {
    const char *text = std::getenv(name);
    if (!text) return 0;
    int value = 0;
    auto [end, ec] = std::from_chars(text, text + std::strlen(text), value);
    return ec == std::errc() && *end == '\0' && value > 0 ? value : 0;
}

} // namespace

Session open_session(const CommonOptions &options) {
    Session s;
    s.machine = probe_machine();
    if (options.threads > 0) {
        s.threads = options.threads;
        s.threads_origin = "--threads";
    } else if (int t = positive_env("TESSERA_NUM_THREADS")) {
        s.threads = t;
        s.threads_origin = "TESSERA_NUM_THREADS";
    } else if (int t = positive_env("OMP_NUM_THREADS")) {
        s.threads = t;
        s.threads_origin = "OMP_NUM_THREADS";
    } else {
        s.threads = omp_get_num_procs();
        s.threads_origin = "all cores";
    }

    if (options.anchor == "none") {
        s.anchor_note = "no anchor (--anchor none)";
    } else {
        std::string why;
        s.openblas = OpenBlas::load(options.openblas_path, &why);
        if (s.openblas)
            s.openblas->set_num_threads(s.threads);
        else
            s.anchor_note =
                "OpenBLAS could not be loaded (" + why + "): running without the anchor";
    }
    return s;
}

void print_session(std::ostream &out, const Session &s) {
    out << "tessera-bench, Tessera " << tsr_version() << ", " << s.machine.date_utc << '\n';
    out << "CPU: " << s.machine.cpu_model << ", " << s.machine.logical_cpus << " logical CPUs ("
        << s.machine.cpu_features << ")\n";
    out << "threads: " << s.threads << " (" << s.threads_origin << "), for Tessera"
        << (s.openblas ? " and OpenBLAS" : "") << '\n';
    if (s.openblas) {
        const OpenBlas &o = *s.openblas;
        out << "OpenBLAS: core " << o.corename()
            << " (OPENBLAS_CORETYPE=" << (o.coretype().empty() ? "<unset>" : o.coretype()) << ", "
            << o.coretype_origin() << "), threads " << o.num_threads() << "\n";
        out << "OpenBLAS: " << o.config() << " [" << o.path() << "]\n";
        if (!o.warning().empty()) out << "warning: " << o.warning() << '\n';
    } else {
        out << "anchor: " << s.anchor_note << '\n';
    }
    out.flush();
}

} // namespace tessera::bench
