// Command-line helpers shared by the tessera-bench subcommands: a cursor over argv that
// reads "--name value" and "--name=value", and strict parsers for numbers and lists.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::bench {

// A mistake on the command line; main() prints it with a hint and exits with status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class ArgCursor {
public:
    ArgCursor(int argc, char **argv, int first);

    bool done() const { return pos_ >= args_.size(); }
    const std::string &current() const { return args_[pos_]; }
    void skip() { ++pos_; }

    // Consumes "--name" when it is the current argument.
    bool take_flag(std::string_view name);
    // Consumes "--name value" or "--name=value" and returns the value; std::nullopt when the
    // current argument is another one. Throws UsageError when the value is missing.
    std::optional<std::string> take_option(std::string_view name);

private:
    std::vector<std::string> args_;
    std::size_t pos_ = 0;
};

// Whole-string integer in [min, max]; `what` names the option in the error message.
std::int64_t parse_int(std::string_view text, std::string_view what, std::int64_t min,
                       std::int64_t max);
// Whole-string finite number >= min.
double parse_number(std::string_view text, std::string_view what, double min);
// "a,b,,c" -> {"a", "b", "c"}: empty items are dropped, blanks are not trimmed.
std::vector<std::string> split_list(std::string_view text, char separator = ',');

} // namespace tessera::bench
