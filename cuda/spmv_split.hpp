// How the balanced sparse kernels share out a matrix, computed on the host once per matrix:
// the merge-path start of every CSR block, COO's blocks of entries, and the rows whose
// entries cross from one block into the next (their pieces are added by a fix-up kernel).
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::cuda {

// Each block of the balanced kernels (CSR merge path, COO) has kBalancedThreads threads and
// takes kBalancedItems items: rows + nonzeros on CSR's merge path, nonzeros in COO.
inline constexpr int kBalancedThreads = 256;
inline constexpr int kBalancedItemsPerThread = 8;
inline constexpr int kBalancedItems = kBalancedThreads * kBalancedItemsPerThread;
inline constexpr int kBalancedMinBlocks = 5; // resident per multiprocessor: at most 51 registers

// A merge path of at most this many crossing rows, none over more than this many blocks, runs
// in one launch: the block that finishes last adds the crossing rows' pieces (a thread per row,
// one pass), where the fix-up kernel would cost a second launch, which decides the time of a
// small product (docs/formats.md, "GPU kernels").
inline constexpr int64_t kMergeOneLaunchCrossings = kBalancedThreads;
inline constexpr int64_t kMergeOneLaunchSpan = 32;

// A row whose entries lie in several blocks: blocks [first, last) leave its partial sums in
// their tail carries, block `last` (where the row ends) in its head carry; the fix-up kernel
// adds them in block order and writes y[row]. The kernels write y for every other row.
struct CrossingRow {
    int64_t row, first, last;
};

// CSR's merge path: the path walks the rows' ends and the nonzeros; block b starts at the
// point (start_row[b], start_nz[b]) of diagonal b·kBalancedItems (rows ended before it,
// nonzeros consumed before it). start_row and start_nz have blocks + 1 entries.
template <typename I> struct MergeSplit {
    std::vector<I> start_row, start_nz;
    std::vector<CrossingRow> crossing;
    int64_t blocks() const { return int64_t(start_row.size()) - 1; }
};
template <typename I> MergeSplit<I> merge_split(int64_t rows, int64_t nnz, const I *row_ptr);

// The most blocks one crossing row spans (0 without crossing rows).
inline int64_t crossing_span(const std::vector<CrossingRow> &crossing) {
    int64_t span = 0;
    for (const CrossingRow &r : crossing) span = r.last - r.first > span ? r.last - r.first : span;
    return span;
}
inline bool merge_in_one_launch(int64_t crossings, int64_t span) {
    return crossings <= kMergeOneLaunchCrossings && span <= kMergeOneLaunchSpan;
}
inline bool merge_in_one_launch(const std::vector<CrossingRow> &crossing) {
    return merge_in_one_launch(int64_t(crossing.size()), crossing_span(crossing));
}

// COO (sorted by row): block b takes entries [b·kBalancedItems, (b+1)·kBalancedItems). Rows
// without entries are listed when asked for (the product sets y = beta·y there).
template <typename I> struct CooSplit {
    int64_t blocks = 0;
    std::vector<CrossingRow> crossing;
    std::vector<I> empty_rows;
};
template <typename I>
CooSplit<I> coo_split(int64_t rows, int64_t nnz, const I *row, bool list_empty_rows);

} // namespace tessera::cuda
