// Matrix Market coordinate files: the banner, comments, the size line and one entry per line,
// read with strtoll/strtod over the whole file in memory; every fault names its line.
#include "matrix_market.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string_view>

namespace tessera::bench {

namespace {

std::string lower(std::string s) {
    for (char &c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

class Lines {
public:
    explicit Lines(const std::string &text) : text_(text) {}
    // The next line (without its end), or false at the end of the text.
    bool next(std::string_view &line) {
        if (pos_ >= text_.size()) return false;
        size_t end = text_.find('\n', pos_);
        if (end == std::string::npos) end = text_.size();
        line = std::string_view(text_).substr(pos_, end - pos_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = end + 1;
        ++number_;
        return true;
    }
    int64_t number() const { return number_; }
    size_t left() const {
        return pos_ < text_.size() ? text_.size() - pos_ : 0;
    } // bytes not read yet

private:
    const std::string &text_;
    size_t pos_ = 0;
    int64_t number_ = 0;
};

bool blank(std::string_view line) {
    for (char c : line)
        if (!std::isspace(static_cast<unsigned char>(c))) return false;
    return true;
}

} // namespace

CooMatrix parse_matrix_market(const std::string &text, const std::string &name) {
    Lines lines(text);
    std::string_view line;
    auto fault = [&](const std::string &what) {
        return MatrixMarketError(name + ":" + std::to_string(lines.number()) + ": " + what);
    };

    if (!lines.next(line)) throw fault("empty file");
    std::istringstream banner{std::string(line)};
    std::string magic, object, format, field, symmetry;
    banner >> magic >> object >> format >> field >> symmetry;
    if (magic != "%%MatrixMarket")
        throw fault("not a Matrix Market file (no %%MatrixMarket banner)");
    object = lower(object);
    format = lower(format);
    field = lower(field);
    symmetry = lower(symmetry);
    if (object != "matrix") throw fault("object '" + object + "' is not 'matrix'");
    if (format != "coordinate")
        throw fault("format '" + format + "' is not supported (only 'coordinate')");
    if (field != "real" && field != "integer" && field != "pattern")
        throw fault("field '" + field + "' is not supported (real, integer or pattern)");
    if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
        throw fault("symmetry '" + symmetry +
                    "' is not supported (general, symmetric or skew-symmetric)");

    CooMatrix m;
    m.field = field;
    m.symmetry = symmetry;
    do {
        if (!lines.next(line)) throw fault("no size line");
    } while (blank(line) || line.front() == '%');
    {
        std::string size_line(line);
        char *p = size_line.data(), *end = nullptr;
        long long v[3];
        for (long long &x : v) {
            errno = 0;
            x = std::strtoll(p, &end, 10);
            if (end == p || errno)
                throw fault("the size line needs rows, cols and the number of entries");
            p = end;
        }
        if (!blank(p)) throw fault("unexpected text after the size line");
        if (v[0] < 0 || v[1] < 0 || v[2] < 0) throw fault("negative size");
        m.rows = v[0];
        m.cols = v[1];
        m.stored = v[2];
    }
    const bool mirrored = symmetry != "general";
    if (mirrored && m.rows != m.cols) throw fault("a " + symmetry + " matrix must be square");
    // Every entry takes at least four bytes ("1 1" and its line end): a count the rest of the
    // file cannot hold is refused before anything is reserved for it.
    if (m.stored > int64_t(lines.left() / 4) + 1)
        throw fault("announces " + std::to_string(m.stored) + " entries, but only " +
                    std::to_string(lines.left()) + " bytes follow");
    const bool pattern = field == "pattern";
    const double mirror_sign = symmetry == "skew-symmetric" ? -1.0 : 1.0;
    m.row.reserve(size_t(mirrored ? 2 * m.stored : m.stored));
    m.col.reserve(m.row.capacity());
    m.val.reserve(m.row.capacity());

    std::string buffer;
    int64_t seen = 0;
    while (lines.next(line)) {
        if (blank(line) || line.front() == '%') continue;
        if (seen == m.stored)
            throw fault("more entries than the " + std::to_string(m.stored) + " announced");
        buffer.assign(line);
        char *p = buffer.data(), *end = nullptr;
        errno = 0;
        long long i = std::strtoll(p, &end, 10);
        if (end == p) throw fault("expected a row index");
        p = end;
        long long j = std::strtoll(p, &end, 10);
        if (end == p) throw fault("expected a column index");
        if (errno == ERANGE) throw fault("index out of range");
        p = end;
        double v = 1.0;
        if (!pattern) {
            v = std::strtod(p, &end);
            if (end == p) throw fault("expected a value");
            p = end;
        }
        if (!blank(p)) throw fault("unexpected text after the entry");
        if (i < 1 || i > m.rows || j < 1 || j > m.cols)
            throw fault("entry (" + std::to_string(i) + ", " + std::to_string(j) +
                        ") is outside the " + std::to_string(m.rows) + " x " +
                        std::to_string(m.cols) + " matrix");
        m.row.push_back(i - 1);
        m.col.push_back(j - 1);
        m.val.push_back(v);
        if (mirrored && i != j) {
            m.row.push_back(j - 1);
            m.col.push_back(i - 1);
            m.val.push_back(mirror_sign * v);
        }
        ++seen;
    }
    if (seen != m.stored)
        throw fault("only " + std::to_string(seen) + " of the " + std::to_string(m.stored) +
                    " entries announced");
    return m;
}

CooMatrix read_matrix_market(const std::string &path) {
    // Only a regular file has an end to read to (/dev/zero or a pipe would be read until
    // memory ran out), and its size says how much to read.
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw MatrixMarketError(path + ": cannot open");
    if (!S_ISREG(st.st_mode)) throw MatrixMarketError(path + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw MatrixMarketError(path + ": cannot open");
    try {
        std::string text(size_t(st.st_size), '\0');
        in.read(text.data(), std::streamsize(text.size()));
        if (in.bad() || size_t(in.gcount()) != text.size())
            throw MatrixMarketError(path + ": read error");
        return parse_matrix_market(text, path);
    } catch (const std::bad_alloc &) {
        throw MatrixMarketError(path + ": out of memory reading a file of " +
                                std::to_string(st.st_size) + " bytes");
    }
}

} // namespace tessera::bench
