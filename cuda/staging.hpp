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
// (nullptr: the state's stream) and waits.
tsr_status download(State &s, void *dst, const void *src, int64_t rows, int64_t cols, int64_t ld,
                    int64_t elem, Memory kind, cudaStream_t stream = nullptr);

// The same for a vector of `bytes` bytes (x and y of sparse products), in chunks of 8 MiB.
tsr_status upload_bytes(State &s, void *dst, const void *src, int64_t bytes, Memory kind);
tsr_status download_bytes(State &s, void *dst, const void *src, int64_t bytes, Memory kind);

} // namespace tessera::cuda
