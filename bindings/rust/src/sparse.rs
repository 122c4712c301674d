// SparseMatrix<T>: the library's copy of a CSR or COO matrix (i32 or i64 indices), its storage
// format, and y = alpha*op(A)*x + beta*y with the vectors' lengths checked before the call.
use std::marker::PhantomData;
use std::os::raw::{c_int, c_void};
use std::ptr;

use crate::dense::{Op, Scalar};
use crate::error::{check, invalid, Result};
use crate::ffi;
use crate::handle::{raw, Handle};

/// Storage format of a sparse matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Let the library choose from the structure (only as a request to `optimize`).
    Auto,
    Csr,
    Coo,
    Ell,
    Dia,
    Hyb,
}

impl Format {
    const ALL: [Format; 6] = [
        Format::Auto,
        Format::Csr,
        Format::Coo,
        Format::Ell,
        Format::Dia,
        Format::Hyb,
    ];

    fn code(self) -> c_int {
        match self {
            Format::Auto => ffi::TSR_FORMAT_AUTO,
            Format::Csr => ffi::TSR_FORMAT_CSR,
            Format::Coo => ffi::TSR_FORMAT_COO,
            Format::Ell => ffi::TSR_FORMAT_ELL,
            Format::Dia => ffi::TSR_FORMAT_DIA,
            Format::Hyb => ffi::TSR_FORMAT_HYB,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// Index types of the arrays given to the library: `i32` and `i64`.
pub trait Index: sealed::Sealed + Copy {
    /// `TSR_INDEX_I32` or `TSR_INDEX_I64`.
    const ITYPE: c_int;
}
impl Index for i32 {
    const ITYPE: c_int = ffi::TSR_INDEX_I32;
}
impl Index for i64 {
    const ITYPE: c_int = ffi::TSR_INDEX_I64;
}

/// A sparse matrix held by the library, of element type `T` (`f32` or `f64`).
///
/// Products on one matrix may run from many threads (`&self`); `optimize` takes `&mut self`,
/// so it never runs alongside them.
#[derive(Debug)]
pub struct SparseMatrix<T: Scalar> {
    raw: ffi::tsr_sparse,
    rows: usize,
    cols: usize,
    _values: PhantomData<T>,
}

// SAFETY: the library allows concurrent products on one matrix; mutation needs &mut self.
unsafe impl<T: Scalar> Send for SparseMatrix<T> {}
unsafe impl<T: Scalar> Sync for SparseMatrix<T> {}

fn size_i64(function: &'static str, what: &str, value: usize) -> Result<i64> {
    i64::try_from(value)
        .map_err(|_| invalid(function, format!("{} = {} is too large", what, value)))
}

impl<T: Scalar> SparseMatrix<T> {
    /// From CSR arrays (0-based): `row_ptr` has rows + 1 entries, `col_idx` and `values` one per
    /// stored entry. The library copies them and checks the structure (a fault is an error
    /// naming it); repeated columns in a row are summed.
    pub fn from_csr<I: Index>(
        handle: Option<&Handle>,
        rows: usize,
        cols: usize,
        row_ptr: &[I],
        col_idx: &[I],
        values: &[T],
    ) -> Result<Self> {
        let f = "tsr_sparse_create_csr";
        if row_ptr.len() != rows.saturating_add(1) {
            return Err(invalid(
                f,
                format!(
                    "row_ptr has {} entries; {} rows need {}",
                    row_ptr.len(),
                    rows,
                    rows.saturating_add(1)
                ),
            ));
        }
        if col_idx.len() != values.len() {
            return Err(invalid(
                f,
                format!(
                    "{} column indices but {} values",
                    col_idx.len(),
                    values.len()
                ),
            ));
        }
        Self::create(
            f,
            handle,
            rows,
            cols,
            values.len(),
            row_ptr.as_ptr().cast(),
            col_idx.as_ptr().cast(),
            values.as_ptr().cast(),
            I::ITYPE,
        )
    }

    /// From coordinates (0-based, any order; duplicates are summed).
    pub fn from_coo<I: Index>(
        handle: Option<&Handle>,
        rows: usize,
        cols: usize,
        row_idx: &[I],
        col_idx: &[I],
        values: &[T],
    ) -> Result<Self> {
        let f = "tsr_sparse_create_coo";
        if row_idx.len() != values.len() || col_idx.len() != values.len() {
            return Err(invalid(
                f,
                format!(
                    "{} row indices, {} column indices and {} values",
                    row_idx.len(),
                    col_idx.len(),
                    values.len()
                ),
            ));
        }
        Self::create(
            f,
            handle,
            rows,
            cols,
            values.len(),
            row_idx.as_ptr().cast(),
            col_idx.as_ptr().cast(),
            values.as_ptr().cast(),
            I::ITYPE,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn create(
        f: &'static str,
        handle: Option<&Handle>,
        rows: usize,
        cols: usize,
        nnz: usize,
        first: *const c_void,
        col: *const c_void,
        values: *const c_void,
        itype: c_int,
    ) -> Result<Self> {
        let (r, c, z) = (
            size_i64(f, "rows", rows)?,
            size_i64(f, "cols", cols)?,
            size_i64(f, "nnz", nnz)?,
        );
        let mut matrix: ffi::tsr_sparse = ptr::null_mut();
        // SAFETY: the arrays hold the entries the library reads (lengths checked by the caller:
        // rows + 1 offsets for CSR, nnz indices and values), and the library copies them.
        let status = unsafe {
            if f == "tsr_sparse_create_csr" {
                ffi::tsr_sparse_create_csr(
                    raw(handle),
                    &mut matrix,
                    T::DTYPE,
                    itype,
                    r,
                    c,
                    z,
                    first,
                    col,
                    values,
                )
            } else {
                ffi::tsr_sparse_create_coo(
                    raw(handle),
                    &mut matrix,
                    T::DTYPE,
                    itype,
                    r,
                    c,
                    z,
                    first,
                    col,
                    values,
                )
            }
        };
        check(f, status)?;
        Ok(SparseMatrix {
            raw: matrix,
            rows,
            cols,
            _values: PhantomData,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Converts the matrix to `format` for the handle's backend (`Format::Auto`: the library
    /// chooses). ELL and DIA are refused (`Status::NotSupported`) when mostly padding.
    pub fn optimize(&mut self, handle: Option<&Handle>, format: Format) -> Result<()> {
        // SAFETY: self.raw is a live matrix, and &mut self keeps products away meanwhile.
        check("tsr_sparse_optimize", unsafe {
            ffi::tsr_sparse_optimize(raw(handle), self.raw, format.code())
        })
    }

    /// The format products use (never `Format::Auto`).
    pub fn format(&self) -> Format {
        let mut code: c_int = ffi::TSR_FORMAT_CSR;
        // SAFETY: self.raw is a live matrix and code a valid place.
        unsafe { ffi::tsr_sparse_get_format(self.raw, &mut code) };
        Format::ALL
            .into_iter()
            .find(|f| f.code() == code)
            .unwrap_or(Format::Csr)
    }

    /// y = alpha·op(A)·x + beta·y. `x` has cols entries and `y` rows for `Op::N` (the other way
    /// round for `Op::T`); other lengths are refused before the call.
    pub fn spmv(
        &self,
        handle: Option<&Handle>,
        op: Op,
        alpha: T,
        x: &[T],
        beta: T,
        y: &mut [T],
    ) -> Result<()> {
        let f = T::SPMV_NAME;
        let (out, inp) = if op == Op::N {
            (self.rows, self.cols)
        } else {
            (self.cols, self.rows)
        };
        if x.len() != inp || y.len() != out {
            return Err(invalid(
                f,
                format!(
                    "op(A) is {}x{} but x has {} entries and y {}",
                    out,
                    inp,
                    x.len(),
                    y.len()
                ),
            ));
        }
        // SAFETY: x and y have the lengths the product reads and writes, and do not overlap
        // (y is borrowed mutably).
        let status = unsafe {
            T::spmv_raw(
                raw(handle),
                op.code(),
                alpha,
                self.raw,
                x.as_ptr(),
                beta,
                y.as_mut_ptr(),
            )
        };
        check(f, status)
    }

    /// A·x in a new vector, on the default handle.
    pub fn mul_vec(&self, x: &[T]) -> Result<Vec<T>> {
        let mut y = vec![T::ZERO; self.rows];
        self.spmv(None, Op::N, T::ONE, x, T::ZERO, &mut y)?;
        Ok(y)
    }
}

impl<T: Scalar> Drop for SparseMatrix<T> {
    fn drop(&mut self) {
        // SAFETY: the matrix is live and nothing can use it after drop.
        unsafe {
            ffi::tsr_sparse_destroy(self.raw);
        }
    }
}
