// The JSON description of a session — tool, machine, threads, anchor library and the
// common settings — written as members of the document's top-level object.
#pragma once

#include <string_view>

#include "json_output.hpp"
#include "options.hpp"
#include "session.hpp"

namespace tessera::bench {

// Sets the "tool", "machine", "threads", "anchor" (OpenBLAS), "blis", "anchors", "peak" and
// "settings" members of the document's object.
void add_session_json(Json &document, const Session &session, const CommonOptions &options,
                      std::string_view command);

} // namespace tessera::bench
