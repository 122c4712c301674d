/* Tessera public C API: handles, backend selection, dense matrix products and sparse products.
 * The one header a user includes; every function is extern "C" and never throws. */
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#include <stdint.h>

/** Marks the functions libtessera.so exports. */
#if defined(_WIN32)
#define TSR_API
#else
#define TSR_API __attribute__((visibility("default")))
#endif

/** Gives the API's enums a fixed `int` underlying type in C++, so any value a C caller
 *  passes is a valid value of the type (and is checked, not undefined). */
#ifdef __cplusplus
#define TSR_ENUM_BASE : int
#else
#define TSR_ENUM_BASE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @file tessera.h
 * @brief The Tessera C API.
 *
 * Tessera computes dense matrix products C = alpha·op(A)·op(B) + beta·C and sparse
 * matrix-vector products y = alpha·op(A)·x + beta·y with its own kernels on a CPU backend
 * (OpenMP threads, SIMD micro-kernels), a reference backend (plain loops) and, where the
 * plugin is present, a CUDA backend.
 *
 * Every function returns a ::tsr_status (unless shown otherwise), never throws, and
 * leaves its outputs untouched when it fails. The text of the last failure on the
 * calling thread is available from tsr_last_error().
 */

#define TSR_VERSION_MAJOR 0 /**< major version: changes with the ABI (the SONAME) */
#define TSR_VERSION_MINOR 1 /**< minor version: additions */
#define TSR_VERSION_PATCH 0 /**< patch version: fixes */

/** An opaque handle: a backend choice, a thread count and backend resources. */
typedef struct tsr_context *tsr_handle;

/** Result of every API call. */
typedef enum TSR_ENUM_BASE {
    TSR_SUCCESS = 0,             /**< the call did what it was asked */
    TSR_ERR_INVALID_ARGUMENT,    /**< an argument is out of range; tsr_last_error() names it */
    TSR_ERR_BACKEND_UNAVAILABLE, /**< the backend asked for cannot run here; the reason is given */
    TSR_ERR_OUT_OF_MEMORY,       /**< an allocation failed */
    TSR_ERR_DEVICE,              /**< the device reported an error */
    TSR_ERR_NOT_SUPPORTED,       /**< the request is valid but not implemented by this backend */
    TSR_ERR_INTERNAL             /**< a bug: please report it with tsr_last_error()'s text */
} tsr_status;

/** Where a handle's calls run. */
typedef enum TSR_ENUM_BASE {
    TSR_BACKEND_AUTO = 0,  /**< CUDA when it is loaded and pays off, otherwise the CPU */
    TSR_BACKEND_CPU,       /**< Tessera's CPU kernels (OpenMP + SIMD) */
    TSR_BACKEND_CUDA,      /**< Tessera's CUDA kernels (plugin libtessera_cuda.so) */
    TSR_BACKEND_REFERENCE  /**< plain loops: slow, obviously right; an oracle */
} tsr_backend;

/** Storage order of the matrices of a call; the values are CBLAS's. */
typedef enum TSR_ENUM_BASE { TSR_ROW_MAJOR = 101, TSR_COL_MAJOR = 102 } tsr_layout;

/** op(X): X, its transpose or its conjugate transpose (the same as the transpose for
 *  real types). The values are CBLAS's. */
typedef enum TSR_ENUM_BASE { TSR_OP_N = 111, TSR_OP_T = 112, TSR_OP_C = 113 } tsr_op;

/** Element type. */
typedef enum TSR_ENUM_BASE { TSR_F32 = 0, TSR_F64 } tsr_dtype;

/** An opaque sparse matrix: the library's own copy of the arrays given to
 *  tsr_sparse_create_csr() or tsr_sparse_create_coo(), in the format chosen by
 *  tsr_sparse_optimize(). */
typedef struct tsr_sparse_matrix *tsr_sparse;

/** Integer type of the index arrays of a sparse matrix. */
typedef enum TSR_ENUM_BASE {
    TSR_INDEX_I32 = 0, /**< int32_t indices */
    TSR_INDEX_I64      /**< int64_t indices */
} tsr_index_type;

/** Storage format of a sparse matrix (docs/formats.md describes each and the automatic choice). */
typedef enum TSR_ENUM_BASE {
    TSR_FORMAT_AUTO = 0, /**< chosen by the library from the matrix's structure */
    TSR_FORMAT_CSR,      /**< compressed sparse rows */
    TSR_FORMAT_COO,      /**< coordinates, sorted by row */
    TSR_FORMAT_ELL,      /**< ELLPACK: rows padded to the longest, stored column-major */
    TSR_FORMAT_DIA,      /**< diagonals */
    TSR_FORMAT_HYB       /**< ELL for the first entries of each row, COO for the rest */
} tsr_format;

