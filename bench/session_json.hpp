// The JSON description of a session — tool, machine, threads, anchor library and the
// common settings — written as members of the document's top-level object.
#pragma once

#include <string_view>

#include "json_writer.hpp"
#include "options.hpp"
#include "session.hpp"

namespace tessera::bench {

// Writes "tool", "machine", "threads", "anchor" (OpenBLAS), "blis", "anchors", "peak" and
// "settings" members into the object the writer is in.
void write_session_json(JsonWriter &json, const Session &session, const CommonOptions &options,
                        std::string_view command);

} // namespace tessera::bench
