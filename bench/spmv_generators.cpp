// The matrix generators: each builds CSR row by row with sorted distinct columns and random
// values in ±[0.1, 1] (never zero), from a seeded 64-bit Mersenne Twister.
#include "spmv_generators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace tessera::bench {

namespace {

struct Builder {
    CsrMatrix m;
    std::mt19937_64 rng;
    Builder(std::string name, int64_t rows, int64_t cols, uint64_t seed) : rng(seed) {
        m.name = std::move(name);
        m.rows = rows;
        m.cols = cols;
        m.row_ptr.reserve(size_t(rows) + 1);
    }
    double value() {
        std::uniform_real_distribution<double> mag(0.1, 1.0);
        double v = mag(rng);
        return (rng() & 1) ? v : -v;
    }
    void add(int64_t j, double v) {
        m.col.push_back(j);
        m.val.push_back(v);
    }
    void end_row() { m.row_ptr.push_back(int64_t(m.col.size())); }
    // k distinct random columns, sorted, with random values.
    void random_row(int64_t k, std::vector<int64_t> &scratch) {
        k = std::min(k, m.cols);
        scratch.clear();
        if (k * 2 > m.cols) { // dense-ish: take each column with probability k / cols
            std::bernoulli_distribution take(double(k) / double(m.cols));
            for (int64_t j = 0; j < m.cols; ++j)
                if (take(rng)) scratch.push_back(j);
        } else {
            std::uniform_int_distribution<int64_t> pick(0, m.cols - 1);
            while (int64_t(scratch.size()) < k) {
                while (int64_t(scratch.size()) < k) scratch.push_back(pick(rng));
                std::sort(scratch.begin(), scratch.end());
                scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
            }
        }
        for (int64_t j : scratch) add(j, value());
        end_row();
    }
};

// The xmin (>= 1) of a Pareto law P(X >= x) = (xmin / x)^alpha whose lengths min(floor(X), cap)
// have the given mean: E = sum over k = 1..cap of P(X >= k), increasing in xmin; bisection.
double capped_pareto_xmin(double mean, double alpha, int64_t cap) {
    auto expected = [&](double xmin) {
        double e = 0;
        for (int64_t k = 1; k <= cap; ++k) e += std::min(1.0, std::pow(xmin / double(k), alpha));
        return e;
    };
    double lo = 1.0, hi = std::max(1.0, mean);
    if (expected(lo) >= mean) return lo;
    for (int it = 0; it < 60 && hi - lo > 1e-9 * hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        (expected(mid) < mean ? lo : hi) = mid;
    }
    return hi;
}

} // namespace

CsrMatrix laplacian_2d(int64_t n) {
    Builder b("laplacian2d-" + std::to_string(n), n * n, n * n, 0);
    b.m.col.reserve(size_t(5 * n * n));
    b.m.val.reserve(size_t(5 * n * n));
    for (int64_t gy = 0; gy < n; ++gy)
        for (int64_t gx = 0; gx < n; ++gx) {
            const int64_t i = gy * n + gx;
            if (gy > 0) b.add(i - n, -1.0);
            if (gx > 0) b.add(i - 1, -1.0);
            b.add(i, 4.0);
            if (gx + 1 < n) b.add(i + 1, -1.0);
            if (gy + 1 < n) b.add(i + n, -1.0);
            b.end_row();
        }
    return std::move(b.m);
}

CsrMatrix tridiagonal(int64_t n, uint64_t seed) {
    Builder b("tridiagonal-" + std::to_string(n), n, n, seed);
    b.m.col.reserve(size_t(3 * n));
    b.m.val.reserve(size_t(3 * n));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = std::max<int64_t>(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
            b.add(j, b.value());
        b.end_row();
    }
    return std::move(b.m);
}

CsrMatrix random_k_per_row(int64_t rows, int64_t cols, int64_t k, uint64_t seed) {
    Builder b("random-" + std::to_string(rows) + "x" + std::to_string(cols) + "-k" +
                  std::to_string(k),
              rows, cols, seed);
    b.m.col.reserve(size_t(rows * std::min(k, cols)));
    b.m.val.reserve(b.m.col.capacity());
    std::vector<int64_t> scratch;
    for (int64_t i = 0; i < rows; ++i) b.random_row(k, scratch);
    return std::move(b.m);
}

CsrMatrix power_law(int64_t rows, int64_t cols, double mean, uint64_t seed, int64_t max_len) {
    Builder b("powerlaw-" + std::to_string(rows) + "x" + std::to_string(cols) + "-m" +
                  std::to_string(int64_t(mean)) +
                  (max_len > 0 ? "-max" + std::to_string(max_len) : ""),
              rows, cols, seed);
    const int64_t cap = max_len > 0 ? std::min(cols, max_len) : cols;
    // Pareto with exponent a (density ~ x^-a) has mean xmin·(a-1)/(a-2). With a cap, xmin is
    // raised so that the mean of the capped whole lengths is `mean` again.
    const double a = 2.2;
    const double xmin = max_len > 0 ? capped_pareto_xmin(mean, a - 1, cap)
                                    : std::max(1.0, mean * (a - 2) / (a - 1));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<int64_t> scratch;
    b.m.col.reserve(size_t(double(rows) * mean * 1.1));
    b.m.val.reserve(b.m.col.capacity());
    for (int64_t i = 0; i < rows; ++i) {
        double len = xmin * std::pow(1.0 - u(b.rng), -1.0 / (a - 1));
        b.random_row(std::min<int64_t>(cap, int64_t(len)), scratch);
    }
    return std::move(b.m);
}

