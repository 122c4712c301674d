// Names of Tessera's backends on the command line and in reports (see backend_names.hpp).
// One table, read both ways.
#include "backend_names.hpp"

#include <array>
#include <utility>

namespace tessera::bench {
namespace {

constexpr std::array<std::pair<tsr_backend, const char *>, 4> kNames{{
    {TSR_BACKEND_CPU, "cpu"},
    {TSR_BACKEND_REFERENCE, "reference"},
    {TSR_BACKEND_AUTO, "auto"},
    {TSR_BACKEND_CUDA, "cuda"},
}};

} // namespace

std::optional<tsr_backend> backend_from_name(std::string_view name) {
    for (auto [backend, text] : kNames)
        if (name == text) return backend;
    return std::nullopt;
}

const char *backend_name(tsr_backend backend) {
    for (auto [b, text] : kNames)
        if (b == backend) return text;
    return "unknown";
}

} // namespace tessera::bench
