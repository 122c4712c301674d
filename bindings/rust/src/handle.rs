// Handles (backend and thread count, destroyed on drop) and the library-wide questions:
// the version and whether a backend can run here.
use std::os::raw::c_int;
use std::ptr;

use crate::error::{c_text, check, invalid, Result};
use crate::ffi;

/// Where a handle's calls run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// CUDA when it is loaded and pays off, otherwise the CPU.
    Auto,
    /// Tessera's CPU kernels (OpenMP + SIMD).
    Cpu,
    /// Tessera's CUDA kernels (the libtessera_cuda.so plugin).
    Cuda,
    /// Plain loops: slow, obviously right.
    Reference,
}

impl Backend {
    fn code(self) -> c_int {
        match self {
            Backend::Auto => ffi::TSR_BACKEND_AUTO,
            Backend::Cpu => ffi::TSR_BACKEND_CPU,
            Backend::Cuda => ffi::TSR_BACKEND_CUDA,
            Backend::Reference => ffi::TSR_BACKEND_REFERENCE,
        }
    }

    fn from_code(code: c_int) -> Option<Backend> {
        [
            Backend::Auto,
            Backend::Cpu,
            Backend::Cuda,
            Backend::Reference,
        ]
        .into_iter()
        .find(|b| b.code() == code)
    }
}

/// A library handle. Compute calls may share one handle across threads (`&Handle`); changing
/// its settings needs `&mut Handle`, so it cannot race with them.
#[derive(Debug)]
pub struct Handle {
    raw: ffi::tsr_handle,
}

// SAFETY: the library allows compute calls on one handle from many threads at once, and
// configuration calls take &mut self, so they never run alongside them.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

impl Handle {
    /// A handle configured from the environment (`TESSERA_BACKEND`, `TESSERA_NUM_THREADS`).
    pub fn new() -> Result<Handle> {
        let mut raw = ptr::null_mut();
        // SAFETY: raw is a valid place for the new handle.
        check("tsr_create", unsafe { ffi::tsr_create(&mut raw) })?;
        Ok(Handle { raw })
    }

    /// A handle on a given backend; fails when that backend cannot run here.
    pub fn with_backend(backend: Backend) -> Result<Handle> {
        let mut h = Handle::new()?;
        h.set_backend(backend)?;
        Ok(h)
    }

    /// Chooses the backend; an unavailable one fails and the previous one stays.
    pub fn set_backend(&mut self, backend: Backend) -> Result<()> {
        // SAFETY: self.raw is a live handle.
        check("tsr_set_backend", unsafe {
            ffi::tsr_set_backend(self.raw, backend.code())
        })
    }

    /// The backend the handle is set to.
    pub fn backend(&self) -> Result<Backend> {
        let mut code: c_int = -1;
        // SAFETY: self.raw is a live handle and code a valid place.
        check("tsr_get_backend", unsafe {
            ffi::tsr_get_backend(self.raw, &mut code)
        })?;
        Backend::from_code(code)
            .ok_or_else(|| invalid("tsr_get_backend", format!("unknown backend {}", code)))
    }

    /// CPU threads for this handle's calls (>= 1).
    pub fn set_num_threads(&mut self, num_threads: usize) -> Result<()> {
        let n = c_int::try_from(num_threads).map_err(|_| {
            invalid(
                "tsr_set_num_threads",
                format!("num_threads = {} is too large", num_threads),
            )
        })?;
        // SAFETY: self.raw is a live handle.
        check("tsr_set_num_threads", unsafe {
            ffi::tsr_set_num_threads(self.raw, n)
        })
    }

    /// Opts this handle's CPU products into Strassen's method: `levels` 0 (classical, the
    /// default), 1 or 2; no split produces a block smaller than `min_block` (0: 1024).
    /// Strassen's result is accurate in norm, not element by element.
    pub fn set_strassen(&mut self, levels: u32, min_block: u64) -> Result<()> {
        let (l, b) = match (c_int::try_from(levels), i64::try_from(min_block)) {
            (Ok(l), Ok(b)) => (l, b),
            _ => {
                return Err(invalid(
                    "tsr_set_strassen",
                    format!("levels = {}, min_block = {} out of range", levels, min_block),
                ))
            }
        };
        // SAFETY: self.raw is a live handle.
        check("tsr_set_strassen", unsafe {
            ffi::tsr_set_strassen(self.raw, l, b)
        })
    }

    /// The raw handle, for calls through [`crate::ffi`]; it stays owned by `self`.
    pub fn as_raw(&self) -> ffi::tsr_handle {
        self.raw
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle is live and nothing can use it after drop.
        unsafe {
            ffi::tsr_destroy(self.raw);
        }
    }
}

/// The raw pointer for an optional handle (NULL: the process-wide default handle).
pub(crate) fn raw(handle: Option<&Handle>) -> ffi::tsr_handle {
    handle.map_or(ptr::null_mut(), |h| h.raw)
}

/// The library's version, "major.minor.patch".
pub fn version() -> String {
    // SAFETY: tsr_version returns a static string.
    unsafe { c_text(ffi::tsr_version()) }
}

/// Whether a backend can run on this machine.
pub fn backend_available(backend: Backend) -> bool {
    let mut available: c_int = 0;
    // SAFETY: available is a valid place.
    let status = unsafe { ffi::tsr_backend_available(backend.code(), &mut available) };
    status == ffi::TSR_SUCCESS && available != 0
}
