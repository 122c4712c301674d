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
//   row s NT 777 1555 999 aligned 4:1 9:1.10          (the same shape, aligned operands)
// A row lists the candidates within kListedRatio of its best; the others count as that much.
// "aligned" marks a shape measured with A, B and C 16-byte aligned and leading dimensions of
// whole 16-byte vectors (the plugin's vector-load test); rows without it were measured with
// leading dimensions padded at random, nearly all unaligned.
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
    bool aligned = false;                       // measured with aligned operands
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

// The lookup: up to kTuningNeighbours training shapes within kTuningReach of the product (the
// distance between ln m, ln n and ln k, plus kTuningTransposePenalty per transpose that
// differs), weighted by 1 / (kTuningWeightFloor + distance). Chosen by leave-one-out over the
// training shapes (each shape looked up without its rows, its best candidate's time over the
// pick's; `tessera-bench tune` reports it, docs/journal/2026-11-cuda-gemm.md the choice).
// Products beyond the training shapes (a side more than kTuningBeyond times outside their
// range, or m·n·k more than kTuningBeyond² times their largest) are left to the rules. A row
// whose alignment differs from the product's is kTuningAlignPenalty further away (the tuner
// reports leave-one-out for several values).
inline constexpr int kTuningNeighbours = 8;
inline constexpr double kTuningReach = 3.0, kTuningTransposePenalty = 0.35,
                        kTuningWeightFloor = 0.3, kTuningBeyond = 2.0, kTuningAlignPenalty = 1.0;

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
// The table made ready for lookups: each precision's rows with their logarithms, their
// ranges, and a dense matrix of every candidate's log ratio (unlisted: log kListedRatio), so
// that a lookup costs one pass over the rows and one over the neighbours' candidates. Built
// once per table; a lookup on it reads it only (safe from several threads).
class TuningIndex {
public:
    TuningIndex() = default;
    explicit TuningIndex(const TuningTable &table);
    // exclude_row: a row (the table's index) left out, for leave-one-out checks; -1 none.
    TuningPick lookup(char precision, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                      bool aligned, int exclude_row = -1) const;
    // Whether the precision has rows measured on aligned operands (older tables have none).
    bool has_aligned(char precision) const { return (precision == 's' ? s_ : d_).aligned_rows > 0; }
    // The alignment penalty, kTuningAlignPenalty unless set (the tuner's report tries others).
    void set_align_penalty(double p) { align_penalty_ = p; }

private:
    struct Side {
        std::vector<int> row;               // the table's row index
        std::vector<double> lm, ln, lk;     // log m, log n, log k of each row
        std::vector<unsigned char> ta, tb;  // each row's transposes
        std::vector<unsigned char> aligned; // each row's alignment
        int aligned_rows = 0;
        std::vector<int> candidate;        // the table's candidate index, this precision's
        std::vector<double> log_ratio;     // row-major: rows x candidates
        std::vector<unsigned char> listed; // the same shape: listed in the row
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, volume = 0;
    } s_, d_;
    double align_penalty_ = kTuningAlignPenalty;
};

// The same lookup on a table as it is (an index built for the one call: for tests and the
// tuner, not for every product).
TuningPick tuning_lookup(const TuningTable &table, char precision, bool ta, bool tb, int64_t m,
                         int64_t n, int64_t k, bool aligned = false, int exclude_row = -1);

// The tables built into the plugin (cuda/tuning/*.tsv, as text; builtin_tuning.cpp, generated).
extern const char *const kBuiltinTuning[];
extern const int kBuiltinTuningCount;

} // namespace tessera::cuda
