// The JSON description of a session (see session_json.hpp). Field names are part of the
// format that plot scripts read: add fields freely, rename none ("anchor" stays OpenBLAS).
#include "session_json.hpp"

#include <tessera/tessera.h>

#include "peak_report.hpp"

namespace tessera::bench {

void write_session_json(JsonWriter &json, const Session &s, const CommonOptions &options,
                        std::string_view command) {
    json.key("tool").begin_object();
    json.field("name", "tessera-bench").field("tessera_version", tsr_version());
    json.field("command", command).field("format_version", 1);
    json.end_object();

    json.key("machine").begin_object();
    json.field("cpu_model", s.machine.cpu_model).field("logical_cpus", s.machine.logical_cpus);
    json.field("cpu_features", s.machine.cpu_features).field("hostname", s.machine.hostname);
    json.field("kernel", s.machine.kernel).field("compiler", s.machine.compiler);
    json.field("date", s.machine.date_utc);
    json.end_object();

    json.key("threads").begin_object();
    json.field("count", s.threads).field("origin", s.threads_origin);
    json.end_object();

    json.key("anchor").begin_object();
    if (s.openblas) {
        const OpenBlas &o = *s.openblas;
        json.field("name", "openblas").field("path", o.path());
        json.field("corename", o.corename()).field("config", o.config());
        json.key("coretype").value(o.coretype().empty() ? nullptr : o.coretype().c_str());
        json.field("coretype_origin", o.coretype_origin()).field("threads", o.num_threads());
        if (!o.warning().empty()) json.field("warning", o.warning());
    } else {
        json.key("name").null().field("note", s.anchor_note);
    }
    json.end_object();

    json.key("blis").begin_object();
    if (s.blis) {
        const Blis &b = *s.blis;
        json.field("name", "blis").field("path", b.path()).field("version", b.version());
        json.field("arch", b.arch()).field("arch_origin", b.arch_origin());
        json.field("threading", b.threading()).field("blas_int_bits", b.blas_int_bits());
        json.field("threads", b.threads_set()).field("config", b.description());
        if (!b.warning().empty()) json.field("warning", b.warning());
    } else {
        json.key("name").null().field("note", s.blis_note);
    }
    json.end_object();

    json.key("anchors").begin_array();
    if (s.openblas) json.value("openblas");
    if (s.blis) json.value("blis");
    json.end_array();

    json.key("peak");
    write_peak_json(json, s.peak, s.threads, s.peak_note);

    json.key("settings").begin_object();
    json.field("min_reps", options.min_reps).field("min_time_s", options.min_time);
    json.field("quick", options.quick).field("seed", options.seed);
    json.field("anchors_requested", anchors_text(options)).field("peak_time_s", options.peak_time);
    json.end_object();
}

} // namespace tessera::bench