/** @name Library information */
/**@{*/

/** The version string, "major.minor.patch". Never NULL. */
TSR_API const char *tsr_version(void);

/** A fixed English text for a status code. Never NULL (unknown codes give "unknown status"). */
TSR_API const char *tsr_status_string(tsr_status status);

/** The detail message of the calling thread's last failed call ("" when none failed).
 *  The pointer stays valid until the thread's next failing call. */
TSR_API const char *tsr_last_error(void);

/**@}*/

/** @name Handles */
/**@{*/

/** Creates a handle. Its backend comes from `TESSERA_BACKEND` (default auto) and its
 *  thread count from `TESSERA_NUM_THREADS`, then `OMP_NUM_THREADS`, then all cores.
 *  A backend named in the environment that cannot run here is reported once on
 *  stderr and the handle uses the CPU instead.
 *  @param[out] handle receives the new handle; untouched on failure. */
TSR_API tsr_status tsr_create(tsr_handle *handle);

/** Destroys a handle made by tsr_create(). NULL is invalid. No call may be running on it. */
TSR_API tsr_status tsr_destroy(tsr_handle handle);

/** Chooses where the handle's calls run. Returns ::TSR_ERR_BACKEND_UNAVAILABLE (and keeps
 *  the previous backend) when the backend cannot run on this machine; tsr_last_error()
 *  gives the reason. Must not race with compute calls on the same handle. */
TSR_API tsr_status tsr_set_backend(tsr_handle handle, tsr_backend backend);

/** The backend the handle was set to (::TSR_BACKEND_AUTO stays AUTO). */
TSR_API tsr_status tsr_get_backend(tsr_handle handle, tsr_backend *backend);

/** Whether a backend can run here: *available is 1 or 0. For ::TSR_BACKEND_CUDA this may
 *  load the plugin; when it is 0, tsr_last_error() gives the reason. */
TSR_API tsr_status tsr_backend_available(tsr_backend backend, int *available);

/** Sets the number of CPU threads for the handle's calls, from 1 to 4096 (others are
 *  refused with ::TSR_ERR_INVALID_ARGUMENT). A call made from inside an OpenMP parallel
 *  region always runs on one thread. */
TSR_API tsr_status tsr_set_num_threads(tsr_handle handle, int num_threads);

/** Opts the handle's CPU products into Strassen's method (off by default).
 *
 *  With @p levels = 1 or 2, large products whose three sizes are at least
 *  2^levels · @p min_block use one or two levels of Strassen's recursion (7 or 49 products
 *  of blocks instead of 8 or 64) over the packed CPU kernel; smaller ones, and the rows,
 *  columns and depth left over when a size is not divisible by 2^levels, run classically.
 *  Strassen's result is accurate in norm, not element by element: see docs/accuracy.md
 *  for the bound. `TESSERA_STRASSEN=1|2` sets the levels of new handles.
 *  @param handle the handle.
 *  @param levels 0 (classical), 1 or 2.
 *  @param min_block the smallest block size a split may produce (>= 1); 0 means the
 *                   default, 1024.
 *  @return ::TSR_ERR_INVALID_ARGUMENT for other values. */
TSR_API tsr_status tsr_set_strassen(tsr_handle handle, int levels, int64_t min_block);

/** Sets the CUDA stream (a cudaStream_t) the handle's CUDA calls are ordered on.
 *  Returns ::TSR_ERR_BACKEND_UNAVAILABLE when the CUDA backend cannot run here. */
TSR_API tsr_status tsr_set_cuda_stream(tsr_handle handle, void *cuda_stream);

/**@}*/

/** @name Dense matrix products */
/**@{*/

