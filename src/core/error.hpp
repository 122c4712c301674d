// Error reporting inside the library: the thread-local detail message behind tsr_last_error()
// and a guard that turns C++ exceptions into status codes at the C boundary.
#pragma once

#include <new>
#include <string>

#include "tessera/tessera.h"

namespace tessera::core {

// Records a printf-style detail message for this thread and returns `status`.
[[gnu::format(printf, 2, 3)]] tsr_status fail(tsr_status status, const char *fmt, ...);

// The calling thread's last recorded message ("" when none).
const char *last_error();

// Runs `body` (which returns tsr_status) so that no exception crosses the C boundary.
template <typename Body> tsr_status guarded(const char *where, Body &&body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return fail(TSR_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    } catch (const std::exception &e) {
        return fail(TSR_ERR_INTERNAL, "%s: internal error: %s", where, e.what());
    } catch (...) {
        return fail(TSR_ERR_INTERNAL, "%s: internal error", where);
    }
}

} // namespace tessera::core
