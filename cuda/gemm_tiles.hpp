// The SGEMM SIMT tile configurations, one row each: the only place a tile is described. Its name
// (TESSERA_CUDA_SGEMM, tuning tables), its kernel's name in the call log, its template arguments
// (simt_gemm.cuh), the tile the rules and split-K plan with, and — for the row with a stream-K
// form — the stream-K launch and sum all derive from the row. Each row's kernels are built in a
// compilation unit of their own (simt_sgemm_tile.cu.in). Plain C++: host code reads it too.
#pragma once

#include <string_view>

namespace tessera::cuda {

struct SimtTile {
    const char *name;   // as TESSERA_CUDA_SGEMM spells it
    const char *kernel; // in the call log
    // simt_gemm_kernel's template arguments: the block tile, its k step, the warps, each
    // thread's groups of 4×4 (GM×GN), the pipeline's stages, and the blocks per multiprocessor
    // the register budget is cut for (__launch_bounds__).
    int bm, bn, bk, warps_m, warps_n, gm, gn, stages, min_blocks;
    // Blocks a multiprocessor holds at once (from ptxas's registers and the shared memory), for
    // the rules' and split-K's count of the device's places.
    int resident;
    bool stream_k; // instantiated for stream-K too (at most one row)
};

// The 8×16 register tiles (128 accumulators) take 8-deep k steps: with 16 the compiler's hoisted
// shared-memory reads and the copies' addresses no longer fit 255 registers. The panel tiles
// 64x256 and 256x64 have 8 warps of 64x32 (8x8 per thread, one block per SM): with 4 warps of
// 64x64 each thread's share of the copies' addresses spilled. 128x32 and 32x128 (4 warps, 8×4
// or 4×8 per thread, several blocks per SM) are for products with a side of 32 or fewer, where a
// 64-wide tile leaves half of its FMAs unused or more.
inline constexpr SimtTile kSgemmTiles[] = {
    // name, kernel, bm, bn, bk, warps_m, warps_n, gm, gn, stages, min_blocks, resident, stream_k
    {"128x128", "simt-f32-128x128", 128, 128, 16, 2, 4, 2, 2, 4, 2, 1, false},
    {"128x128r1", "simt-f32-128x128r1", 128, 128, 16, 2, 4, 2, 2, 4, 1, 1, false},
    {"128x256", "simt-f32-128x256", 128, 256, 8, 2, 4, 2, 4, 5, 1, 1, false},
    {"256x128", "simt-f32-256x128", 256, 128, 8, 4, 2, 2, 4, 5, 1, 1, true},
    {"128x128w4", "simt-f32-128x128w4", 128, 128, 8, 2, 2, 2, 4, 5, 2, 2, false},
    {"64x64", "simt-f32-64x64", 64, 64, 16, 2, 2, 1, 2, 4, 1, 2, false},
    {"64x256", "simt-f32-64x256", 64, 256, 16, 1, 8, 2, 2, 4, 1, 1, false},
    {"256x64", "simt-f32-256x64", 256, 64, 16, 4, 2, 2, 2, 4, 1, 1, false},
    {"128x32", "simt-f32-128x32", 128, 32, 16, 2, 2, 2, 1, 4, 3, 3, false},
    {"32x128", "simt-f32-32x128", 32, 128, 16, 1, 4, 1, 2, 4, 3, 3, false},
};
inline constexpr int kSgemmTileCount = int(sizeof(kSgemmTiles) / sizeof(kSgemmTiles[0]));

// A row's index by name; -1 for none.
constexpr int sgemm_tile_index(std::string_view name) {
    for (int i = 0; i < kSgemmTileCount; ++i)
        if (name == kSgemmTiles[i].name) return i;
    return -1;
}

// The row with a stream-K form.
constexpr int sgemm_stream_k_tile() {
    int found = -1;
    for (int i = 0; i < kSgemmTileCount; ++i)
        if (kSgemmTiles[i].stream_k) found = found < 0 ? i : -2;
    return found;
}
static_assert(sgemm_stream_k_tile() >= 0, "exactly one SGEMM tile has a stream-K form");

} // namespace tessera::cuda
