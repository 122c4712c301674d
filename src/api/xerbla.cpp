// Tessera's own weak xerbla_ and cblas_xerbla: they print what was wrong and return (they
// never end the process). A program that defines its own wins, as with reference BLAS.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "api/blas_errors.hpp"
#include "core/error.hpp"

extern "C" {

// Reference CBLAS's two globals: its routines set them around each call and the reference test
// programs' cblas_xerbla reads them, so a complete CBLAS exports them (Tessera's doors leave
// them at 0, the value reference CBLAS restores after every call).
__attribute__((visibility("default"))) int RowMajorStrg = 0;
__attribute__((visibility("default"))) int CBLAS_CallFromC = 0;

__attribute__((weak, visibility("default"))) void xerbla_(const char *srname, const int *info,
                                                          size_t srname_len) {
    size_t len = srname ? strnlen(srname, srname_len) : 0;
    while (len > 0 && srname[len - 1] == ' ') --len;
    std::fprintf(stderr,
                 "tessera: ** On entry to %.*s parameter number %d had an illegal value "
                 "(the call did nothing)\n",
                 int(len), srname ? srname : "", info ? *info : 0);
}

__attribute__((weak, visibility("default"))) void cblas_xerbla(int info, const char *rout,
                                                               const char *form, ...) {
    std::fprintf(stderr, "tessera: parameter %d to routine %s was incorrect (the call did nothing)",
                 info, rout ? rout : "?");
    if (form && *form) {
        std::fputs(": ", stderr);
        va_list ap;
        va_start(ap, form);
        std::vfprintf(stderr, form, ap);
        va_end(ap);
        if (form[std::strlen(form) - 1] != '\n') std::fputc('\n', stderr);
    } else {
        std::fputc('\n', stderr);
    }
}

} // extern "C"

namespace tessera::api {

void report_blas_failure(const char *routine) {
    std::fprintf(stderr, "tessera: %s failed: %s\n", routine, core::last_error());
}

} // namespace tessera::api
