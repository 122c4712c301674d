// The GPU spmv anchor (built only with CUDA): cuSPARSE's generic SpMV on one matrix, prepared
// once per record as a careful user would (device arrays, a descriptor and a buffer per
// algorithm, cusparseSpMV_preprocess where the library has it), then one launch per product.
#pragma once

#include <cusparse.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spmv_cuda_device.hpp"

namespace tessera::bench {

// The CSR arrays of one record in host memory: int32_t or int64_t indices, float or double values.
struct CusparseInput {
    int64_t rows = 0, cols = 0, nnz = 0;
    const void *row_ptr = nullptr, *col = nullptr, *val = nullptr;
    bool f32 = false, i64 = false;
};

// "12.6.3" (the library loaded, not the header).
std::string cusparse_version();

class CusparseSpmv {
public:
    struct Algorithm {
        std::string name;    // "cusparse-csr1", "cusparse-csr2", "cusparse-coo1", "cusparse-coo2"
        std::string format;  // "csr" or "coo"
        std::string status;  // "ok", or "unavailable" when cuSPARSE refuses it (message: why)
        std::string message; // a note when ok (no preprocessing), the reason otherwise
        std::function<void()> launch; // y = op(A)·x once, enqueued on the handle's stream
    };

    // Copies the CSR arrays, and COO row indices made from them, to the device, and prepares
    // each algorithm for y = op(A)·x (alpha 1, beta 0) on the device vectors x and y.
    CusparseSpmv(cusparseHandle_t handle, const CusparseInput &m, bool trans, const void *x,
                 void *y);
    ~CusparseSpmv();
    CusparseSpmv(const CusparseSpmv &) = delete;
    CusparseSpmv &operator=(const CusparseSpmv &) = delete;

    std::vector<Algorithm> &algorithms() { return algorithms_; }

private:
    struct Prepared; // a matrix descriptor and its buffer, per algorithm
    void prepare(const std::string &name, bool coo, cusparseSpMVAlg_t alg);

    cusparseHandle_t handle_;
    CusparseInput m_;
    cusparseOperation_t op_;
    cudaDataType value_type_;
    cusparseIndexType_t index_type_;
    DeviceBuffer row_ptr_, row_idx_, col_, val_;
    cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
    float one_f_ = 1, zero_f_ = 0;
    double one_d_ = 1, zero_d_ = 0;
    std::vector<std::unique_ptr<Prepared>> prepared_;
    std::vector<Algorithm> algorithms_;
};

} // namespace tessera::bench
