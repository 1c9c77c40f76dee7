//! The native part of the `cuprum` Python package (`cuprum._cuprum`): the classes
//! (`ndarray`, the kernel classes, the exception classes) and the functions its pure-Python
//! part arranges into CuPy's namespace — creation, conversion, the ufuncs and reductions by
//! NumPy's name, linear algebra, devices. [`register_package`] adds them to a module.
//!
//! Each function is a face over the Rust API; the pure-Python part (`python/cuprum/`) adds
//! CuPy's names, defaults and docstrings around them.

use super::array::{PyArray, wrap};
use super::call::Call;
use super::call::device_array;
use super::convert;
use super::fuse;
use super::kernels::{self, Arg};
use super::memory;
use super::operations;
use crate::array::{Array, DType, Endpoint};
use crate::error::err;
use crate::kernel::IntoOperand;
use crate::ops::elementwise::{binary_to, unary_to};
use crate::ops::ufunc::Op;
use crate::runtime::{CodeTarget, Device};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// `obj` as a device array: a `cuprum.ndarray` as it is (converted when `dtype` differs),
/// a device array of another framework without a copy, host data uploaded to the current
/// device.
#[pyfunction]
#[pyo3(signature = (a, dtype=None, copy=false))]
fn asarray(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    copy: bool,
) -> PyResult<Py<PyAny>> {
    let dtype = match dtype.filter(|d| !d.is_none()) {
        Some(d) => Some(convert::dtype_of(d)?),
        None => None,
    };
    let array = device_array(a, dtype)?;
    let array = match dtype {
        Some(d) if d != array.dtype() => array.astype(d)?,
        _ if copy => array.copy()?,
        _ => array,
    };
    wrap(py, array)
}

/// CuPy's `asnumpy(a, stream=None, order='C', out=None, *, blocking=True)`: a NumPy
/// array with a copy of a device array's data (`a.get(...)`: into `out` when given, in
/// `order`); anything else through `numpy.asarray(a, order=order)` (then into `out`).
#[pyfunction]
#[pyo3(signature = (a, stream=None, order="C", out=None, *, blocking=true))]
fn asnumpy<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    stream: Option<&Bound<'py, PyAny>>,
    order: &str,
    out: Option<&Bound<'py, PyAny>>,
    blocking: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let device = if a.cast::<PyArray>().is_ok() {
        Some(a.clone())
    } else if convert::is_device_array(a)? {
        let call = Call::new(&[a])?;
        Some(super::array::wrap(py, call.array(a)?)?.into_bound(py))
    } else {
        None
    };
    if let Some(x) = device {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("stream", stream)?;
        kwargs.set_item("order", order)?;
        kwargs.set_item("out", out)?;
        kwargs.set_item("blocking", blocking)?;
        return x.call_method("get", (), Some(&kwargs));
    }
    let host =
        convert::numpy(py)?.call_method1("asarray", (a, pyo3::types::PyNone::get(py), order))?;
    match out.filter(|o| !o.is_none()) {
        Some(o) => {
            o.set_item(py.Ellipsis(), host)?;
            Ok(o.clone())
        }
        None => Ok(host),
    }
}

/// A shape argument: an int or a sequence of ints.
fn shape_of(shape: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    if shape.is_none() {
        return Err(PyTypeError::new_err("Use () not None as shape arguments"));
    }
    // A tuple first: trying an int on it would build (and drop) a Python exception.
    if let Ok(t) = shape.cast::<PyTuple>() {
        if let Ok(v) = t.iter().map(|d| d.extract::<usize>()).collect() {
            return Ok(v);
        }
    } else if let Ok(n) = shape.extract::<usize>() {
        return Ok(vec![n]);
    }
    if let Ok(v) = shape.extract::<Vec<usize>>() {
        return Ok(v);
    }
    // integers, one of them negative: NumPy's ValueError
    let signed = match shape.extract::<i64>() {
        Ok(n) => Some(vec![n]),
        Err(_) => shape.extract::<Vec<i64>>().ok(),
    };
    if signed.is_some_and(|v| v.iter().any(|&d| d < 0)) {
        return Err(PyValueError::new_err("negative dimensions are not allowed"));
    }
    Err(PyTypeError::new_err(format!(
        "shape must be an int or a tuple of non-negative ints, got {}",
        super::errors::type_name(shape)
    )))
}

