// The random seed of a test run, shared by every GoogleTest program of the suite.
//
// A run's base seed is TESSERA_TEST_SEED when set (decimal, or hexadecimal after 0x), else a
// fresh one from std::random_device. Tests draw from streams seeded by the base seed mixed with
// a label (the test's name, plus a worker's number or a case's index), so the tests stay
// independent of each other and a test draws the same data whether it runs alone or among
// others. The seed is printed when the tests start and after every failed test, so that
//     TESSERA_TEST_SEED=<seed> ctest -R <test>
// replays the failure with the same data.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>

namespace tessera::test {

// Parses a seed: decimal digits, or 0x and hexadecimal digits, that fit in 64 bits.
inline bool parse_seed(std::string_view text, uint64_t *out) {
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    if (hex) text.remove_prefix(2);
    if (text.empty()) return false;
    const uint64_t base = hex ? 16 : 10;
    uint64_t v = 0;
    for (char ch : text) {
        uint64_t d;
        if (ch >= '0' && ch <= '9') d = uint64_t(ch - '0');
        else if (hex && ch >= 'a' && ch <= 'f') d = uint64_t(ch - 'a' + 10);
        else if (hex && ch >= 'A' && ch <= 'F') d = uint64_t(ch - 'A' + 10);
        else return false;
        if (v > (UINT64_MAX - d) / base) return false; // more than 64 bits
        v = v * base + d;
    }
    *out = v;
    return true;
}

// The run's base seed, read or drawn once per process.
inline uint64_t base_seed() {
    static const uint64_t seed = [] {
        if (const char *text = std::getenv("TESSERA_TEST_SEED"); text && *text) {
            uint64_t v = 0;
            if (parse_seed(text, &v)) return v;
            std::fprintf(
                stderr, "TESSERA_TEST_SEED='%s' is not a 64-bit decimal or 0x-hexadecimal number\n",
                text);
            std::exit(2);
        }
        std::random_device device;
        return (uint64_t(device()) << 32) ^ uint64_t(device());
    }();
    return seed;
}

// The seed of the stream called `label`: FNV-1a over the base seed's bytes and the label,
// then splitmix64's finaliser (so labels that differ in one letter give unrelated streams).
inline uint64_t seed_for(std::string_view label, uint64_t base = base_seed()) {
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 8; ++i) h = (h ^ ((base >> (8 * i)) & 0xff)) * 1099511628211ull;
    for (unsigned char ch : label) h = (h ^ ch) * 1099511628211ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

// The current test's full name (Suite.Name, with the instantiation's prefix and parameter).
inline std::string test_label() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    return info ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
}

// A generator for the stream `label`; test_rng(suffix) is the current test's own stream.
inline std::mt19937_64 rng_for(std::string_view label) { return std::mt19937_64(seed_for(label)); }
inline std::mt19937_64 test_rng(std::string_view suffix = {}) {
    return rng_for(test_label() + std::string(suffix));
}

// Tests started in this process so far (a shared generator reseeds itself when it changes).
inline std::atomic<uint64_t> tests_started{0};

namespace detail {

// Prints the seed as the tests start, and the command that replays a test after it fails.
class SeedReporter : public ::testing::EmptyTestEventListener {
    void OnTestProgramStart(const ::testing::UnitTest &) override {
        std::printf("TESSERA_TEST_SEED=%llu (random test data; set it to replay them)\n",
                    static_cast<unsigned long long>(base_seed()));
        std::fflush(stdout);
    }
    void OnTestStart(const ::testing::TestInfo &) override { tests_started.fetch_add(1); }
    void OnTestEnd(const ::testing::TestInfo &info) override {
        if (!info.result()->Failed()) return;
        std::printf("Replay with: TESSERA_TEST_SEED=%llu ctest -R '%s.%s'\n",
                    static_cast<unsigned long long>(base_seed()), info.test_suite_name(),
                    info.name());
        std::fflush(stdout);
    }
};

// Registered while the program starts, before gtest_main's main() runs the tests.
inline const bool seed_reporter_added = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new SeedReporter);
    return true;
}();

} // namespace detail

} // namespace tessera::test
