//! Loading and checking the CUDA driver, once per process, without ever panicking.

use crate::error::{Error, ErrorKind, Result, err};
use cudarc::driver::{result::DriverError, sys};
use std::sync::OnceLock;

/// The oldest driver API version cuprum works with (CUDA 13.0).
pub const MIN_DRIVER_VERSION: i32 = 13000;

/// How to run without a GPU, appended to every "no GPU" error.
pub(crate) const HOST_HINT: &str = "to run kernels on the CPU instead, use the host device \
     (`Device::host()`, or CUPRUM_DEVICE=host for the whole program)";

/// What the driver reported when it was loaded.
///
/// ```
/// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
/// let d = cuprum::runtime::driver_info()?;
/// println!("CUDA driver {}.{} with {} device(s)", d.major(), d.minor(), d.device_count);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DriverInfo {
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub version: i32,
    /// Number of CUDA devices the driver sees.
    pub device_count: usize,
}

impl DriverInfo {
    /// CUDA major version of the driver.
    pub fn major(&self) -> i32 {
        self.version / 1000
    }
    /// CUDA minor version of the driver.
    pub fn minor(&self) -> i32 {
        (self.version % 1000) / 10
    }
}

/// Loads the driver (once) and returns what it reported, or a typed error: no driver
/// library ([`ErrorKind::NoDriver`]), a driver older than CUDA 13.0
/// ([`ErrorKind::DriverTooOld`]), or no device ([`ErrorKind::NoDevice`]).
///
/// ```
/// match cuprum::runtime::driver_info() {
///     Ok(d) => println!("driver {}", d.version),
///     Err(e) => println!("no GPU here: {e} ({:?})", e.kind()),
/// }
/// ```
pub fn driver_info() -> Result<&'static DriverInfo> {
    static INFO: OnceLock<Result<DriverInfo>> = OnceLock::new();
    INFO.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<DriverInfo> {
    // SAFETY: `is_culib_present` only tries to dlopen the candidate library names; it calls
    // no CUDA function. It must come first: every other `sys` call panics without the library.
    if !unsafe { sys::is_culib_present() } {
        let mut names: Vec<String> = cudarc::get_lib_name_candidates("cuda")
            .into_iter()
            .filter(|n| n.starts_with("libcuda.so") || n.ends_with(".dll"))
            .collect();
        names.dedup();
        return Err(err!(
            NoDriver,
            "no CUDA driver: could not load libcuda (tried {}); install the NVIDIA driver \
             (CUDA {}.{} or newer) or run on a machine with a GPU; {HOST_HINT}",
            names.join(", "),
            MIN_DRIVER_VERSION / 1000,
            (MIN_DRIVER_VERSION % 1000) / 10
        ));
    }
    let mut version = 0;
    // SAFETY: the driver library is present (checked above) and `version` is a valid out
    // pointer. cuDriverGetVersion needs no prior cuInit.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| driver_error(e, "cuDriverGetVersion"))?;
    if version < MIN_DRIVER_VERSION {
        return Err(err!(
            DriverTooOld,
            "the CUDA driver supports CUDA {}.{}, cuprum needs {}.{} or newer (driver 580+); \
             {HOST_HINT}",
            version / 1000,
            (version % 1000) / 10,
            MIN_DRIVER_VERSION / 1000,
            (MIN_DRIVER_VERSION % 1000) / 10
        ));
    }
    match cudarc::driver::result::init() {
        Ok(()) => {}
        Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => {
            return Err(err!(
                NoDevice,
                "the CUDA driver ({}.{}) found no CUDA device; {HOST_HINT}",
                version / 1000,
                (version % 1000) / 10
            ));
        }
        Err(e) => return Err(driver_error(e, "cuInit")),
    }
    let count = cudarc::driver::result::device::get_count()
        .map_err(|e| driver_error(e, "cuDeviceGetCount"))?;
    if count <= 0 {
        return Err(err!(
            NoDevice,
            "the CUDA driver found no CUDA device; {HOST_HINT}"
        ));
    }
    Ok(DriverInfo {
        version,
        device_count: count as usize,
    })
}

/// Turns a driver error into a cuprum error naming the call that failed.
pub(crate) fn driver_error(e: DriverError, call: &str) -> Error {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("CUDA error {}", e.0 as i32));
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let what = format!("{call} failed: {name}: {text}");
    let code = e.0 as i32;
    if super::fault::is_sticky(e.0) {
        let fault = super::fault::record(super::device::current_context_ordinal(), what);
        return fault.with_driver_code(code).with_source(e);
    }
    let kind = if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        ErrorKind::OutOfMemory
    } else {
        ErrorKind::Driver
    };
    Error::new(kind, what).with_driver_code(code).with_source(e)
}

/// `result.map_err(|e| driver_error(e, call))` in a shorter form.
pub(crate) trait DriverResultExt<T> {
    fn call(self, call: &str) -> Result<T>;
}
impl<T> DriverResultExt<T> for std::result::Result<T, DriverError> {
    fn call(self, call: &str) -> Result<T> {
        self.map_err(|e| driver_error(e, call))
    }
}
impl DriverResultExt<()> for sys::CUresult {
    fn call(self, call: &str) -> Result<()> {
        self.result().map_err(|e| driver_error(e, call))
    }
}