fn dtype_or(dtype: Option<&Bound<'_, PyAny>>, default: DType) -> PyResult<DType> {
    match dtype.filter(|d| !d.is_none()) {
        Some(d) => convert::dtype_of(d),
        None => Ok(default),
    }
}

/// A new array of `shape` made by `make` in NumPy's memory `order` (`'C'` or `'F'`: the
/// transpose of the reversed shape made in C order).
fn laid_out(
    shape: Vec<usize>,
    order: &str,
    make: impl FnOnce(&[usize]) -> crate::Result<Array>,
) -> PyResult<Array> {
    match order {
        "C" | "c" => Ok(make(&shape)?),
        "F" | "f" => {
            let reversed: Vec<usize> = shape.iter().rev().copied().collect();
            Ok(make(&reversed)?.t())
        }
        other => Err(PyValueError::new_err(format!(
            "only 'C' or 'F' order is permitted, got {other:?}"
        ))),
    }
}

/// `empty(shape, dtype=float64, order="C")`: uninitialised.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, order="C"))]
fn empty(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    order: &str,
) -> PyResult<Py<PyAny>> {
    let d = dtype_or(dtype, DType::F64)?;
    wrap(
        py,
        laid_out(shape_of(shape)?, order, |s| Array::empty(s, d))?,
    )
}

/// `zeros(shape, dtype=float64, order="C")`.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, order="C"))]
fn zeros(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    order: &str,
) -> PyResult<Py<PyAny>> {
    let d = dtype_or(dtype, DType::F64)?;
    wrap(
        py,
        laid_out(shape_of(shape)?, order, |s| Array::zeros(s, d))?,
    )
}

/// `ones(shape, dtype=float64, order="C")`.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, order="C"))]
fn ones(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    order: &str,
) -> PyResult<Py<PyAny>> {
    let d = dtype_or(dtype, DType::F64)?;
    wrap(
        py,
        laid_out(shape_of(shape)?, order, |s| Array::ones(s, d))?,
    )
}

/// `full(shape, fill_value, dtype=None)`: the dtype of `fill_value` (NumPy's rule) unless
/// given.
#[pyfunction]
#[pyo3(signature = (shape, fill_value, dtype=None, order="C"))]
fn full(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    order: &str,
) -> PyResult<Py<PyAny>> {
    let value = convert::scalar(fill_value)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "fill_value must be a scalar, got {}",
            super::errors::type_name(fill_value)
        ))
    })?;
    let d = dtype_or(dtype, value.dtype())?;
    wrap(
        py,
        laid_out(shape_of(shape)?, order, |s| Array::full(s, value, d))?,
    )
}

/// `arange(start, stop, step, dtype)`: `dtype` as NumPy infers it unless given.
#[pyfunction]
#[pyo3(signature = (start, stop=None, step=None, dtype=None))]
fn arange(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    stop: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (start, stop) = match stop.filter(|s| !s.is_none()) {
        Some(stop) => (start.clone(), stop.clone()),
        None => (0i64.into_pyobject(py)?.into_any(), start.clone()),
    };
    let step = match step.filter(|s| !s.is_none()) {
        Some(s) => s.clone(),
        None => 1i64.into_pyobject(py)?.into_any(),
    };
    let d = match dtype.filter(|d| !d.is_none()) {
        Some(d) => convert::dtype_of(d)?,
        None => {
            // NumPy's inference: the dtype of start, stop and step together.
            let np = convert::numpy(py)?;
            let r = np.call_method1("result_type", (&start, &stop, &step))?;
            convert::dtype_of(&r)?
        }
    };
    // Integral bounds (Python or NumPy integers) are counted and stored exactly.
    let int = |o: &Bound<'_, PyAny>| -> Option<i128> {
        if o.is_instance_of::<pyo3::types::PyBool>() {
            return None;
        }
        o.extract::<i128>().ok()
    };
    if let (Some(a), Some(b), Some(c)) = (int(&start), int(&stop), int(&step))
        && !d.is_complex()
    {
        return wrap(py, Array::arange_int(a, b, c, d)?);
    }
    let f = |o: &Bound<'_, PyAny>| -> PyResult<f64> { o.extract::<f64>() };
    if f(&step)? == 0.0 {
        return Err(err!(InvalidArgument, "arange requires step != 0").into());
    }
    wrap(py, Array::arange(f(&start)?, f(&stop)?, f(&step)?, d)?)
}

