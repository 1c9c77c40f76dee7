//! The caller's stream: where a cuprum call made from Python runs.
//!
//! Decision: a call runs on the stream the caller's framework would use for the same work,
//! so it is ordered after the work queued there and before the work queued there next,
//! with no synchronisation:
//! - a torch tensor on CUDA: PyTorch's current stream of the tensor's device
//!   (`torch._C._cuda_getCurrentRawStream(index)`, the raw handle behind
//!   `torch.cuda.current_stream(device).cuda_stream`, which is the fallback);
//! - a CuPy array: CuPy's current stream of the array's device
//!   (`cupy.cuda.get_current_stream(device_id).ptr`);
//! - anything else (JAX, NumPy, cuprum's own `Array`): cuprum's stream for the device
//!   ([`Stream::for_device`]: the current stream when it is on that device);
//! - first of all, a type with a DLPack C exchange table (`exchange.rs`; PyTorch ≥ 2.10):
//!   the stream its `current_work_stream` names, a C call.
//!
//! The handle 0 (a framework's legacy default stream) becomes the driver's `0x1`
//! (`CU_STREAM_LEGACY`), which both `Stream::from_raw` and `__dlpack__(stream=…)` take.
//! torch and cupy are imported only when an object's type comes from them (never by cuprum
//! itself), and what was looked up is cached: a type's framework per thread, the stream
//! functions per process.
//!
//! The framework's current stream is per device: a call uses the one of its first array's
//! device.
//!
//! Streams of foreign frameworks are borrowed (`Stream::from_raw`): the arrays a call makes
//! are allocated on that stream and, when freed, returned to cuprum's pool in its order,
//! so the stream must outlive them. PyTorch's and CuPy's default and pooled streams live as
//! long as the process; a stream the user created and destroyed while a cuprum array made
//! on it is alive is the user's error, as in CUDA.

use super::exchange::Exchange;
use crate::error::Result as CuResult;
use crate::runtime::{Device, Stream};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

/// Which framework a Python type belongs to (by its module's top-level package).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Framework {
    Torch,
    Cupy,
    Other,
}

/// What cuprum remembers of a type that produces DLPack capsules.
#[derive(Clone, Copy, Debug)]
pub(super) struct TypeInfo {
    pub(super) framework: Framework,
    /// `Some(false)` once `__dlpack__` refused `max_version` (a pre-1.0 producer).
    pub(super) takes_max_version: Option<bool>,
    /// The type's DLPack C exchange table (`exchange.rs`), if it offers one.
    pub(super) exchange: Option<Exchange>,
}

thread_local! {
    /// Types seen on this thread (a type's address with a reference that keeps it alive,
    /// so an address is never reused for another type).
    static TYPES: RefCell<Vec<(usize, TypeInfo)>> = const { RefCell::new(Vec::new()) };
}

/// What is known of `obj`'s type (looked up once per type and thread).
pub(super) fn type_info(obj: &Bound<'_, PyAny>) -> TypeInfo {
    let ty = obj.get_type();
    let key = ty.as_ptr() as usize;
    if let Some(info) = TYPES.with(|t| t.borrow().iter().find(|e| e.0 == key).map(|e| e.1)) {
        return info;
    }
    let module: String = ty
        .getattr("__module__")
        .and_then(|m| m.extract())
        .unwrap_or_default();
    let framework = match module.split('.').next() {
        Some("torch") => Framework::Torch,
        Some("cupy") => Framework::Cupy,
        _ => Framework::Other,
    };
    let info = TypeInfo {
        framework,
        takes_max_version: None,
        exchange: Exchange::of_type(&ty),
    };
    // Keep the type alive for as long as its address is a key (types are few).
    std::mem::forget(ty.clone().unbind());
    TYPES.with(|t| t.borrow_mut().push((key, info)));
    info
}

/// Remembers that `obj`'s type refused (or took) `max_version`.
pub(super) fn set_takes_max_version(obj: &Bound<'_, PyAny>, takes: bool) {
    let key = obj.get_type().as_ptr() as usize;
    TYPES.with(|t| {
        if let Some(e) = t.borrow_mut().iter_mut().find(|e| e.0 == key) {
            e.1.takes_max_version = Some(takes);
        }
    });
}

/// The caller's stream for work on `device` with an input of `framework` (see the module
/// docs).
pub(super) fn caller_stream(
    py: Python<'_>,
    framework: Framework,
    device: Device,
) -> PyResult<Stream> {
    if device.completes_on_return() {
        return Ok(Stream::for_device(device)?);
    }
    let raw = match framework {
        Framework::Torch => torch_stream(py, device.ordinal())?,
        Framework::Cupy => cupy_stream(py, device.ordinal())?,
        Framework::Other => return Ok(Stream::for_device(device)?),
    };
    Ok(borrow(device, raw)?)
}

/// A framework's stream handle as a cuprum stream (0, the legacy default stream, as 0x1).
pub(super) fn borrow(device: Device, raw: usize) -> CuResult<Stream> {
    let handle = if raw == 0 { 1 } else { raw };
    // SAFETY: `handle` is the framework's current stream of `device` (or 0x1, the legacy
    // default stream): a live stream of the device's primary context, which both
    // frameworks use. It outlives the call; for the arrays made on it, see the module docs
    // (the frameworks' default and pooled streams are never destroyed).
    unsafe { Stream::from_raw(&device, handle as *mut c_void) }
}

static TORCH_RAW_STREAM: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TORCH_CURRENT_STREAM: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static CUPY_CURRENT_STREAM: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// PyTorch's current stream of device `index`, as a raw handle.
fn torch_stream(py: Python<'_>, index: usize) -> PyResult<usize> {
    let fast = TORCH_RAW_STREAM.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        let c = py.import("torch")?.getattr("_C")?;
        Ok(c.getattr("_cuda_getCurrentRawStream")
            .map(Bound::unbind)
            .unwrap_or_else(|_| py.None()))
    })?;
    if !fast.is_none(py) {
        return fast.bind(py).call1((index,))?.extract();
    }
    let current = TORCH_CURRENT_STREAM.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("torch")?
            .getattr("cuda")?
            .getattr("current_stream")?
            .unbind())
    })?;
    current
        .bind(py)
        .call1((index,))?
        .getattr("cuda_stream")?
        .extract()
}

/// CuPy's current stream of device `index`, as a raw handle
/// (`cupy.cuda.get_current_stream(index)`; without the index for a CuPy that takes none,
/// then its current device's).
fn cupy_stream(py: Python<'_>, index: usize) -> PyResult<usize> {
    let current = CUPY_CURRENT_STREAM.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("cupy")?
            .getattr("cuda")?
            .getattr("get_current_stream")?
            .unbind())
    })?;
    let f = current.bind(py);
    if !CUPY_NO_INDEX.load(Ordering::Relaxed) {
        match f.call1((index,)) {
            Ok(s) => return s.getattr("ptr")?.extract(),
            Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                CUPY_NO_INDEX.store(true, Ordering::Relaxed)
            }
            Err(e) => return Err(e),
        }
    }
    f.call0()?.getattr("ptr")?.extract()
}

/// Set once `cupy.cuda.get_current_stream` refused a device index.
static CUPY_NO_INDEX: AtomicBool = AtomicBool::new(false);