CsrMatrix banded(int64_t n, int64_t half_width, double fill, uint64_t seed) {
    Builder b("banded-" + std::to_string(n) + "-w" + std::to_string(half_width), n, n, seed);
    std::bernoulli_distribution take(fill);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = std::max<int64_t>(0, i - half_width); j <= std::min(n - 1, i + half_width);
             ++j)
            if (j == i || take(b.rng)) b.add(j, b.value());
        b.end_row();
    }
    return std::move(b.m);
}

CsrMatrix with_empty_rows(int64_t rows, int64_t cols, int64_t k, double empty, uint64_t seed) {
    Builder b("empty-rows-" + std::to_string(rows) + "x" + std::to_string(cols), rows, cols, seed);
    std::bernoulli_distribution skip(empty);
    std::vector<int64_t> scratch;
    for (int64_t i = 0; i < rows; ++i) {
        if (skip(b.rng)) b.end_row();
        else b.random_row(k, scratch);
    }
    return std::move(b.m);
}

CsrMatrix one_dense_row(int64_t rows, int64_t cols, int64_t k, int64_t dense_row, uint64_t seed) {
    Builder b("dense-row-" + std::to_string(rows) + "x" + std::to_string(cols), rows, cols, seed);
    std::vector<int64_t> scratch;
    for (int64_t i = 0; i < rows; ++i) {
        if (i == dense_row) {
            for (int64_t j = 0; j < cols; ++j) b.add(j, b.value());
            b.end_row();
        } else {
            b.random_row(k, scratch);
        }
    }
    return std::move(b.m);
}

CsrMatrix dense_rows(int64_t rows, int64_t cols, int64_t k, int64_t count, uint64_t seed) {
    Builder b("dense-rows-" + std::to_string(rows) + "x" + std::to_string(cols) + "-k" +
                  std::to_string(k) + "-d" + std::to_string(count),
              rows, cols, seed);
    count = std::clamp<int64_t>(count, 0, rows);
    std::vector<int64_t> scratch;
    int64_t next = 0; // the next dense row's index among the `count`
    for (int64_t i = 0; i < rows; ++i) {
        if (next < count && i == (2 * next + 1) * rows / (2 * count)) {
            for (int64_t j = 0; j < cols; ++j) b.add(j, b.value());
            b.end_row();
            ++next;
        } else {
            b.random_row(k, scratch);
        }
    }
    return std::move(b.m);
}

CsrMatrix stencil_3d(int64_t n, int points, uint64_t seed) {
    if (points != 7 && points != 27)
        throw std::invalid_argument("stencil_3d: 7 or 27 points, not " + std::to_string(points));
    Builder b("stencil" + std::to_string(points) + "-" + std::to_string(n), n * n * n, n * n * n,
              seed);
    b.m.col.reserve(size_t(points * n * n * n));
    b.m.val.reserve(b.m.col.capacity());
    for (int64_t z = 0; z < n; ++z)
        for (int64_t y = 0; y < n; ++y)
            for (int64_t x = 0; x < n; ++x) {
                // Neighbours in increasing column order: dz, then dy, then dx.
                for (int64_t dz = -1; dz <= 1; ++dz)
                    for (int64_t dy = -1; dy <= 1; ++dy)
                        for (int64_t dx = -1; dx <= 1; ++dx) {
                            const int64_t off = (dz != 0) + (dy != 0) + (dx != 0);
                            if (points == 7 && off > 1) continue;
                            const int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                            if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n)
                                continue;
                            b.add((zz * n + yy) * n + xx, b.value());
                        }
                b.end_row();
            }
    return std::move(b.m);
}

