// What every subcommand sets up before measuring (see session.hpp). Threads follow the
// library's own rule (TESSERA_NUM_THREADS, OMP_NUM_THREADS, all cores) unless --threads says.
#include "session.hpp"

#include <omp.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <tessera/tessera.h>

#include "peak_report.hpp"
#include "timing.hpp"

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

    // BLIS first: it probes its configuration in a forked child, best done before
    // OpenBLAS starts its thread pool.
    if (!options.anchor_blis) {
        s.blis_note = "not asked for (--anchor " + anchors_text(options) + ")";
    } else {
        std::string why;
        s.blis = Blis::load(options.blis_path, s.threads, &why);
        if (!s.blis) s.blis_note = "BLIS could not be loaded (" + why + "): running without it";
    }
    if (!options.anchor_openblas) {
        s.anchor_note = "not asked for (--anchor " + anchors_text(options) + ")";
    } else {
        std::string why;
        s.openblas = OpenBlas::load(options.openblas_path, &why);
        if (s.openblas) s.openblas->set_num_threads(s.threads);
        else s.anchor_note = "OpenBLAS could not be loaded (" + why + "): running without it";
    }
    return s;
}

void measure_session_peak(Session &s, const CommonOptions &options) {
    s.peak.reset();
    if (options.peak_time <= 0) {
        s.peak_note = "not measured (--peak-time 0)";
        return;
    }
    PeakTable table = measure_peak(s.threads, options.peak_time);
    if (table.items.empty()) {
        s.peak_note = "not measured: this CPU has neither AVX-512 nor AVX2+FMA";
        return;
    }
    s.peak = std::move(table);
    idle_for(0.05); // the peak's OpenMP team stops spinning before anything is timed
}

void print_session(std::ostream &out, const Session &s) {
    out << "tessera-bench, Tessera " << tsr_version() << ", " << s.machine.date_utc << '\n';
    out << "CPU: " << s.machine.cpu_model << ", " << s.machine.logical_cpus << " logical CPUs ("
        << s.machine.cpu_features << ")\n";
    out << "threads: " << s.threads << " (" << s.threads_origin << "), for Tessera"
        << (s.openblas && s.blis ? ", OpenBLAS and BLIS"
            : s.openblas         ? " and OpenBLAS"
            : s.blis             ? " and BLIS"
                                 : "")
        << '\n';
    if (s.openblas) {
        const OpenBlas &o = *s.openblas;
        out << "OpenBLAS: core " << o.corename()
            << " (OPENBLAS_CORETYPE=" << (o.coretype().empty() ? "<unset>" : o.coretype()) << ", "
            << o.coretype_origin() << "), threads " << o.num_threads() << "\n";
        out << "OpenBLAS: " << o.config() << " [" << o.path() << "]\n";
        if (!o.warning().empty()) out << "warning: " << o.warning() << '\n';
    } else {
        out << "OpenBLAS: " << s.anchor_note << '\n';
    }
    if (s.blis) {
        const Blis &b = *s.blis;
        out << "BLIS: " << b.description() << ", threads " << b.threads_set() << '\n';
        out << "BLIS: configuration " << b.arch_origin() << " [" << b.path() << "]\n";
        if (!b.warning().empty()) out << "warning: " << b.warning() << '\n';
    } else {
        out << "BLIS: " << s.blis_note << '\n';
    }
    if (s.peak) print_peak_banner(out, *s.peak, s.threads);
    else if (!s.peak_note.empty()) out << "peak:   " << s.peak_note << '\n';
    out.flush();
}

} // namespace tessera::bench
