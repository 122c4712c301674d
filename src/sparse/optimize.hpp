// Carrying out tsr_sparse_optimize on the backend-free storage: analyse the structure once,
// choose or check the format, convert from the canonical CSR and drop the old representation.
#pragma once

#include <cstddef>
#include <functional>

#include "sparse/storage.hpp"
#include "sparse/validate.hpp"

namespace tessera::sparse {

// A backend's format rules: the plan for a matrix of this structure and these value and index
// sizes, for `requested` (TSR_FORMAT_AUTO, or a format already admitted by the padding limit,
// which the plan keeps, choosing only its kernel).
using Planner = std::function<Plan(const Structure &s, tsr_format requested, size_t value_bytes,
                                   size_t index_bytes)>;

// The outcome of a request: the plan in place, or a fault (the storage is then unchanged).
struct Applied {
    Fault fault;          // empty on success
    bool refused = false; // the fault is the padding limit (else an internal inconsistency)
};

Applied apply_format(Storage &storage, tsr_format requested, const Planner &planner);

} // namespace tessera::sparse
