// Command-line helpers shared by the tessera-bench subcommands (see args.hpp): option
// matching and strict number parsing that rejects trailing garbage and out-of-range values.
#include "args.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tessera::bench {

ArgCursor::ArgCursor(int argc, char **argv, int first) {
    for (int i = first; i < argc; ++i) args_.emplace_back(argv[i]);
}

bool ArgCursor::take_flag(std::string_view name) {
    if (done() || current() != name) return false;
    ++pos_;
    return true;
}

std::optional<std::string> ArgCursor::take_option(std::string_view name) {
    if (done()) return std::nullopt;
    const std::string &arg = current();
    if (arg == name) {
        if (pos_ + 1 >= args_.size()) throw UsageError(std::string(name) + " needs a value");
        pos_ += 2;
        return args_[pos_ - 1];
    }
    if (arg.size() > name.size() && arg.starts_with(name) && arg[name.size()] == '=') {
        ++pos_;
        return arg.substr(name.size() + 1);
    }
    return std::nullopt;
}

std::int64_t parse_int(std::string_view text, std::string_view what, std::int64_t min,
                       std::int64_t max) {
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not an integer");
    if (value < min || value > max)
        throw UsageError(std::string(what) + ": " + std::string(text) + " is outside [" +
                         std::to_string(min) + ", " + std::to_string(max) + "]");
    return value;
}

double parse_number(std::string_view text, std::string_view what, double min) {
    std::string copy(text);
    char *end = nullptr;
    double value = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value))
        throw UsageError(std::string(what) + ": '" + copy + "' is not a number");
    if (value < min) {
        char bound[32];
        std::snprintf(bound, sizeof bound, "%g", min);
        throw UsageError(std::string(what) + ": " + copy + " is below " + bound);
    }
    return value;
}

std::vector<std::string> split_list(std::string_view text, char separator) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t stop = text.find(separator, start);
        if (stop == std::string_view::npos) stop = text.size();
        if (stop > start) items.emplace_back(text.substr(start, stop - start));
        start = stop + 1;
    }
    return items;
}

} // namespace tessera::bench
