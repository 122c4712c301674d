// Errors of the safe wrapper: the library's status with tsr_last_error()'s text (read on the
// calling thread), or the wrapper's own refusal of arguments it checks before a call.
use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_int};

use crate::ffi;

/// Why a call failed: the `TSR_ERR_*` codes of `tessera.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    InvalidArgument,
    BackendUnavailable,
    OutOfMemory,
    Device,
    NotSupported,
    Internal,
    /// A code this crate does not know (a newer library).
    Other(i32),
}

impl Status {
    fn from_code(code: c_int) -> Status {
        match code {
            ffi::TSR_ERR_INVALID_ARGUMENT => Status::InvalidArgument,
            ffi::TSR_ERR_BACKEND_UNAVAILABLE => Status::BackendUnavailable,
            ffi::TSR_ERR_OUT_OF_MEMORY => Status::OutOfMemory,
            ffi::TSR_ERR_DEVICE => Status::Device,
            ffi::TSR_ERR_NOT_SUPPORTED => Status::NotSupported,
            ffi::TSR_ERR_INTERNAL => Status::Internal,
            other => Status::Other(other),
        }
    }

    /// The C value (`TSR_ERR_*`).
    pub fn code(self) -> i32 {
        match self {
            Status::InvalidArgument => ffi::TSR_ERR_INVALID_ARGUMENT,
            Status::BackendUnavailable => ffi::TSR_ERR_BACKEND_UNAVAILABLE,
            Status::OutOfMemory => ffi::TSR_ERR_OUT_OF_MEMORY,
            Status::Device => ffi::TSR_ERR_DEVICE,
            Status::NotSupported => ffi::TSR_ERR_NOT_SUPPORTED,
            Status::Internal => ffi::TSR_ERR_INTERNAL,
            Status::Other(code) => code,
        }
    }
}

/// A failed call: which function, the status, and the explanation.
#[derive(Debug, Clone)]
pub struct Error {
    pub function: &'static str,
    pub status: Status,
    pub message: String,
}

/// The result of every fallible call of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: tsr_status_string never returns NULL and its text is static.
        let text = unsafe { c_text(ffi::tsr_status_string(self.status.code())) };
        let prefix = format!("{}: ", self.function);
        let message = self.message.strip_prefix(&prefix).unwrap_or(&self.message);
        write!(f, "{}: {}: {}", self.function, text, message)
    }
}

impl std::error::Error for Error {}

/// A C string as an owned String ("" for NULL).
pub(crate) unsafe fn c_text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        String::new()
    } else {
        CStr::from_ptr(ptr).to_string_lossy().into_owned()
    }
}

/// Ok for TSR_SUCCESS; otherwise the error with the library's detail for this thread.
pub(crate) fn check(function: &'static str, code: c_int) -> Result<()> {
    if code == ffi::TSR_SUCCESS {
        return Ok(());
    }
    // SAFETY: tsr_last_error returns a thread-local string valid until the next failure.
    let message = unsafe { c_text(ffi::tsr_last_error()) };
    Err(Error {
        function,
        status: Status::from_code(code),
        message,
    })
}

/// The wrapper's own refusal, made before the library is called.
pub(crate) fn invalid(function: &'static str, message: String) -> Error {
    Error {
        function,
        status: Status::InvalidArgument,
        message,
    }
}
