// The CUDA gemm's tuning table: for each training shape (precision, transposes, m, n, k) the
// measured time of every candidate kernel setting (tile, split-K slices, stream-K) over the
// best one's, as `tessera-bench tune` writes it. A product takes the setting that is best over
// its nearest training shapes (log m, log n, log k); beyond the table's reach the rules of
// kernels.cu decide. Plain C++, no CUDA: the bench reads the same tables.
//
// The text format, one item per line, '#' starting a comment:
//   tessera-cuda-tuning 1
//   device sm=132 cc=9.0 NVIDIA H100 80GB HBM3        (the device it was measured on)
//   candidate s 256x128/1/off                         (kernel/split-K slices/stream-K)
//   row s NT 777 1555 999 4:1 7:1.042 2:1.31          (candidate index:time over the best)
// A row lists the candidates within kListedRatio of its best; the others count as that much.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cuda {

struct TuningCandidate {
    char precision = 's';     // 's' or 'd'
    std::string kernel;       // as TESSERA_CUDA_SGEMM / TESSERA_CUDA_DGEMM spell it
    int split_k = 1;          // slices of k, 1: none
    int stream_k = 0;         // 0 off, 1 last (the partial wave), 2 on (as TESSERA_CUDA_STREAMK)
    std::string text() const; // "256x128/1/off"
};

struct TuningRow {
    char precision = 's';
    bool ta = false, tb = false;
    int64_t m = 0, n = 0, k = 0;
    std::vector<std::pair<int, double>> ratios; // candidate index, its time over the best
};

struct TuningTable {
    int sm_count = 0, cc_major = 0, cc_minor = 0;
    std::string device;
    std::vector<TuningCandidate> candidates;
    std::vector<TuningRow> rows;
};

// Candidates slower than this over a row's best are not listed, and count as this much.
inline constexpr double kListedRatio = 1.5;

// Parses a table; false with *error ("line 7: ...") on a malformed one, *out then unchanged.
bool parse_tuning(const std::string &text, TuningTable *out, std::string *error);
std::string format_tuning(const TuningTable &table);
// Parses "256x128/1/off" into *out (precision as given); false when malformed.
bool parse_candidate(const std::string &text, char precision, TuningCandidate *out);

// The table's pick for a product: the candidate index, or -1 when no training shape of that
// precision lies within reach (then the rules decide); `nearest` the closest row's index.
struct TuningPick {
    int candidate = -1;
    int nearest = -1;
    double distance = 0; // to the nearest row
};
// exclude_row: a row left out (leave-one-out checks of the table); -1 none.
TuningPick tuning_lookup(const TuningTable &table, char precision, bool ta, bool tb, int64_t m,
                         int64_t n, int64_t k, int exclude_row = -1);

// The tables built into the plugin (cuda/tuning/*.tsv, as text; builtin_tuning.cpp, generated).
extern const char *const kBuiltinTuning[];
extern const int kBuiltinTuningCount;

} // namespace tessera::cuda
