//! The one error type of cuprum: an opaque [`Error`] with a [`kind()`](Error::kind) and a message
//! that says what was expected and what was given.
//!
//! [`ErrorKind`] is `#[non_exhaustive]`: kinds may be added. Compile errors carry NVRTC's
//! log and the failure's details; an error a driver call returned carries its `CUresult`
//! ([`driver_code()`](Error::driver_code)) and the driver's error as `source()`; an I/O
//! failure carries the `io::Error`. `std::error::Error` is implemented by hand (no
//! `thiserror`), and `{:?}` is as short as `{}` (the message and the kind), since it is what
//! `unwrap` and `main` print.

use std::fmt;

/// What went wrong, coarsely: match on this, read the message for the details.
///
/// ```
/// use cuprum::ErrorKind;
/// // Asking for an impossible shape fails before any GPU is touched.
/// let err = cuprum::shape::broadcast_shapes(&[&[2][..], &[3][..]]).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Shape);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The CUDA driver library (`libcuda.so`) could not be loaded: no NVIDIA driver here.
    NoDriver,
    /// The driver is older than the CUDA version cuprum is built against (13.0).
    DriverTooOld,
    /// The driver works but no (or not that) CUDA device is present.
    NoDevice,
    /// A CUDA driver call failed; the message carries the driver's error name and text.
    Driver,
    /// A device allocation could not be satisfied; the message gives requested and free bytes.
    OutOfMemory,
    /// NVRTC (the runtime compiler) could not be found or loaded.
    NvrtcNotFound,
    /// `nvcc` was asked for but is not on `PATH` (or could not run).
    NvccNotFound,
    /// NVRTC rejected the source; the error carries NVRTC's log.
    Compile,
    /// Shapes do not fit together (broadcasting, reshape, out-of-range index or axis).
    Shape,
    /// The dtype is wrong for the operation, or values cannot be represented in it.
    DType,
    /// An argument is invalid for another reason (a zero step, a bad environment value ...).
    InvalidArgument,
    /// A cuRAND call failed or cuRAND is missing.
    Random,
    /// A cuBLAS call failed or cuBLAS is missing.
    Blas,
    /// A cuFFT call failed or cuFFT is missing.
    Fft,
    /// Reading or writing a file failed.
    Io,
    /// The operation is valid but not supported (yet) for these inputs.
    Unsupported,
    /// A kernel's argument list does not match its parameters, or a launch configuration
    /// is outside the device's limits.
    Launch,
    /// A kernel faulted. Two cases, told apart by the message:
    /// - a hardware fault (an illegal address or instruction, a misaligned address, a
    ///   device-side assert …): the device's CUDA context is unusable for the rest of the
    ///   process, and every later call that needs the device returns this kind too, naming
    ///   the same fault; restart the process to use the GPU again;
    /// - a kernel written in Rust failed a check on the GPU (an index out of bounds; in debug
    ///   builds also a division by zero or a shift overflow): reported at the next
    ///   synchronisation with the kernel, Rust file and line, block and thread; the faulting
    ///   access was skipped and the context stays usable.
    KernelFault,
    /// The host device needs a C++ compiler (g++ 9+ or clang++ 10+) and none was found
    /// (or it could not run); the message says what was tried and what to install.
    NoHostCompiler,
    /// The arrays of one call live on different devices (or on another device than the
    /// stream or communicator rank they are given to); the message names both devices.
    DeviceMismatch,
    /// NCCL (the collective communication library) could not be loaded, or one of its calls
    /// failed; the message carries NCCL's error text.
    Nccl,
    /// A kernel bundle ([`cuprum::bundle`](crate::bundle)) is damaged, foreign or of another
    /// format version, or a kernel is missing from the bundles loaded and no NVRTC is here
    /// to compile it.
    Bundle,
    /// The ranks of a multi-process run could not meet: the root's address does not
    /// resolve or answer, ranks did not arrive within the timeout (the message names them),
    /// or two runs met at one port.
    Rendezvous,
    /// An NCCL communicator was aborted: a peer rank failed or left (NCCL's asynchronous
    /// error), or a collective did not finish within the watchdog's timeout. The message
    /// names the collective and the rank; the communicator cannot be used again.
    CommAborted,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            ErrorKind::NoDriver => "no CUDA driver",
            ErrorKind::DriverTooOld => "CUDA driver too old",
            ErrorKind::NoDevice => "no CUDA device",
            ErrorKind::Driver => "CUDA driver error",
            ErrorKind::OutOfMemory => "out of device memory",
            ErrorKind::NvrtcNotFound => "NVRTC not found",
            ErrorKind::NvccNotFound => "nvcc not found",
            ErrorKind::Compile => "compile error",
            ErrorKind::Shape => "shape error",
            ErrorKind::DType => "dtype error",
            ErrorKind::InvalidArgument => "invalid argument",
            ErrorKind::Random => "cuRAND error",
            ErrorKind::Blas => "cuBLAS error",
            ErrorKind::Fft => "cuFFT error",
            ErrorKind::Io => "I/O error",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Launch => "launch error",
            ErrorKind::KernelFault => "kernel fault",
            ErrorKind::NoHostCompiler => "no host C++ compiler",
            ErrorKind::DeviceMismatch => "arrays on different devices",
            ErrorKind::Nccl => "NCCL error",
            ErrorKind::Bundle => "kernel bundle error",
            ErrorKind::Rendezvous => "rendezvous error",
            ErrorKind::CommAborted => "communicator aborted",
        };
        f.write_str(s)
    }
}

