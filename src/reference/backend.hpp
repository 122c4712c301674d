// The reference backend as the rest of the library sees it: its table (gemm.cpp).
#pragma once

#include "core/backend.hpp"

namespace tessera::reference {

const core::BackendTable &backend();

} // namespace tessera::reference
