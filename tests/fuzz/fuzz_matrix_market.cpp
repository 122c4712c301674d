// libFuzzer harness for the bench's Matrix Market reader: any bytes may be refused with an
// exception, but never crash, leak or ask for memory the text could not describe.
#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_support.hpp"
#include "matrix_market.hpp"

extern "C" const char *__ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

namespace tessera::fuzz {
namespace {

// What a matrix the reader accepted must satisfy: 0-based entries inside the matrix, the
// counts of the file, ones for pattern files, mirrored entries for symmetric ones.
void check(const bench::CooMatrix &m) {
    if (m.rows < 0 || m.cols < 0 || m.stored < 0)
        broken("negative sizes %lld x %lld", (long long)m.rows, (long long)m.cols);
    const size_t n = m.val.size();
    if (m.row.size() != n || m.col.size() != n)
        broken("arrays of %zu, %zu and %zu entries", m.row.size(), m.col.size(), n);
    const bool general = m.symmetry == "general";
    if (general ? m.nnz() != m.stored : (m.nnz() < m.stored || m.nnz() > 2 * m.stored))
        broken("%lld entries from %lld stored (%s)", (long long)m.nnz(), (long long)m.stored,
               m.symmetry.c_str());
    if (!general && m.rows != m.cols)
        broken("a %s matrix of %lld x %lld", m.symmetry.c_str(), (long long)m.rows,
               (long long)m.cols);
    for (size_t e = 0; e < n; ++e) {
        if (m.row[e] < 0 || m.row[e] >= m.rows || m.col[e] < 0 || m.col[e] >= m.cols)
            broken("entry (%lld, %lld) outside %lld x %lld", (long long)m.row[e],
                   (long long)m.col[e], (long long)m.rows, (long long)m.cols);
        if (m.field == "pattern" && m.val[e] != 1.0 && m.val[e] != -1.0)
            broken("pattern value %g", m.val[e]);
    }
}

} // namespace
} // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        tessera::fuzz::check(tessera::bench::parse_matrix_market(text, "fuzz.mtx"));
    } catch (const std::exception &) {
        // A refusal, however worded, is a correct answer to bad bytes.
    }
    return 0;
}
