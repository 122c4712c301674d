// Moving host operands to and from the device pool through the pinned ring: column chunks
// are copied on the host into one pinned half while the other half is in flight.
#pragma once

#include <cstdint>

#include "state.hpp"

namespace tessera::cuda {

enum class Memory { device, pinned_host, pageable_host };

// Where `ptr` lives, as cudaPointerGetAttributes says (managed memory counts as device); with
// `device`, also the device whose memory holds it (-1: host or managed memory).
Memory classify(const void *ptr, int *device = nullptr);

// Copies rows×cols (column-major, leading dimension ld) from host `src` to the device matrix
// `dst` (leading dimension dst_ld, 0: packed, rows) on `stream` (nullptr: the state's stream).
tsr_status upload(State &s, void *dst, const void *src, int64_t rows, int64_t cols, int64_t ld,
                  int64_t elem, Memory kind, cudaStream_t stream = nullptr, int64_t dst_ld = 0);
// Copies the packed device matrix `src` back to host `dst` (leading dimension ld) on `stream`
// (nullptr: the state's stream) and waits. With `beta` (pageable `dst` only, elem 4 or 8: float
// or double), dst = src + beta·dst instead: a product whose C is pageable computes with beta 0
// on the device and applies beta here, so that C never goes up (beta_on_host).
tsr_status download(State &s, void *dst, const void *src, int64_t rows, int64_t cols, int64_t ld,
                    int64_t elem, Memory kind, cudaStream_t stream = nullptr,
                    const double *beta = nullptr);

// Whether a product applies its beta to C on the host as C comes back (download's `beta`): C in
// pageable memory and read. Its copy up through the pinned ring would cost the host as much as
// its copy back, which reads C's lines before it writes them in any case.
inline bool beta_on_host(Memory kc, bool read_c) { return kc == Memory::pageable_host && read_c; }

// The same for a vector of `bytes` bytes (x and y of sparse products), in chunks of 8 MiB.
tsr_status upload_bytes(State &s, void *dst, const void *src, int64_t bytes, Memory kind);
tsr_status download_bytes(State &s, void *dst, const void *src, int64_t bytes, Memory kind);

} // namespace tessera::cuda
