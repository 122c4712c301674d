// JSON documents as nlohmann::ordered_json (members in the order they are set), written with
// full precision; JsonOutput: where --json sends the document.
#pragma once

#include <fstream>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace tessera::bench {

// Members keep the order they were added in, so that a document reads as the table does.
using Json = nlohmann::ordered_json;

// A number, or null when absent or not finite.
Json json_number(const std::optional<double> &value);
// A string, or null for a null pointer.
Json json_text(const char *text);

// The document, indented by two spaces, and a final newline. Numbers are the shortest text
// that reads back the same double; NaN and infinities are null; bytes that are not UTF-8
// become U+FFFD instead of failing the run at its end.
void write_json_document(std::ostream &out, const Json &document);

// Where --json sends the document: nowhere (""), standard output ("-"), or a file opened on
// construction, so that a path that cannot be written fails (UsageError) before a long run.
// The human-readable report goes to log(): standard error when the JSON takes standard output.
class JsonOutput {
public:
    explicit JsonOutput(const std::string &path);
    std::ostream &log() const;
    bool wanted() const { return !path_.empty(); }
    // Writes the document where it was asked for; false, after a message on standard error,
    // when the file could not be written.
    bool emit(const Json &document);

private:
    std::string path_;
    std::ofstream file_;
};

} // namespace tessera::bench
