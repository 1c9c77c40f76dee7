//! `cuprum.ndarray`: a cuprum array as a Python object — CuPy's `ndarray` surface (its
//! attributes, conversions, operators, indexing and methods: `ndarray.rs`, over
//! `operations.rs`) and one that every DLPack consumer takes (`torch.from_dlpack`,
//! `cupy.from_dlpack`, `jax.dlpack.from_dlpack`, `numpy.from_dlpack`). The package's
//! `cuprum.ndarray` and what extension modules built with this feature return are this one
//! class (`cuprum.Array` is its other name, kept for extension modules written before).
//!
//! Printing is NumPy's, of a downloaded copy (CuPy's way): `repr` is `array([...],
//! dtype=float32)`, `str` `[...]`, a 0-d array its scalar.
//!
//! It holds a view (no copy); `__dlpack__` exports it as the array API says: `stream=None`
//! is the legacy default stream for CUDA, an integer is read by
//! [`ConsumerStream::from_python_int`] and cuprum's pending work on the array is ordered
//! before that stream (an event wait, never a synchronisation); host arrays ignore
//! `stream`. `max_version` ≥ (1, 0) gives a `"dltensor_versioned"` capsule, `None` or an
//! older one a legacy `"dltensor"` capsule. `dl_device` must be the array's own device
//! (`BufferError` otherwise: cuprum does not copy across devices in `__dlpack__`);
//! `copy=True` exports a fresh copy, `copy=False` or `None` the array itself.

use super::convert;
use crate::array::{Array, DType};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A cuprum [`Array`] as a Python object (`cuprum.ndarray`): `__dlpack__`,
/// `__dlpack_device__`, `shape`, `dtype` (a `numpy.dtype`; its name without NumPy),
/// `ndim`, `size`, `device`, and CuPy's `ndarray` methods (module docs). Make one with
/// [`to_python`](super::to_python) (in Python: CuPy's constructor,
/// `cuprum.ndarray(shape, dtype=float, memptr=None, strides=None, order='C')`, new memory or
/// a view of a `cuprum.cuda.MemoryPointer`'s); read one back (or any DLPack object) with
/// [`Call::array`](super::Call::array) or [`array_arg`](super::array_arg).
#[pyclass(name = "ndarray", module = "cuprum", frozen, weakref, subclass)]
pub struct PyArray {
    pub(super) array: Array,
    /// The array whose memory this one views (NumPy's `base`): set where a method of a
    /// `cuprum.ndarray` returns a view of it ([`derived`]); `None` for an array that owns
    /// its memory.
    pub(super) base: Option<Py<PyAny>>,
}

impl PyArray {
    /// The cuprum array this object holds (a view, cheap to clone).
    pub fn array(&self) -> &Array {
        &self.array
    }
}

impl From<Array> for PyArray {
    fn from(array: Array) -> Self {
        PyArray { array, base: None }
    }
}

impl PyArray {
    /// The only element as a NumPy scalar, for `float()`, `int()`, `complex()`.
    pub(crate) fn scalar<'py>(&self, py: Python<'py>, to: &str) -> PyResult<Bound<'py, PyAny>> {
        if self.array.size() != 1 {
            return Err(PyTypeError::new_err(format!(
                "only size-1 arrays can be converted to Python scalars (to {to})"
            )));
        }
        convert::download(py, &self.array)?.call_method0("item")
    }
}

/// `array` as a `cuprum.ndarray` object.
pub(crate) fn wrap(py: Python<'_>, array: Array) -> PyResult<Py<PyAny>> {
    Ok(Bound::new(py, PyArray::from(array))?.into_any().unbind())
}

