//! Raw declarations of the C API of `tessera/tessera.h`, one for one. Everything here is
//! `unsafe` to call; the safe wrapper is the rest of the crate.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

/// `tsr_handle`: an opaque library handle.
pub type tsr_handle = *mut c_void;
/// `tsr_sparse`: an opaque sparse matrix.
pub type tsr_sparse = *mut c_void;
/// `tsr_status` and the other enums are C `int`s.
pub type tsr_status = c_int;

pub const TSR_SUCCESS: c_int = 0;
pub const TSR_ERR_INVALID_ARGUMENT: c_int = 1;
pub const TSR_ERR_BACKEND_UNAVAILABLE: c_int = 2;
pub const TSR_ERR_OUT_OF_MEMORY: c_int = 3;
pub const TSR_ERR_DEVICE: c_int = 4;
pub const TSR_ERR_NOT_SUPPORTED: c_int = 5;
pub const TSR_ERR_INTERNAL: c_int = 6;

pub const TSR_BACKEND_AUTO: c_int = 0;
pub const TSR_BACKEND_CPU: c_int = 1;
pub const TSR_BACKEND_CUDA: c_int = 2;
pub const TSR_BACKEND_REFERENCE: c_int = 3;

pub const TSR_ROW_MAJOR: c_int = 101;
pub const TSR_COL_MAJOR: c_int = 102;
pub const TSR_OP_N: c_int = 111;
pub const TSR_OP_T: c_int = 112;
pub const TSR_OP_C: c_int = 113;

pub const TSR_F32: c_int = 0;
pub const TSR_F64: c_int = 1;
pub const TSR_INDEX_I32: c_int = 0;
pub const TSR_INDEX_I64: c_int = 1;

pub const TSR_FORMAT_AUTO: c_int = 0;
pub const TSR_FORMAT_CSR: c_int = 1;
pub const TSR_FORMAT_COO: c_int = 2;
pub const TSR_FORMAT_ELL: c_int = 3;
pub const TSR_FORMAT_DIA: c_int = 4;
pub const TSR_FORMAT_HYB: c_int = 5;

extern "C" {
    pub fn tsr_version() -> *const c_char;
    pub fn tsr_status_string(status: tsr_status) -> *const c_char;
    pub fn tsr_last_error() -> *const c_char;

    pub fn tsr_create(handle: *mut tsr_handle) -> tsr_status;
    pub fn tsr_destroy(handle: tsr_handle) -> tsr_status;
    pub fn tsr_set_backend(handle: tsr_handle, backend: c_int) -> tsr_status;
    pub fn tsr_get_backend(handle: tsr_handle, backend: *mut c_int) -> tsr_status;
    pub fn tsr_backend_available(backend: c_int, available: *mut c_int) -> tsr_status;
    pub fn tsr_set_num_threads(handle: tsr_handle, num_threads: c_int) -> tsr_status;
    pub fn tsr_set_cuda_stream(handle: tsr_handle, cuda_stream: *mut c_void) -> tsr_status;
    pub fn tsr_set_cuda_devices(handle: tsr_handle, count: c_int, ids: *const c_int) -> tsr_status;
    pub fn tsr_set_strassen(handle: tsr_handle, levels: c_int, min_block: i64) -> tsr_status;

    pub fn tsr_sgemm(
        handle: tsr_handle,
        layout: c_int,
        transa: c_int,
        transb: c_int,
        m: i64,
        n: i64,
        k: i64,
        alpha: f32,
        a: *const f32,
        lda: i64,
        b: *const f32,
        ldb: i64,
        beta: f32,
        c: *mut f32,
        ldc: i64,
    ) -> tsr_status;
    pub fn tsr_dgemm(
        handle: tsr_handle,
        layout: c_int,
        transa: c_int,
        transb: c_int,
        m: i64,
        n: i64,
        k: i64,
        alpha: f64,
        a: *const f64,
        lda: i64,
        b: *const f64,
        ldb: i64,
        beta: f64,
        c: *mut f64,
        ldc: i64,
    ) -> tsr_status;

    pub fn tsr_sparse_create_csr(
        handle: tsr_handle,
        matrix: *mut tsr_sparse,
        dtype: c_int,
        itype: c_int,
        rows: i64,
        cols: i64,
        nnz: i64,
        row_ptr: *const c_void,
        col_idx: *const c_void,
        values: *const c_void,
    ) -> tsr_status;
    pub fn tsr_sparse_create_coo(
        handle: tsr_handle,
        matrix: *mut tsr_sparse,
        dtype: c_int,
        itype: c_int,
        rows: i64,
        cols: i64,
        nnz: i64,
        row_idx: *const c_void,
        col_idx: *const c_void,
        values: *const c_void,
    ) -> tsr_status;
    pub fn tsr_sparse_optimize(handle: tsr_handle, matrix: tsr_sparse, format: c_int)
        -> tsr_status;
    pub fn tsr_sparse_get_format(matrix: tsr_sparse, format: *mut c_int) -> tsr_status;
    pub fn tsr_sparse_destroy(matrix: tsr_sparse) -> tsr_status;
    pub fn tsr_sspmv(
        handle: tsr_handle,
        op: c_int,
        alpha: f32,
        a: tsr_sparse,
        x: *const f32,
        beta: f32,
        y: *mut f32,
    ) -> tsr_status;
    pub fn tsr_dspmv(
        handle: tsr_handle,
        op: c_int,
        alpha: f64,
        a: tsr_sparse,
        x: *const f64,
        beta: f64,
        y: *mut f64,
    ) -> tsr_status;
}
