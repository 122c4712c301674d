// Sparse products on the CUDA backend against the float64 oracle: every format and AUTO ×
// value type × index type × op × alpha/beta on generated matrices and on the shared
// SuiteSparse set, with x and y in host and in device memory; matrices optimized on the CPU
// used on the GPU and back; device memory freed on destroy and re-optimize, and an
// out-of-memory error; device vectors refused by host backends and routed by auto; threads
// and a user stream; the kernel choice in the verbose log.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "cuda_support.hpp"
#include "sparse_support.hpp"
#include "spmv_split.hpp"

namespace tessera::test {
namespace {

using tessera::bench::CsrMatrix;

// Where a product's vectors live: bit 0 x on the device, bit 1 y on the device.
template <typename T> ProductRunner<T> placed(int where, cudaStream_t stream = nullptr) {
    return [where, stream](tsr_handle h, tsr_op op, T alpha, tsr_sparse A, const std::vector<T> &x,
                           T beta, std::vector<T> &y) {
        DeviceArray<T> dx(x), dy(y);
        const T *px = (where & 1) ? dx.ptr : x.data();
        T *py = (where & 2) ? dy.ptr : y.data();
        tsr_status s;
        if constexpr (sizeof(T) == 4) s = tsr_sspmv(h, op, alpha, A, px, beta, py);
        else s = tsr_dspmv(h, op, alpha, A, px, beta, py);
        const cudaError_t e = stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            ADD_FAILURE() << "device error after the product: " << cudaGetErrorString(e);
            return TSR_ERR_DEVICE;
        }
        if (s == TSR_SUCCESS && (where & 2)) dy.to_host(y);
        return s;
    };
}

const char *where_name(int where) {
    static const char *const names[] = {"x host, y host", "x device, y host", "x host, y device",
                                        "x device, y device"};
    return names[where & 3];
}

tsr_handle cuda_handle() {
    tsr_handle h = nullptr;
    EXPECT_EQ(tsr_create(&h), TSR_SUCCESS);
    EXPECT_EQ(tsr_set_backend(h, TSR_BACKEND_CUDA), TSR_SUCCESS) << tsr_last_error();
    return h;
}

tsr_handle host_handle(tsr_backend backend, int threads = 2) {
    tsr_handle h = nullptr;
    EXPECT_EQ(tsr_create(&h), TSR_SUCCESS);
    EXPECT_EQ(tsr_set_backend(h, backend), TSR_SUCCESS) << tsr_last_error();
    EXPECT_EQ(tsr_set_num_threads(h, threads), TSR_SUCCESS);
    return h;
}

struct Generated {
    std::string name;
    std::function<Entries()> make;
    bool large; // fewer alpha/beta cases
};

// Each CSR kernel of the GPU rules has a matrix here: gpu-rows (tridiagonal, Laplacian,
// empty rows), gpu-lanes-2 … 32 (random k per row, columns near the diagonal), gpu-merge
// (power law, dense rows across many blocks, scattered columns, many empty rows).
std::vector<Generated> generated() {
    using namespace tessera::bench;
    return {
        {"random", [] { return from_csr(random_k_per_row(300, 200, 7, 1)); }, false},
        {"empty_rows", [] { return from_csr(with_empty_rows(4000, 4000, 5, 0.3, 2)); }, false},
        {"many_empty_rows", [] { return from_csr(with_empty_rows(20000, 20000, 6, 0.5, 3)); },
         false},
        {"dense_row", [] { return from_csr(one_dense_row(3000, 60000, 4, 1500, 4)); }, true},
        {"longer_dense_row", [] { return from_csr(one_dense_row(2000, 300000, 2, 7, 5)); }, true},
        {"banded", [] { return from_csr(banded(6000, 4, 0.9, 6)); }, false},
        {"tridiagonal", [] { return from_csr(tridiagonal(20000, 7)); }, false},
        {"laplacian", [] { return from_csr(laplacian_2d(100)); }, false},
        {"power_law", [] { return from_csr(power_law(40000, 40000, 10, 8)); }, true},
        {"lanes2", [] { return from_csr(random_k_per_row(3000, 20000, 7, 9)); }, false},
        {"lanes4", [] { return from_csr(random_k_per_row(3000, 20000, 12, 10)); }, false},
        {"lanes8", [] { return from_csr(random_k_per_row(3000, 20000, 20, 11)); }, false},
        {"lanes16", [] { return from_csr(random_k_per_row(2000, 20000, 40, 12)); }, false},
        {"lanes32", [] { return from_csr(random_k_per_row(1000, 20000, 80, 13)); }, false},
        {"scattered", [] { return from_csr(random_k_per_row(3000, 200000, 40, 14)); }, true},
        // Short rows over an x of 2^19: AUTO in float runs CSR on column-sorted row tiles.
        {"wide_scattered", [] { return from_csr(random_k_per_row(6000, int64_t(1) << 19, 8, 18)); },
         true},
        {"wide", [] { return from_csr(random_k_per_row(40, 3000, 30, 15)); }, false},
        {"tall", [] { return from_csr(random_k_per_row(3000, 40, 2, 16)); }, false},
        {"one_by_one", [] { return from_csr(random_k_per_row(1, 1, 1, 17)); }, false},
        {"zero_rows", [] { return empty_matrix(0, 5); }, false},
        {"zero_cols", [] { return empty_matrix(5, 0); }, false},
        {"zero_by_zero", [] { return empty_matrix(0, 0); }, false},
        {"no_entries", [] { return empty_matrix(7, 9); }, false},
    };
}

// Op N with alpha in {1, -1, 0.5, 0} × beta in {0, 1, -1, -2}; T and C with fewer. beta == 0
// poisons y with NaN and alpha == 0 poisons x (check_product), so a read shows.
std::vector<ProductCase> gpu_cases(bool large) {
    std::vector<ProductCase> cases;
    for (double alpha : {1.0, -1.0, 0.5, 0.0})
        for (double beta : {0.0, 1.0, -1.0, -2.0})
            if (!large || alpha != 0) cases.push_back({TSR_OP_N, alpha, beta});
    for (const ProductCase &c : standard_cases(TSR_OP_T))
        if (!large || c.alpha != 0) cases.push_back(c);
    cases.push_back({TSR_OP_T, 1.0, 1.0});
    cases.push_back({TSR_OP_C, 2.0, 0.0});
    cases.push_back({TSR_OP_C, -1.0, 0.5});
    return cases;
}

constexpr tsr_format kFormats[] = {TSR_FORMAT_AUTO, TSR_FORMAT_CSR, TSR_FORMAT_COO,
                                   TSR_FORMAT_ELL,  TSR_FORMAT_DIA, TSR_FORMAT_HYB};

std::string label(const char *dtype, tsr_index_type itype, Door door, tsr_format format) {
    return std::string("dtype=") + dtype + " itype=" + (itype == TSR_INDEX_I32 ? "i32" : "i64") +
           " door=" + door_name(door) + " format=" + format_label(format);
}

// Creates, optimizes on `h` and runs `cases`, the vectors' places taking turns.
template <typename T>
void run_cases(tsr_handle h, const Entries &e, tsr_format format, tsr_index_type itype, Door door,
               const std::vector<ProductCase> &cases, uint64_t seed, int turn) {
    SCOPED_TRACE(label(sizeof(T) == 4 ? "f32" : "f64", itype, door, format));
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<T>(h, e, itype, door, &A), TSR_SUCCESS) << tsr_last_error();
    const tsr_status s = tsr_sparse_optimize(h, A, format);
    if (s == TSR_ERR_NOT_SUPPORTED) { // the padding limit
        EXPECT_TRUE(format == TSR_FORMAT_ELL || format == TSR_FORMAT_DIA) << tsr_last_error();
        EXPECT_NE(std::string(tsr_last_error()).find("slots"), std::string::npos)
            << tsr_last_error();
    } else {
        ASSERT_EQ(s, TSR_SUCCESS) << tsr_last_error();
        tsr_format got = TSR_FORMAT_AUTO;
        ASSERT_EQ(tsr_sparse_get_format(A, &got), TSR_SUCCESS);
        if (format != TSR_FORMAT_AUTO) EXPECT_EQ(got, format);
        for (size_t k = 0; k < cases.size(); ++k) {
            const int where = int(k + size_t(turn)) & 3;
            EXPECT_TRUE(check_product<T>(h, A, e, cases[k], seed++, placed<T>(where)))
                << where_name(where);
        }
    }
    EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
}

