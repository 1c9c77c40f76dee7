//! Python values as cuprum's: dtypes (anything `numpy.dtype` takes), host data (NumPy
//! arrays, nested lists, Python and NumPy scalars) uploaded to a device, arrays downloaded
//! into NumPy arrays, and scalars typed by CuPy's rules.
//!
//! Decisions:
//! - **NumPy is the host side.** A dtype is whatever `numpy.dtype(x)` accepts (`cp.float32`,
//!   `'f4'`, `float`, a dtype object), mapped to cuprum's dtype table: a canonical name by
//!   string, NumPy's dtype objects and scalar types and Python's number types by identity
//!   (no call into NumPy: `dtype=` is on every creation's path), anything else through
//!   `numpy.dtype` and then identity or its name; `ndarray.dtype` is a `numpy.dtype`. Host data goes through `numpy.asarray` (NumPy's
//!   inference: Python ints → int64, floats → float64), so a list converts as NumPy
//!   converts it. NumPy is imported on the first conversion, never at module import.
//! - **One copy each way.** An upload reads the C-contiguous NumPy array's memory (its
//!   address from `__array_interface__`, the stable ABI having no buffer protocol before
//!   3.11) straight into the device array; a download writes into a fresh NumPy array's
//!   memory the same way. Large copies take the runtime's pinned staging.
//! - **Scalars as CuPy types them** for kernel arguments: `bool` → bool, `int` → int64
//!   (uint64 from 2^63; larger is an `OverflowError`), `float` → float64, `complex` →
//!   complex128, a NumPy scalar keeps its dtype. In operators Python scalars are *weak*
//!   (NumPy 2's rule, as cuprum's `ops`); a NumPy scalar is strong there, which
//!   [`Value::operand`] keeps by making it a 0-d array when weak and strong would differ.

use crate::array::{Array, DType, Scalar};
use crate::error::err;
use crate::runtime::{Stream, copy_dtoh, copy_htod};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyTuple};

static NUMPY: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The `numpy` module (imported once).
pub(crate) fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(NUMPY
        .get_or_try_init(py, || py.import("numpy").map(Bound::unbind))?
        .bind(py))
}

/// The dtype `obj` names (anything `numpy.dtype` accepts).
///
/// The common spellings take no call into NumPy: a canonical name (`"float32"`), and, by
/// identity, NumPy's dtype objects and scalar types for cuprum's dtypes and the Python
/// types `float`, `int`, `bool`, `complex` ([`known`]); anything else goes through
/// `numpy.dtype(obj)`, itself found by identity or else by its `name`.
///
/// # Errors
/// NumPy's `TypeError` for what is no dtype; cuprum's `DTypeError` for a NumPy dtype
/// cuprum has no counterpart of (strings, objects, datetimes).
pub(crate) fn dtype_of(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    dtype_in_any_order(obj, false)
}

/// [`dtype_of`] for a dtype argument, or (`data`) for the dtype of host data that
/// [`upload`] byte-swaps: a non-native byte order (`'>i4'` on a little-endian machine) is
/// refused as a dtype argument, as CuPy refuses it, and read as its native twin for data.
fn dtype_in_any_order(obj: &Bound<'_, PyAny>, data: bool) -> PyResult<DType> {
    let py = obj.py();
    if let Ok(s) = obj.cast::<pyo3::types::PyString>() {
        if let Some(d) = s.to_cow().ok().and_then(|n| canonical_name(&n)) {
            return Ok(d);
        }
    } else if let Some(d) = KNOWN.get(py).and_then(|k| k.find(obj)) {
        return Ok(d);
    }
    let d = numpy(py)?
        .getattr(pyo3::intern!(py, "dtype"))?
        .call1((obj,))?;
    // NumPy's built-in dtypes are one object each: found by identity, without `name`
    // (a property written in Python, microseconds a call).
    if let Some(found) = known(py)?.find(&d) {
        return Ok(found);
    }
    if !data && !d.getattr(pyo3::intern!(py, "isnative"))?.is_truthy()? {
        return Err(PyValueError::new_err(format!(
            "Unsupported dtype {} with big-endian byte-order",
            d.str()?
        )));
    }
    let name: String = d.getattr(pyo3::intern!(py, "name"))?.extract()?;
    let dtype = DType::from_name(&name).map_err(|_| {
        err!(
            DType,
            "dtype {name} is not supported by cuprum (bool, integers, float16/32/64, bfloat16, \
             complex64/128)"
        )
    })?;
    Ok(dtype)
}

