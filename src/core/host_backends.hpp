// The backends that live in libtessera.so, as the core reaches them: by the public enum, not
// by name, so that the core depends on no backend. Defined where the library is put together
// (api/backends.cpp).
#pragma once

#include "core/backend.hpp"

namespace tessera::core {

// TSR_BACKEND_CPU or TSR_BACKEND_REFERENCE (any other value: the CPU's).
const BackendTable &host_backend(tsr_backend which);

} // namespace tessera::core
