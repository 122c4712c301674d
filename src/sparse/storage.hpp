// One matrix as every backend sees it: the canonical CSR, its structure statistics, and the
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

// Variants of a format's kernel, chosen with the format (see choose.hpp). Backends map them
// to their own code; `standard` is always valid.
enum class Kernel : uint8_t {
    standard = 0, // CSR: a row at a time, scalar; the other formats: their one kernel
    vector_rows,  // CSR: long rows with SIMD gathers
    tiles,        // CSR: its entries in cache-sized tiles (columns scattered beyond the caches)
    // CSR on a GPU (choose_gpu.hpp): a thread per row; 2 to 32 lanes of a warp per row; or
    // the merge path over rows + nonzeros, equal work for every thread whatever the rows.
    gpu_rows,
    gpu_lanes2,
    gpu_lanes4,
    gpu_lanes8,
    gpu_lanes16,
    gpu_lanes32,
    gpu_merge,
    // CSR on a GPU: column-sorted row tiles, shared-memory partial sums (cuda/spmv_tiles.hpp).
    gpu_tiles,
};
const char *kernel_name(tsr_format format, Kernel kernel);
const char *format_name(tsr_format format); // "csr", "coo", "ell", "dia", "hyb", "auto"

// What products run on: a format, its kernel and why they were chosen.
struct Plan {
    tsr_format format = TSR_FORMAT_CSR;
    Kernel kernel = Kernel::standard;
    std::string reason; // one line, for TESSERA_VERBOSE
};

template <typename V, typename I> struct Typed {
    using value_type = V;
    using index_type = I;
    Csr<V, I> csr;                       // always present; the source of every conversion
    RowStats rows;                       // from create
    std::optional<Structure> structure;  // from the first optimize
    Plan plan;
    // The representation of plan.format when it is not CSR; the others stay empty.
    Coo<V, I> coo;
    Ell<V, I> ell;
    Dia<V> dia;
    Hyb<V, I> hyb;
    Tiled<V> tiled; // CSR with Kernel::tiles
};

struct Storage {
    std::variant<Typed<float, int32_t>, Typed<float, int64_t>, Typed<double, int32_t>,
                 Typed<double, int64_t>>
        typed;
};

} // namespace tessera::sparse
