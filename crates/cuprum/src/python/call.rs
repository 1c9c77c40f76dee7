//! [`Call`]: a cuprum call made from Python — its device, the caller's stream made
//! current, and its array arguments imported on that stream.
//!
//! The device is the first array argument's (`__dlpack_device__`: `kDLCPU` and
//! `kDLCUDAHost` → the host device, `kDLCUDA`/`kDLCUDAManaged` with id `n` → GPU `n`); every
//! other array argument must be on it (a `DeviceError`, a `ValueError`, naming both). The
//! stream is chosen as `stream.rs` says, made cuprum's current stream until the `Call` is
//! dropped, and passed to each argument's `__dlpack__(stream=…)` so the producer orders its
//! pending work before it — except to arrays of the framework whose current stream it is,
//! which get `stream=-1` (nothing to order; torch's `__dlpack__` then skips a stream
//! lookup and an event, a few µs a call). Those arrays' memory goes back to the framework
//! in stream order (`runtime/foreign.rs`), and its device is taken at the framework's word.
//!
//! A first array whose type has a DLPack C exchange table (`exchange.rs`: PyTorch) is
//! converted by the table at once — its device read from the tensor, the stream from the
//! table — and kept for `array`; later arrays of that type go through the table too.
//!
//! Decision — **imports outlive the call's work off the default stream.** A framework's
//! caching allocator hands a freed block out again in the order of the stream it was
//! *allocated* on. Arrays taken on the framework's current stream (the table, or
//! `stream=-1`) give their memory back in that stream's order, which is right when the
//! memory was allocated there. When the current stream is not the legacy default stream
//! (`with torch.cuda.stream(s):`, `with cupy.cuda.Stream():`) the memory was quite likely
//! allocated on the default stream: dropped by Python right after the call, it could be
//! handed out again there while cuprum's kernel on `s` still reads it. So off the legacy
//! default stream the call keeps those arrays alive until one event, recorded on its
//! stream when the `Call` is dropped (after its work is queued), has completed — one event
//! per call, not per array, and none on the legacy default stream (the common case, kept
//! as fast as before). Arrays imported with `__dlpack__(stream=…)` already wait for
//! cuprum's work themselves (`runtime/foreign.rs`).

use super::capsule;
use super::errors;
use super::exchange::Exchange;
use super::interface;
use super::stream::{self, Framework};
use crate::array::Array;
use crate::dlpack::ffi::{KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED};
use crate::error::err;
use crate::runtime::{Device, Stream, StreamGuard};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use std::cell::{Cell, RefCell};

/// One call from Python: the device, the caller's stream (current until the `Call` is
/// dropped) and the arguments imported on it. A `Call` stays on the thread that made it.
///
/// ```
/// use cuprum::python::{Call, to_python};
/// use pyo3::prelude::*;
///
/// // The body of a `#[pyfunction] fn double(x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>>`:
/// fn double(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
///     let call = Call::new(&[x])?;          // x's device, the caller's stream
///     let x = call.array(x)?;               // zero-copy, on that stream
///     let y = cuprum::ops::multiply(&x, 2.0f32)?;
///     Ok(to_python(py, y)?.unbind())
/// }
///
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # if std::env::var_os("CUPRUM_DOC_PYTHON").is_none() { return Ok(()); }
/// Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let np = py.import("numpy")?;
///     let x = np.call_method1("arange", (4,))?.call_method1("astype", ("float32",))?;
///     let y = double(py, &x)?;
///     let back = np.call_method1("from_dlpack", (y,))?;
///     assert_eq!(back.call_method0("tolist")?.extract::<Vec<f32>>()?, [0.0, 2.0, 4.0, 6.0]);
///     Ok(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Call {
    device: Device,
    stream: Stream,
    /// The framework whose current stream `stream` is (`Other`: cuprum's own stream).
    framework: Framework,
    /// The first array argument (its address, while the caller holds it) and its device:
    /// `array` does not ask it for its device again.
    first: Option<(usize, Device)>,
    /// The exchange table whose current stream the call runs on (`exchange.rs`).
    exchange: Option<Exchange>,
    /// The first array, already imported through `exchange` (taken by `array`).
    first_array: Cell<Option<Array>>,
    /// Arrays imported on the framework's current stream, kept until the call's work has
    /// run (off the legacy default stream only: see the module docs).
    kept: RefCell<Vec<Array>>,
    _current: StreamGuard,
}