/// The dtype a canonical name spells where NumPy spells it alike (`bfloat16`, which NumPy
/// knows only through an extension, is left to NumPy).
fn canonical_name(s: &str) -> Option<DType> {
    DType::ALL
        .iter()
        .copied()
        .find(|d| *d != DType::BF16 && d.name() == s)
}

/// NumPy's objects for cuprum's dtypes, looked up by identity: each dtype's `numpy.dtype`
/// (one object per built-in dtype in NumPy) and scalar type, and the Python types NumPy
/// maps to a dtype.
struct Known {
    /// `(object, dtype)`: the dtype objects, the scalar types, `float`, `int`, `bool`,
    /// `complex`.
    by_object: Vec<(Py<PyAny>, DType)>,
    /// `numpy.dtype(d)` for each dtype NumPy has, as `ndarray.dtype` returns it.
    dtypes: Vec<(DType, Py<PyAny>)>,
}

impl Known {
    /// The dtype of one of the known objects, by identity.
    fn find(&self, obj: &Bound<'_, PyAny>) -> Option<DType> {
        self.by_object
            .iter()
            .find(|(o, _)| o.as_ptr() == obj.as_ptr())
            .map(|&(_, d)| d)
    }
}

static KNOWN: PyOnceLock<Known> = PyOnceLock::new();

/// The table of [`Known`] objects (importing NumPy on first use).
fn known(py: Python<'_>) -> PyResult<&Known> {
    KNOWN.get_or_try_init(py, || {
        let np_dtype = numpy(py)?.getattr(pyo3::intern!(py, "dtype"))?;
        let mut by_object = Vec::new();
        let mut dtypes = Vec::new();
        for &d in DType::ALL {
            // A dtype this NumPy lacks (bfloat16 without an extension) stays on the slow path.
            let Ok(obj) = np_dtype.call1((d.name(),)) else {
                continue;
            };
            let name: String = obj.getattr(pyo3::intern!(py, "name"))?.extract()?;
            if name != d.name() {
                continue;
            }
            by_object.push((obj.getattr(pyo3::intern!(py, "type"))?.unbind(), d));
            by_object.push((obj.clone().unbind(), d));
            dtypes.push((d, obj.unbind()));
        }
        let builtins = py.import("builtins")?;
        for ty in ["float", "int", "bool", "complex"] {
            let t = builtins.getattr(ty)?;
            let name: String = np_dtype
                .call1((&t,))?
                .getattr(pyo3::intern!(py, "name"))?
                .extract()?;
            if let Ok(d) = DType::from_name(&name) {
                by_object.push((t.unbind(), d));
            }
        }
        Ok(Known { by_object, dtypes })
    })
}

/// `numpy.dtype` of `d`.
pub(crate) fn numpy_dtype(py: Python<'_>, d: DType) -> PyResult<Bound<'_, PyAny>> {
    if let Some((_, o)) = known(py)?.dtypes.iter().find(|(k, _)| *k == d) {
        return Ok(o.bind(py).clone());
    }
    numpy(py)?
        .getattr(pyo3::intern!(py, "dtype"))?
        .call1((d.name(),))
}

/// Host data (a NumPy array, nested sequences, a scalar) as a new C-contiguous array on the
/// current device, converted by `numpy.asarray(obj, dtype)` first.
pub(crate) fn upload(obj: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Array> {
    let py = obj.py();
    let np = numpy(py)?;
    // `asarray(order="C")`, not `ascontiguousarray`, which makes 0-d data 1-d.
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item(pyo3::intern!(py, "order"), "C")?;
    if let Some(d) = dtype {
        kwargs.set_item(pyo3::intern!(py, "dtype"), numpy_dtype(py, d)?)?;
    }
    let asarray = np.getattr(pyo3::intern!(py, "asarray"))?;
    let mut host = asarray.call((obj,), Some(&kwargs))?;
    let host_dtype = host.getattr(pyo3::intern!(py, "dtype"))?;
    let dtype = match dtype {
        Some(d) => d,
        None => dtype_in_any_order(&host_dtype, true)?,
    };
    if !host_dtype
        .getattr(pyo3::intern!(py, "isnative"))?
        .is_truthy()?
    {
        // byte-swapped data (`'>i4'` on this machine): the values in native byte order
        kwargs.set_item(pyo3::intern!(py, "dtype"), numpy_dtype(py, dtype)?)?;
        host = asarray.call((host,), Some(&kwargs))?;
    }
    let shape: Vec<usize> = host.getattr(pyo3::intern!(py, "shape"))?.extract()?;
    let (addr, nbytes) = host_memory(&host)?;
    let stream = Stream::current()?;
    let out = Array::empty_on(&shape, dtype, &stream)?;
    if nbytes > 0 {
        // SAFETY: `host` is a live C-contiguous NumPy array of `nbytes` bytes at `addr`
        // (held by `host` until this returns; nothing else writes it meanwhile).
        let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, nbytes) };
        // SAFETY: `out` is new, contiguous, of `shape` and `dtype`: `nbytes` bytes.
        unsafe { copy_htod(out.ptr_on(&stream), bytes, &stream) }?;
    }
    Ok(out)
}

