// A plain-text table printed row by row (see table.hpp); cells wider than their column
// push the rest of the row to the right rather than being cut.
#include "table.hpp"

#include <cmath>
#include <cstdio>

namespace tessera::bench {

Table::Table(std::ostream &out, std::vector<Column> columns)
    : out_(out), columns_(std::move(columns)) {}

void Table::rule() {
    std::size_t width = 0;
    for (const auto &c : columns_) width += std::size_t(c.width) + 2;
    out_ << std::string(width > 2 ? width - 2 : 0, '-') << '\n';
}

void Table::header() {
    std::vector<std::string> titles;
    for (const auto &c : columns_) titles.push_back(c.title);
    row(titles);
    rule();
    out_.flush();
}

void Table::row(const std::vector<std::string> &cells) {
    std::string line;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        const std::string cell = i < cells.size() ? cells[i] : std::string();
        std::size_t width = std::size_t(columns_[i].width);
        std::string pad(cell.size() < width ? width - cell.size() : 0, ' ');
        line += columns_[i].left ? cell + pad : pad + cell;
        if (i + 1 < columns_.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out_ << line << std::endl;
}

void Table::note(const std::string &text) { out_ << text << std::endl; }

std::string significant(double value) {
    char buffer[64];
    double magnitude = std::fabs(value);
    if (magnitude >= 100 || !std::isfinite(value))
        std::snprintf(buffer, sizeof buffer, "%.0f", value);
    else if (magnitude >= 10) std::snprintf(buffer, sizeof buffer, "%.1f", value);
    else if (magnitude >= 1) std::snprintf(buffer, sizeof buffer, "%.2f", value);
    else std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

std::string scientific(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*e", digits, value);
    return buffer;
}

} // namespace tessera::bench
