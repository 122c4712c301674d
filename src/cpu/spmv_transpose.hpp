// Per-matrix data of the CPU transposed products: the column span of each block of entries
// (found once, on the first transposed product) and a pool of per-thread buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sparse/array.hpp"

namespace tessera::cpu {

// Columns touched by each block of `block` consecutive units (entries or row blocks).
struct ColumnSpans {
    int64_t block = 1;
    std::vector<int64_t> lo, hi; // lo > hi: the block touches nothing
};

// Buffers for the columns threads share; kept between calls so that their pages are faulted
// in once, not on every product.
struct ScatterBuffers {
    std::vector<sparse::Array<double>> per_range; // typed as V inside (float uses half)
};

struct TransposeWork {
    std::once_flag main_once, tail_once;
    ColumnSpans main, tail; // tail: the COO part of HYB

    std::mutex pool_lock;
    std::vector<std::unique_ptr<ScatterBuffers>> pool;

    std::unique_ptr<ScatterBuffers> take();
    void give_back(std::unique_ptr<ScatterBuffers> b);
};

} // namespace tessera::cpu
