//! What an extension module gets from `cuprum::python`: [`to_python`] (an array as a
//! `cuprum.ndarray`), [`error`] (cuprum's exception classes for its own checks) and
//! [`register`] (the class and the exception classes added to the module).

use super::array::PyArray;
use super::errors;
use crate::array::Array;
use pyo3::prelude::*;

/// `array` as a `cuprum.ndarray` Python object (no copy).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # if std::env::var_os("CUPRUM_DOC_PYTHON").is_none() { return Ok(()); }
/// use pyo3::prelude::*;
/// let a = cuprum::Device::host().with(|| cuprum::Array::from_slice(&[1.5f32, 2.5], &[2]))?;
/// Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let obj = cuprum::python::to_python(py, a.clone())?;
///     assert_eq!(obj.repr()?.to_string(), "array([1.5, 2.5], dtype=float32)"); // NumPy prints it
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

/// Adds `ndarray` (also named `Array`) and the exception classes (`CuprumError`,
/// `DTypeError`, `ShapeError`, `DeviceError`, `ArgumentError`, `UnsupportedError`,
/// `OutOfMemoryError`, `CompileException`, `AxisError`, `BoundsError`, `ScalarRangeError`)
/// to an extension module. `AxisError` subclasses NumPy's, so this imports NumPy.
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
    register_without_numpy(m)?;
    m.add("AxisError", errors::axis_class(m.py())?.clone_ref(m.py()))
}

/// [`register`] but `AxisError`, which the `cuprum` package serves at first use (its
/// module's `__getattr__`), so that importing it does not import NumPy.
pub(super) fn register_without_numpy(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyArray>()?;
    // The class's name before it became `ndarray`, kept for extension modules' users.
    m.add("Array", m.py().get_type::<PyArray>())?;
    for (name, class) in errors::Classes::get(m.py())?.named() {
        m.add(name, class.clone_ref(m.py()))?;
    }
    Ok(())
}
