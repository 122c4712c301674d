// Named shape sets for the gemm subcommand (see gemm_presets.hpp): each preset's shapes
// (MxNxK), what it is for, and the help text listing them.
#include "gemm_presets.hpp"

#include <initializer_list>

namespace tessera::bench {
namespace {

struct Preset {
    const char *name;
    const char *purpose;
    std::initializer_list<GemmShape> shapes;
    bool in_all = true; // part of --preset all
};

const Preset kPresets[] = {
    {"square",
     "large square products, where a kernel meets its peak",
     {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}}},
    {"small",
     "small square products, where call overhead and packing dominate",
     {{8, 8, 8}, {16, 16, 16}, {32, 32, 32}, {64, 64, 64}, {128, 128, 128}}},
    {"skinny",
     "one dimension 64: rank-64 update, short-wide and tall-thin panels",
     {{4096, 4096, 64}, {64, 4096, 4096}, {4096, 64, 4096}}},
    {"odd",
     "sizes just off the powers of two, so every edge case of the blocking runs",
     {{257, 257, 257}, {1023, 1023, 1023}, {1025, 1025, 1025}, {4097, 4097, 4097}}},
    {"gpu",
     "for --backend cuda: squares to 8192, 4097, and the skinny shapes at 8192 (not in all)",
     {{1024, 1024, 1024},
      {2048, 2048, 2048},
      {4096, 4096, 4096},
      {8192, 8192, 8192},
      {4097, 4097, 4097},
      {8192, 8192, 64},
      {64, 8192, 8192},
      {8192, 64, 8192}},
     false},
};

} // namespace

std::vector<GemmShape> preset_shapes(const std::string &name) {
    std::vector<GemmShape> out;
    for (const Preset &p : kPresets)
        if ((name == "all" && p.in_all) || name == p.name) out.insert(out.end(), p.shapes);
    if (out.empty())
        throw UsageError("--preset: '" + name +
                         "' is not one of square, small, skinny, odd, gpu, all");
    return out;
}

std::string presets_help() {
    std::string text;
    for (const Preset &p : kPresets) {
        std::string sizes;
        for (const GemmShape &s : p.shapes) {
            if (!sizes.empty()) sizes += ",";
            sizes += s.m == s.n && s.n == s.k ? std::to_string(s.m) : s.text();
        }
        std::string head = std::string("    ") + p.name;
        head.resize(12, ' ');
        text += head + sizes + "\n" + std::string(12, ' ') + p.purpose + "\n";
    }
    text += "    all     all of the above but gpu\n";
    return text;
}

} // namespace tessera::bench
