// The CPU backend as the rest of the library sees it: its table (backend.cpp).
#pragma once

#include "core/backend.hpp"

namespace tessera::cpu {

const core::BackendTable &backend();

} // namespace tessera::cpu
