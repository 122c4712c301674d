// The CPU backend as the rest of the library sees it: its table (backend.cpp).
#pragma once

#include "core/backend.hpp"
#include "core/dispatch.hpp"

namespace tessera::cpu {

const core::BackendTable &backend();

// The kernel this backend runs a product of g's shape and transposes on, where that is the
// unpacked path on one thread whatever the handle's threads (a product too small to split, op(A)
// not transposed): a gemm plan calls it directly. nullptr for any other product.
template <typename T> core::HostDirectFn<T> planned_direct(const core::GemmArgs<T> &g);

} // namespace tessera::cpu
