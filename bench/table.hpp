// A plain-text table printed row by row as results arrive: fixed-width columns, a header
// and a rule, and the number formats the reports use.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessera::bench {

struct Column {
    std::string title;
    int width = 10;
    bool left = false; // left-aligned (text) or right-aligned (numbers)
};

class Table {
public:
    Table(std::ostream &out, std::vector<Column> columns);
    void header();
    void row(const std::vector<std::string> &cells); // flushed at once
    void note(const std::string &text);              // a line of its own, flushed

private:
    void rule();
    std::ostream &out_;
    std::vector<Column> columns_;
};

// Three significant digits without an exponent: 1234, 234, 48.4, 2.60, 0.0123.
std::string significant(double value);
std::string scientific(double value, int digits); // e.g. 3.1e-07; NaN prints as nan

} // namespace tessera::bench
