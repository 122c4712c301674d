// cuSPARSE's SpMV as the GPU anchor (see spmv_cusparse.hpp): CSR with CUSPARSE_SPMV_CSR_ALG1
// (the default) and ALG2, COO with CUSPARSE_SPMV_COO_ALG1 and ALG2, same value type for the data
// and the computation. An algorithm cuSPARSE refuses (an op it does not do) is reported, not fatal.
#include "spmv_cusparse.hpp"

#include <stdexcept>

namespace tessera::bench {

namespace {

std::string cusparse_text(cusparseStatus_t s) { return cusparseGetErrorString(s); }

void sparse_check(cusparseStatus_t s, const char *what) {
    if (s != CUSPARSE_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cusparse_text(s));
}

template <typename I> std::vector<I> row_indices(const I *row_ptr, int64_t rows, int64_t nnz) {
    std::vector<I> out(static_cast<size_t>(nnz));
    for (int64_t i = 0; i < rows; ++i)
        for (I p = row_ptr[i]; p < row_ptr[i + 1]; ++p) out[size_t(p)] = I(i);
    return out;
}

} // namespace

std::string cusparse_version() {
    int major = 0, minor = 0, patch = 0;
    cusparseGetProperty(MAJOR_VERSION, &major);
    cusparseGetProperty(MINOR_VERSION, &minor);
    cusparseGetProperty(PATCH_LEVEL, &patch);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

struct CusparseSpmv::Prepared {
    cusparseSpMatDescr_t A = nullptr;
    DeviceBuffer buffer;
    ~Prepared() {
        if (A) cusparseDestroySpMat(A);
    }
};

CusparseSpmv::CusparseSpmv(cusparseHandle_t handle, const CusparseInput &m, bool trans,
                           const void *x, void *y)
    : handle_(handle), m_(m),
      op_(trans ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE),
      value_type_(m.f32 ? CUDA_R_32F : CUDA_R_64F),
      index_type_(m.i64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I) {
    const size_t ib = m.i64 ? 8 : 4, vb = m.f32 ? 4 : 8;
    row_ptr_ = DeviceBuffer(size_t(m.rows + 1) * ib);
    col_ = DeviceBuffer(size_t(m.nnz) * ib);
    val_ = DeviceBuffer(size_t(m.nnz) * vb);
    row_idx_ = DeviceBuffer(size_t(m.nnz) * ib);
    row_ptr_.upload(m.row_ptr, row_ptr_.bytes());
    col_.upload(m.col, col_.bytes());
    val_.upload(m.val, val_.bytes());
    if (m.i64) {
        const auto rows = row_indices(static_cast<const int64_t *>(m.row_ptr), m.rows, m.nnz);
        row_idx_.upload(rows.data(), row_idx_.bytes());
    } else {
        const auto rows = row_indices(static_cast<const int32_t *>(m.row_ptr), m.rows, m.nnz);
        row_idx_.upload(rows.data(), row_idx_.bytes());
    }
    const int64_t x_len = trans ? m.rows : m.cols, y_len = trans ? m.cols : m.rows;
    sparse_check(cusparseCreateDnVec(&x_, x_len, const_cast<void *>(x), value_type_),
                 "cusparseCreateDnVec");
    sparse_check(cusparseCreateDnVec(&y_, y_len, y, value_type_), "cusparseCreateDnVec");
    prepare("cusparse-csr1", false, CUSPARSE_SPMV_CSR_ALG1);
    prepare("cusparse-csr2", false, CUSPARSE_SPMV_CSR_ALG2);
    prepare("cusparse-coo1", true, CUSPARSE_SPMV_COO_ALG1);
    prepare("cusparse-coo2", true, CUSPARSE_SPMV_COO_ALG2);
}

CusparseSpmv::~CusparseSpmv() {
    prepared_.clear();
    if (x_) cusparseDestroyDnVec(x_);
    if (y_) cusparseDestroyDnVec(y_);
}

void CusparseSpmv::prepare(const std::string &name, bool coo, cusparseSpMVAlg_t alg) {
    Algorithm a;
    a.name = name;
    a.format = coo ? "coo" : "csr";
    auto p = std::make_unique<Prepared>();
    const void *one = m_.f32 ? static_cast<const void *>(&one_f_) : &one_d_;
    const void *zero = m_.f32 ? static_cast<const void *>(&zero_f_) : &zero_d_;
    try {
        // A descriptor of its own per algorithm: preprocessing attaches to the descriptor.
        if (coo)
            sparse_check(cusparseCreateCoo(&p->A, m_.rows, m_.cols, m_.nnz, row_idx_.get(),
                                           col_.get(), val_.get(), index_type_,
                                           CUSPARSE_INDEX_BASE_ZERO, value_type_),
                         "cusparseCreateCoo");
        else
            sparse_check(cusparseCreateCsr(&p->A, m_.rows, m_.cols, m_.nnz, row_ptr_.get(),
                                           col_.get(), val_.get(), index_type_, index_type_,
                                           CUSPARSE_INDEX_BASE_ZERO, value_type_),
                         "cusparseCreateCsr");
        size_t bytes = 0;
        sparse_check(cusparseSpMV_bufferSize(handle_, op_, one, p->A, x_, zero, y_, value_type_,
                                             alg, &bytes),
                     "cusparseSpMV_bufferSize");
        p->buffer = DeviceBuffer(bytes);
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12300
        if (cusparseStatus_t s = cusparseSpMV_preprocess(handle_, op_, one, p->A, x_, zero, y_,
                                                         value_type_, alg, p->buffer.get());
            s != CUSPARSE_STATUS_SUCCESS)
            a.message = "no preprocessing (" + cusparse_text(s) + ")";
#else
        a.message = "no cusparseSpMV_preprocess in this cuSPARSE";
#endif
        a.status = "ok";
    } catch (const std::exception &e) {
        a.status = "unavailable";
        a.message = e.what();
        algorithms_.push_back(a);
        return;
    }
    cusparseHandle_t h = handle_;
    cusparseOperation_t op = op_;
    cusparseSpMatDescr_t A = p->A;
    cusparseDnVecDescr_t x = x_, y = y_;
    cudaDataType type = value_type_;
    void *buffer = p->buffer.get();
    a.launch = [h, op, one, A, x, zero, y, type, alg, buffer] {
        sparse_check(cusparseSpMV(h, op, one, A, x, zero, y, type, alg, buffer), "cusparseSpMV");
    };
    prepared_.push_back(std::move(p));
    algorithms_.push_back(std::move(a));
}

} // namespace tessera::bench
