// One matrix as the library keeps it: the canonical CSR, its structure statistics, and the
// format (and kernel variant) chosen for products, for each value and index type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "sparse/formats.hpp"
#include "sparse/structure.hpp"
#include "tessera/tessera.h"

namespace tessera::sparse {

// Who made a plan: the backend whose format rules chose it (core/backend.hpp's kPlanBy*), or
// none (as created). A plan's kernel is that backend's own variant of the format's kernel
// (0 is every backend's plain one); another backend picks its own variant for the format.
inline constexpr uint8_t kPlanByNone = 0;

// What products run on: a format, its kernel and why they were chosen.
struct Plan {
    tsr_format format = TSR_FORMAT_CSR;
    uint8_t by = kPlanByNone; // whose rules made it
    uint8_t kernel = 0;       // that backend's kernel variant
    bool tiled = false;       // the kernel reads CSR's tiles (Typed::tiled)
    std::string reason;       // one line, for TESSERA_VERBOSE
};

template <typename V, typename I> struct Typed {
    using value_type = V;
    using index_type = I;
    Csr<V, I> csr;                      // always present; the source of every conversion
    RowStats rows;                      // from create
    std::optional<Structure> structure; // from the first optimize
    Plan plan;
    // The representation of plan.format when it is not CSR; the others stay empty.
    Coo<V, I> coo;
    Ell<V, I> ell;
    Dia<V> dia;
    Hyb<V, I> hyb;
    Tiled<V> tiled; // CSR, when plan.tiled
};

struct Storage {
    std::variant<Typed<float, int32_t>, Typed<float, int64_t>, Typed<double, int32_t>,
                 Typed<double, int64_t>>
        typed;
};

} // namespace tessera::sparse
