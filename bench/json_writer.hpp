// A small streaming JSON writer: objects, arrays, keys and values with commas, indentation
// and string escapes handled; non-finite numbers become null. JsonOutput: where --json goes.
#pragma once

#include <concepts>
#include <cstdint>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::bench {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream &out, int indent = 2) : out_(out), indent_(indent) {}

    JsonWriter &begin_object();
    JsonWriter &end_object();
    JsonWriter &begin_array();
    JsonWriter &end_array();
    JsonWriter &key(std::string_view name); // inside an object, before each value

    JsonWriter &value(std::string_view text);
    JsonWriter &value(const char *text) { return text ? value(std::string_view(text)) : null(); }
    JsonWriter &value(const std::string &text) { return value(std::string_view(text)); }
    JsonWriter &value(bool flag);
    JsonWriter &value(double number); // shortest text that reads back the same; NaN/Inf: null
    template <std::integral T>
    requires(!std::same_as<T, bool>) JsonWriter &value(T number) {
        return integer(static_cast<long long>(number));
    }
    JsonWriter &null();

    // key(name).value(v) in one call.
    template <class T> JsonWriter &field(std::string_view name, const T &v) {
        return key(name).value(v);
    }

    // Ends the document with a newline; the writer must be back at depth 0.
    void finish();

private:
    JsonWriter &integer(long long number);
    void before_value();
    void newline();
    void write_string(std::string_view text);

    struct Level {
        bool object;
        int count;
    };
    std::ostream &out_;
    int indent_;
    std::vector<Level> stack_;
    bool after_key_ = false;
};

} // namespace tessera::bench

namespace tessera::bench {

// Where --json sends the document: nowhere (""), standard output ("-"), or a file opened on
// construction, so that a path that cannot be written fails (UsageError) before a long run.
// The human-readable report goes to log(): standard error when the JSON takes standard output.
class JsonOutput {
public:
    explicit JsonOutput(const std::string &path);
    std::ostream &log() const;
    // Writes the document with `write` where it was asked for; false, after a message on
    // standard error, when the file could not be written.
    bool emit(const std::function<void(std::ostream &)> &write);

private:
    std::string path_;
    std::ofstream file_;
};

} // namespace tessera::bench
