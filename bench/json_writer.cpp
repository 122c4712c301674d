// A small streaming JSON writer (see json_writer.hpp). Numbers use std::to_chars, so the
// output does not depend on the locale.
#include "json_writer.hpp"

#include "args.hpp"

#include <charconv>
#include <iostream>
#include <cmath>
#include <stdexcept>

namespace tessera::bench {

void JsonWriter::newline() {
    if (indent_ <= 0) return;
    out_ << '\n';
    for (std::size_t i = 0; i < stack_.size() * std::size_t(indent_); ++i) out_ << ' ';
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (stack_.empty()) return;
    if (stack_.back().object) throw std::logic_error("JsonWriter: value without a key");
    if (stack_.back().count++ > 0) out_ << ',';
    newline();
}

JsonWriter &JsonWriter::key(std::string_view name) {
    if (stack_.empty() || !stack_.back().object || after_key_)
        throw std::logic_error("JsonWriter: key outside an object");
    if (stack_.back().count++ > 0) out_ << ',';
    newline();
    write_string(name);
    out_ << (indent_ > 0 ? ": " : ":");
    after_key_ = true;
    return *this;
}

JsonWriter &JsonWriter::begin_object() {
    before_value();
    out_ << '{';
    stack_.push_back({true, 0});
    return *this;
}

JsonWriter &JsonWriter::begin_array() {
    before_value();
    out_ << '[';
    stack_.push_back({false, 0});
    return *this;
}

JsonWriter &JsonWriter::end_object() {
    if (stack_.empty() || !stack_.back().object || after_key_)
        throw std::logic_error("JsonWriter: unbalanced end_object");
    bool had_members = stack_.back().count > 0;
    stack_.pop_back();
    if (had_members) newline();
    out_ << '}';
    return *this;
}

JsonWriter &JsonWriter::end_array() {
    if (stack_.empty() || stack_.back().object)
        throw std::logic_error("JsonWriter: unbalanced end_array");
    bool had_items = stack_.back().count > 0;
    stack_.pop_back();
    if (had_items) newline();
    out_ << ']';
    return *this;
}

JsonWriter &JsonWriter::value(std::string_view text) {
    before_value();
    write_string(text);
    return *this;
}

JsonWriter &JsonWriter::value(bool flag) {
    before_value();
    out_ << (flag ? "true" : "false");
    return *this;
}

JsonWriter &JsonWriter::value(double number) {
    if (!std::isfinite(number)) return null();
    before_value();
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, number);
    out_.write(buffer, end - buffer);
    return *this;
}

JsonWriter &JsonWriter::integer(long long number) {
    before_value();
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, number);
    out_.write(buffer, end - buffer);
    return *this;
}

JsonWriter &JsonWriter::null() {
    before_value();
    out_ << "null";
    return *this;
}

void JsonWriter::finish() {
    if (!stack_.empty() || after_key_) throw std::logic_error("JsonWriter: unfinished document");
    out_ << '\n';
}

void JsonWriter::write_string(std::string_view text) {
    static const char *hex = "0123456789abcdef";
    out_ << '"';
    for (unsigned char c : text) {
        switch (c) {
        case '"': out_ << "\\\""; break;
        case '\\': out_ << "\\\\"; break;
        case '\n': out_ << "\\n"; break;
        case '\t': out_ << "\\t"; break;
        case '\r': out_ << "\\r"; break;
        default:
            if (c < 0x20) out_ << "\\u00" << hex[c >> 4] << hex[c & 15];
            else out_ << char(c);
        }
    }
    out_ << '"';
}

} // namespace tessera::bench

namespace tessera::bench {

JsonOutput::JsonOutput(const std::string &path) : path_(path) {
    if (path_.empty() || path_ == "-") return;
    file_.open(path_);
    if (!file_) throw UsageError("--json: cannot write '" + path_ + "'");
}

std::ostream &JsonOutput::log() const { return path_ == "-" ? std::cerr : std::cout; }

bool JsonOutput::emit(const std::function<void(std::ostream &)> &write) {
    if (path_ == "-") {
        write(std::cout);
        return true;
    }
    if (path_.empty()) return true;
    write(file_);
    file_.close();
    if (!file_) {
        std::cerr << "tessera-bench: writing " << path_ << " failed\n";
        return false;
    }
    log() << "\nJSON written to " << path_ << '\n';
    return true;
}

} // namespace tessera::bench
