//! cuprum's [`Error`] as a Python exception.
//!
//! Decision: one class per coarse meaning, each a subclass of both `cuprum.CuprumError` and
//! the Python built-in a caller would catch, so `except TypeError` and
//! `except cuprum.CuprumError` both work; every instance also carries `kind`, the
//! [`ErrorKind`] variant's name (`"DType"`, `"Shape"` …), and the message is cuprum's.
//!
//! | class              | bases                          | kinds                                       |
//! |--------------------|--------------------------------|---------------------------------------------|
//! | `DTypeError`       | `CuprumError`, `TypeError`     | `DType`                                     |
//! | `ShapeError`       | `CuprumError`, `ValueError`    | `Shape`                                     |
//! | `DeviceError`      | `CuprumError`, `ValueError`    | `DeviceMismatch` (and a producer on a device cuprum cannot use) |
//! | `ArgumentError`    | `CuprumError`, `ValueError`    | `InvalidArgument`                           |
//! | `UnsupportedError` | `CuprumError`, `NotImplementedError` | `Unsupported`                         |
//! | `OutOfMemoryError` | `CuprumError`, `MemoryError`   | `OutOfMemory`                               |
//! | `CompileException` | `CuprumError`                  | `Compile` (CuPy's `cupy.cuda.compiler.CompileException`) |
//! | `CuprumError`      | `Exception`                    | every other kind (driver, fault …)          |
//! | `AxisError`        | `ShapeError`, `numpy.exceptions.AxisError` | `Shape`: an axis out of range (NumPy's message) |
//! | `BoundsError`      | `ShapeError`, `IndexError`     | `Shape`: an index out of bounds, too many indices, a mask of another shape, index arrays that do not broadcast |
//! | `ScalarRangeError` | `CuprumError`, `OverflowError` | `DType`: a scalar out of its dtype's range  |
//!
//! The last three refine a kind by the engine's message (each comes from one place of the
//! engine, in NumPy's words), so the exception NumPy raises for the same input is caught
//! too (`except IndexError`, `except OverflowError`, `except numpy.exceptions.AxisError`).
//! `ScalarRangeError` is not a `TypeError` (nor a `DTypeError`): NumPy's error for a
//! Python int out of its array's range is an `OverflowError` only, and CuPy's tests
//! compare the two by class.
//!
//! The classes are made once per process (with Python's `type`, since a class with two
//! built-in bases cannot be declared with `create_exception!`), in module `cuprum`;
//! [`register`](super::register) adds them to an extension module. `AxisError` is made
//! apart, at its first use ([`axis_class`]), because its NumPy base means importing NumPy:
//! the `cuprum` package serves it through its module's `__getattr__`, so `import cuprum`
//! does not import NumPy.