class CudaSpmvGenerated : public ::testing::TestWithParam<size_t> {};

TEST_P(CudaSpmvGenerated, EveryFormatTypeOpScaleAndPlace) {
    TSR_REQUIRE_CUDA();
    const Generated g = generated()[GetParam()];
    const Entries e = g.make();
    SCOPED_TRACE(g.name + " " + std::to_string(e.rows) + "x" + std::to_string(e.cols) +
                 " entries " + std::to_string(e.nnz()));
    tsr_handle h = cuda_handle();
    const std::vector<ProductCase> cases = gpu_cases(g.large);
    uint64_t seed = 7000 * GetParam();
    int turn = 0;
    for (tsr_format format : kFormats)
        for (tsr_index_type itype : {TSR_INDEX_I32, TSR_INDEX_I64}) {
            const Door door = (turn % 2) ? Door::coo : Door::csr;
            run_cases<float>(h, e, format, itype, door, cases, seed += 100, turn++);
            run_cases<double>(h, e, format, itype, door == Door::csr ? Door::coo : Door::csr, cases,
                              seed += 100, turn++);
        }
    tsr_destroy(h);
}

INSTANTIATE_TEST_SUITE_P(Matrices, CudaSpmvGenerated,
                         ::testing::Range<size_t>(0, generated().size()),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                             return generated()[info.param].name;
                         });