impl Drop for Call {
    fn drop(&mut self) {
        let kept = std::mem::take(self.kept.get_mut());
        if !kept.is_empty() {
            // After the call's work was queued on `stream`: the arrays go when it has run.
            crate::runtime::keep_until_done(&self.stream, Box::new(kept));
        }
    }
}

impl Call {
    /// Starts a call whose arrays are `inputs` (objects with `__dlpack__`, or
    /// `cuprum.ndarray`s; other objects, e.g. scalars, are skipped): the first array's device,
    /// the caller's stream for it made current. No inputs: cuprum's current stream.
    ///
    /// # Errors
    /// `TypeError` naming the first input when none of them is an array; the errors of
    /// opening the device, or of the framework's stream lookup.
    pub fn new(inputs: &[&Bound<'_, PyAny>]) -> PyResult<Call> {
        let Some(first) = inputs.iter().find(|o| is_array(o)) else {
            if let Some(obj) = inputs.first() {
                return Err(not_an_array(obj));
            }
            return Ok(Call::on(Stream::current()?, Framework::Other, None));
        };
        let py = first.py();
        if first.cast::<super::PyArray>().is_err() {
            let info = stream::type_info(first);
            if let Some(ex) = info.exchange {
                return Call::through(py, first, info.framework, ex);
            }
        }
        let (device, framework) = match first.cast::<super::PyArray>() {
            Ok(a) => (a.get().array.device(), Framework::Other),
            Err(_) => (device_of(first)?, stream::type_info(first).framework),
        };
        let stream = stream::caller_stream(py, framework, device)?;
        let framework = if device.completes_on_return() {
            Framework::Other
        } else {
            framework
        };
        let first = Some((first.as_ptr() as usize, device));
        Ok(Call::on(stream, framework, first))
    }

    /// A call whose first array `first` has the exchange table `ex`: converted now, on
    /// the stream the table names for its device.
    fn through(
        py: Python<'_>,
        first: &Bound<'_, PyAny>,
        framework: Framework,
        ex: Exchange,
    ) -> PyResult<Call> {
        let described = ex.describe(first)?;
        let (kind, id) = described.device();
        let device = device_from(first, kind, i64::from(id))?;
        let stream = if device.completes_on_return() {
            Stream::for_device(device)?
        } else {
            stream::borrow(device, ex.cuda_stream(py, device.ordinal())?)?
        };
        let mut call = Call::on(stream, framework, Some((first.as_ptr() as usize, device)));
        if device.completes_on_return() {
            call.framework = Framework::Other;
        } else {
            call.exchange = Some(ex);
        }
        // Imported now that the call's stream is current (the memory belongs to it).
        let array = call.on_framework_stream(described.into_array(first)?);
        call.first_array.set(Some(array));
        Ok(call)
    }

    fn on(stream: Stream, framework: Framework, first: Option<(usize, Device)>) -> Call {
        Call {
            device: stream.device(),
            _current: stream.make_current(),
            stream,
            framework,
            first,
            exchange: None,
            first_array: Cell::new(None),
            kept: RefCell::new(Vec::new()),
        }
    }

    /// `array`, imported on the framework's current stream (its memory given back in that
    /// stream's order), kept until the call's work has run when that stream is not the
    /// legacy default stream (see the module docs).
    fn on_framework_stream(&self, array: Array) -> Array {
        if !array.device().completes_on_return() && !self.stream.is_legacy_default() {
            self.kept.borrow_mut().push(array.clone());
        }
        array
    }

    /// The call's device (its first array's).
    pub fn device(&self) -> Device {
        self.device
    }

    /// The call's stream (current while the `Call` lives).
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// `obj` as a cuprum array on the call's device, without a copy: a `cuprum.ndarray`
    /// directly, anything else through `__dlpack__` on the call's stream.
    ///
    /// # Errors
    /// `TypeError` when `obj` has no `__dlpack__`; `cuprum.DeviceError` (a `ValueError`)
    /// when it lives on another device than the call's; the producer's errors, and cuprum's
    /// import errors (an unsupported dtype is a `cuprum.DTypeError`, a `TypeError`).
    pub fn array(&self, obj: &Bound<'_, PyAny>) -> PyResult<Array> {
        if let Ok(a) = obj.cast::<super::PyArray>() {
            let array = a.get().array.clone();
            self.check_device(obj, array.device())?;
            return Ok(array);
        }
        let is_first = matches!(self.first, Some((ptr, _)) if ptr == obj.as_ptr() as usize);
        if is_first && let Some(array) = self.first_array.take() {
            return Ok(array);
        }
        if let Some(a) = cupy_get_ndarray(obj)? {
            let array = a.get().array.clone();
            self.check_device(obj, array.device())?;
            return Ok(array);
        }
        let info = stream::type_info(obj);
        if let Some(ex) = self.exchange.filter(|&ex| info.exchange == Some(ex)) {
            // The call runs on this table's current stream: no ordering to ask for.
            let described = ex.describe(obj)?;
            let (kind, id) = described.device();
            self.check_device(obj, device_from(obj, kind, i64::from(id))?)?;
            return Ok(self.on_framework_stream(described.into_array(obj)?));
        }
        let device = match self.first {
            Some((_, device)) if is_first => device,
            _ if !is_array(obj) => return Err(not_an_array(obj)),
            _ => device_of(obj)?,
        };
        self.check_device(obj, device)?;
        if !has_dlpack(obj) && interface::offers(obj) {
            return interface::import(obj, &self.stream);
        }
        if self.device.completes_on_return() {
            return capsule::import(obj, info, None, false);
        }
        if info.framework == self.framework && self.framework != Framework::Other {
            // The call runs on this framework's current stream of the device, where its
            // own work on the array is queued: nothing to order (the array API's -1), and
            // the producer skips its stream lookup and event.
            let array = capsule::import(obj, info, Some(-1), true)?;
            return Ok(self.on_framework_stream(array));
        }
        capsule::import(obj, info, Some(self.stream.raw_handle() as i64), false)
    }

    /// `obj`'s array, borrowed, when `obj` is a `cuprum.ndarray` (exactly: no subclass),
    /// checked to be on the call's device; `None` for anything else ([`Call::array`]
    /// imports those).
    pub(crate) fn own<'a>(&self, obj: &'a Bound<'_, PyAny>) -> PyResult<Option<&'a Array>> {
        if !obj.is_exact_instance_of::<super::PyArray>() {
            return Ok(None);
        }
        let Ok(a) = obj.cast::<super::PyArray>() else {
            return Ok(None);
        };
        let array = &a.get().array;
        self.check_device(obj, array.device())?;
        Ok(Some(array))
    }

    fn check_device(&self, obj: &Bound<'_, PyAny>, device: Device) -> PyResult<()> {
        if device == self.device {
            return Ok(());
        }
        Err(err!(
            DeviceMismatch,
            "a {} on {} was passed to a call on {} (its first array's device): move it there \
             first (e.g. torch's .cuda() / .cpu())",
            errors::type_name(obj),
            device,
            self.device
        )
        .into())
    }
}

/// `obj` as a cuprum array, zero-copy, on cuprum's stream for its device (a one-argument
/// [`Call`] whose stream guard ends on return; the array stays usable on any stream, since
/// cuprum orders a buffer's first use on another stream by itself). For several
/// arguments, or to run on the caller's stream, use [`Call`].
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # if std::env::var_os("CUPRUM_DOC_PYTHON").is_none() { return Ok(()); }
/// use pyo3::prelude::*;
/// pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let x = py.import("numpy")?.call_method1("ones", (3,))?;   // float64, host memory
///     let a = cuprum::python::array_arg(&x)?;
///     assert_eq!((a.shape(), a.dtype()), (&[3][..], cuprum::DType::F64));
///     assert!(a.device().is_host());
///     Ok(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn array_arg(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    Call::new(&[obj])?.array(obj)
}

