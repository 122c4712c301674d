// Two builds of libtessera side by side on the sparse products y = A·x of small Matrix Market
// files, in one process, with Eigen's product on the same CSR arrays: each build loaded on its
// own (dlopen, RTLD_LOCAL), the three timed in turns, batches of back-to-back calls, the median
// of 41 batches per side. How a change to the cost of a small product is judged on a machine
// whose speed moves between runs: the two builds and the anchor in the same seconds.
//
// Not part of the build:
//   g++ -O2 -march=native -I/usr/include/eigen3 bench/probes/spmv_ab.cpp -o spmv_ab -ldl
//   ./spmv_ab OLD/libtessera.so.0 NEW/libtessera.so.0 s|d|st|dt FILE.mtx ...
// (st, dt: y = Aᵀ·x; each build's first two transposed products are made before the timing.)
// The matrices are read as general, symmetric or skew-symmetric coordinate files (real,
// integer or pattern), duplicates summed; A is created in CSR through tsr_sparse_create_csr and
// optimized with TSR_FORMAT_AUTO by each build; the calls pass the default handle.
#include <Eigen/SparseCore>

#include "two_builds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

// tessera.h's entry points used, by their C signatures (its enums are ints).
using create_csr_fn = int (*)(void *, void **, int, int, int64_t, int64_t, int64_t, const void *,
                              const void *, const void *);
using optimize_fn = int (*)(void *, void *, int);
using destroy_fn = int (*)(void *);
template <typename T> using spmv_fn = int (*)(void *, int, T, void *, const T *, T, T *);
constexpr int kF32 = 0, kF64 = 1, kIndexI32 = 0, kOpN = 111, kOpT = 112, kFormatAuto = 0;

struct Csr {
    int64_t rows = 0, cols = 0;
    std::vector<int32_t> row_ptr, col;
    std::vector<double> val;
};

bool read_mtx(const char *path, Csr *m) {
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return false;
    const bool symmetric = line.find("symmetric") != std::string::npos;
    const bool skew = line.find("skew") != std::string::npos;
    const bool pattern = line.find("pattern") != std::string::npos;
    while (std::getline(in, line) && line[0] == '%') {
    }
    int64_t nnz = 0;
    std::istringstream(line) >> m->rows >> m->cols >> nnz;
    std::map<std::pair<int64_t, int64_t>, double> entries;
    for (int64_t e = 0; e < nnz && std::getline(in, line); ++e) {
        std::istringstream s(line);
        int64_t i = 0, j = 0;
        double v = 1;
        s >> i >> j;
        if (!pattern) s >> v;
        entries[{i - 1, j - 1}] += v;
        if ((symmetric || skew) && i != j) entries[{j - 1, i - 1}] += skew ? -v : v;
    }
    m->row_ptr.assign(size_t(m->rows) + 1, 0);
    for (const auto &[ij, v] : entries) {
        ++m->row_ptr[size_t(ij.first) + 1];
        m->col.push_back(int32_t(ij.second));
        m->val.push_back(v);
    }
    for (int64_t i = 0; i < m->rows; ++i) m->row_ptr[size_t(i) + 1] += m->row_ptr[size_t(i)];
    return m->rows > 0;
}

// The median over 41 batches of the time per call of f, each batch about 2 ms long; `sides`
// are timed in turns, batch by batch.
std::vector<double> medians(const std::vector<std::function<void()>> &sides) {
    std::vector<int64_t> calls(sides.size(), 1);
    for (size_t s = 0; s < sides.size(); ++s) // calls per batch: about 2 ms
        for (double t = 0; t < 2e-3; calls[s] *= 2) {
            const double t0 = probe::now();
            for (int64_t c = 0; c < calls[s]; ++c) sides[s]();
            t = probe::now() - t0;
        }
    std::vector<std::vector<double>> per(sides.size());
    for (int b = 0; b < 41; ++b)
        for (size_t s = 0; s < sides.size(); ++s) {
            const double t0 = probe::now();
            for (int64_t c = 0; c < calls[s]; ++c) sides[s]();
            per[s].push_back((probe::now() - t0) / double(calls[s]));
        }
    std::vector<double> out;
    for (auto &p : per) {
        std::nth_element(p.begin(), p.begin() + 20, p.end());
        out.push_back(p[20]);
    }
    return out;
}