class CudaSpmvCollection : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaSpmvCollection, EveryFormatTypeAndPlace) {
    TSR_REQUIRE_CUDA();
    if (GetParam() == "none")
        GTEST_SKIP() << "the shared matrices are not beside the repository (../shared/matrices)";
    const tessera::bench::CooMatrix m =
        tessera::bench::read_matrix_market(shared_matrices_dir() + "/" + GetParam() + ".mtx");
    Entries e = from_coo(m);
    e.name = GetParam();
    tsr_handle h = cuda_handle();
    const std::vector<ProductCase> cases = {{TSR_OP_N, 1.0, 0.0},
                                            {TSR_OP_N, -0.5, 2.0},
                                            {TSR_OP_T, 1.0, 0.0},
                                            {TSR_OP_T, -0.5, 2.0},
                                            {TSR_OP_C, 2.0, 1.0}};
    uint64_t seed = std::hash<std::string>{}(GetParam());
    int turn = 0;
    for (tsr_format format : kFormats)
        for (tsr_index_type itype : {TSR_INDEX_I32, TSR_INDEX_I64}) {
            const Door door = (turn % 2) ? Door::coo : Door::csr;
            run_cases<float>(h, e, format, itype, door, cases, seed += 10, turn++);
            run_cases<double>(h, e, format, itype, door == Door::csr ? Door::coo : Door::csr, cases,
                              seed += 10, turn++);
        }
    tsr_destroy(h);
}

