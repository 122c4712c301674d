// The JSON description of a session (see session_json.hpp). Field names are part of the
// format that plot scripts read: add fields freely, rename none ("anchor" stays OpenBLAS).
#include "session_json.hpp"

#include <tessera/tessera.h>

#include "peak_report.hpp"

namespace tessera::bench {

void add_session_json(Json &json, const Session &s, const CommonOptions &options,
                      std::string_view command) {
    json["tool"] = {{"name", "tessera-bench"},
                    {"tessera_version", tsr_version()},
                    {"command", command},
                    {"format_version", 1}};

    Json &machine = json["machine"];
    machine["cpu_model"] = s.machine.cpu_model;
    machine["logical_cpus"] = s.machine.logical_cpus;
    machine["cpu_features"] = s.machine.cpu_features;
    machine["hostname"] = s.machine.hostname;
    machine["kernel"] = s.machine.kernel;
    machine["compiler"] = s.machine.compiler;
    machine["date"] = s.machine.date_utc;

    json["threads"] = {{"count", s.threads}, {"origin", s.threads_origin}};

    Json &anchor = json["anchor"];
    anchor = Json::object();
    if (s.openblas) {
        const OpenBlas &o = *s.openblas;
        anchor["name"] = "openblas";
        anchor["path"] = o.path();
        anchor["corename"] = o.corename();
        anchor["config"] = o.config();
        anchor["coretype"] = o.coretype().empty() ? Json(nullptr) : Json(o.coretype());
        anchor["coretype_origin"] = o.coretype_origin();
        anchor["threads"] = o.num_threads();
        if (!o.warning().empty()) anchor["warning"] = o.warning();
    } else {
        anchor["name"] = nullptr;
        anchor["note"] = s.anchor_note;
    }

    Json &blis = json["blis"];
    blis = Json::object();
    if (s.blis) {
        const Blis &b = *s.blis;
        blis["name"] = "blis";
        blis["path"] = b.path();
        blis["version"] = b.version();
        blis["arch"] = b.arch();
        blis["arch_origin"] = b.arch_origin();
        blis["threading"] = b.threading();
        blis["blas_int_bits"] = b.blas_int_bits();
        blis["threads"] = b.threads_set();
        blis["config"] = b.description();
        if (!b.warning().empty()) blis["warning"] = b.warning();
    } else {
        blis["name"] = nullptr;
        blis["note"] = s.blis_note;
    }

    Json &anchors = json["anchors"];
    anchors = Json::array();
    if (s.openblas) anchors.push_back("openblas");
    if (s.blis) anchors.push_back("blis");

    json["peak"] = peak_json(s.peak, s.threads, s.peak_note);

    json["settings"] = {{"min_reps", options.min_reps},
                        {"min_time_s", options.min_time},
                        {"quick", options.quick},
                        {"seed", options.seed},
                        {"anchors_requested", anchors_text(options)},
                        {"peak_time_s", options.peak_time}};
}

} // namespace tessera::bench