/// `array` as a new NumPy array (C order), after the work queued on it.
pub(crate) fn download<'py>(py: Python<'py>, array: &Array) -> PyResult<Bound<'py, PyAny>> {
    super::syncdetect::declare_synchronize(py)?;
    let c = array.to_contiguous()?;
    let np = numpy(py)?;
    let shape = PyTuple::new(py, c.shape())?;
    let host = np.call_method1(
        pyo3::intern!(py, "empty"),
        (shape, numpy_dtype(py, c.dtype())?),
    )?;
    let (addr, nbytes) = host_memory(&host)?;
    if nbytes > 0 {
        let stream = Stream::for_device(c.device())?;
        // SAFETY: `host` is a fresh C-contiguous NumPy array of `nbytes` bytes that only
        // this function holds; `MaybeUninit<u8>` asks nothing of its contents.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(addr as *mut std::mem::MaybeUninit<u8>, nbytes)
        };
        // SAFETY: `c` is contiguous with `nbytes` bytes and alive until the copy returns.
        unsafe { copy_dtoh(bytes, c.ptr_on(&stream), &stream) }?;
    }
    Ok(host)
}

/// A C-contiguous NumPy array's data address and byte count.
fn host_memory(host: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    let py = host.py();
    let iface = host.getattr(pyo3::intern!(py, "__array_interface__"))?;
    let (addr, _read_only): (usize, bool) = iface.get_item("data")?.extract()?;
    let nbytes: usize = host.getattr(pyo3::intern!(py, "nbytes"))?.extract()?;
    Ok((addr, nbytes))
}

/// A Python or NumPy scalar as CuPy types a kernel argument (see the module docs), or
/// `None` when `obj` is no scalar.
pub(crate) fn scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    if let Some(s) = python_scalar(obj)? {
        return Ok(Some(s));
    }
    numpy_scalar(obj)
}

/// Whether `obj` is a scalar [`scalar`] takes (a type check: nothing is converted).
pub(crate) fn is_scalar(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if obj.is_instance_of::<PyBool>()
        || obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyFloat>()
        || obj.is_instance_of::<PyComplex>()
    {
        return Ok(true);
    }
    obj.is_instance(numpy_generic(obj.py())?)
}

/// A Python `bool`, `int`, `float` or `complex` (subclasses included, but not NumPy's
/// `float64` and `complex128`, which subclass them and are NumPy scalars) as its scalar.
pub(crate) fn python_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Some(Scalar::Bool(obj.extract()?)));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_scalar(obj).map(Some);
    }
    if obj.is_instance_of::<PyFloat>() {
        if !obj.is_exact_instance_of::<PyFloat>() && obj.is_instance(numpy_generic(obj.py())?)? {
            return Ok(None); // numpy.float64 (a float subclass): a NumPy scalar, strong
        }
        return Ok(Some(Scalar::F64(obj.extract()?)));
    }
    if obj.is_instance_of::<PyComplex>() {
        if !obj.is_exact_instance_of::<PyComplex>() && obj.is_instance(numpy_generic(obj.py())?)? {
            return Ok(None); // numpy.complex128, likewise
        }
        let c = obj.cast::<PyComplex>()?;
        return Ok(Some(Scalar::C128(num_complex::Complex::new(
            c.real(),
            c.imag(),
        ))));
    }
    Ok(None)
}

/// A Python int as int64, or uint64 from 2^63 (CuPy's `CScalar`).
fn int_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    // The common case in one C call (the stable ABI's 128-bit conversion goes through
    // Python arithmetic).
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(Scalar::I64(i));
    }
    let v: i128 = obj.extract().map_err(|_| {
        PyOverflowError::new_err(format!(
            "Python int too large to convert to C long: {}",
            obj.str().map(|s| s.to_string()).unwrap_or_default()
        ))
    })?;
    if let Ok(i) = i64::try_from(v) {
        Ok(Scalar::I64(i))
    } else if let Ok(u) = u64::try_from(v) {
        Ok(Scalar::U64(u))
    } else {
        Err(PyOverflowError::new_err(format!(
            "Python int too large to convert to C long: {v}"
        )))
    }
}

