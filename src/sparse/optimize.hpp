// Carrying out tsr_sparse_optimize on the backend-free storage: analyse the structure once,
// choose or check the format, convert from the canonical CSR and drop the old representation.
#pragma once

#include "sparse/choose.hpp"
#include "sparse/storage.hpp"
#include "sparse/validate.hpp"

namespace tessera::sparse {

// The outcome of a request: the plan in place, or a fault (the storage is then unchanged).
struct Applied {
    Fault fault; // empty on success
    bool refused = false; // the fault is the padding limit (else an internal inconsistency)
};

Applied apply_format(Storage &storage, tsr_format requested, Target target);

} // namespace tessera::sparse
