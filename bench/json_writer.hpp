// A small streaming JSON writer: objects, arrays, keys and values with commas, indentation
// and string escapes handled; non-finite numbers become null.
#pragma once

#include <concepts>
#include <cstdint>
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