/**
 * C = alpha·op(A)·op(B) + beta·C, single precision, with BLAS semantics.
 *
 * op(A) is m×k, op(B) is k×n, C is m×n, each stored in @p layout with its leading
 * dimension (for column-major storage `lda >= max(1, rows of A as stored)`; for
 * row-major storage the same with columns).
 *
 * - Returns at once when `m == 0 || n == 0 || ((alpha == 0 || k == 0) && beta == 1)`.
 * - When `alpha == 0` or `k == 0`, A and B are not read: C = beta·C.
 * - When `beta == 0`, C is not read, so NaN or Inf in C do not survive.
 * - Otherwise NaN and Inf propagate as IEEE arithmetic says.
 *
 * @param handle a handle from tsr_create(), or NULL for the process-wide default handle
 *               (the one the BLAS symbols use).
 * @param layout `TSR_COL_MAJOR` or `TSR_ROW_MAJOR`, for A, B and C alike.
 * @param transa op(A): `TSR_OP_N`, `TSR_OP_T` or `TSR_OP_C` (the same as T for real types).
 * @param transb op(B), likewise.
 * @param m rows of op(A) and of C (>= 0).
 * @param n columns of op(B) and of C (>= 0).
 * @param k columns of op(A) and rows of op(B) (>= 0).
 * @param alpha scale of the product.
 * @param A the matrix A; not read when alpha == 0 or k == 0 (may then be NULL).
 * @param lda leading dimension of A: >= max(1, rows of A as stored) in column-major,
 *            >= max(1, columns of A as stored) in row-major.
 * @param B the matrix B; not read when alpha == 0 or k == 0 (may then be NULL).
 * @param ldb leading dimension of B, as for A.
 * @param beta scale of C on input; C is not read when beta == 0.
 * @param C the m×n result, overwritten (may be NULL only when m == 0 or n == 0).
 * @param ldc leading dimension of C: >= max(1, m) in column-major, >= max(1, n) in row-major.
 * @return ::TSR_ERR_INVALID_ARGUMENT, with the argument named by tsr_last_error() and C
 *         untouched, for a bad layout, op, negative size or too small leading dimension.
 */
TSR_API tsr_status tsr_sgemm(tsr_handle handle, tsr_layout layout, tsr_op transa, tsr_op transb,
                             int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                             int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                             int64_t ldc);

/** C = alpha·op(A)·op(B) + beta·C, double precision; the arguments and rules are those of
 *  tsr_sgemm() with double in place of float.
 *  @param handle see tsr_sgemm() @param layout see tsr_sgemm() @param transa see tsr_sgemm()
 *  @param transb see tsr_sgemm() @param m see tsr_sgemm() @param n see tsr_sgemm()
 *  @param k see tsr_sgemm() @param alpha see tsr_sgemm() @param A see tsr_sgemm()
 *  @param lda see tsr_sgemm() @param B see tsr_sgemm() @param ldb see tsr_sgemm()
 *  @param beta see tsr_sgemm() @param C see tsr_sgemm() @param ldc see tsr_sgemm()
 *  @return as tsr_sgemm(). */
TSR_API tsr_status tsr_dgemm(tsr_handle handle, tsr_layout layout, tsr_op transa, tsr_op transb,
                             int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                             int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                             int64_t ldc);

/**@}*/

/** @name Gemm plans: one shape, many products
 *
 *  A plan fixes the type, layout, ops, sizes and leading dimensions of a product and checks them
 *  once, as tsr_sgemm() / tsr_dgemm() would; executing it takes only alpha, beta and the
 *  pointers, for one product or a batch. The plan remembers its handle (NULL: the default
 *  handle), which must outlive it; products run on that handle's backend and threads, as the
 *  tsr_?gemm call with the same arguments would, with the same BLAS semantics and call log. */
/**@{*/

/** An opaque gemm plan; see tsr_gemm_plan_create(). */
typedef struct tsr_gemm_plan_s *tsr_gemm_plan;

/** Makes a plan for C = alpha·op(A)·op(B) + beta·C with these sizes and leading dimensions in
 *  `layout`, values of `dtype`. Every argument is checked here, with tsr_?gemm's rules and
 *  messages; *plan is written only on success.
 *  @return ::TSR_ERR_INVALID_ARGUMENT for a NULL plan, a bad enum, a negative size, a short
 *          leading dimension or a matrix beyond the address space. */
TSR_API tsr_status tsr_gemm_plan_create(tsr_handle handle, tsr_gemm_plan *plan, tsr_dtype dtype, tsr_layout layout,
                                        tsr_op transa, tsr_op transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                                        int64_t ldb, int64_t ldc);

/** Runs the plan's product on A, B and C (of the plan's dtype: float or double arrays). alpha and
 *  beta are converted to the plan's type. A and B may be NULL where they are not read (alpha 0,
 *  k 0), C where m or n is 0.
 *  @return as tsr_sgemm(); ::TSR_ERR_INVALID_ARGUMENT for a NULL plan or a needed NULL pointer. */