INSTANTIATE_TEST_SUITE_P(SuiteSparse, CudaSpmvCollection,
                         ::testing::ValuesIn(shared_matrix_names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                             std::string n = info.param;
                             for (char &c : n)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

// A matrix optimized on a CPU handle is copied to the device on its first CUDA product (in the
// format the CPU chose, with the GPU's own CSR kernel); one optimized on the CUDA handle runs
// on the CPU too. Both backends keep their data side by side.
TEST(CudaSpmv, OptimizedOnOneBackendUsedOnTheOther) {
    TSR_REQUIRE_CUDA();
    using namespace tessera::bench;
    tsr_handle gpu = cuda_handle(), cpu = host_handle(TSR_BACKEND_CPU);
    const std::vector<Entries> matrices = {from_csr(power_law(20000, 20000, 10, 1)),
                                           from_csr(tridiagonal(5000, 2)),
                                           from_csr(random_k_per_row(4000, 300000, 20, 3)),
                                           from_csr(one_dense_row(5000, 5000, 4, 9, 4))};
    uint64_t seed = 1;
    for (const Entries &e : matrices)
        for (tsr_format format : kFormats)
            for (tsr_handle optimizer : {cpu, gpu}) {
                SCOPED_TRACE(e.name + std::string(" format=") + format_label(format) +
                             (optimizer == cpu ? " optimized on cpu" : " optimized on cuda"));
                tsr_sparse A = nullptr;
                ASSERT_EQ(create_matrix<double>(optimizer, e, TSR_INDEX_I32, Door::csr, &A),
                          TSR_SUCCESS);
                if (tsr_sparse_optimize(optimizer, A, format) != TSR_SUCCESS) {
                    EXPECT_TRUE(format == TSR_FORMAT_ELL || format == TSR_FORMAT_DIA)
                        << tsr_last_error();
                    tsr_sparse_destroy(A);
                    continue;
                }
                for (int round = 0; round < 2; ++round)
                    for (tsr_op op : {TSR_OP_N, TSR_OP_T}) {
                        EXPECT_TRUE(check_product<double>(cpu, A, e, {op, 1.5, -1.0}, seed++));
                        EXPECT_TRUE(check_product<double>(gpu, A, e, {op, 1.5, -1.0}, seed++,
                                                          placed<double>(3)));
                        EXPECT_TRUE(check_product<double>(gpu, A, e, {op, -1.0, 0.0}, seed++));
                    }
                EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
            }
    tsr_destroy(gpu);
    tsr_destroy(cpu);
}

size_t free_device_memory() {
    size_t free_bytes = 0, total = 0;
    EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    return free_bytes;
}

// The device copy (and the transpose's, made by the first transposed product) is freed by
// tsr_sparse_destroy, and replaced, not added to, by tsr_sparse_optimize.
TEST(CudaSpmv, DestroyAndOptimizeFreeDeviceMemory) {
    TSR_REQUIRE_CUDA();
    // 4 M entries in float64 with 64-bit indices: 64 MiB on the device, 128 MiB with Aᵀ.
    const Entries e = from_csr(tessera::bench::random_k_per_row(200000, 20000, 20, 5));
    const int64_t matrix_bytes = e.nnz() * 16;
    tsr_handle h = cuda_handle();
    std::vector<double> x(size_t(e.rows), 1.0), y(size_t(e.rows), 0.0);
    DeviceArray<double> dx(x), dy(y);
    auto products = [&](tsr_sparse A) {
        EXPECT_EQ(tsr_dspmv(h, TSR_OP_N, 1.0, A, dx.ptr, 0.0, dy.ptr), TSR_SUCCESS)
            << tsr_last_error();
        EXPECT_EQ(tsr_dspmv(h, TSR_OP_T, 1.0, A, dx.ptr, 0.0, dy.ptr), TSR_SUCCESS)
            << tsr_last_error();
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    };
    { // The handle's own buffers (carries) reach their size on a first matrix of the same shape.
        tsr_sparse W = nullptr;
        ASSERT_EQ(create_matrix<double>(h, e, TSR_INDEX_I64, Door::csr, &W), TSR_SUCCESS);
        ASSERT_EQ(tsr_sparse_optimize(h, W, TSR_FORMAT_CSR), TSR_SUCCESS) << tsr_last_error();
        products(W);
        tsr_sparse_destroy(W);
    }
    const int64_t before = int64_t(free_device_memory());
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<double>(h, e, TSR_INDEX_I64, Door::csr, &A), TSR_SUCCESS);
    ASSERT_EQ(tsr_sparse_optimize(h, A, TSR_FORMAT_CSR), TSR_SUCCESS) << tsr_last_error();
    const int64_t optimized = int64_t(free_device_memory());
    EXPECT_LT(optimized, before - matrix_bytes * 9 / 10) << "the device copy is made by optimize";
    products(A);
    const int64_t with_transpose = int64_t(free_device_memory());
    EXPECT_LT(with_transpose, optimized - matrix_bytes * 9 / 10)
        << "the transposed product copies Aᵀ";
    for (int k = 0; k < 4; ++k) { // each optimize replaces the device copy
        ASSERT_EQ(tsr_sparse_optimize(h, A, k % 2 ? TSR_FORMAT_CSR : TSR_FORMAT_ELL), TSR_SUCCESS)
            << tsr_last_error();
        products(A);
        EXPECT_LT(int64_t(free_device_memory()), before - matrix_bytes * 9 / 10);
        EXPECT_GT(int64_t(free_device_memory()), with_transpose - matrix_bytes / 2)
            << "optimize " << k;
    }
    EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
    EXPECT_GT(int64_t(free_device_memory()), before - (int64_t(8) << 20))
        << "destroy frees the device copies";
    tsr_destroy(h);
}

// No device memory left for the matrix: TSR_ERR_OUT_OF_MEMORY with the reason, then, with
// memory back, the same matrix works.
TEST(CudaSpmv, DeviceOutOfMemoryIsAnError) {
    TSR_REQUIRE_CUDA();
    const Entries e =
        from_csr(tessera::bench::random_k_per_row(200000, 20000, 20, 6)); // 64 MiB on the device
    tsr_handle h = cuda_handle();
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<double>(h, e, TSR_INDEX_I64, Door::csr, &A), TSR_SUCCESS);
    std::vector<void *> hog;
    for (size_t chunk = size_t(1) << 30; chunk >= (size_t(1) << 20);) {
        if (free_device_memory() < (size_t(48) << 20)) break;
        void *p = nullptr;
        if (cudaMalloc(&p, chunk) == cudaSuccess) hog.push_back(p);
        else (void)cudaGetLastError(), chunk /= 2;
    }
    const tsr_status s = tsr_sparse_optimize(h, A, TSR_FORMAT_CSR);
    const std::string why = tsr_last_error();
    std::vector<double> x(size_t(e.cols), 1.0), y(size_t(e.rows), 3.0);
    const tsr_status product = tsr_dspmv(h, TSR_OP_N, 1.0, A, x.data(), 0.0, y.data());
    const std::string product_why = tsr_last_error();
    for (void *p : hog) cudaFree(p);
    EXPECT_EQ(s, TSR_ERR_OUT_OF_MEMORY) << why;
    EXPECT_NE(why.find("device memory"), std::string::npos) << why;
    EXPECT_EQ(product, TSR_ERR_OUT_OF_MEMORY) << product_why;
    for (double v : y) ASSERT_EQ(v, 3.0) << "a failed product wrote y";
    EXPECT_EQ(tsr_sparse_optimize(h, A, TSR_FORMAT_CSR), TSR_SUCCESS) << tsr_last_error();
    EXPECT_TRUE(check_product<double>(h, A, e, {TSR_OP_N, 1.0, 0.0}, 1));
    tsr_sparse_destroy(A);
    tsr_destroy(h);
}