/// `linspace(start, stop, num=50, endpoint=True, dtype=None)` (float64 unless given).
#[pyfunction]
#[pyo3(signature = (start, stop, num=50, endpoint=true, retstep=false, dtype=None, axis=0))]
#[allow(clippy::too_many_arguments)]
fn linspace(
    py: Python<'_>,
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    retstep: bool,
    dtype: Option<&Bound<'_, PyAny>>,
    axis: isize,
) -> PyResult<Py<PyAny>> {
    if axis != 0 {
        return Err(err!(Unsupported, "linspace with axis != 0 is not supported").into());
    }
    let e = if endpoint {
        Endpoint::Included
    } else {
        Endpoint::Excluded
    };
    let a = Array::linspace(start, stop, num, e, dtype_or(dtype, DType::F64)?)?;
    let arr = wrap(py, a)?;
    if retstep {
        let div = if endpoint { num.saturating_sub(1) } else { num };
        let step = if div > 0 {
            (stop - start) / div as f64
        } else {
            f64::NAN
        };
        return Ok(
            PyTuple::new(py, [arr, step.into_pyobject(py)?.into_any().unbind()])?
                .into_any()
                .unbind(),
        );
    }
    Ok(arr)
}

/// The ufunc NumPy calls `name` on `args` (one or two operands; `where` three), into `out`
/// when given.
#[pyfunction]
#[pyo3(signature = (name, *args, out=None))]
fn ufunc(
    py: Python<'_>,
    name: &str,
    args: &Bound<'_, PyTuple>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let op = Op::ALL
        .iter()
        .copied()
        .find(|o| o.name() == name && o.row().arity == args.len())
        .ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{name}() takes a different number of arguments than {} (or no such ufunc)",
                args.len()
            ))
        })?;
    let given = out.filter(|o| !o.is_none());
    let out = match given {
        Some(o) if fuse::is_traced(o) => {
            let items: Vec<Bound<'_, PyAny>> = args.iter().collect();
            return fuse::ufunc(py, op, &items, given);
        }
        Some(o) => Some(
            o.cast::<PyArray>()
                .map_err(|_| PyTypeError::new_err("Output arguments type must be cuprum.ndarray"))?
                .get()
                .array()
                .clone(),
        ),
        None => None,
    };
    let items: Vec<Bound<'_, PyAny>> = args.iter().collect();
    // Host arrays are refused as CuPy refuses them (no hidden copy to the device); a 0-d
    // one is a scalar here (NumPy hands its own 0-d results to `__array_ufunc__`).
    if let Some(h) = items.iter().find(|a| {
        !a.is_instance_of::<PyArray>()
            && matches!(convert::is_numpy_array(a), Ok(true))
            && a.getattr(pyo3::intern!(py, "ndim"))
                .and_then(|n| n.extract::<usize>())
                .is_ok_and(|n| n > 0)
    }) {
        return Err(PyTypeError::new_err(format!(
            "Unsupported type {} ({name}: host memory; move it to the GPU with cuprum.asarray \
             first)",
            h.get_type().repr()?
        )));
    }
    // The first device array decides where the operation runs.
    let anchor = items
        .iter()
        .find_map(|a| a.cast::<PyArray>().ok().map(|x| x.get().array().clone()));
    // Only scalars (`cp.add(1, 2.5)`): NumPy's answer is a 0-d array; the first NumPy scalar
    // (or else the first operand) becomes one, the others stay weak beside it.
    let mut made: Option<usize> = None;
    let anchor = match anchor {
        Some(a) => a,
        None if items.iter().any(fuse::is_traced) => {
            return fuse::ufunc(py, op, &items, given);
        }
        None => match items
            .iter()
            .find(|a| !matches!(convert::scalar(a), Ok(Some(_))))
        {
            Some(a) => device_array(a, None)?,
            None => {
                let k = items
                    .iter()
                    .position(|a| matches!(convert::numpy_scalar(a), Ok(Some(_))))
                    .unwrap_or(0);
                let s = convert::scalar(&items[k])?.ok_or_else(|| {
                    PyTypeError::new_err(format!("{name}: an operand is not a number"))
                })?;
                made = Some(k);
                Array::full(&[], s, s.dtype())?
            }
        },
    };
    let operands: Vec<Arg> = items
        .iter()
        .enumerate()
        .map(|(i, a)| {
            if made == Some(i) {
                return Ok(Arg::Array(anchor.clone()));
            }
            operations::operand(&anchor, a)?.ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "{name}: unsupported operand type {}",
                    super::errors::type_name(a)
                ))
            })
        })
        .collect::<PyResult<_>>()?;
    let r = match operands.as_slice() {
        [Arg::Array(a)] => unary_to(op, a, out.as_ref())?,
        [Arg::Scalar(_)] => {
            return Err(PyTypeError::new_err(format!(
                "{name}: the operand must be an array"
            )));
        }
        [a, b] => binary_to(op, a.operand(), b.operand(), out.as_ref())?,
        [c, x, y] if op == Op::Where => {
            if out.is_some() {
                return Err(err!(Unsupported, "{name} with out= is not supported").into());
            }
            crate::ops::where_(c, x, y)?
        }
        [a, lo, hi] => match &out {
            Some(o) => {
                crate::ops::clip_into(a, lo, hi, o)?;
                o.clone()
            }
            None => crate::ops::clip(a, lo, hi)?,
        },
        _ => {
            return Err(PyTypeError::new_err(format!(
                "{name}: wrong number of operands"
            )));
        }
    };
    wrap(py, r)
}