TSR_API tsr_status tsr_gemm_plan_execute(tsr_gemm_plan plan, double alpha, const void *A, const void *B,
                                         double beta, void *C);

/** `count` products, the i-th on A[i], B[i], C[i]. Every pointer is checked before any product
 *  runs. With more products than the handle has threads, the products are shared out among the
 *  threads, one thread each; the C[i] must then not overlap. The first failure is returned.
 *  @return ::TSR_ERR_INVALID_ARGUMENT for a negative count or a needed NULL pointer. */
TSR_API tsr_status tsr_gemm_plan_execute_batch(tsr_gemm_plan plan, int64_t count, double alpha,
                                               const void *const *A, const void *const *B, double beta,
                                               void *const *C);

/** `count` products, the i-th on A + i·stride_a, B + i·stride_b, C + i·stride_c (strides in
 *  elements, >= 0; a stride 0 reuses one operand). With count > 1, stride_c must be at least the
 *  elements one C spans, so that no two products write the same element.
 *  @return ::TSR_ERR_INVALID_ARGUMENT for a negative count or stride, overlapping Cs, a needed
 *          NULL pointer, or strides reaching beyond the address space. */
TSR_API tsr_status tsr_gemm_plan_execute_strided(tsr_gemm_plan plan, int64_t count, double alpha, const void *A,
                                                 int64_t stride_a, const void *B, int64_t stride_b, double beta,
                                                 void *C, int64_t stride_c);

/** Frees the plan. */
TSR_API tsr_status tsr_gemm_plan_destroy(tsr_gemm_plan plan);

/**@}*/

/** @name Sparse matrices and products */
/**@{*/

/**
 * Creates a sparse matrix from CSR arrays (0-based). The library copies the arrays; the caller
 * may free them on return. Columns may be unsorted inside a row and a row may repeat a
 * column (the values are summed); empty rows and 0×n or n×0 matrices are fine.
 *
 * The input is checked, and the first fault is named by tsr_last_error(): a negative size,
 * a NULL array while nnz > 0, `row_ptr[0] != 0`, `row_ptr` decreasing, `row_ptr[rows] != nnz`,
 * a column index outside `[0, cols)`, sizes beyond 32-bit indices for `TSR_INDEX_I32`.
 *
 * The matrix is held as CSR until tsr_sparse_optimize() chooses another format.
 *
 * @param handle a handle from tsr_create(), or NULL for the default handle.
 * @param[out] matrix receives the new matrix; untouched on failure.
 * @param dtype `TSR_F32` or `TSR_F64`: the type of @p values and of the products' vectors.
 * @param itype `TSR_INDEX_I32` (int32_t arrays) or `TSR_INDEX_I64` (int64_t arrays).
 * @param rows rows of the matrix (>= 0).
 * @param cols columns of the matrix (>= 0).
 * @param nnz stored entries (>= 0), the length of @p col_idx and @p values.
 * @param row_ptr rows + 1 offsets: row i holds entries row_ptr[i] to row_ptr[i+1] - 1. May be
 *                NULL when nnz == 0 (a matrix of zeros).
 * @param col_idx nnz column indices; may be NULL when nnz == 0.
 * @param values nnz values of type @p dtype; may be NULL when nnz == 0.
 * @return ::TSR_ERR_INVALID_ARGUMENT for a bad argument, ::TSR_ERR_OUT_OF_MEMORY when the
 *         copy cannot be made.
 */
TSR_API tsr_status tsr_sparse_create_csr(tsr_handle handle, tsr_sparse *matrix, tsr_dtype dtype,
                                         tsr_index_type itype, int64_t rows, int64_t cols,
                                         int64_t nnz, const void *row_ptr, const void *col_idx,
                                         const void *values);

/**
 * Creates a sparse matrix from coordinate (COO) arrays (0-based), in any order. Duplicate
 * coordinates are summed. The library copies the arrays. The checks are those of
 * tsr_sparse_create_csr(), with every row index inside `[0, rows)`.
 *
 * @param handle a handle from tsr_create(), or NULL for the default handle.
 * @param[out] matrix receives the new matrix; untouched on failure.
 * @param dtype `TSR_F32` or `TSR_F64`.
 * @param itype `TSR_INDEX_I32` or `TSR_INDEX_I64`: the type of @p row_idx and @p col_idx.
 * @param rows rows of the matrix (>= 0).
 * @param cols columns of the matrix (>= 0).
 * @param nnz number of coordinates (>= 0).
 * @param row_idx nnz row indices; may be NULL when nnz == 0.
 * @param col_idx nnz column indices; may be NULL when nnz == 0.
 * @param values nnz values of type @p dtype; may be NULL when nnz == 0.
 * @return ::TSR_ERR_INVALID_ARGUMENT for a bad argument, ::TSR_ERR_OUT_OF_MEMORY when the
 *         copy cannot be made.
 */
