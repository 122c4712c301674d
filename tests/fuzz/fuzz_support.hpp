// Shared by the libFuzzer harnesses: failing loudly (a message, then abort() so libFuzzer keeps
// the input), tracing, the class of a floating-point value, numbers drawn from the input.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace tessera::fuzz {

// Prints what broke the contract and aborts: libFuzzer reports it as a crash with this input.
[[noreturn, gnu::format(printf, 1, 2)]] inline void broken(const char *fmt, ...) {
    std::fputs("tessera fuzz: contract broken: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    std::abort();
}

// TESSERA_FUZZ_TRACE=1: each harness prints the call it decoded from an input (to replay one).
inline bool trace() {
    static const bool on = std::getenv("TESSERA_FUZZ_TRACE") != nullptr;
    return on;
}

// Finite, NaN, +Inf or -Inf: two results agree on non-finite values only when their classes do.
enum class Class { finite, nan, pos_inf, neg_inf };

template <typename T> Class class_of(T v) {
    if (std::isnan(v)) return Class::nan;
    if (std::isinf(v)) return v > 0 ? Class::pos_inf : Class::neg_inf;
    return Class::finite;
}

inline const char *class_name(Class c) {
    switch (c) {
    case Class::finite: return "finite";
    case Class::nan: return "NaN";
    case Class::pos_inf: return "+Inf";
    case Class::neg_inf: return "-Inf";
    }
    return "?";
}

// Byte for byte (NaN payloads included), empty vectors too.
template <typename T> bool same_bytes(const std::vector<T> &a, const std::vector<T> &b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// A finite value on a grid of 2^-6 with |v| < 8: sums and products of a few hundred of them
// stay far from overflow, so a non-finite result can only come from a non-finite input.
template <typename T> T small_value(FuzzedDataProvider &in) {
    return T(in.ConsumeIntegralInRange<int16_t>(-511, 511)) / T(64);
}

// A scale (alpha or beta): 0, ±1 and a few others most of the time, else a small value.
template <typename T> T scale(FuzzedDataProvider &in) {
    static constexpr double common[] = {0, 1, -1, 0.5, 2, -1.5, 0.25, 3};
    const uint8_t pick = in.ConsumeIntegral<uint8_t>();
    if (pick < 200) return T(common[pick % 8]);
    return small_value<T>(in);
}

// NaN, +Inf or -Inf.
template <typename T> T non_finite(FuzzedDataProvider &in) {
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: return std::numeric_limits<T>::quiet_NaN();
    case 1: return std::numeric_limits<T>::infinity();
    default: return -std::numeric_limits<T>::infinity();
    }
}

} // namespace tessera::fuzz
