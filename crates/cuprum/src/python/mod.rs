//! `cuprum::python` (feature `python`): cuprum kernels in Python extension modules (PyO3),
//! on the memory of PyTorch, CuPy, JAX and NumPy without a copy.
//!
//! - **In**: [`Call::array`] (or [`array_arg`]) takes any object with `__dlpack__` — a
//!   `torch.Tensor`, `cupy.ndarray`, `jax.Array`, `numpy.ndarray` (host memory: the host
//!   device) or a `cuprum.Array` — and imports it through [`crate::dlpack`], zero-copy.
//! - **Out**: [`to_python`] wraps an [`Array`] as a `cuprum.Array` ([`PyArray`]) with
//!   `__dlpack__` / `__dlpack_device__`, which `torch.from_dlpack`, `cupy.from_dlpack`,
//!   `jax.dlpack.from_dlpack` and `numpy.from_dlpack` accept.
//! - **Streams**: a [`Call`] runs on the caller's current stream — PyTorch's current stream
//!   when its first array is a torch tensor, CuPy's for a CuPy array, else cuprum's — so
//!   the work is ordered with the framework's work exactly as the framework's own ops
//!   would be (see `stream.rs`).
//! - **Errors**: `?` turns a cuprum [`Error`](crate::Error) into a Python exception:
//!   `cuprum.DTypeError` (a `TypeError`), `cuprum.ShapeError`, `cuprum.DeviceError`,
//!   `cuprum.ArgumentError` (each a `ValueError`), `cuprum.UnsupportedError`
//!   (`NotImplementedError`), `cuprum.OutOfMemoryError` (`MemoryError`), all subclasses
//!   of `cuprum.CuprumError`, the class of every other kind; each has `kind`, the
//!   [`ErrorKind`](crate::ErrorKind)'s name, and cuprum's message (`errors.rs`).
//!
//! Decisions: the feature builds PyO3 with the stable ABI of CPython 3.9 (`abi3-py39`), so
//! one wheel serves every CPython from 3.9; cuprum does not link an interpreter into
//! extension modules (their crate enables `pyo3/extension-module` or builds with maturin).
//! Objects are imported on the call's stream and exported with the consumer's stream, so
//! no call synchronises the device. A call costs a few µs of host time: the framework's
//! stream lookup and each argument's `__dlpack__` (what cuprum caches is in `stream.rs`).
//!
//! The examples below that embed a Python interpreter run when `CUPRUM_DOC_PYTHON=1` is set
//! (with NumPy's site-packages on `PYTHONPATH`):
//! `cargo test -p cuprum --features python --doc src/python/`; otherwise they only compile.
//! CI tests the module through the example extension's wheel instead (`.ci/run`).
//!
//! An extension module (the full one is `examples/python/`):
//!
//! ```no_run
//! use cuprum::python::{Call, to_python};
//! use cuprum::ElementwiseKernel;
//! use pyo3::prelude::*;
//!
//! /// `z = x + y * 2` on any two float32 arrays of one device.
//! #[pyfunction]
//! fn custom_add(py: Python<'_>, x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
//!     static KERNEL: std::sync::OnceLock<cuprum::Result<ElementwiseKernel>> = std::sync::OnceLock::new();
//!     let kernel = KERNEL
//!         .get_or_init(|| ElementwiseKernel::new("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add"))
//!         .as_ref()
//!         .map_err(Clone::clone)?;
//!     let call = Call::new(&[x, y])?;
//!     let z = kernel.call((&call.array(x)?, &call.array(y)?))?;
//!     Ok(to_python(py, z)?.unbind())
//! }
//!
//! #[pymodule]
//! fn my_ext(m: &Bound<'_, PyModule>) -> PyResult<()> {
//!     cuprum::python::register(m)?;            // cuprum.Array and the exception classes
//!     m.add_function(wrap_pyfunction!(custom_add, m)?)
//! }
//! ```

mod array;
mod call;
mod capsule;
mod errors;
mod exchange;
mod stream;

pub use array::PyArray;
pub use call::{Call, array_arg};

use crate::array::Array;
use pyo3::prelude::*;

/// `array` as a `cuprum.Array` Python object (no copy).
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// # if std::env::var_os("CUPRUM_DOC_PYTHON").is_none() { return Ok(()); }
/// use pyo3::prelude::*;
/// let a = cuprum::Device::host().with(|| cuprum::Array::from_slice(&[1.5f32, 2.5], &[2]))?;
/// Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let obj = cuprum::python::to_python(py, a.clone())?;
///     assert_eq!(obj.repr()?.to_string(), "cuprum.Array(shape=(2,), dtype=float32, device=host)");
///     assert_eq!(obj.call_method0("__dlpack_device__")?.extract::<(i32, i32)>()?, (1, 0));
///     Ok(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_python(py: Python<'_>, array: Array) -> PyResult<Bound<'_, PyAny>> {
    Ok(Bound::new(py, PyArray::from(array))?.into_any())
}

/// A Python exception of cuprum's classes (see the module docs) for an extension's own
/// checks: the class of `kind`, `message`, and `kind` set on the exception.
///
/// ```
/// # if std::env::var_os("CUPRUM_DOC_PYTHON").is_none() { return Ok(()); }
/// use pyo3::prelude::*;
/// Python::initialize();
/// Python::attach(|py| {
///     let e = cuprum::python::error(cuprum::ErrorKind::DType, "expected int64, got float32");
///     assert!(e.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
///     assert_eq!(e.value(py).getattr("kind").unwrap().extract::<String>().unwrap(), "DType");
///     assert_eq!(e.value(py).to_string(), "expected int64, got float32");
/// });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn error(kind: crate::ErrorKind, message: impl Into<String>) -> PyErr {
    let err = crate::error::Error::new(kind, message);
    Python::attach(|py| errors::to_py_err(py, &err))
}

/// Adds `Array` (the `cuprum.Array` class) and the exception classes (`CuprumError`,
/// `DTypeError`, `ShapeError`, `DeviceError`, `ArgumentError`, `UnsupportedError`,
/// `OutOfMemoryError`) to an extension module.
///
/// ```
/// # if std::env::var_os("CUPRUM_DOC_PYTHON").is_none() { return Ok(()); }
/// use pyo3::prelude::*;
/// Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let m = pyo3::types::PyModule::new(py, "ext")?;
///     cuprum::python::register(&m)?;
///     let dtype_error = m.getattr("DTypeError")?;
///     let builtins = py.import("builtins")?;
///     assert!(dtype_error.call_method1("__subclasscheck__", (dtype_error.clone(),))?.extract::<bool>()?);
///     assert!(builtins.call_method1("issubclass", (&dtype_error, builtins.getattr("TypeError")?))?.extract::<bool>()?);
///     assert!(builtins.call_method1("issubclass", (&dtype_error, m.getattr("CuprumError")?))?.extract::<bool>()?);
///     Ok(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyArray>()?;
    for (name, class) in errors::Classes::get(m.py())?.named() {
        m.add(name, class.clone_ref(m.py()))?;
    }
    Ok(())
}