TSR_API tsr_status tsr_sparse_create_coo(tsr_handle handle, tsr_sparse *matrix, tsr_dtype dtype,
                                         tsr_index_type itype, int64_t rows, int64_t cols,
                                         int64_t nnz, const void *row_idx, const void *col_idx,
                                         const void *values);

/**
 * Chooses the storage format the matrix's products use and converts it, for the handle's
 * backend. `TSR_FORMAT_AUTO` analyses the structure (row lengths, their spread, the number
 * and fill of the diagonals) and picks the format expected to be fastest; with
 * `TESSERA_VERBOSE=1` the choice and its reason are printed. A named format is used as
 * asked, except that ELL and DIA are refused with ::TSR_ERR_NOT_SUPPORTED when they would
 * store more than 8 × nnz slots (values plus padding); the matrix then keeps its format.
 * May be called again; must not run while products on the same matrix are running.
 *
 * @param handle a handle from tsr_create(), or NULL for the default handle; its backend
 *               decides the rules of the automatic choice.
 * @param matrix the matrix.
 * @param format `TSR_FORMAT_AUTO` or a named format.
 * @return ::TSR_ERR_NOT_SUPPORTED when the format would be mostly padding,
 *         ::TSR_ERR_OUT_OF_MEMORY when the conversion cannot be stored.
 */
TSR_API tsr_status tsr_sparse_optimize(tsr_handle handle, tsr_sparse matrix, tsr_format format);

/**
 * The format the matrix's products use: `TSR_FORMAT_CSR` after create, then what
 * tsr_sparse_optimize() chose (never `TSR_FORMAT_AUTO`).
 * @param matrix the matrix.
 * @param[out] format receives the format.
 */
TSR_API tsr_status tsr_sparse_get_format(tsr_sparse matrix, tsr_format *format);

/**
 * Destroys a matrix. No product may be running on it.
 * @param matrix the matrix; NULL is invalid.
 */
TSR_API tsr_status tsr_sparse_destroy(tsr_sparse matrix);

/**
 * y = alpha·op(A)·x + beta·y for a sparse A of type `TSR_F32`.
 *
 * op(A) is A (`TSR_OP_N`: x has cols entries, y has rows) or its transpose (`TSR_OP_T`, or
 * `TSR_OP_C` which is the same for real types: x has rows entries, y has cols).
 *
 * - When `alpha == 0`, A and x are not read: y = beta·y.
 * - When `beta == 0`, y is not read, so NaN or Inf in y do not survive.
 * - Returns at once when op(A) has no rows, or when `alpha == 0 && beta == 1`.
 *
 * Products on one matrix may run from many threads at once.
 *
 * @param handle a handle from tsr_create(), or NULL for the default handle.
 * @param op `TSR_OP_N`, `TSR_OP_T` or `TSR_OP_C`.
 * @param alpha scale of the product.
 * @param A the matrix, of type `TSR_F32`.
 * @param x the input vector; not read when alpha == 0 or A has no entries (may then be NULL).
 * @param beta scale of y on input; y is not read when beta == 0.
 * @param y the output vector, overwritten; must not overlap x (an overlap is refused with ::TSR_ERR_INVALID_ARGUMENT).
 * @return ::TSR_ERR_INVALID_ARGUMENT for a bad op, a NULL pointer or a matrix of another type.
 */
TSR_API tsr_status tsr_sspmv(tsr_handle handle, tsr_op op, float alpha, tsr_sparse A,
                             const float *x, float beta, float *y);

/**
 * y = alpha·op(A)·x + beta·y for a sparse A of type `TSR_F64`; the rules are those of
 * tsr_sspmv() with double in place of float.
 * @param handle see tsr_sspmv() @param op see tsr_sspmv() @param alpha see tsr_sspmv()
 * @param A the matrix, of type `TSR_F64`. @param x see tsr_sspmv()
 * @param beta see tsr_sspmv() @param y see tsr_sspmv()
 * @return as tsr_sspmv().
 */
TSR_API tsr_status tsr_dspmv(tsr_handle handle, tsr_op op, double alpha, tsr_sparse A,
                             const double *x, double beta, double *y);

/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_TESSERA_H */
