// Edges must never read or write outside the matrices: every operand here ends exactly at a
// page boundary followed by an inaccessible guard page (and starts right after one), so a
// partial tile that strays past the last element faults.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gemm_oracle.hpp"

namespace tessera::test {
namespace {

// `count` elements of T placed so that the last one ends at a page boundary, with a
// PROT_NONE page on either side.
template <typename T> class GuardedArray {
public:
    explicit GuardedArray(size_t count) : count_(count) {
        page_ = size_t(sysconf(_SC_PAGESIZE));
        size_t bytes = std::max<size_t>(1, count) * sizeof(T);
        size_t pages = (bytes + page_ - 1) / page_;
        total_ = (pages + 2) * page_;
        void *p = mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;
        base_ = static_cast<char *>(p);
        mprotect(base_ + page_, pages * page_, PROT_READ | PROT_WRITE);
        data_ = reinterpret_cast<T *>(base_ + page_ + pages * page_ - bytes);
    }
    ~GuardedArray() {
        if (base_) munmap(base_, total_);
    }
    T *data() { return data_; }
    bool ok() const { return data_ != nullptr; }

private:
    size_t count_, page_ = 0, total_ = 0;
    char *base_ = nullptr;
    T *data_ = nullptr;
};

template <typename T> void guarded_case(tsr_handle h, const GemmCase &c) {
    const bool a_rows_m = c.ta == TSR_OP_N, b_rows_k = c.tb == TSR_OP_N;
    auto A = random_matrix<T>(a_rows_m ? c.m : c.k, a_rows_m ? c.k : c.m, c.layout, 0, T(0));
    auto B = random_matrix<T>(b_rows_k ? c.k : c.n, b_rows_k ? c.n : c.k, c.layout, 0, T(0));
    auto C0 = random_matrix<T>(c.m, c.n, c.layout, 0, T(0));
    GuardedArray<T> ga(A.data.size()), gb(B.data.size()), gc(C0.data.size());
    ASSERT_TRUE(ga.ok() && gb.ok() && gc.ok()) << "mmap failed";
    std::memcpy(ga.data(), A.data.data(), A.data.size() * sizeof(T));
    std::memcpy(gb.data(), B.data.data(), B.data.size() * sizeof(T));
    std::memcpy(gc.data(), C0.data.data(), C0.data.size() * sizeof(T));
    tsr_status s;
    if constexpr (sizeof(T) == 4)
        s = tsr_sgemm(h, c.layout, c.ta, c.tb, c.m, c.n, c.k, float(c.alpha), ga.data(), A.ld,
                      gb.data(), B.ld, float(c.beta), gc.data(), C0.ld);
    else
        s = tsr_dgemm(h, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, ga.data(), A.ld, gb.data(),
                      B.ld, c.beta, gc.data(), C0.ld);
    ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    auto C = C0;
    std::memcpy(C.data.data(), gc.data(), C.data.size() * sizeof(T));
    EXPECT_TRUE(check_gemm(c, A, B, C0, C));
}

TEST(GemmGuardPages, EdgesStayInside_cpu) {
    tsr_handle h;
    ASSERT_EQ(tsr_create(&h), TSR_SUCCESS);
    ASSERT_EQ(tsr_set_backend(h, TSR_BACKEND_CPU), TSR_SUCCESS);
    const int64_t sizes[][3] = {{1, 1, 1},   {33, 13, 7},  {31, 11, 5},   {17, 7, 3},
                                {5, 3, 385}, {47, 29, 61}, {129, 37, 19}, {7, 25, 2}};
    for (const auto &s : sizes)
        for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
            for (tsr_op ta : {TSR_OP_N, TSR_OP_T})
                for (tsr_op tb : {TSR_OP_N, TSR_OP_T}) {
                    GemmCase c{layout, ta, tb, s[0], s[1], s[2], 0.5, -1.5};
                    guarded_case<float>(h, c);
                    guarded_case<double>(h, c);
                    c.beta = 0;
                    guarded_case<float>(h, c);
                    if (HasFatalFailure()) return;
                }
    tsr_destroy(h);
}

} // namespace
} // namespace tessera::test