/// A NumPy scalar (`numpy.generic`) as its dtype's scalar.
pub(crate) fn numpy_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    let py = obj.py();
    // A scalar type seen before is known by its address alone (no `isinstance`).
    let dtype = match seen_scalar_type(obj) {
        Some(d) => d,
        None if !obj.is_instance(numpy_generic(py)?)? => return Ok(None),
        None => scalar_type_dtype(obj)?,
    };
    // Real values through the number protocol (`__float__`, `__index__`: exact for every
    // NumPy real type), without `item()`'s Python object; complex through `item()`.
    let fast = match dtype {
        DType::Bool => Some(Scalar::Bool(obj.is_truthy()?)),
        DType::U64 => Some(Scalar::U64(obj.extract()?)),
        d if d.is_integer() => Some(Scalar::I64(obj.extract()?)),
        d if d.is_float() => Some(Scalar::F64(obj.extract()?)),
        _ => None,
    };
    if let Some(v) = fast {
        return Ok(Some(v.cast(dtype)?));
    }
    let value = obj.call_method0(pyo3::intern!(py, "item"))?;
    let Some(base) = python_scalar(&value)? else {
        return Err(PyTypeError::new_err(format!(
            "Unsupported type {}",
            super::errors::type_name(obj)
        )));
    };
    Ok(Some(base.cast(dtype)?))
}

thread_local! {
    /// NumPy scalar types seen on this thread and their dtypes (a type's address, with a
    /// reference that keeps the type alive so the address is never another type's).
    static SCALAR_TYPES: std::cell::RefCell<Vec<(usize, DType)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The dtype of a NumPy scalar, looked up once per scalar type (`numpy.float32` …).
fn scalar_type_dtype(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Some(d) = seen_scalar_type(obj) {
        return Ok(d);
    }
    let ty = obj.get_type();
    let key = ty.as_ptr() as usize;
    let d = dtype_of(&obj.getattr(pyo3::intern!(obj.py(), "dtype"))?)?;
    std::mem::forget(ty.unbind());
    SCALAR_TYPES.with(|t| t.borrow_mut().push((key, d)));
    Ok(d)
}

/// The dtype of `obj`'s type when it is a NumPy scalar type already met on this thread
/// (its address, held alive by `SCALAR_TYPES`, is no other type's).
fn seen_scalar_type(obj: &Bound<'_, PyAny>) -> Option<DType> {
    let key = obj.get_type_ptr() as usize;
    SCALAR_TYPES.with(|t| t.borrow().iter().find(|e| e.0 == key).map(|e| e.1))
}

static GENERIC: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `numpy.generic`, or `None` (matching nothing) when NumPy is not installed.
fn numpy_generic(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    Ok(GENERIC
        .get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            match py.import("numpy") {
                Ok(np) => Ok(np.getattr("generic")?.unbind()),
                Err(_) => Ok(py.get_type::<NoType>().into_any().unbind()),
            }
        })?
        .bind(py))
}

/// A class no object is an instance of (stands in for `numpy.generic` without NumPy).
#[pyclass(frozen)]
struct NoType;

/// Whether `obj` is a NumPy array (host data to upload, not a device array).
pub(crate) fn is_numpy_array(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let ndarray = NDARRAY.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        match py.import("numpy") {
            Ok(np) => Ok(np.getattr("ndarray")?.unbind()),
            Err(_) => Ok(py.get_type::<NoType>().into_any().unbind()),
        }
    })?;
    obj.is_instance(ndarray.bind(py))
}

/// Whether `obj` is another library's device array (`__dlpack__`,
/// `__cuda_array_interface__` or CuPy's `__cupy_get_ndarray__`, and not a NumPy array,
/// which is host data).
pub(crate) fn is_device_array(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let offers = obj.hasattr(pyo3::intern!(py, "__dlpack__"))?
        || obj.hasattr(pyo3::intern!(py, "__cuda_array_interface__"))?
        || obj.hasattr(pyo3::intern!(py, "__cupy_get_ndarray__"))?;
    Ok(offers && !is_numpy_array(obj)?)
}