use crate::error::{Error, ErrorKind};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// The exception classes, made once per process.
pub(super) struct Classes {
    pub(super) base: Py<PyType>,
    pub(super) dtype: Py<PyType>,
    pub(super) shape: Py<PyType>,
    pub(super) device: Py<PyType>,
    pub(super) argument: Py<PyType>,
    pub(super) unsupported: Py<PyType>,
    pub(super) out_of_memory: Py<PyType>,
    pub(super) compile: Py<PyType>,
    pub(super) bounds: Py<PyType>,
    pub(super) scalar_range: Py<PyType>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

static AXIS: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `AxisError`, a subclass of `ShapeError` and of NumPy's `AxisError` (made, and NumPy
/// imported, on first use).
pub(super) fn axis_class(py: Python<'_>) -> PyResult<&Py<PyType>> {
    AXIS.get_or_try_init(py, || {
        let shape = Classes::get(py)?.shape.bind(py).clone().into_any();
        let numpy_axis_error = py
            .import("numpy")?
            .getattr("exceptions")?
            .getattr("AxisError")?;
        make_class(
            py,
            "AxisError",
            "An axis out of range (kind 'Shape'; also NumPy's AxisError).",
            vec![shape, numpy_axis_error],
        )
    })
}

/// A class named `name` in module `cuprum` with `bases`, made with Python's `type`.
fn make_class(
    py: Python<'_>,
    name: &str,
    doc: &str,
    bases: Vec<Bound<'_, PyAny>>,
) -> PyResult<Py<PyType>> {
    let ns = PyDict::new(py);
    ns.set_item("__module__", "cuprum")?;
    ns.set_item("__doc__", doc)?;
    let bases = PyTuple::new(py, bases)?;
    Ok(py
        .import("builtins")?
        .getattr("type")?
        .call1((name, bases, ns))?
        .cast_into::<PyType>()?
        .unbind())
}

impl Classes {
    /// Every class with its Python name (what `register` adds to a module), but
    /// `AxisError` ([`axis_class`]).
    pub(super) fn named(&self) -> [(&'static str, &Py<PyType>); 10] {
        [
            ("CuprumError", &self.base),
            ("DTypeError", &self.dtype),
            ("ShapeError", &self.shape),
            ("DeviceError", &self.device),
            ("ArgumentError", &self.argument),
            ("UnsupportedError", &self.unsupported),
            ("OutOfMemoryError", &self.out_of_memory),
            ("CompileException", &self.compile),
            ("BoundsError", &self.bounds),
            ("ScalarRangeError", &self.scalar_range),
        ]
    }

    /// The classes of this process (made on first use).
    pub(super) fn get(py: Python<'_>) -> PyResult<&Classes> {
        CLASSES.get_or_try_init(py, || make_classes(py))
    }
}

fn make_classes(py: Python<'_>) -> PyResult<Classes> {
    let builtins = py.import("builtins")?;
    let make =
        |name: &str, doc: &str, bases: Vec<Bound<'_, PyAny>>| make_class(py, name, doc, bases);
    let exception = builtins.getattr("Exception")?;
    let base = make(
        "CuprumError",
        "A cuprum error; `kind` names cuprum's ErrorKind (e.g. 'Driver', 'Compile').",
        vec![exception],
    )?;
    let sub = |name: &str, builtin: &str, doc: &str| -> PyResult<Py<PyType>> {
        make(
            name,
            doc,
            vec![base.bind(py).clone().into_any(), builtins.getattr(builtin)?],
        )
    };
    let dtype = sub("DTypeError", "TypeError", "A wrong dtype (kind 'DType').")?;
    let shape = sub(
        "ShapeError",
        "ValueError",
        "Shapes that do not fit (kind 'Shape').",
    )?;
    let bounds = make(
        "BoundsError",
        "An index out of bounds, or too many indices (kind 'Shape'; also an IndexError).",
        vec![
            shape.bind(py).clone().into_any(),
            builtins.getattr("IndexError")?,
        ],
    )?;
    let scalar_range = make(
        "ScalarRangeError",
        "A scalar out of its dtype's range (kind 'DType'; an OverflowError, as NumPy's).",
        vec![
            base.bind(py).clone().into_any(),
            builtins.getattr("OverflowError")?,
        ],
    )?;
    Ok(Classes {
        dtype,
        shape,
        bounds,
        scalar_range,
        device: sub(
            "DeviceError",
            "ValueError",
            "An array on the wrong device (kind 'DeviceMismatch').",
        )?,
        argument: sub(
            "ArgumentError",
            "ValueError",
            "An invalid argument (kind 'InvalidArgument').",
        )?,
        unsupported: sub(
            "UnsupportedError",
            "NotImplementedError",
            "Valid but not supported (kind 'Unsupported').",
        )?,
        out_of_memory: sub(
            "OutOfMemoryError",
            "MemoryError",
            "Device memory exhausted (kind 'OutOfMemory').",
        )?,
        compile: make(
            "CompileException",
            "A kernel that did not compile (kind 'Compile'): the message holds the compiler's \
             log (CuPy's cupy.cuda.compiler.CompileException).",
            vec![base.bind(py).clone().into_any()],
        )?,
        base,
    })
}

/// The class of a `Shape` error: an axis or an index out of range get NumPy's classes too.
fn shape_class<'c>(
    py: Python<'c>,
    classes: &'c Classes,
    message: &str,
) -> PyResult<&'c Py<PyType>> {
    // A fused function's errors carry a prefix (`fused `f` (sum): axis 2 is out …`).
    Ok(
        if message.contains("axis ") && message.contains("is out of bounds for array of dimension")
        {
            axis_class(py)?
        } else if (message.starts_with("index ") && message.contains("is out of bounds for axis"))
            || message.starts_with("too many indices")
            || message.starts_with("boolean index did not match")
            || message.starts_with("shape mismatch: indexing arrays")
            || message.starts_with("an index can only have a single ellipsis")
            || message.starts_with("arrays used as indices must be")
            || message.starts_with("cannot do a non-empty take from an empty axes")
        {
            &classes.bounds
        } else {
            &classes.shape
        },
    )
}

/// The class of a `DType` error: a scalar out of its dtype's range is also an
/// `OverflowError`, as NumPy 2 raises.
fn dtype_class<'c>(classes: &'c Classes, message: &str) -> &'c Py<PyType> {
    if message.contains("is out of range for") {
        &classes.scalar_range
    } else {
        &classes.dtype
    }
}

/// The Python exception for a cuprum error: the class of its kind (see the module docs),
/// cuprum's message, and `kind` set to the kind's name.
pub(super) fn to_py_err(py: Python<'_>, err: &Error) -> PyErr {
    let classes = match Classes::get(py) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let message = err.to_string();
    let class = match err.kind() {
        ErrorKind::DType => dtype_class(classes, &message),
        ErrorKind::Shape => match shape_class(py, classes, &message) {
            Ok(c) => c,
            Err(e) => return e,
        },
        ErrorKind::DeviceMismatch => &classes.device,
        ErrorKind::InvalidArgument => &classes.argument,
        ErrorKind::Unsupported => &classes.unsupported,
        ErrorKind::OutOfMemory => &classes.out_of_memory,
        ErrorKind::Compile => &classes.compile,
        _ => &classes.base,
    };
    let py_err = PyErr::from_type(class.bind(py).clone(), (message,));
    if let Err(e) = py_err
        .value(py)
        .setattr("kind", format!("{:?}", err.kind()))
    {
        return e;
    }
    py_err
}

impl From<Error> for PyErr {
    /// A cuprum error as a Python exception (see [`cuprum::python`](crate::python)), so `?`
    /// works in a `#[pyfunction]` returning `PyResult`.
    fn from(err: Error) -> PyErr {
        Python::attach(|py| to_py_err(py, &err))
    }
}

/// The fully qualified name of `obj`'s type, as error messages name it.
pub(super) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .fully_qualified_name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "<unknown type>".into())
}