// Host backends never read device vectors: the CPU and reference handles refuse them with a
// clear error and write nothing; an auto handle sends them to the CUDA backend.
TEST(CudaSpmv, DeviceVectorsRefusedByHostBackendsRoutedByAuto) {
    TSR_REQUIRE_CUDA();
    const Entries e = from_csr(tessera::bench::random_k_per_row(500, 400, 6, 7));
    for (tsr_backend backend : {TSR_BACKEND_CPU, TSR_BACKEND_REFERENCE}) {
        tsr_handle h = host_handle(backend);
        tsr_sparse A = nullptr;
        ASSERT_EQ(create_matrix<float>(h, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
        ASSERT_EQ(tsr_sparse_optimize(h, A, TSR_FORMAT_AUTO), TSR_SUCCESS);
        std::vector<float> x(size_t(e.cols), 1.0f), y(size_t(e.rows), 5.0f);
        DeviceArray<float> dx(x), dy(y);
        for (int where : {1, 2, 3}) {
            EXPECT_EQ(tsr_sspmv(h, TSR_OP_N, 1.0f, A, (where & 1) ? dx.ptr : x.data(), 0.0f,
                                (where & 2) ? dy.ptr : y.data()),
                      TSR_ERR_INVALID_ARGUMENT)
                << where_name(where);
            EXPECT_NE(std::strstr(tsr_last_error(), "device memory"), nullptr) << tsr_last_error();
        }
        std::vector<float> back(y.size());
        dy.to_host(back);
        for (size_t i = 0; i < y.size(); ++i)
            ASSERT_TRUE(back[i] == 5.0f && y[i] == 5.0f) << "y written";
        tsr_sparse_destroy(A);
        tsr_destroy(h);
    }
    tsr_handle h = host_handle(TSR_BACKEND_AUTO);
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<float>(h, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
    ASSERT_EQ(tsr_sparse_optimize(h, A, TSR_FORMAT_AUTO), TSR_SUCCESS);
    for (int where = 0; where < 4; ++where)
        for (tsr_op op : {TSR_OP_N, TSR_OP_T})
            EXPECT_TRUE(check_product<float>(h, A, e, {op, 2.0, -1.0}, uint64_t(where),
                                             placed<float>(where)))
                << where_name(where);
    tsr_sparse_destroy(A);
    tsr_destroy(h);
}

// Several threads, each with its own CUDA handle, multiply one matrix at once, plain and
// transposed (the first transposed products race to build Aᵀ's copy), host and device vectors.
TEST(CudaSpmv, ThreadsShareAMatrix) {
    TSR_REQUIRE_CUDA();
    const Entries e = from_csr(tessera::bench::power_law(30000, 30000, 10, 8));
    for (tsr_format format : {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_HYB}) {
        SCOPED_TRACE(format_label(format));
        tsr_handle owner = cuda_handle();
        tsr_sparse A = nullptr;
        ASSERT_EQ(create_matrix<double>(owner, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
        ASSERT_EQ(tsr_sparse_optimize(owner, A, format), TSR_SUCCESS) << tsr_last_error();
        std::vector<int> failures(4, 0);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                tsr_handle h = cuda_handle();
                for (int rep = 0; rep < 6; ++rep) {
                    const ProductCase c{rep % 2 ? TSR_OP_T : TSR_OP_N, 1.0, rep % 3 ? 0.5 : 0.0};
                    if (!check_product<double>(h, A, e, c, uint64_t(100 * t + rep),
                                               placed<double>((t + rep) & 3)))
                        ++failures[size_t(t)];
                }
                tsr_destroy(h);
            });
        for (auto &th : threads) th.join();
        for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t;
        tsr_sparse_destroy(A);
        tsr_destroy(owner);
    }
}

// The merge path runs in one launch where its crossing rows are few and short (the block that
// finishes last adds them, counting blocks on a per-handle counter it puts back to zero) and in
// two otherwise. Matrices of both kinds take turns on one handle, and on a second handle on
// another stream, so that a counter left non-zero, or a crossing row added twice or not at all,
// shows in the next product. The split computed here says which path each matrix takes.
TEST(CudaSpmv, MergePathInOneLaunchOrTwo) {
    using namespace tessera::bench;
    using tessera::cuda::merge_in_one_launch;
    struct Case {
        const char *name;
        CsrMatrix m;
        bool one_launch;
    };
    std::vector<Case> cases;
    cases.push_back({"small power law", power_law(3000, 3000, 10, 21), true});
    cases.push_back({"row over 29 blocks", one_dense_row(3000, 60000, 4, 1500, 22), true});
    cases.push_back({"many crossing rows", power_law(120000, 120000, 10, 23), false});
    cases.push_back({"row over 147 blocks", one_dense_row(2000, 300000, 2, 7, 24), false});
    std::vector<Entries> entries;
    for (const Case &c : cases) {
        const auto split =
            tessera::cuda::merge_split<int64_t>(c.m.rows, c.m.nnz(), c.m.row_ptr.data());
        EXPECT_EQ(merge_in_one_launch(split.crossing), c.one_launch)
            << c.name << ": " << split.crossing.size() << " crossing rows";
        entries.push_back(from_csr(c.m));
    }
    TSR_REQUIRE_CUDA(); // the split above is the host's
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    tsr_handle h[2] = {cuda_handle(), cuda_handle()};
    ASSERT_EQ(tsr_set_cuda_stream(h[1], stream), TSR_SUCCESS) << tsr_last_error();
    std::vector<tsr_sparse> A(cases.size(), nullptr);
    for (size_t i = 0; i < cases.size(); ++i) {
        ASSERT_EQ(create_matrix<float>(h[0], entries[i], TSR_INDEX_I32, Door::csr, &A[i]),
                  TSR_SUCCESS);
        ASSERT_EQ(tsr_sparse_optimize(h[0], A[i], TSR_FORMAT_CSR), TSR_SUCCESS) << tsr_last_error();
    }
    uint64_t seed = 0;
    for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < cases.size(); ++i)
            for (int k = 0; k < 2; ++k) {
                const ProductCase c{round == 2 ? TSR_OP_T : TSR_OP_N, k ? -1.0 : 1.0,
                                    round == 1 ? 0.5 : 0.0};
                EXPECT_TRUE(check_product<float>(
                    h[k], A[i], entries[i], c, ++seed,
                    placed<float>(k ? 3 : int(round + i) & 3, k ? stream : nullptr)))
                    << cases[i].name << ", handle " << k << ", round " << round;
            }
    for (tsr_sparse a : A) tsr_sparse_destroy(a);
    tsr_destroy(h[0]);
    tsr_destroy(h[1]);
    cudaStreamDestroy(stream);
}

// On a user stream, device vectors: the product is queued on that stream.
TEST(CudaSpmv, UserStream) {
    TSR_REQUIRE_CUDA();
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    tsr_handle h = cuda_handle();
    ASSERT_EQ(tsr_set_cuda_stream(h, stream), TSR_SUCCESS) << tsr_last_error();
    const Entries e = from_csr(tessera::bench::power_law(20000, 20000, 10, 9));
    for (tsr_format format :
         {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_HYB, TSR_FORMAT_AUTO}) {
        tsr_sparse A = nullptr;
        ASSERT_EQ(create_matrix<float>(h, e, TSR_INDEX_I64, Door::coo, &A), TSR_SUCCESS);
        if (tsr_sparse_optimize(h, A, format) == TSR_SUCCESS)
            for (tsr_op op : {TSR_OP_N, TSR_OP_T})
                for (int where = 0; where < 4; ++where)
                    EXPECT_TRUE(check_product<float>(h, A, e, {op, 1.0, 2.0}, uint64_t(where),
                                                     placed<float>(where, stream)))
                        << format_label(format) << " " << where_name(where);
        tsr_sparse_destroy(A);
    }
    tsr_destroy(h);
    cudaStreamDestroy(stream);
}

// TESSERA_VERBOSE=1 (ctest cuda_spmv_verbose): optimize and products name the GPU kernel.
// Under TESSERA_VERBOSE=1 a product on device vectors is logged once it has finished: the call
// returns with the handle's stream idle (the ctest cuda_verbose_timing sets the variable).
TEST(CudaSpmvVerbose, DeviceProductIsTimedToItsEnd) {
    const char *v = std::getenv("TESSERA_VERBOSE");
    if (!v || std::strcmp(v, "1") != 0)
        GTEST_SKIP() << "needs TESSERA_VERBOSE=1 (the ctest cuda_verbose_timing sets it)";
    TSR_REQUIRE_CUDA();
    const Entries e = from_csr(tessera::bench::laplacian_2d(1500));
    tsr_handle h = cuda_handle();
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(tsr_set_cuda_stream(h, stream), TSR_SUCCESS) << tsr_last_error();
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<double>(h, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
    ASSERT_EQ(tsr_sparse_optimize(h, A, TSR_FORMAT_CSR), TSR_SUCCESS) << tsr_last_error();
    std::vector<double> hx(size_t(e.cols), 1.0), hy(size_t(e.rows), 0.0);
    DeviceArray<double> dx(hx), dy(hy);
    ::testing::internal::CaptureStderr();
    const tsr_status s = tsr_dspmv(h, TSR_OP_N, 1.0, A, dx.ptr, 0.0, dy.ptr);
    const cudaError_t idle = cudaStreamQuery(stream);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(s, TSR_SUCCESS) << tsr_last_error();
    EXPECT_EQ(idle, cudaSuccess) << "the product was still running when its line was logged";
    EXPECT_NE(log.find("backend=cuda"), std::string::npos) << log;
    dy.to_host(hy);
    EXPECT_EQ(hy[0], 2.0) << "a corner row of the 5-point Laplacian: 4 - 1 - 1";
    tsr_sparse_destroy(A);
    ASSERT_EQ(tsr_set_cuda_stream(h, nullptr), TSR_SUCCESS);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    tsr_destroy(h);
}

TEST(CudaSpmvVerbose, KernelChoiceIsLogged) {
    const char *v = std::getenv("TESSERA_VERBOSE");
    if (!v || std::strcmp(v, "1") != 0)
        GTEST_SKIP() << "needs TESSERA_VERBOSE=1 (the ctest cuda_spmv_verbose sets it)";
    TSR_REQUIRE_CUDA();
    using namespace tessera::bench;
    struct Expect {
        CsrMatrix m;
        tsr_format format;
        const char *plan; // what optimize and the product print after format=
    };
    const std::vector<Expect> expect = {
        {tridiagonal(20000, 1), TSR_FORMAT_CSR, "csr/gpu-rows"},
        {random_k_per_row(3000, 20000, 7, 2), TSR_FORMAT_CSR, "csr/gpu-lanes-2"},
        {random_k_per_row(3000, 20000, 12, 2), TSR_FORMAT_CSR, "csr/gpu-lanes-4"},
        {random_k_per_row(3000, 20000, 20, 2), TSR_FORMAT_CSR, "csr/gpu-lanes-8"},
        {random_k_per_row(2000, 20000, 40, 2), TSR_FORMAT_CSR, "csr/gpu-lanes-16"},
        {random_k_per_row(1000, 20000, 80, 2), TSR_FORMAT_CSR, "csr/gpu-lanes-32"},
        {power_law(30000, 30000, 10, 3), TSR_FORMAT_CSR, "csr/gpu-merge"},
        // CudaSpmv.MergePathInOneLaunchOrTwo's matrices take the merge path
        {power_law(3000, 3000, 10, 21), TSR_FORMAT_CSR, "csr/gpu-merge"},
        // skewed rows, none over 512 entries, in a small product: a warp per row
        {power_law(3000, 3000, 10, 21, 300), TSR_FORMAT_CSR, "csr/gpu-lanes-32"},
        {one_dense_row(3000, 60000, 4, 1500, 22), TSR_FORMAT_CSR, "csr/gpu-merge"},
        {power_law(120000, 120000, 10, 23), TSR_FORMAT_CSR, "csr/gpu-merge"},
        {power_law(30000, 30000, 10, 3), TSR_FORMAT_AUTO, "csr/gpu-merge"},
        {tridiagonal(20000, 1), TSR_FORMAT_AUTO, "dia/standard"},
        {random_k_per_row(20000, 20000, 16, 4), TSR_FORMAT_AUTO, "ell/standard"},
        {random_k_per_row(20000, int64_t(1) << 19, 16, 5), TSR_FORMAT_AUTO, "csr/gpu-tiles"},
    };
    tsr_handle h = cuda_handle();
    for (const Expect &x : expect) {
        const Entries e = from_csr(x.m);
        tsr_sparse A = nullptr;
        ASSERT_EQ(create_matrix<double>(h, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
        std::vector<double> hx(size_t(e.cols), 1.0), hy(size_t(e.rows), 0.0);
        DeviceArray<double> dx(hx), dy(hy);
        ::testing::internal::CaptureStderr();
        ASSERT_EQ(tsr_sparse_optimize(h, A, x.format), TSR_SUCCESS);
        ASSERT_EQ(tsr_dspmv(h, TSR_OP_N, 1.0, A, dx.ptr, 0.0, dy.ptr), TSR_SUCCESS);
        const std::string log = ::testing::internal::GetCapturedStderr();
        EXPECT_NE(log.find(std::string("format=") + x.plan + " backend=cuda time="),
                  std::string::npos)
            << x.m.name << ":\n"
            << log;
        EXPECT_NE(log.find(std::string("dspmv N rows=") + std::to_string(e.rows)),
                  std::string::npos)
            << log;
        EXPECT_NE(log.find(std::string("format=") + x.plan + " backend=cuda threads="),
                  std::string::npos)
            << x.m.name << ":\n"
            << log;
        tsr_sparse_destroy(A);
    }
    // A matrix optimized on the CPU runs with the GPU's kernel; auto sends device vectors there.
    tsr_handle cpu = host_handle(TSR_BACKEND_CPU), autoh = host_handle(TSR_BACKEND_AUTO);
    const Entries e = from_csr(power_law(30000, 30000, 10, 3));
    tsr_sparse A = nullptr;
    ASSERT_EQ(create_matrix<double>(cpu, e, TSR_INDEX_I32, Door::csr, &A), TSR_SUCCESS);
    ASSERT_EQ(tsr_sparse_optimize(cpu, A, TSR_FORMAT_CSR), TSR_SUCCESS);
    std::vector<double> hx(size_t(e.cols), 1.0), hy(size_t(e.rows), 0.0);
    DeviceArray<double> dx(hx), dy(hy);
    ::testing::internal::CaptureStderr();
    ASSERT_EQ(tsr_dspmv(h, TSR_OP_N, 1.0, A, dx.ptr, 0.0, dy.ptr), TSR_SUCCESS);
    ASSERT_EQ(tsr_dspmv(autoh, TSR_OP_N, 1.0, A, dx.ptr, 0.0, dy.ptr), TSR_SUCCESS);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("format=csr/gpu-merge backend=cuda"), std::string::npos) << log;
    EXPECT_NE(log.find("(auto: device operands)"), std::string::npos) << log;
    tsr_sparse_destroy(A);
    tsr_destroy(cpu);
    tsr_destroy(autoh);
    tsr_destroy(h);
}

// NaN and Inf in x reach exactly the outputs IEEE arithmetic over the stored entries gives:
// the padding of DIA, ELL and HYB is never multiplied, on the device kernels either.
template <typename T> void check_nonfinite_on_device() {
    TSR_REQUIRE_CUDA();
    tsr_handle h = cuda_handle();
    std::mt19937_64 rng = test_rng();
    for (int which = 0; which < 2; ++which) {
        const Entries e = which == 0 ? row_and_diagonal() : padded_band(rng);
        for (tsr_format f : {TSR_FORMAT_CSR, TSR_FORMAT_COO, TSR_FORMAT_ELL, TSR_FORMAT_DIA,
                             TSR_FORMAT_HYB, TSR_FORMAT_AUTO})
            for (tsr_op op : {TSR_OP_N, TSR_OP_T}) {
                SCOPED_TRACE(e.name + " " + format_label(f) + (op == TSR_OP_N ? " N" : " T"));
                tsr_sparse A = nullptr;
                ASSERT_EQ(create_matrix<T>(h, e, TSR_INDEX_I32, Door::coo, &A), TSR_SUCCESS)
                    << tsr_last_error();
                if (tsr_sparse_optimize(h, A, f) != TSR_SUCCESS) { // refused for its padding
                    tsr_sparse_destroy(A);
                    continue;
                }
                const std::vector<T> x = nonfinite_x<T>(e, op, rng);
                EXPECT_TRUE(check_nonfinite_x<T>(h, A, e, op, x, placed<T>(3)));
                EXPECT_EQ(tsr_sparse_destroy(A), TSR_SUCCESS);
            }
    }
    tsr_destroy(h);
}

TEST(CudaSpmvNonFinite, EveryFormatFloat) { check_nonfinite_on_device<float>(); }
TEST(CudaSpmvNonFinite, EveryFormatDouble) { check_nonfinite_on_device<double>(); }

} // namespace
} // namespace tessera::test