/// `array`, made from the `cuprum.ndarray` `src` by one of its methods: a view of `src`'s
/// memory has `src`'s base (or `src` itself) as its `base`, as NumPy's views do (a view of
/// a view names the array that owns the memory); anything else owns its memory.
pub(crate) fn derived(
    py: Python<'_>,
    src: &Bound<'_, PyArray>,
    array: Array,
) -> PyResult<Py<PyAny>> {
    let me = src.get();
    let base = if array.shares_memory(&me.array) {
        Some(match &me.base {
            Some(b) => b.clone_ref(py),
            None => src.clone().into_any().unbind(),
        })
    } else {
        None
    };
    Ok(Bound::new(py, PyArray { array, base })?.into_any().unbind())
}

/// `pow`'s third argument is not taken.
pub(crate) fn no_modulo(m: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    match m {
        Some(m) if !m.is_none() => Err(PyTypeError::new_err(
            "pow() with a modulo is not supported for arrays",
        )),
        _ => Ok(()),
    }
}

/// A shape from `reshape(2, 3)` or `reshape((2, 3))` (or an axes list).
pub(crate) fn shape_arg(args: &Bound<'_, PyTuple>) -> PyResult<Vec<isize>> {
    if args.len() == 1 {
        let first = args.get_item(0)?;
        if let Ok(n) = first.extract::<isize>() {
            return Ok(vec![n]);
        }
        return first.extract::<Vec<isize>>();
    }
    args.iter().map(|a| a.extract::<isize>()).collect()
}

/// `a`'s bytes seen as `dtype` (NumPy's `view`): the last axis rescaled, which must be
/// contiguous when the item sizes differ.
pub(crate) fn view_as(a: &Array, dtype: DType) -> crate::Result<Array> {
    let (from, to) = (a.itemsize(), dtype.itemsize());
    if from == to {
        let mut v = a.clone();
        v.dtype = dtype;
        return Ok(v);
    }
    let last = a.ndim().checked_sub(1);
    let contiguous_last = match last {
        // (an empty array has no elements to lay out: NumPy views it whatever its strides)
        Some(l) => a.strides[l] == 1 || a.shape[l] <= 1 || a.size() == 0,
        None => false,
    };
    let bytes_last = last.map(|l| a.shape[l] * from).unwrap_or(0);
    let offset_bytes = a.offset * from;
    if !contiguous_last || !bytes_last.is_multiple_of(to) || !offset_bytes.is_multiple_of(to) {
        crate::error::bail!(
            Shape,
            "cannot view an array of {} with shape {:?} as {}: the last axis must be contiguous \
             and span a multiple of {to} bytes",
            a.dtype(),
            a.shape(),
            dtype
        );
    }
    let l = a.ndim() - 1;
    let mut v = a.clone();
    v.dtype = dtype;
    v.shape[l] = bytes_last / to;
    for (i, s) in v.strides.iter_mut().enumerate() {
        *s = if i == l {
            1
        } else {
            *s * from as isize / to as isize
        };
    }
    if a.strides[..l]
        .iter()
        .any(|&s| (s * from as isize) % to as isize != 0)
    {
        crate::error::bail!(
            DType,
            "cannot view an array of {} with strides {:?} as {}",
            a.dtype(),
            a.byte_strides(),
            dtype
        );
    }
    v.offset = offset_bytes / to;
    Ok(v)
}

pub(crate) fn device_label(array: &Array) -> String {
    array.device().framework_name()
}

/// `array`'s device as a `cuprum.cuda.Device` (its label where the `cuprum` package is
/// not installed: an extension module on its own).
pub(crate) fn device_object(py: Python<'_>, array: &Array) -> PyResult<Py<PyAny>> {
    static DEVICE: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let class = DEVICE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        match py.import("cuprum.cuda").and_then(|m| m.getattr("Device")) {
            Ok(class) => Ok(class.unbind()),
            Err(_) => Ok(py.None()),
        }
    })?;
    if class.is_none(py) {
        return Ok(device_label(array).into_pyobject(py)?.into_any().unbind());
    }
    Ok(class.bind(py).call1((array.device().id(),))?.unbind())
}