/// The error every fallible cuprum function returns.
///
/// Opaque on purpose: [`kind()`](Error::kind) is stable to match on, the message is for people.
/// Compile errors also carry NVRTC's log ([`compile_log()`](Error::compile_log)); errors
/// a CUDA driver call returned carry its result code ([`driver_code()`](Error::driver_code));
/// the error underneath (the driver's, or the I/O error of a file or folder) is
/// [`source()`](std::error::Error::source).
///
/// ```
/// use cuprum::ErrorKind;
/// let err = cuprum::Array::from_slice(&[1.0f32, 2.0, 3.0], &[2, 2]).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Shape);
/// assert!(err.to_string().contains("3 elements"), "{err}");
/// // `{:?}` (what `unwrap` and `main` print) is the message and the kind
/// assert_eq!(format!("{err:?}"), format!("{err} (Shape)"));
/// ```
#[derive(Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// A failed compile's details (a `compile::CompileFailure`; the compile layer, above
    /// this ground floor, reads it back with `Error::compile_failure`).
    pub(crate) failure: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
    /// The compile log a user is shown (`CompileFailure::user_log`).
    pub(crate) user_log: Option<std::sync::Arc<str>>,
    /// The error underneath (a driver or I/O error).
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
    /// The driver's `CUresult` of a failed driver call.
    driver_code: Option<i32>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    /// The error underneath: the driver's error of a failed driver call, the I/O error of
    /// a file or folder operation.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// As concise as `Display` (what `unwrap()` and `fn main() -> Result` print): the message
/// and the kind. A compile error's message already shows each error with its source lines;
/// the full log stays in [`compile_log`](Error::compile_log).
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:?})", self.message, self.kind)
    }
}

impl Error {
    /// A new error of `kind` with a message.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            failure: None,
            user_log: None,
            source: None,
            driver_code: None,
        }
    }

    /// The same error with `e` underneath (returned by `source()`).
    pub(crate) fn with_source(mut self, e: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(std::sync::Arc::new(e));
        self
    }

    /// The same error with the driver's result code of the call that failed.
    pub(crate) fn with_driver_code(mut self, code: i32) -> Self {
        self.driver_code = Some(code);
        self
    }

    /// What kind of error this is.
    ///
    /// ```
    /// # use cuprum::{Array, ErrorKind};
    /// let err = Array::from_slice(&[1u8], &[2]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Shape);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The compiler's log, for [`ErrorKind::Compile`] errors: NVRTC's log without its
    /// warnings about cuprum's own generated code and headers (those about your code stay;
    /// [`compile_failure`](Error::compile_failure) has the raw log).
    ///
    /// ```
    /// # use cuprum::ErrorKind;
    /// let err = cuprum::Array::from_slice(&[1u8], &[2]).unwrap_err();
    /// assert!(err.compile_log().is_none());
    /// ```
    pub fn compile_log(&self) -> Option<&str> {
        self.user_log.as_deref()
    }

    /// The CUDA driver's result code (`CUresult`, e.g. 2 for `CUDA_ERROR_OUT_OF_MEMORY`,
    /// 700 for `CUDA_ERROR_ILLEGAL_ADDRESS`) when a driver call failed: errors of kind
    /// [`Driver`](ErrorKind::Driver), [`OutOfMemory`](ErrorKind::OutOfMemory) and
    /// [`KernelFault`](ErrorKind::KernelFault) that a driver call returned. `None` for
    /// everything cuprum checks itself.
    ///
    /// ```
    /// let err = cuprum::Array::from_slice(&[1u8], &[2]).unwrap_err();
    /// assert_eq!(err.driver_code(), None);
    /// assert!(std::error::Error::source(&err).is_none());
    /// ```
    pub fn driver_code(&self) -> Option<i32> {
        self.driver_code
    }
}

/// `Result<T, cuprum::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Shorthand for building an error and returning it.
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*)))
    };
}
pub(crate) use bail;

/// Shorthand for building an error value.
macro_rules! err {
    ($kind:ident, $($arg:tt)*) => {
        $crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)*))
    };
}
pub(crate) use err;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_underneath_is_the_source() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "no entry");
        let e = err!(Io, "kernel cache: {io}").with_source(io);
        let src = std::error::Error::source(&e).expect("a source");
        let io = src
            .downcast_ref::<std::io::Error>()
            .expect("the io::Error itself");
        assert_eq!(io.kind(), std::io::ErrorKind::PermissionDenied);
        assert_eq!(e.driver_code(), None);
        let e = err!(Driver, "cuX failed").with_driver_code(700);
        assert_eq!((e.kind(), e.driver_code()), (ErrorKind::Driver, Some(700)));
        // clones keep both
        assert_eq!(e.clone().driver_code(), Some(700));
    }
}