/// `clip(a, a_min, a_max, out=None)`: either bound may be `None`.
#[pyfunction]
#[pyo3(signature = (a, a_min=None, a_max=None, out=None))]
fn clip(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    a_min: Option<&Bound<'_, PyAny>>,
    a_max: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if fuse::is_traced(a) {
        return fuse::clip(py, a, a_min, a_max, out);
    }
    let x = device_array(a, None)?;
    let bound = |b: Option<&Bound<'_, PyAny>>| -> PyResult<Option<Arg>> {
        match b.filter(|b| !b.is_none()) {
            Some(b) => operations::operand(&x, b),
            None => Ok(None),
        }
    };
    // neither bound: a copy (NumPy 2.1's rule; CuPy's test of it)
    let (lo, hi) = (bound(a_min)?, bound(a_max)?);
    let r = match out.filter(|o| !o.is_none()) {
        Some(o) => {
            let o = o
                .cast::<PyArray>()
                .map_err(|_| PyTypeError::new_err("Output arguments type must be cuprum.ndarray"))?
                .get()
                .array()
                .clone();
            crate::ops::clip_into(&x, lo.as_ref(), hi.as_ref(), &o)?;
            o
        }
        None => crate::ops::clip(&x, lo.as_ref(), hi.as_ref())?,
    };
    wrap(py, r)
}

/// The reduction NumPy calls `name` on `a` with NumPy's keywords.
#[pyfunction]
#[pyo3(signature = (name, a, axis=None, dtype=None, out=None, keepdims=false, ddof=None))]
#[allow(clippy::too_many_arguments)]
fn reduce(
    py: Python<'_>,
    name: &str,
    a: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    ddof: Option<f64>,
) -> PyResult<Py<PyAny>> {
    if let Ok(v) = a.cast::<fuse::PyFusionVar>() {
        return fuse::reduce(py, name, v, axis, dtype, out, keepdims, ddof);
    }
    let a = device_array(a, None)?;
    operations::reduce(py, name, &a, axis, dtype, out, keepdims, ddof)
}

/// The matrix product (`matmul`, `dot` of 2-D arrays).
#[pyfunction]
fn matmul(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let (a, b) = (device_array(a, None)?, device_array(b, None)?);
    wrap(py, crate::ops::matmul(&a, &b)?)
}

