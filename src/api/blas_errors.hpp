// The error routines the BLAS doors call through the dynamic symbol table, so a program's own
// xerbla_ / cblas_xerbla wins over Tessera's weak defaults.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
void xerbla_(const char *srname, const int *info, size_t srname_len);
void cblas_xerbla(int info, const char *rout, const char *form, ...);
}

namespace tessera::api {

// Calls xerbla_ with a 6-character routine name. `info` is stored as a 64-bit integer whose
// first 4 bytes are also the 32-bit value (little-endian), so an LP64 XERBLA and an ILP64
// one both read it right.
inline void report_xerbla(const char *name6, int info) {
    int64_t wide = info;
    xerbla_(name6, reinterpret_cast<const int *>(&wide), 6);
}

// A failure after the checks passed (out of memory, device error) has no BLAS error code:
// it is printed with tsr_last_error()'s text.
void report_blas_failure(const char *routine);

} // namespace tessera::api
