// libFuzzer harness for gemm's arguments through the tsr, CBLAS ILP64 and Fortran ILP64 doors:
// refusals leave C alone, accepted calls match an oracle and stay inside guard-paged operands.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fuzz_support.hpp"
#include "tessera/tessera.h"

extern "C" const char *__ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

// The BLAS doors, which tessera.h does not declare, and the error hooks this harness overrides
// (exported from the executable, they win over the library's weak ones).
extern "C" {
void cblas_dgemm_64(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                    double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                    double beta, double *C, int64_t ldc);
void dgemm_64_(const char *transa, const char *transb, const int64_t *m, const int64_t *n,
               const int64_t *k, const double *alpha, const double *A, const int64_t *lda,
               const double *B, const int64_t *ldb, const double *beta, double *C,
               const int64_t *ldc, size_t, size_t);

int tessera_fuzz_xerbla_calls = 0;
void xerbla_(const char *, const int *, size_t) { ++tessera_fuzz_xerbla_calls; }
void cblas_xerbla(int, const char *, const char *, ...) { ++tessera_fuzz_xerbla_calls; }
}

namespace tessera::fuzz {
namespace {

constexpr int64_t kLimit = int64_t(1)
                           << 19; // elements of an operand actually allocated (4 MiB of double)
constexpr int64_t kWork = int64_t(1) << 18; // m·n·k of a product the oracle recomputes

enum class Door { tsr, cblas, fortran };

// Elements of `count` T, the last one touching a PROT_NONE page, a PROT_NONE page before the
// first; the bytes between that page and the first element are filled and watched too.
template <typename T> class Guarded {
public:
    explicit Guarded(size_t count) : count_(count) {
        page_ = size_t(sysconf(_SC_PAGESIZE));
        const size_t bytes = std::max<size_t>(count, 1) * sizeof(T);
        pages_ = (bytes + page_ - 1) / page_;
        void *p =
            mmap(nullptr, (pages_ + 2) * page_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) broken("mmap of %zu bytes failed", (pages_ + 2) * page_);
        base_ = static_cast<char *>(p);
        if (mprotect(base_ + page_, pages_ * page_, PROT_READ | PROT_WRITE) != 0)
            broken("mprotect failed");
        data_ = reinterpret_cast<T *>(base_ + page_ + pages_ * page_ - bytes);
        std::memset(base_ + page_, 0xa5, pages_ * page_);
    }
    ~Guarded() { munmap(base_, (pages_ + 2) * page_); }
    Guarded(const Guarded &) = delete;
    Guarded &operator=(const Guarded &) = delete;

    T *data() { return data_; }
    size_t size() const { return count_; }
    // Every byte of the accessible pages, slack included.
    std::vector<unsigned char> snapshot() const {
        return std::vector<unsigned char>(base_ + page_, base_ + page_ + pages_ * page_);
    }
    bool same_as(const std::vector<unsigned char> &s) const {
        return std::memcmp(base_ + page_, s.data(), s.size()) == 0;
    }
    // Whether the slack before the first element still holds its fill.
    bool slack_intact() const {
        for (const char *q = base_ + page_; q < reinterpret_cast<const char *>(data_); ++q)
            if (static_cast<unsigned char>(*q) != 0xa5) return false;
        return true;
    }

private:
    size_t count_, page_ = 0, pages_ = 0;
    char *base_ = nullptr;
    T *data_ = nullptr;
};

// A size: mostly small, sometimes a boundary or a value no memory holds.
int64_t dimension(FuzzedDataProvider &in) {
    static constexpr int64_t table[] = {0,
                                        1,
                                        -1,
                                        -2,
                                        int64_t(INT32_MAX),
                                        int64_t(INT32_MAX) + 1,
                                        int64_t(1) << 32,
                                        int64_t(1) << 40,
                                        int64_t(1) << 61,
                                        (int64_t(1) << 61) + 1,
                                        int64_t(1) << 62,
                                        INT64_MAX,
                                        INT64_MIN,
                                        -(int64_t(1) << 40)};
    const uint8_t b = in.ConsumeIntegral<uint8_t>();
    if (b < 216) return in.ConsumeIntegralInRange<int64_t>(0, b < 160 ? 9 : 40);
    return table[b % std::size(table)];
}

int64_t plus(int64_t a, int64_t b) {
    int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

// A leading dimension for `inner` stored rows: mostly legal (with a little padding), sometimes
// one short, zero, negative or huge.
int64_t leading(FuzzedDataProvider &in, int64_t inner) {
    static constexpr int64_t table[] = {
        0, -1, int64_t(INT32_MAX) + 1, int64_t(1) << 40, int64_t(1) << 61, INT64_MAX, INT64_MIN};
    const int64_t least = std::max<int64_t>(1, inner);
    const uint8_t b = in.ConsumeIntegral<uint8_t>();
    if (b < 200) return plus(least, in.ConsumeIntegralInRange<int64_t>(0, b < 120 ? 0 : 3));
    if (b < 216) return plus(least, -1);
    return table[b % std::size(table)];
}

// How a stored matrix is laid out: `inner` elements along the leading dimension, `outer` of those.
struct Shape {
    int64_t inner = 0, outer = 0, ld = 1;
    // Elements from the first to the last one: (outer - 1)·ld + inner, 0 when empty.
    __int128 extent() const {
        if (inner <= 0 || outer <= 0) return 0;
        return (__int128(outer) - 1) * __int128(ld) + inner;
    }
    bool padding(int64_t index) const { return index % ld >= inner; }
};

template <typename T> bool addressable(__int128 elements) {
    return elements <= __int128(PTRDIFF_MAX) / __int128(sizeof(T));
}

// One call: door, layout, ops (as the door spells them), sizes, scales.
struct Call {
    Door door = Door::tsr;
    tsr_handle handle = nullptr;
    int layout = TSR_COL_MAJOR, ta = TSR_OP_N, tb = TSR_OP_N; // tsr / CBLAS values
    char fa = 'N', fb = 'N';                                  // Fortran characters
    int64_t m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1;
};

// op(A) (first) or op(B): valid, and whether it transposes, as the call's door spells it.
bool op_valid(const Call &c, bool first) {
    if (c.door == Door::fortran) {
        const char op = first ? c.fa : c.fb;
        return op != 0 && std::string_view("NnTtCc").find(op) != std::string_view::npos;
    }
    const int op = first ? c.ta : c.tb;
    return op == TSR_OP_N || op == TSR_OP_T || op == TSR_OP_C;
}
bool transposes(const Call &c, bool first) {
    if (c.door == Door::fortran)
        return (first ? c.fa : c.fb) != 'N' && (first ? c.fa : c.fb) != 'n';
    return (first ? c.ta : c.tb) != TSR_OP_N;
}
bool row_major(const Call &c) { return c.door != Door::fortran && c.layout == TSR_ROW_MAJOR; }

// Stored shapes of A (op(A) is m×k), B (op(B) is k×n) and C (m×n).
Shape shape_of(const Call &c, int64_t rows, int64_t cols, int64_t ld) {
    return row_major(c) ? Shape{cols, rows, ld} : Shape{rows, cols, ld};
}
Shape shape_a(const Call &c) {
    return transposes(c, true) ? shape_of(c, c.k, c.m, c.lda) : shape_of(c, c.m, c.k, c.lda);
}
Shape shape_b(const Call &c) {
    return transposes(c, false) ? shape_of(c, c.n, c.k, c.ldb) : shape_of(c, c.k, c.n, c.ldb);
}
Shape shape_c(const Call &c) { return shape_of(c, c.m, c.n, c.ldc); }

// The reference BLAS checks: ops, layout, sizes, leading dimensions.
bool arguments_valid(const Call &c) {
    if (c.door != Door::fortran && c.layout != TSR_COL_MAJOR && c.layout != TSR_ROW_MAJOR)
        return false;
    if (!op_valid(c, true) || !op_valid(c, false)) return false;
    if (c.m < 0 || c.n < 0 || c.k < 0) return false;
    for (const Shape &s : {shape_a(c), shape_b(c), shape_c(c)})
        if (s.ld < std::max<int64_t>(1, s.inner)) return false;
    return true;
}

template <typename T> tsr_status run(const Call &c, T alpha, const T *A, const T *B, T beta, T *C) {
    if constexpr (sizeof(T) == 4) {
        return tsr_sgemm(c.handle, tsr_layout(c.layout), tsr_op(c.ta), tsr_op(c.tb), c.m, c.n, c.k,
                         alpha, A, c.lda, B, c.ldb, beta, C, c.ldc);
    } else {
        if (c.door == Door::tsr)
            return tsr_dgemm(c.handle, tsr_layout(c.layout), tsr_op(c.ta), tsr_op(c.tb), c.m, c.n,
                             c.k, alpha, A, c.lda, B, c.ldb, beta, C, c.ldc);
        if (c.door == Door::cblas)
            cblas_dgemm_64(c.layout, c.ta, c.tb, c.m, c.n, c.k, alpha, A, c.lda, B, c.ldb, beta, C,
                           c.ldc);
        else
            dgemm_64_(&c.fa, &c.fb, &c.m, &c.n, &c.k, &alpha, A, &c.lda, B, &c.ldb, &beta, C,
                      &c.ldc, 1, 1);
        return TSR_SUCCESS; // the BLAS doors report through xerbla
    }
}

void describe(const Call &c, char *out, size_t size) {
    const char *door = c.door == Door::tsr     ? "tsr"
                       : c.door == Door::cblas ? "cblas_dgemm_64"
                                               : "dgemm_64_";
    if (c.door == Door::fortran)
        std::snprintf(out, size, "%s(%c, %c, m %lld, n %lld, k %lld, lda %lld, ldb %lld, ldc %lld)",
                      door, c.fa, c.fb, (long long)c.m, (long long)c.n, (long long)c.k,
                      (long long)c.lda, (long long)c.ldb, (long long)c.ldc);
    else
        std::snprintf(
            out, size,
            "%s(layout %d, ops %d %d, m %lld, n %lld, k %lld, lda %lld, ldb %lld, ldc %lld)", door,
            c.layout, c.ta, c.tb, (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.lda,
            (long long)c.ldb, (long long)c.ldc);
}

// Elements to allocate for an operand: its extent when small enough, else one (a call that
// must be refused, or one that must not read the operand).
size_t allocation(const Shape &s) {
    const __int128 e = s.extent();
    return e >= 1 && e <= kLimit ? size_t(e) : 1;
}

// Element (i, j) of a stored matrix.
template <typename T> T &at(T *x, const Shape &s, bool row, int64_t i, int64_t j) {
    return row ? x[i * s.ld + j] : x[i + j * s.ld];
}

template <typename T> void fuzz_call(FuzzedDataProvider &in, Call &c) {
    char what[256];
    describe(c, what, sizeof what);
    const T alpha = scale<T>(in), beta = scale<T>(in);
    if (trace())
        std::fprintf(stderr, "%s %s alpha %g beta %g\n", sizeof(T) == 4 ? "float" : "double", what,
                     double(alpha), double(beta));
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const bool valid = arguments_valid(c);
    const Shape sa = shape_a(c), sb = shape_b(c), sc = shape_c(c);
    const bool product = valid && c.m > 0 && c.n > 0 && c.k > 0;
    const __int128 ea = product ? sa.extent() : 0, eb = product ? sb.extent() : 0;
    const __int128 ec = valid && c.m > 0 && c.n > 0 ? sc.extent() : 0;

    // What the contract asks of this call: a refusal (bad arguments, or an operand beyond what a
    // pointer can address), either a refusal or C = beta·C (an unaddressable A or B that
    // alpha == 0 says is not read), or the product. Valid calls whose operands would not fit
    // this harness's memory are left out.
    enum { refuse, refuse_or_scale, compute } expect;
    if (!valid || !addressable<T>(ec)) expect = refuse;
    else if (ec > kLimit) return;
    else if (!addressable<T>(ea) || !addressable<T>(eb))
        expect = alpha == T(0) ? refuse_or_scale : refuse;
    else if (ea <= kLimit && eb <= kLimit && __int128(c.m) * c.n * c.k <= kWork) expect = compute;
    else if (alpha == T(0)) expect = compute; // A and B are not read: they may be tiny or NULL
    else return;

    const bool read_ab = expect == compute && alpha != T(0) && ea > 0 && eb > 0;
    Guarded<T> A(read_ab ? size_t(ea) : allocation(sa)), B(read_ab ? size_t(eb) : allocation(sb));
    Guarded<T> C(ec >= 1 && ec <= kLimit ? size_t(ec) : allocation(sc));
    const bool row = row_major(c);

    // Operands: small values in the matrices, NaN in A's and B's padding (never to be used), a
    // marker in C's padding (never to be written); A and B all NaN when they must not be read,
    // C's window all NaN when beta == 0; now and then an Inf or NaN inside the matrices.
    const bool inject = in.ConsumeIntegralInRange<int>(0, 7) == 0;
    auto fill = [&](Guarded<T> &g, const Shape &s, bool readable) {
        for (size_t p = 0; p < g.size(); ++p)
            g.data()[p] =
                !readable || (s.ld > 0 && s.padding(int64_t(p))) ? nan : small_value<T>(in);
        if (inject && readable && g.size() > 0) {
            const size_t p = in.ConsumeIntegralInRange<size_t>(0, g.size() - 1);
            g.data()[p] = non_finite<T>(in);
        }
    };
    fill(A, sa, read_ab);
    fill(B, sb, read_ab);
    T marker;
    std::memset(&marker, 0xc3, sizeof marker);
    const bool c_window = expect != refuse && ec >= 1;
    for (size_t p = 0; p < C.size(); ++p) {
        const bool pad = !c_window || sc.padding(int64_t(p));
        C.data()[p] = pad ? marker : beta == T(0) ? nan : small_value<T>(in);
    }
    if (inject && beta != T(0) && c_window) {
        const size_t p = in.ConsumeIntegralInRange<size_t>(0, C.size() - 1);
        C.data()[p] = non_finite<T>(in);
    }
    const auto a0 = A.snapshot(), b0 = B.snapshot(), c0 = C.snapshot();
    const std::vector<T> c_before(C.data(), C.data() + C.size());

    // NULL where the contract allows it: A and B when they are not read, C when it is empty.
    const T *pa = A.data(), *pb = B.data();
    T *pc = C.data();
    if (valid && (alpha == T(0) || c.k == 0) && in.ConsumeBool()) pa = pb = nullptr;
    if (valid && (c.m == 0 || c.n == 0) && in.ConsumeBool()) pc = nullptr;

    tessera_fuzz_xerbla_calls = 0;
    const tsr_status s = run<T>(c, alpha, pa, pb, beta, pc);
    const bool blas_door = c.door != Door::tsr;
    const bool refused = blas_door ? tessera_fuzz_xerbla_calls > 0 : s == TSR_ERR_INVALID_ARGUMENT;

    if (!A.same_as(a0)) broken("%s wrote to A", what);
    if (!B.same_as(b0)) broken("%s wrote to B", what);
    if (blas_door && tessera_fuzz_xerbla_calls > 1)
        broken("%s called xerbla %d times", what, tessera_fuzz_xerbla_calls);
    if (!blas_door && s != TSR_SUCCESS && s != TSR_ERR_INVALID_ARGUMENT)
        broken("%s: status %s: %s", what, tsr_status_string(s), tsr_last_error());
    if (refused) {
        if (expect == compute)
            broken("%s: a valid call was refused: %s", what,
                   blas_door ? "xerbla" : tsr_last_error());
        if (!C.same_as(c0)) broken("%s was refused but wrote to C", what);
        if (!blas_door && std::string_view(tsr_last_error()).empty())
            broken("%s was refused without a message", what);
        return;
    }
    if (expect == refuse)
        broken("%s was accepted (alpha %g, beta %g); it must be refused", what, double(alpha),
               double(beta));

    // Accepted: C's window against the oracle, everything else of C byte for byte.
    if (!C.slack_intact()) broken("%s wrote before C", what);
    using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
    const bool quick = c.m == 0 || c.n == 0 || ((alpha == T(0) || c.k == 0) && beta == T(1));
    const bool multiply = c.k > 0 && alpha != T(0);
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    for (size_t p = 0; p < C.size(); ++p) {
        if (!c_window || sc.padding(int64_t(p)) || quick) {
            if (std::memcmp(&C.data()[p], &c_before[p], sizeof(T)) != 0)
                broken("%s wrote C[%zu], outside the m x n window or on a quick return", what, p);
        }
    }
    if (!c_window || quick) return;
    for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) {
            Wide sum = 0, mag = 0;
            if (multiply)
                for (int64_t l = 0; l < c.k; ++l) {
                    const T a = transposes(c, true) ? at(A.data(), sa, row, l, i)
                                                    : at(A.data(), sa, row, i, l);
                    const T b = transposes(c, false) ? at(B.data(), sb, row, j, l)
                                                     : at(B.data(), sb, row, l, j);
                    const Wide prod = Wide(a) * Wide(b);
                    sum += prod;
                    mag += std::fabs(prod);
                }
            const T before = at(const_cast<T *>(c_before.data()), sc, row, i, j);
            Wide want = multiply ? Wide(alpha) * sum : Wide(0),
                 bound = std::fabs(Wide(alpha)) * mag;
            if (beta != T(0)) {
                want += Wide(beta) * Wide(before);
                bound += std::fabs(Wide(beta) * Wide(before));
            }
            bound =
                bound * Wide(2 * (c.k + 2)) * Wide(u) + Wide(std::numeric_limits<T>::denorm_min());
            const T got = at(C.data(), sc, row, i, j);
            const Class want_class = class_of(want), got_class = class_of(got);
            if (got_class != want_class)
                broken("%s (alpha %g, beta %g): C(%lld, %lld) = %g is %s, the oracle's %Lg is %s",
                       what, double(alpha), double(beta), (long long)i, (long long)j, double(got),
                       class_name(got_class), (long double)want, class_name(want_class));
            if (got_class == Class::finite && std::fabs(Wide(got) - want) > bound)
                broken("%s (alpha %g, beta %g): C(%lld, %lld) = %.17g, oracle %.17Lg, bound %Lg",
                       what, double(alpha), double(beta), (long long)i, (long long)j, double(got),
                       (long double)want, (long double)bound);
        }
}

} // namespace
} // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace tessera::fuzz;
    static tsr_handle handles[3] =
        {}; // CPU on one thread, on two, reference; NULL: the default handle
    if (!handles[0]) {
        for (int h = 0; h < 3; ++h)
            if (tsr_create(&handles[h]) != TSR_SUCCESS ||
                tsr_set_backend(handles[h], h < 2 ? TSR_BACKEND_CPU : TSR_BACKEND_REFERENCE) !=
                    TSR_SUCCESS ||
                (h < 2 && tsr_set_num_threads(handles[h], h + 1) != TSR_SUCCESS))
                broken("cannot make handle %d: %s", h, tsr_last_error());
    }
    FuzzedDataProvider in(data, size);
    Call c;
    const int door =
        in.ConsumeIntegralInRange<int>(0, 7); // 0-2 tsr_sgemm, 3-5 tsr_dgemm, 6 CBLAS, 7 Fortran
    c.door = door < 6 ? Door::tsr : door == 6 ? Door::cblas : Door::fortran;
    const uint8_t h = in.ConsumeIntegral<uint8_t>();
    c.handle = h % 4 < 3 ? handles[h % 4] : nullptr;
    static constexpr int bad_layouts[] = {0, 100, 103, -1};
    static constexpr int ops[] = {TSR_OP_N, TSR_OP_T, TSR_OP_C, TSR_OP_N, TSR_OP_T,
                                  0,        110,      114,      'N'};
    static constexpr char chars[] = {'N', 'T', 'C', 'n', 't', 'c', 'N', 'T', 'X', '\0', ' '};
    const uint8_t l = in.ConsumeIntegral<uint8_t>();
    c.layout = l < 240 ? (l & 1 ? TSR_ROW_MAJOR : TSR_COL_MAJOR) : bad_layouts[l % 4];
    c.ta = ops[in.ConsumeIntegralInRange<size_t>(0, std::size(ops) - 1)];
    c.tb = ops[in.ConsumeIntegralInRange<size_t>(0, std::size(ops) - 1)];
    c.fa = chars[in.ConsumeIntegralInRange<size_t>(0, std::size(chars) - 1)];
    c.fb = chars[in.ConsumeIntegralInRange<size_t>(0, std::size(chars) - 1)];
    c.m = dimension(in);
    c.n = dimension(in);
    c.k = dimension(in);
    c.lda = leading(in, shape_a(c).inner);
    c.ldb = leading(in, shape_b(c).inner);
    c.ldc = leading(in, shape_c(c).inner);
    if (door < 3) fuzz_call<float>(in, c);
    else fuzz_call<double>(in, c);
    return 0;
}