/// NumPy's `dot`.
#[pyfunction]
fn dot(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let (a, b) = (device_array(a, None)?, device_array(b, None)?);
    wrap(py, crate::ops::dot(&a, &b)?)
}

/// `allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)`: a 0-d bool array (CuPy's).
#[pyfunction]
#[pyo3(signature = (a, b, rtol=1e-5, atol=1e-8, equal_nan=false))]
fn allclose(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> PyResult<Py<PyAny>> {
    let tol = crate::ops::Tolerance {
        rtol,
        atol,
        equal_nan,
    };
    let close = super::routines::close(a, b, tol)?;
    wrap(py, crate::ops::all(&close)?)
}

/// `concatenate(arrays, axis=0)`.
#[pyfunction]
#[pyo3(signature = (arrays, axis=Some(0)))]
fn concatenate(
    py: Python<'_>,
    arrays: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<Py<PyAny>> {
    let v: Vec<Array> = arrays
        .try_iter()?
        .map(|a| device_array(&a?, None))
        .collect::<PyResult<_>>()?;
    let refs: Vec<&Array> = v.iter().collect();
    wrap(py, crate::ops::concatenate(&refs, axis)?)
}

/// `a` imported from any object with `__dlpack__` or `__cuda_array_interface__`, or from a
/// bare DLPack capsule (no copy; `copy=True`: a copy of it). `device=` is CuPy's
/// `NotImplementedError`.
#[pyfunction]
#[pyo3(signature = (a, /, *, device=None, copy=None))]
fn from_dlpack(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    device: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Py<PyAny>> {
    if device.is_some_and(|d| !d.is_none()) {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err(
            "from_dlpack(device=...) is not supported: the array is imported on the device \
             that holds it",
        ));
    }
    let array = if a.is_instance_of::<pyo3::types::PyCapsule>() {
        super::capsule::import_capsule(a)?
    } else {
        Call::new(&[a])?.array(a)?
    };
    wrap(
        py,
        if copy == Some(true) {
            array.copy()?
        } else {
            array
        },
    )
}

/// Waits for all work on the current device.
#[pyfunction]
fn synchronize(py: Python<'_>) -> PyResult<()> {
    super::syncdetect::declare_synchronize(py)?;
    Ok(Device::current()?.synchronize()?)
}

/// The number of devices the current process sees (GPUs; 1 on the host device).
#[pyfunction]
fn device_count() -> PyResult<usize> {
    Ok(Device::count_in_use()?)
}

/// What `show_config()` prints: (key, value) pairs.
#[pyfunction]
fn config(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("cuprum Version", env!("CARGO_PKG_VERSION"))?;
    match Device::current() {
        Ok(dev) if dev.code_target() == CodeTarget::Host => {
            d.set_item(
                "Device",
                "host (the CPU: kernels compiled with the system C++ compiler)",
            )?;
        }
        Ok(dev) => {
            let (major, minor) = dev.compute_capability();
            d.set_item("Device 0 Name", dev.name())?;
            d.set_item("Device 0 Compute Capability", format!("{major}{minor}"))?;
            d.set_item(
                "Device 0 Memory",
                format!("{} MiB", dev.total_memory() >> 20),
            )?;
            if let Ok(v) = crate::runtime::cublas_version() {
                d.set_item("cuBLAS Version", v)?;
            }
        }
        Err(e) => {
            d.set_item("Device", format!("none: {e}"))?;
        }
    }
    let found = crate::compile::locate();
    match &found.nvrtc {
        Some(f) => d.set_item("NVRTC", format!("{} ({})", f.path.display(), f.origin))?,
        None => d.set_item("NVRTC", "not found (cuprum.setup() installs it)")?,
    }
    for h in &found.headers {
        d.set_item(
            format!("Headers ({})", h.component.pip_package()),
            format!("{} ({})", h.path.display(), h.origin),
        )?;
    }
    d.set_item(
        "Kernel cache",
        crate::compile::default_dir().display().to_string(),
    )?;
    Ok(d)
}

/// Installs NVRTC and the CUDA headers (pip wheels) into cuprum's data folder when they are
/// missing, as `cuprum setup` does; returns where they are.
#[pyfunction]
fn setup() -> PyResult<String> {
    Ok(crate::compile::setup()?.dir.display().to_string())
}

/// NumPy's `add.at(a, indices, values)` (CuPy's `cupyx.scatter_add`): `values` added to
/// `a` at the integer `indices` along axis 0, each occurrence of a repeated index counted
/// (`a[indices] += values` counts it once). Negative indices count from the end; one out of
/// range is an `IndexError`.
#[pyfunction]
fn scatter_add(
    a: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let target = a
        .cast::<PyArray>()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "scatter_add: the target must be a cuprum.ndarray, got {}",
                super::errors::type_name(a)
            ))
        })?
        .get()
        .array()
        .clone();
    let idx = device_array(indices, None)?;
    let v = operations::operand(&target, values)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "scatter_add: unsupported values of type {}",
            super::errors::type_name(values)
        ))
    })?;
    Ok(crate::ops::scatter_add(&target, &idx, v)?)
}

