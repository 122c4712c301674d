// The thread-local error message of tsr_last_error(): written by core::fail on every
// failing path, read back by the caller on the same thread.
#include "core/error.hpp"

#include <cstdarg>
#include <cstdio>

namespace tessera::core {

namespace {
thread_local char t_message[512] = "";
}

tsr_status fail(tsr_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_message, sizeof t_message, fmt, ap);
    va_end(ap);
    return status;
}

const char *last_error() { return t_message; }

} // namespace tessera::core
