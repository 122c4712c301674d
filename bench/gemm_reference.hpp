// How accurate a gemm result is: its relative error ‖C − C_ref‖_F / ‖C_ref‖_F against a
// reference at least as accurate as float64, over all entries or a random sample of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemm_provider.hpp"

namespace tessera::bench {

class GemmReference {
public:
    // Every entry of alpha·op(A)·op(B), computed in float64 by `dgemm` (an anchor's dgemm,
    // OpenBLAS's when it is there) on the float inputs promoted to double. For sgemm: the
    // reference's own error (about 1e-16·√k relative) is far below float's 6e-8.
    static GemmReference full_from_f64(const GemmCall<float> &call, GemmProvider &dgemm);

    // `samples` entries (i, j) drawn at random (every entry when m·n <= samples), each a
    // dot product in long double (64-bit significand) with compensated (Neumaier)
    // summation: its error, about 1e-19 relative, is far below double's 1.1e-16.
    template <class T>
    static GemmReference sampled(const GemmCall<T> &call, std::int64_t samples, std::uint64_t seed);

    // ‖C − C_ref‖_F / ‖C_ref‖_F over the reference's entries, for C stored as the call that
    // built the reference stores it (its layout and ldc).
    template <class T> double relative_error(const T *C, std::int64_t ldc) const;

    // One phrase for reports, e.g. "float64 (openblas dgemm), all entries".
    const std::string &method() const { return method_; }
    std::int64_t entries() const;

private:
    struct Entry {
        std::int64_t i, j;
        long double value;
    };
    std::string method_;
    // Either a full m×n column-major matrix or a list of sampled entries.
    std::int64_t m_ = 0, n_ = 0;
    std::vector<double> full_;
    std::vector<Entry> sampled_;
};

} // namespace tessera::bench