/// NumPy's `ufunc.at(a, indices, values)` for the ufuncs with an atomic form (`add`,
/// `subtract`, `maximum`, `minimum`, `bitwise_and`, `bitwise_or`, `bitwise_xor`): `a[indices]
/// = op(a[indices], values)` in place, once per index even where indices repeat; any
/// subscript; values cast to `a`'s dtype (CuPy's rule).
#[pyfunction]
fn ufunc_at(
    name: &str,
    a: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let op = crate::ops::AtOp::from_name(name).ok_or_else(|| {
        pyo3::exceptions::PyNotImplementedError::new_err(format!(
            "`{name}.at` is not supported: add, subtract, maximum, minimum, bitwise_and, \
             bitwise_or and bitwise_xor have it"
        ))
    })?;
    let target = a
        .cast::<PyArray>()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "{name}.at(): the target must be a cuprum.ndarray, got {}",
                super::errors::type_name(a)
            ))
        })?
        .get()
        .array()
        .clone();
    let v = operations::operand(&target, values)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{name}.at(): unsupported values of type {}",
            super::errors::type_name(values)
        ))
    })?;
    let key = operations::index_entries(&target, indices)?;
    Ok(crate::ops::at(&target, &key, op, &v)?)
}

/// The launch floor from Python: one launch of cuprum's empty kernel (no parameters, one
/// thread) on the current stream, as bare as a launch gets (a table lookup and
/// `cuLaunchKernel`); `params`: an empty kernel that takes the benchmark's `axpy`
/// parameters (two pointers, a float and an int), the floor of a launch passing four
/// values. `python/benches/host_overhead.py` times both beside the kernels' calls.
#[pyfunction]
#[pyo3(signature = (params = false))]
fn _launch_empty(params: bool) -> PyResult<()> {
    let stream = crate::runtime::Stream::current()?;
    Ok(crate::array::kernels::launch_empty(&stream, params)?)
}

/// Adds the package's classes and functions to `m` (the `cuprum._cuprum` module).
pub fn register_package(m: &Bound<'_, PyModule>) -> PyResult<()> {
    super::module::register_without_numpy(m)?;
    m.add_function(wrap_pyfunction!(module_getattr, m)?)?;
    m.add_class::<kernels::PyElementwiseKernel>()?;
    m.add_class::<kernels::PyReductionKernel>()?;
    m.add_class::<kernels::PyScanKernel>()?;
    m.add_class::<kernels::PyRawKernel>()?;
    m.add_class::<kernels::PyRawModule>()?;
    m.add_class::<super::jit_launch::JitLaunch>()?;
    m.add_class::<memory::MemoryPointer>()?;
    m.add_class::<memory::Memory>()?;
    m.add_class::<memory::PinnedMemory>()?;
    m.add_function(wrap_pyfunction!(memory::alloc, m)?)?;
    m.add_function(wrap_pyfunction!(super::compiler::_compile_using_nvrtc, m)?)?;
    m.add_class::<fuse::PyFusion>()?;
    m.add_class::<fuse::PyFusionVar>()?;
    m.add_class::<fuse::PyFusionArray>()?;
    m.add_function(wrap_pyfunction!(asarray, m)?)?;
    m.add_function(wrap_pyfunction!(asnumpy, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(ufunc, m)?)?;
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(clip, m)?)?;
    m.add_function(wrap_pyfunction!(matmul, m)?)?;
    m.add_function(wrap_pyfunction!(dot, m)?)?;
    m.add_function(wrap_pyfunction!(allclose, m)?)?;
    m.add_function(wrap_pyfunction!(concatenate, m)?)?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(synchronize, m)?)?;
    m.add_function(wrap_pyfunction!(
        super::syncdetect::_set_allow_synchronize,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(device_count, m)?)?;
    m.add_function(wrap_pyfunction!(config, m)?)?;
    m.add_function(wrap_pyfunction!(setup, m)?)?;
    m.add_function(wrap_pyfunction!(_launch_empty, m)?)?;
    m.add_function(wrap_pyfunction!(scatter_add, m)?)?;
    m.add_function(wrap_pyfunction!(ufunc_at, m)?)?;
    super::routines::register(m)?;
    super::fft::register(m)?;
    register_random(m)?;
    super::cuda::register(m)?;
    super::texture::register(m)?;
    Ok(())
}

