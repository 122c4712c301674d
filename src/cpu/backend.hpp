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

// planned_direct for a product of m, n, k from 1 to 64 with op(A) not transposed (one that
// always runs unpacked on one thread), from the sizes alone.
template <typename T> core::HostDirectFn<T> tiny_direct(int64_t m, int64_t n, int64_t k);

} // namespace tessera::cpu
