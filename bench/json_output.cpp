// JSON documents and where they go (see json_output.hpp). nlohmann's serializer prints
// doubles with the shortest round-trip digits, independent of the locale.
#include "json_output.hpp"

#include <cmath>
#include <iostream>

#include "args.hpp"

namespace tessera::bench {

Json json_number(const std::optional<double> &value) {
    if (!value || !std::isfinite(*value)) return nullptr;
    return *value;
}

Json json_text(const char *text) { return text ? Json(text) : Json(nullptr); }

void write_json_document(std::ostream &out, const Json &document) {
    out << document.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

JsonOutput::JsonOutput(const std::string &path) : path_(path) {
    if (path_.empty() || path_ == "-") return;
    file_.open(path_);
    if (!file_) throw UsageError("--json: cannot write '" + path_ + "'");
}

std::ostream &JsonOutput::log() const { return path_ == "-" ? std::cerr : std::cout; }

bool JsonOutput::emit(const Json &document) {
    if (path_ == "-") {
        write_json_document(std::cout, document);
        std::cout.flush();
        return true;
    }
    if (path_.empty()) return true;
    write_json_document(file_, document);
    file_.close();
    if (!file_) {
        std::cerr << "tessera-bench: writing " << path_ << " failed\n";
        return false;
    }
    log() << "\nJSON written to " << path_ << '\n';
    return true;
}

} // namespace tessera::bench
