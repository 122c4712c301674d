//! Tessera for Rust: dense (`gemm`) and sparse (`SparseMatrix::spmv`) products on libtessera's
//! CPU, reference and CUDA backends, through a safe wrapper over the raw FFI in [`ffi`].
//!
//! ```no_run
//! use tessera::{gemm, Handle, Backend, Layout, Op};
//! let (m, n, k) = (2, 2, 3);
//! let a = vec![1.0f64; m * k];
//! let b = vec![2.0f64; k * n];
//! let mut c = vec![0.0f64; m * n];
//! let h = Handle::with_backend(Backend::Cpu)?;
//! gemm(Some(&h), Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0, &a, k, &b, n, 0.0, &mut c, n)?;
//! assert_eq!(c, vec![6.0; 4]);
//! # Ok::<(), tessera::Error>(())
//! ```
//!
//! Every slice is checked against the sizes and leading dimensions before the library is
//! called, so no call can read or write outside the memory it was given.

pub mod ffi;

mod dense;
mod error;
mod handle;
mod sparse;

pub use dense::{gemm, Layout, Op, Scalar};
pub use error::{Error, Result, Status};
pub use handle::{backend_available, version, Backend, Handle};
pub use sparse::{Format, Index, SparseMatrix};