CsrMatrix rmat(int scale, int64_t edge_factor, double a, double b_, double c, uint64_t seed) {
    if (scale < 1 || scale > 40 || a <= 0 || b_ < 0 || c < 0 || a + b_ + c >= 1)
        throw std::invalid_argument("rmat: scale in 1..40 and a > 0, b, c >= 0, a + b + c < 1");
    const int64_t n = int64_t(1) << scale;
    char skew[32];
    std::snprintf(skew, sizeof skew, "-a%02d", int(a * 100 + 0.5));
    Builder b("rmat-" + std::to_string(scale) + "-e" + std::to_string(edge_factor) + skew, n, n,
              seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::pair<int64_t, int64_t>> edges(size_t(edge_factor * n));
    for (auto &e : edges) {
        int64_t i = 0, j = 0;
        for (int level = 0; level < scale; ++level) {
            const double r = u(b.rng);
            const int64_t bit = int64_t(1) << (scale - 1 - level);
            if (r >= a + b_ + c) i |= bit, j |= bit; // d: lower right
            else if (r >= a + b_) i |= bit;          // c: lower left
            else if (r >= a) j |= bit;               // b: upper right
        }
        e = {i, j};
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    b.m.col.reserve(edges.size());
    b.m.val.reserve(edges.size());
    size_t e = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (; e < edges.size() && edges[e].first == i; ++e) b.add(edges[e].second, b.value());
        b.end_row();
    }
    return std::move(b.m);
}

CsrMatrix block_diagonal(int64_t n, int64_t block, uint64_t seed) {
    Builder b("blockdiag-" + std::to_string(n) + "-b" + std::to_string(block), n, n, seed);
    block = std::max<int64_t>(1, block);
    b.m.col.reserve(size_t(n * block));
    b.m.val.reserve(b.m.col.capacity());
    for (int64_t i = 0; i < n; ++i) {
        const int64_t j0 = i / block * block, j1 = std::min(n, j0 + block);
        for (int64_t j = j0; j < j1; ++j) b.add(j, b.value());
        b.end_row();
    }
    return std::move(b.m);
}

namespace {

int64_t number(const std::string &text, const std::string &spec) {
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != text.size() || v <= 0)
        throw std::invalid_argument("bad number '" + text + "' in generator '" + spec + "'");
    return v;
}

std::vector<std::string> fields(const std::string &spec) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t colon = spec.find(':', start);
        out.push_back(spec.substr(start, colon - start));
        if (colon == std::string::npos) return out;
        start = colon + 1;
    }
}

void shape(const std::string &text, const std::string &spec, int64_t &rows, int64_t &cols) {
    size_t x = text.find('x');
    if (x == std::string::npos) {
        rows = cols = number(text, spec);
        return;
    }
    rows = number(text.substr(0, x), spec);
    cols = number(text.substr(x + 1), spec);
}

} // namespace

CsrMatrix generate(const std::string &spec, uint64_t seed) {
    const std::vector<std::string> f = fields(spec);
    int64_t rows = 0, cols = 0;
    if (f[0] == "laplacian" && f.size() == 2) return laplacian_2d(number(f[1], spec));
    if (f[0] == "tridiagonal" && f.size() == 2) return tridiagonal(number(f[1], spec), seed);
    if (f[0] == "random" && f.size() == 3) {
        shape(f[1], spec, rows, cols);
        return random_k_per_row(rows, cols, number(f[2], spec), seed);
    }
    if (f[0] == "powerlaw" && (f.size() == 3 || f.size() == 4)) {
        shape(f[1], spec, rows, cols);
        return power_law(rows, cols, double(number(f[2], spec)), seed,
                         f.size() == 4 ? number(f[3], spec) : 0);
    }
    if ((f[0] == "stencil7" || f[0] == "stencil27") && f.size() == 2)
        return stencil_3d(number(f[1], spec), f[0] == "stencil7" ? 7 : 27, seed);
    if (f[0] == "rmat" && (f.size() == 3 || f.size() == 4)) {
        // a in percent; b = c and d keep Graph500's proportions (0.19 : 0.19 : 0.05).
        const double a = f.size() == 4 ? double(number(f[3], spec)) / 100.0 : 0.57;
        if (a >= 1.0) throw std::invalid_argument("rmat: A is a percentage below 100: " + spec);
        const double bc = (1.0 - a) * 0.19 / 0.43;
        return rmat(int(number(f[1], spec)), number(f[2], spec), a, bc, bc, seed);
    }
    if (f[0] == "blockdiag" && f.size() == 3)
        return block_diagonal(number(f[1], spec), number(f[2], spec), seed);
    if (f[0] == "band" && (f.size() == 3 || f.size() == 4)) {
        const int64_t fill = f.size() == 4 ? number(f[3], spec) : 100;
        if (fill > 100) throw std::invalid_argument("band: FILL is a percentage: " + spec);
        return banded(number(f[1], spec), number(f[2], spec), double(fill) / 100.0, seed);
    }
    if (f[0] == "emptyrows" && f.size() == 4) {
        shape(f[1], spec, rows, cols);
        const int64_t empty = number(f[3], spec);
        if (empty >= 100) throw std::invalid_argument("emptyrows: EMPTY is a percentage: " + spec);
        return with_empty_rows(rows, cols, number(f[2], spec), double(empty) / 100.0, seed);
    }
    if (f[0] == "denserows" && f.size() == 4) {
        shape(f[1], spec, rows, cols);
        return dense_rows(rows, cols, number(f[2], spec), number(f[3], spec), seed);
    }
    throw std::invalid_argument("unknown generator '" + spec + "' (" + generator_forms() + ")");
}

const char *generator_forms() {
    return "laplacian:N, tridiagonal:N, random:ROWSxCOLS:K, powerlaw:ROWSxCOLS:MEAN[:MAX], "
           "stencil7:N, stencil27:N, rmat:SCALE:EDGEFACTOR[:A%], blockdiag:N:BLOCK, "
           "band:N:HALFWIDTH[:FILL%], emptyrows:ROWSxCOLS:K:EMPTY%, denserows:ROWSxCOLS:K:COUNT";
}

} // namespace tessera::bench
