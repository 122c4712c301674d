// The anchor of the spmv bench: Eigen's sparse (row-major CSR, mapped onto the bench's own
// arrays without a copy) times dense vector, OpenMP-parallel over rows in Eigen itself.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tessera::bench {

// A CSR matrix and vectors owned by the caller, typed by the caller's dtype and index width.
struct CsrView {
    int64_t rows, cols, nnz;
    const void *row_ptr, *col, *val; // I, I, V
    bool f32;                        // V is float (else double)
    bool i64;                        // I is int64_t (else int32_t)
};

// A callable y = A·x (trans: y = Aᵀ·x) on Eigen, or nullptr with `why` when Eigen was not
// built in. Eigen's thread count is set to `threads`.
std::function<void()> eigen_product(const CsrView &a, const void *x, void *y, bool trans,
                                    int threads, std::string *why);

// A callable Y = A·X for packed dense blocks of k columns (row-major or column-major, the
// layout of both), on Eigen, or nullptr with `why` when Eigen was not built in.
std::function<void()> eigen_block_product(const CsrView &a, const void *X, void *Y, int64_t k,
                                          bool row_major, int threads, std::string *why);

// "Eigen 3.4.0 (AVX512, FMA, ...)" (the instruction sets it was compiled for) or a note saying it
// is not built in.
std::string eigen_version();

} // namespace tessera::bench
