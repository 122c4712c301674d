// Sparse × dense products on the CUDA backend against the long double oracle: generated
// matrices (short, long, empty rows; one with rows of thousands of entries) × value type ×
// index type × layout × op × k (every group width and columns per lane, and the grid's
// second dimension past 128 columns) × padded leading dimensions × alpha/beta, with X and Y
// on the device and on the host; after a format's optimize (a CSR copy on the device) and on
// the gpu_tiles layout. Rows longer than the chunk length run in chunks; column-major blocks of
// 8 columns or more run transposed (CTest runs the suite again with a small workspace, so that
// the columns go in passes).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "cuda_support.hpp"
#include "spmm_support.hpp"

namespace tessera::test {
namespace {

// Bit 0: X on the device; bit 1: Y on the device.
template <typename T> BlockRunner<T> placed(int where) {
    return [where](tsr_handle h, const BlockCase &c, T alpha, tsr_sparse A, const std::vector<T> &X,
                   int64_t ldx, T beta, std::vector<T> &Y, int64_t ldy) {
        DeviceArray<T> dx(X), dy(Y);
        const T *px = (where & 1) ? dx.ptr : X.data();
        T *py = (where & 2) ? dy.ptr : Y.data();
        tsr_status s;
        if constexpr (sizeof(T) == 4)
            s = tsr_sspmm(h, c.layout, c.op, c.k, alpha, A, px, ldx, beta, py, ldy);
        else s = tsr_dspmm(h, c.layout, c.op, c.k, alpha, A, px, ldx, beta, py, ldy);
        if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
            ADD_FAILURE() << "device error after the product: " << cudaGetErrorString(e);
            return TSR_ERR_DEVICE;
        }
        if (s == TSR_SUCCESS && (where & 2)) dy.to_host(Y);
        return s;
    };
}

struct CudaHandle {
    tsr_handle h = nullptr;
    CudaHandle() {
        EXPECT_EQ(tsr_create(&h), TSR_SUCCESS);
        EXPECT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    }
    ~CudaHandle() { tsr_destroy(h); }
};

constexpr int64_t kColumns[] = {0, 1, 2, 3, 4, 5, 8, 13, 16, 31, 32, 33, 64, 65, 128, 129, 300};

template <typename T>
void sweep(tsr_handle h, const Entries &e, tsr_index_type itype, tsr_format format, bool all) {
    SCOPED_TRACE(e.name + (sizeof(T) == 4 ? " f32" : " f64") +
                 (itype == TSR_INDEX_I32 ? " i32 " : " i64 ") + format_label(format));
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<T>(nullptr, e, itype, Door::csr, &A), TSR_SUCCESS) << tsr_last_error();
    const tsr_status s = tsr_sparse_optimize(h, A, format);
    if (s == TSR_ERR_NOT_SUPPORTED) {
        tsr_sparse_destroy(A);
        return;
    }
    ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    uint64_t seed = 0;
    for (tsr_layout layout : {TSR_COL_MAJOR, TSR_ROW_MAJOR})
        for (tsr_op op : {TSR_OP_N, TSR_OP_T})
            for (int64_t k : kColumns) {
                if (!all && k > 4 && k % 2 == 1 && k != 33) continue;
                const double ab[][2] = {{1, 0}, {-1, 1}, {0.5, -2}, {0, 0.5}, {0, 0}};
                for (const auto &c : ab) {
                    if (!all && c[0] == 0 && k > 1) continue;
                    const int where = int(seed % 4);
                    SCOPED_TRACE(where);
                    EXPECT_TRUE(check_block_product<T>(
                        h, A, e, BlockCase{layout, op, k, int64_t(seed % 3), c[0], c[1]}, seed,
                        placed<T>(where)));
                    ++seed;
                }
            }
    tsr_sparse_destroy(A);
}

// The matrix with rows and columns swapped (a dense row becomes a dense column).
Entries swapped(Entries e) {
    std::swap(e.rows, e.cols);
    std::swap(e.row, e.col);
    e.name += "^T";
    return e;
}

// Rows longer than the chunk length (kBlockChunk, 128) in A (the dense row, the power law's
// longest) and in Aᵀ (the dense column).
std::vector<Entries> matrices() {
    using namespace tessera::bench;
    return {from_csr(random_k_per_row(300, 200, 7, 1)),
            from_csr(with_empty_rows(700, 900, 4, 0.3, 2)),
            from_csr(one_dense_row(500, 3000, 3, 123, 3)),
            swapped(from_csr(one_dense_row(400, 2000, 3, 77, 6))),
            from_csr(power_law(2000, 2000, 8, 4)),
            from_csr(random_k_per_row(1, 1, 1, 5)),
            empty_matrix(0, 5),
            empty_matrix(7, 9)};
}

TEST(CudaSpmm, EveryShapeLayoutAndColumnCount) {
    TSR_REQUIRE_CUDA();
    CudaHandle cuda;
    bool first = true;
    for (const Entries &e : matrices()) {
        sweep<float>(cuda.h, e, TSR_INDEX_I32, TSR_FORMAT_CSR, first);
        sweep<double>(cuda.h, e, TSR_INDEX_I64, TSR_FORMAT_CSR, first);
        first = false;
    }
}

// Formats other than CSR, and CSR on gpu_tiles, keep no row pointers on the device: the block
// products make a CSR copy there.
TEST(CudaSpmm, EveryFormatsPlanMakesItsCsrCopy) {
    TSR_REQUIRE_CUDA();
    CudaHandle cuda;
    const Entries band = from_csr(tessera::bench::banded(3000, 3, 1.0, 7));
    for (tsr_format f :
         {TSR_FORMAT_AUTO, TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_DIA, TSR_FORMAT_HYB}) {
        sweep<float>(cuda.h, band, TSR_INDEX_I32, f, false);
        sweep<double>(cuda.h, band, TSR_INDEX_I64, f, false);
    }
}

} // namespace
} // namespace tessera::test