/// Whether `obj` can be an array argument (a `cuprum.ndarray`, a type with a DLPack exchange
/// table — known per type, no attribute lookup — or has `__dlpack__` or
/// `__cuda_array_interface__`).
fn is_array(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<super::PyArray>()
        || stream::type_info(obj).exchange.is_some()
        || has_dlpack(obj)
        || interface::offers(obj)
        || obj
            .hasattr(pyo3::intern!(obj.py(), "__cupy_get_ndarray__"))
            .unwrap_or(false)
}

/// The array of an object with CuPy's `__cupy_get_ndarray__` protocol (a wrapper class
/// written for CuPy that hands out its device array): `None` for other objects; a
/// `TypeError` when the method returns something that is not a `cuprum.ndarray`.
fn cupy_get_ndarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, super::PyArray>>> {
    let name = pyo3::intern!(obj.py(), "__cupy_get_ndarray__");
    if !obj.hasattr(name)? {
        return Ok(None);
    }
    let got = obj.call_method0(name)?;
    if let Ok(a) = got.cast::<super::PyArray>() {
        return Ok(Some(a.clone()));
    }
    Err(PyTypeError::new_err(format!(
        "__cupy_get_ndarray__ of a {} returned a {}, expected a cuprum.ndarray",
        errors::type_name(obj),
        errors::type_name(&got)
    )))
}