template <typename T> void run(void *lib[2], const char *path, const Csr &m, bool trans) {
    std::vector<T> val(m.val.begin(), m.val.end());
    const int64_t in = trans ? m.rows : m.cols, out = trans ? m.cols : m.rows;
    std::vector<T> x(static_cast<size_t>(in)), y[3];
    for (size_t j = 0; j < x.size(); ++j) x[j] = T(1) + T(j % 13) / T(16);
    void *A[2] = {nullptr, nullptr};
    std::vector<std::function<void()>> sides;
    for (int b = 0; b < 2; ++b) {
        auto create = reinterpret_cast<create_csr_fn>(dlsym(lib[b], "tsr_sparse_create_csr"));
        auto optimize = reinterpret_cast<optimize_fn>(dlsym(lib[b], "tsr_sparse_optimize"));
        auto spmv =
            reinterpret_cast<spmv_fn<T>>(dlsym(lib[b], sizeof(T) == 4 ? "tsr_sspmv" : "tsr_dspmv"));
        if (!create || !optimize || !spmv ||
            create(nullptr, &A[b], sizeof(T) == 4 ? kF32 : kF64, kIndexI32, m.rows, m.cols,
                   int64_t(val.size()), m.row_ptr.data(), m.col.data(), val.data()) != 0 ||
            optimize(nullptr, A[b], kFormatAuto) != 0) {
            std::fprintf(stderr, "%s: the build cannot create the matrix\n", path);
            std::exit(1);
        }
        y[b].assign(size_t(out), T(0));
        sides.push_back([spmv, a = A[b], &x, yb = y[b].data(), op = trans ? kOpT : kOpN] {
            spmv(nullptr, op, T(1), a, x.data(), T(0), yb);
        });
    }
    Eigen::Map<const Eigen::SparseMatrix<T, Eigen::RowMajor, int32_t>> E(
        m.rows, m.cols, int64_t(val.size()), m.row_ptr.data(), m.col.data(), val.data());
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>> ex(x.data(), in);
    y[2].assign(size_t(out), T(0));
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> ey(y[2].data(), out);
    if (trans) sides.push_back([&] { ey.noalias() = E.transpose() * ex; });
    else sides.push_back([&] { ey.noalias() = E * ex; });
    for (auto &side : sides) side();
    for (auto &side : sides) side();
    for (size_t i = 0; i < y[2].size(); ++i) // the three must agree before they are timed
        for (int b = 0; b < 2; ++b)
            if (std::abs(double(y[b][i]) - double(y[2][i])) >
                1e-4 * (1 + std::abs(double(y[2][i])))) {
                std::fprintf(stderr, "%s: build %d differs from Eigen at row %zu\n", path, b, i);
                std::exit(1);
            }
    const std::vector<double> t = medians(sides);
    const char *name = std::strrchr(path, '/');
    std::printf("%-22s %c%c %7zu  %10.1f %10.1f %10.1f   %6.3f   %6.3f %6.3f\n",
                name ? name + 1 : path, sizeof(T) == 4 ? 's' : 'd', trans ? 'T' : 'N', val.size(),
                t[0] * 1e9, t[1] * 1e9, t[2] * 1e9, t[0] / t[1], t[2] / t[0], t[2] / t[1]);
    for (int b = 0; b < 2; ++b)
        reinterpret_cast<destroy_fn>(dlsym(lib[b], "tsr_sparse_destroy"))(A[b]);
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s OLD.so NEW.so s|d FILE.mtx ...\n", argv[0]);
        return 2;
    }
    void *lib[2] = {probe::open_build(argv[1]), probe::open_build(argv[2])};
    std::printf("%-22s %c %8s  %10s %10s %10s   %6s   %6s %6s\n", "matrix", 't', "nnz", "old ns",
                "new ns", "eigen ns", "new/old", "old", "new");
    std::printf("%-22s   %8s  %10s %10s %10s   %6s   %6s %6s\n", "", "", "", "", "", "speed-up",
                "vs eigen", "vs eigen");
    for (int f = 4; f < argc; ++f) {
        Csr m;
        if (!read_mtx(argv[f], &m)) {
            std::fprintf(stderr, "%s: not read\n", argv[f]);
            continue;
        }
        const bool trans = argv[3][1] == 't';
        if (argv[3][0] == 's') run<float>(lib, argv[f], m, trans);
        else run<double>(lib, argv[f], m, trans);
    }
    return 0;
}
