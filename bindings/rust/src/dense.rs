// gemm for f32 and f64 slices: C = alpha*op(A)*op(B) + beta*C with BLAS semantics, each slice
// checked against its matrix's extent (size and leading dimension) before the call.
use std::os::raw::c_int;

use crate::error::{check, invalid, Result};
use crate::ffi;
use crate::handle::{raw, Handle};

/// Storage order of the matrices of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Element (i, j) at `i * ld + j`.
    RowMajor,
    /// Element (i, j) at `i + j * ld`.
    ColMajor,
}

/// op(X): X itself or its transpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    N,
    T,
}

impl Op {
    pub(crate) fn code(self) -> c_int {
        match self {
            Op::N => ffi::TSR_OP_N,
            Op::T => ffi::TSR_OP_T,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The element types Tessera computes in: `f32` and `f64`.
pub trait Scalar: sealed::Sealed + Copy + Send + Sync + 'static {
    /// `TSR_F32` or `TSR_F64`.
    const DTYPE: c_int;
    const ZERO: Self;
    const ONE: Self;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm_raw(
        h: ffi::tsr_handle,
        layout: c_int,
        ta: c_int,
        tb: c_int,
        m: i64,
        n: i64,
        k: i64,
        alpha: Self,
        a: *const Self,
        lda: i64,
        b: *const Self,
        ldb: i64,
        beta: Self,
        c: *mut Self,
        ldc: i64,
    ) -> c_int;
    #[doc(hidden)]
    unsafe fn spmv_raw(
        h: ffi::tsr_handle,
        op: c_int,
        alpha: Self,
        a: ffi::tsr_sparse,
        x: *const Self,
        beta: Self,
        y: *mut Self,
    ) -> c_int;
    #[doc(hidden)]
    const GEMM_NAME: &'static str;
    #[doc(hidden)]
    const SPMV_NAME: &'static str;
}

impl Scalar for f32 {
    const DTYPE: c_int = ffi::TSR_F32;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const GEMM_NAME: &'static str = "tsr_sgemm";
    const SPMV_NAME: &'static str = "tsr_sspmv";
    unsafe fn gemm_raw(
        h: ffi::tsr_handle,
        layout: c_int,
        ta: c_int,
        tb: c_int,
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
    ) -> c_int {
        ffi::tsr_sgemm(
            h, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
        )
    }
    unsafe fn spmv_raw(
        h: ffi::tsr_handle,
        op: c_int,
        alpha: f32,
        a: ffi::tsr_sparse,
        x: *const f32,
        beta: f32,
        y: *mut f32,
    ) -> c_int {
        ffi::tsr_sspmv(h, op, alpha, a, x, beta, y)
    }
}

impl Scalar for f64 {
    const DTYPE: c_int = ffi::TSR_F64;
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const GEMM_NAME: &'static str = "tsr_dgemm";
    const SPMV_NAME: &'static str = "tsr_dspmv";
    unsafe fn gemm_raw(
        h: ffi::tsr_handle,
        layout: c_int,
        ta: c_int,
        tb: c_int,
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
    ) -> c_int {
        ffi::tsr_dgemm(
            h, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
        )
    }
    unsafe fn spmv_raw(
        h: ffi::tsr_handle,
        op: c_int,
        alpha: f64,
        a: ffi::tsr_sparse,
        x: *const f64,
        beta: f64,
        y: *mut f64,
    ) -> c_int {
        ffi::tsr_dspmv(h, op, alpha, a, x, beta, y)
    }
}

/// Checks that a rows x cols matrix stored in `layout` with leading dimension `ld` fits in a
/// slice of `len` elements.
fn check_extent(
    function: &'static str,
    name: &str,
    layout: Layout,
    rows: usize,
    cols: usize,
    ld: usize,
    len: usize,
) -> Result<()> {
    let (outer, inner) = match layout {
        Layout::ColMajor => (cols, rows),
        Layout::RowMajor => (rows, cols),
    };
    let which = if layout == Layout::ColMajor {
        "rows"
    } else {
        "columns"
    };
    if ld < inner.max(1) {
        return Err(invalid(
            function,
            format!(
                "ld{} = {} is less than the {} of {} as stored ({})",
                name, ld, which, name, inner
            ),
        ));
    }
    if outer == 0 || inner == 0 {
        return Ok(());
    }
    let needed = (outer - 1)
        .checked_mul(ld)
        .and_then(|x| x.checked_add(inner));
    match needed {
        Some(needed) if needed <= len => Ok(()),
        _ => Err(invalid(
            function,
            format!(
                "{} is a {}x{} matrix with ld{} = {}: it needs {} elements, the slice has {}",
                name,
                rows,
                cols,
                name,
                ld,
                needed.map_or("more than usize::MAX".to_string(), |x| x.to_string()),
                len
            ),
        )),
    }
}

fn to_i64(function: &'static str, name: &str, value: usize) -> Result<i64> {
    i64::try_from(value)
        .map_err(|_| invalid(function, format!("{} = {} is too large", name, value)))
}

/// C = alpha·op(A)·op(B) + beta·C, BLAS-style, on a handle (None: the default handle).
///
/// op(A) is m×k, op(B) is k×n, C is m×n, all stored in `layout` with their leading
/// dimensions. Each slice must hold its matrix (for A stored as rows×cols in column-major:
/// `(cols - 1) * lda + rows` elements); a slice too short, or a leading dimension smaller
/// than the stored rows (column-major) or columns (row-major), is refused before the call.
/// BLAS semantics: `beta == 0` does not read C, `alpha == 0` or `k == 0` does not read A and B.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Scalar>(
    handle: Option<&Handle>,
    layout: Layout,
    op_a: Op,
    op_b: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: T,
    a: &[T],
    lda: usize,
    b: &[T],
    ldb: usize,
    beta: T,
    c: &mut [T],
    ldc: usize,
) -> Result<()> {
    let f = T::GEMM_NAME;
    let (ar, ac) = if op_a == Op::N { (m, k) } else { (k, m) };
    let (br, bc) = if op_b == Op::N { (k, n) } else { (n, k) };
    check_extent(f, "a", layout, ar, ac, lda, a.len())?;
    check_extent(f, "b", layout, br, bc, ldb, b.len())?;
    check_extent(f, "c", layout, m, n, ldc, c.len())?;
    let layout_code = match layout {
        Layout::RowMajor => ffi::TSR_ROW_MAJOR,
        Layout::ColMajor => ffi::TSR_COL_MAJOR,
    };
    let (m, n, k) = (to_i64(f, "m", m)?, to_i64(f, "n", n)?, to_i64(f, "k", k)?);
    let (lda, ldb, ldc) = (
        to_i64(f, "lda", lda)?,
        to_i64(f, "ldb", ldb)?,
        to_i64(f, "ldc", ldc)?,
    );
    // SAFETY: every slice holds the matrix the library will access (checked above), the handle
    // is live for the call, and `c` is borrowed mutably so it overlaps neither `a` nor `b`.
    let status = unsafe {
        T::gemm_raw(
            raw(handle),
            layout_code,
            op_a.code(),
            op_b.code(),
            m,
            n,
            k,
            alpha,
            a.as_ptr(),
            lda,
            b.as_ptr(),
            ldb,
            beta,
            c.as_mut_ptr(),
            ldc,
        )
    };
    check(f, status)
}