fn has_dlpack(obj: &Bound<'_, PyAny>) -> bool {
    obj.hasattr(pyo3::intern!(obj.py(), "__dlpack__"))
        .unwrap_or(false)
}

fn not_an_array(obj: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "expected an array with __dlpack__ or __cuda_array_interface__ (a torch.Tensor, \
         cupy.ndarray, jax.Array, numba device array, numpy.ndarray or cuprum.ndarray), got {}",
        errors::type_name(obj)
    ))
}

/// The cuprum device of an object's `__dlpack_device__()` (for an object with only the CUDA
/// Array Interface: the current device, the interface's convention).
fn device_of(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    if let Some(a) = cupy_get_ndarray(obj)? {
        return Ok(a.get().array.device());
    }
    if !has_dlpack(obj) && interface::offers(obj) {
        return Ok(Device::current()?);
    }
    let (kind, id): (i32, i64) = obj
        .call_method0(pyo3::intern!(obj.py(), "__dlpack_device__"))?
        .extract()?;
    device_from(obj, kind, id)
}

/// The cuprum device of DLPack device `(kind, id)` of `obj`.
fn device_from(obj: &Bound<'_, PyAny>, kind: i32, id: i64) -> PyResult<Device> {
    match kind {
        KDL_CPU | KDL_CUDA_HOST => Ok(Device::host()),
        KDL_CUDA | KDL_CUDA_MANAGED => Ok(Device::get(usize::try_from(id).map_err(|_| {
            err!(
                DeviceMismatch,
                "__dlpack_device__ gave the device id {id}, expected >= 0"
            )
        })?)?),
        other => Err(err!(
            DeviceMismatch,
            "a {} on DLPack device type {other} ({}) cannot be used by cuprum: it runs on CUDA \
             GPUs (kDLCUDA = 2) and the host device (kDLCPU = 1)",
            errors::type_name(obj),
            device_type_name(other)
        )
        .into()),
    }
}

fn device_type_name(code: i32) -> &'static str {
    match code {
        4 => "kDLOpenCL",
        7 => "kDLVulkan",
        8 => "kDLMetal",
        9 => "kDLVPI",
        10 => "kDLROCM",
        11 => "kDLROCMHost",
        12 => "kDLExtDev",
        14 => "kDLOneAPI",
        15 => "kDLWebGPU",
        16 => "kDLHexagon",
        17 => "kDLMAIA",
        _ => "unknown",
    }
}

/// `obj` as a device array without any conversion: a `cuprum.ndarray` as it is, a device
/// array of another framework without a copy, host data uploaded to the current device
/// (`cuprum.asarray`'s first step).
pub(crate) fn device_array(
    a: &Bound<'_, PyAny>,
    dtype: Option<crate::array::DType>,
) -> PyResult<Array> {
    if let Ok(x) = a.cast::<super::PyArray>() {
        return Ok(x.get().array().clone());
    }
    let device = crate::runtime::Device::current()?;
    let host_data = super::convert::is_numpy_array(a)? && !device.addresses_host_memory();
    if !host_data && super::convert::is_device_array(a)? {
        let call = Call::new(&[a])?;
        return call.array(a);
    }
    super::convert::upload(a, dtype)
}
