// The AUTO rules of the CUDA backend (cuda/spmv_rules.*), without a GPU: the format chosen for
// each kind of generated matrix, the CSR kernel from the row lengths, and their names.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "core/backend.hpp"
#include "sparse/assemble.hpp"
#include "sparse/optimize.hpp"
#include "spmv_rules.hpp"
#include "sparse/structure.hpp"
#include "spmv_generators.hpp"

namespace {

using namespace tessera::sparse;
using tessera::cuda::CsrKernel;
using tessera::cuda::gpu_csr_kernel;
using tessera::cuda::kernel_name;
using tessera::cuda::kGpuTilesAuto;

// The GPU's rules as tsr_sparse_optimize applies them on a cuda handle.
const Planner gpu_rules = [](const Structure &s, tsr_format requested, size_t vb, size_t ib) {
    return tessera::cuda::plan_format(s, requested, vb, ib);
};

CsrKernel kernel_of(const Plan &p) { return CsrKernel(p.kernel); }

Storage storage_of(const tessera::bench::CsrMatrix &m) {
    std::vector<int32_t> rp(m.row_ptr.begin(), m.row_ptr.end()), col(m.col.begin(), m.col.end());
    Typed<double, int32_t> t;
    t.csr = assemble_from_csr<double, int32_t>(m.rows, m.cols, m.nnz(), rp.data(), col.data(),
                                               m.val.data());
    t.rows = row_stats(t.csr.rows, t.csr.cols, t.csr.row_ptr.data());
    return Storage{std::move(t)};
}

Plan gpu_plan(const tessera::bench::CsrMatrix &m, tsr_format requested = TSR_FORMAT_AUTO) {
    Storage s = storage_of(m);
    const Applied applied = apply_format(s, requested, gpu_rules);
    EXPECT_TRUE(applied.fault.empty()) << applied.fault;
    const Plan plan = std::get<Typed<double, int32_t>>(s.typed).plan;
    EXPECT_FALSE(plan.reason.empty());
    return plan;
}

CsrKernel csr_kernel(const tessera::bench::CsrMatrix &m) {
    Storage s = storage_of(m);
    return gpu_csr_kernel(std::get<Typed<double, int32_t>>(s.typed).rows, nullptr);
}

TEST(SparseGpuRules, Formats) {
    using namespace tessera::bench;
    EXPECT_EQ(gpu_plan(tridiagonal(100000, 1)).format, TSR_FORMAT_DIA);
    EXPECT_EQ(gpu_plan(laplacian_2d(300)).format, TSR_FORMAT_DIA);
    // Rows of equal length: ELL, coalesced slot by slot.
    EXPECT_EQ(gpu_plan(random_k_per_row(20000, 20000, 16, 1)).format, TSR_FORMAT_ELL);
    // Equal rows and one long one holding a few percent of the entries: HYB.
    EXPECT_EQ(gpu_plan(one_dense_row(50000, 5000, 4, 9, 1)).format, TSR_FORMAT_HYB);
    // Skewed rows: CSR on the merge path.
    const Plan skewed = gpu_plan(power_law(20000, 20000, 10, 1));
    EXPECT_EQ(skewed.format, TSR_FORMAT_CSR);
    EXPECT_EQ(kernel_of(skewed), CsrKernel::merge);
    EXPECT_NE(skewed.reason.find("merge path"), std::string::npos) << skewed.reason;
    // Long rows with columns scattered far from the diagonal: the merge path too.
    const Plan scattered = gpu_plan(random_k_per_row(3000, 200000, 40, 1));
    EXPECT_EQ(scattered.format, TSR_FORMAT_CSR);
    EXPECT_EQ(kernel_of(scattered), CsrKernel::merge);
    // Long rows near the diagonal: lanes.
    const Plan local = gpu_plan(random_k_per_row(2000, 20000, 40, 1));
    EXPECT_EQ(local.format, TSR_FORMAT_CSR);
    EXPECT_EQ(kernel_of(local), CsrKernel::lanes16);
    EXPECT_EQ(gpu_plan(random_k_per_row(10, 10, 0, 1)).format, TSR_FORMAT_CSR) << "no entries";
}

// DIA against the format it would displace: a band of 17 diagonals 60% filled streams a little
// more than CSR in double, yet fewer bytes than HYB (whose rows it would otherwise take, x then
// gathered); dense 8-blocks on the diagonal (15 diagonals half filled) stream more in DIA than in
// full ELL rows, and fewer than CSR and ELL in float.
TEST(SparseGpuRules, DiaAgainstTheFormatItDisplaces) {
    using namespace tessera::bench;
    const tessera::bench::CsrMatrix band = banded(200000, 8, 0.6, 3);
    EXPECT_EQ(gpu_plan(band).format, TSR_FORMAT_DIA) << gpu_plan(band).reason;
    EXPECT_NE(gpu_plan(band).reason.find("bytes of HYB"), std::string::npos)
        << gpu_plan(band).reason;
    const tessera::bench::CsrMatrix blocks = block_diagonal(200000, 8, 3);
    EXPECT_EQ(gpu_plan(blocks).format, TSR_FORMAT_ELL) << gpu_plan(blocks).reason;
    Storage s = storage_of(blocks);
    auto &t = std::get<Typed<double, int32_t>>(s.typed);
    const Structure st = analyze(t.csr, t.rows);
    EXPECT_EQ(tessera::cuda::plan_format(st, TSR_FORMAT_AUTO, 4, 4).format, TSR_FORMAT_DIA);
}

TEST(SparseGpuRules, CsrKernelFromRowLengths) {
    using namespace tessera::bench;
    EXPECT_EQ(csr_kernel(laplacian_2d(50)), CsrKernel::rows);
    EXPECT_EQ(csr_kernel(tridiagonal(1000, 1)), CsrKernel::rows);
    EXPECT_EQ(csr_kernel(random_k_per_row(1000, 20000, 7, 1)), CsrKernel::lanes2);
    EXPECT_EQ(csr_kernel(random_k_per_row(1000, 20000, 12, 1)), CsrKernel::lanes4);
    EXPECT_EQ(csr_kernel(random_k_per_row(1000, 20000, 20, 1)), CsrKernel::lanes8);
    EXPECT_EQ(csr_kernel(random_k_per_row(1000, 20000, 40, 1)), CsrKernel::lanes16);
    EXPECT_EQ(csr_kernel(random_k_per_row(1000, 20000, 80, 1)), CsrKernel::lanes32);
    EXPECT_EQ(csr_kernel(power_law(20000, 20000, 10, 1)), CsrKernel::merge);
    EXPECT_EQ(csr_kernel(one_dense_row(3000, 3000, 4, 7, 1)), CsrKernel::merge)
        << "a row of 3000: 1500 steps";
    EXPECT_EQ(csr_kernel(random_k_per_row(10, 10, 0, 1)), CsrKernel::rows);
    // Skewed rows of a small product, none over 512 entries: a warp per row, one launch; the
    // same rows in a product beyond 2^18 entries, or one row over 512: the merge path.
    EXPECT_EQ(csr_kernel(power_law(3000, 3000, 10, 21, 300)), CsrKernel::lanes32);
    EXPECT_EQ(csr_kernel(power_law(30000, 30000, 10, 21, 300)), CsrKernel::merge);
    EXPECT_EQ(csr_kernel(power_law(3000, 3000, 10, 21, 600)), CsrKernel::merge);
    // A named format gets its GPU kernel too.
    EXPECT_EQ(kernel_of(gpu_plan(random_k_per_row(1000, 20000, 12, 1), TSR_FORMAT_CSR)),
              CsrKernel::lanes4);
    EXPECT_EQ(kernel_of(gpu_plan(random_k_per_row(1000, 20000, 12, 1), TSR_FORMAT_ELL)),
              CsrKernel::rows);
}

// gpu_tiles: short rows scattered over a wide x, only where allowed (kGpuTilesAuto, off until
// measured, or the caller's flag).
TEST(SparseGpuRules, TilesOnlyWhereAllowed) {
    using namespace tessera::bench;
    auto kernel = [](const tessera::bench::CsrMatrix &m, bool allow) {
        Storage s = storage_of(m);
        const auto &t = std::get<Typed<double, int32_t>>(s.typed);
        const Structure st = analyze(t.csr, t.rows);
        return gpu_csr_kernel(t.rows, &st, allow);
    };
    const CsrMatrix wide = random_k_per_row(20000, int64_t(1) << 20, 16, 1);
    EXPECT_EQ(kernel(wide, true), CsrKernel::tiles);
    EXPECT_EQ(kernel(wide, false), CsrKernel::merge);
    EXPECT_EQ(kernel(wide, kGpuTilesAuto), kGpuTilesAuto ? CsrKernel::tiles : CsrKernel::merge);
    EXPECT_EQ(kernel(random_k_per_row(20000, 20000, 16, 1), true), CsrKernel::lanes8)
        << "x of 20000";
    EXPECT_EQ(kernel(random_k_per_row(2000, int64_t(1) << 20, 80, 1), true), CsrKernel::merge)
        << "rows of 80";
    if (!kGpuTilesAuto) EXPECT_NE(kernel_of(gpu_plan(wide, TSR_FORMAT_CSR)), CsrKernel::tiles);
}

// AUTO's own tiles rule: short rows scattered over a wide x, none longer than 128.
TEST(SparseGpuRules, AutoTakesTilesForScatteredRows) {
    using namespace tessera::bench;
    auto plan_of = [](const CsrMatrix &m, bool single) {
        std::vector<int32_t> rp(m.row_ptr.begin(), m.row_ptr.end()),
            col(m.col.begin(), m.col.end());
        Storage s{Typed<double, int32_t>{}};
        if (single) {
            std::vector<float> val(m.val.begin(), m.val.end());
            Typed<float, int32_t> t;
            t.csr = assemble_from_csr<float, int32_t>(m.rows, m.cols, m.nnz(), rp.data(),
                                                      col.data(), val.data());
            t.rows = row_stats(t.csr.rows, t.csr.cols, t.csr.row_ptr.data());
            s = Storage{std::move(t)};
        } else {
            s = storage_of(m);
        }
        EXPECT_TRUE(apply_format(s, TSR_FORMAT_AUTO, gpu_rules).fault.empty());
        return std::visit([](const auto &t) { return t.plan; }, s.typed);
    };
    const CsrMatrix wide = random_k_per_row(20000, int64_t(1) << 20, 16, 1);
    const Plan f = plan_of(wide, true);
    EXPECT_EQ(f.format, TSR_FORMAT_CSR) << f.reason;
    EXPECT_EQ(kernel_of(f), CsrKernel::tiles) << f.reason;
    EXPECT_NE(f.reason.find("tiles"), std::string::npos) << f.reason;
    const Plan d = plan_of(wide, false);
    EXPECT_EQ(d.format, TSR_FORMAT_CSR) << d.reason;
    EXPECT_EQ(kernel_of(d), CsrKernel::tiles) << d.reason;
    EXPECT_NE(kernel_of(plan_of(random_k_per_row(20000, 20000, 16, 1), true)), CsrKernel::tiles)
        << "x of 20000";
    // A long row: neither type takes the tiles (long tiles' atomics cost more than they save).
    CsrMatrix long_row = one_dense_row(200000, int64_t(1) << 20, 8, 5, 1); // mean 13
    EXPECT_NE(kernel_of(plan_of(long_row, true)), CsrKernel::tiles) << "float, a long row";
    EXPECT_NE(kernel_of(plan_of(long_row, false)), CsrKernel::tiles) << "double, a long row";
}

// Small matrices: CSR whatever their shape (launches decide there).
TEST(SparseGpuRules, SmallMatricesTakeCsr) {
    using namespace tessera::bench;
    const Plan banded_small = gpu_plan(tridiagonal(3000, 1));
    EXPECT_EQ(banded_small.format, TSR_FORMAT_CSR) << banded_small.reason;
    EXPECT_NE(banded_small.reason.find("small"), std::string::npos) << banded_small.reason;
    EXPECT_EQ(gpu_plan(one_dense_row(3000, 3000, 4, 9, 1)).format, TSR_FORMAT_CSR);
    EXPECT_EQ(gpu_plan(tridiagonal(100000, 1)).format, TSR_FORMAT_DIA)
        << "300 000 entries: not small";
}

TEST(SparseGpuRules, KernelNames) {
    EXPECT_STREQ(kernel_name(TSR_FORMAT_CSR, CsrKernel::rows), "gpu-rows");
    EXPECT_STREQ(kernel_name(TSR_FORMAT_CSR, CsrKernel::lanes2), "gpu-lanes-2");
    EXPECT_STREQ(kernel_name(TSR_FORMAT_CSR, CsrKernel::lanes32), "gpu-lanes-32");
    EXPECT_STREQ(kernel_name(TSR_FORMAT_CSR, CsrKernel::merge), "gpu-merge");
    EXPECT_STREQ(kernel_name(TSR_FORMAT_CSR, CsrKernel::tiles), "gpu-tiles");
    EXPECT_STREQ(kernel_name(TSR_FORMAT_ELL, CsrKernel::rows), "standard");
    // A plan made by the GPU's rules says so.
    EXPECT_EQ(gpu_plan(tessera::bench::tridiagonal(1000, 1)).by, tessera::core::kPlanByGpu);
}

} // namespace
