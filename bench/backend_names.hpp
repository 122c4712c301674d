// Names of Tessera's backends on the command line and in reports: "cpu", "reference",
// "auto", "cuda", the same words as the TESSERA_BACKEND environment variable.
#pragma once

#include <optional>
#include <string_view>

#include <tessera/tessera.h>

namespace tessera::bench {

std::optional<tsr_backend> backend_from_name(std::string_view name);
const char *backend_name(tsr_backend backend);

} // namespace tessera::bench