/// The module's `__getattr__` (PEP 562): `AxisError`, made at its first use (it subclasses
/// NumPy's, and `import cuprum` does not import NumPy).
#[pyfunction]
#[pyo3(name = "__getattr__")]
fn module_getattr(py: Python<'_>, name: &str) -> PyResult<Py<pyo3::types::PyType>> {
    if name == "AxisError" {
        Ok(super::errors::axis_class(py)?.clone_ref(py))
    } else {
        Err(pyo3::exceptions::PyAttributeError::new_err(format!(
            "module 'cuprum._cuprum' has no attribute '{name}'"
        )))
    }
}

/// A random generator of the current device (`cuprum.random.RandomState`'s engine: cuRAND's
/// XORWOW as CuPy's on a GPU, cuprum's own Philox on the host device).
#[pyclass(name = "Generator", module = "cuprum", frozen)]
struct PyGenerator {
    inner: std::sync::Mutex<crate::random::Generator>,
}

impl PyGenerator {
    fn with<R>(
        &self,
        f: impl FnOnce(&mut crate::random::Generator) -> crate::Result<R>,
    ) -> PyResult<R> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        Ok(f(&mut g)?)
    }
}

#[pymethods]
impl PyGenerator {
    /// A generator with `seed`: CuPy's legacy one when `cupy` (the same numbers as
    /// `cupy.random.RandomState(seed)` on a GPU), else Philox.
    #[new]
    #[pyo3(signature = (seed, cupy = false))]
    fn new(seed: u64, cupy: bool) -> PyResult<Self> {
        let g = if cupy {
            crate::random::Generator::cupy_compatible(seed)?
        } else {
            crate::random::Generator::new(seed)?
        };
        Ok(PyGenerator {
            inner: std::sync::Mutex::new(g),
        })
    }

    /// Restarts the generator's stream from `seed`.
    fn seed(&self, seed: u64) -> PyResult<()> {
        self.with(|g| g.seed(seed))
    }

    /// Uniform values in `[low, high)`.
    fn uniform(
        &self,
        py: Python<'_>,
        low: f64,
        high: f64,
        shape: Vec<usize>,
        dtype: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let d = convert::dtype_of(dtype)?;
        wrap(py, self.with(|g| g.uniform(low, high, &shape, d))?)
    }

    /// Normal values of mean `loc` and standard deviation `scale`.
    fn normal(
        &self,
        py: Python<'_>,
        loc: f64,
        scale: f64,
        shape: Vec<usize>,
        dtype: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let d = convert::dtype_of(dtype)?;
        wrap(py, self.with(|g| g.normal(loc, scale, &shape, d))?)
    }

    /// Integers in `[low, high)`.
    fn randint(
        &self,
        py: Python<'_>,
        low: i128,
        high: i128,
        shape: Vec<usize>,
        dtype: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let d = convert::dtype_of(dtype)?;
        wrap(py, self.with(|g| g.randint(low, high, &shape, d))?)
    }
}

/// Adds the random generator class to `m`.
pub(crate) fn register_random(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGenerator>()
}
