// Whether the CUDA backend can run in this process, asked once through the public API.
#include "cuda_support.hpp"

namespace tessera::test {

std::string cuda_unavailable() {
    static const std::string why = [] {
        int available = 0;
        if (tsr_backend_available(TSR_BACKEND_CUDA, &available) != TSR_SUCCESS)
            return std::string("query failed");
        return available ? std::string() : std::string(tsr_last_error());
    }();
    return why;
}

} // namespace tessera::test
