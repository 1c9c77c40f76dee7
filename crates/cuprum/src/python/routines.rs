//! NumPy's routines on `cuprum.ndarray`s (`cuprum._cuprum.sort`, `cumsum`, `unique_all`,
//! …): faces over `crate::ops`, one `#[pyfunction]` each, which the pure-Python part
//! (`python/cuprum/_routines.py`) wraps with NumPy's names, defaults and argument forms.
//! The helpers that take an [`Array`] serve `ndarray`'s methods of the same names
//! (`ndarray.rs`).
//!
//! Arguments arrive as NumPy spells them: an axis is an int, `None` or (where NumPy takes
//! one) a sequence of ints; an array argument is anything `cuprum.asarray` takes. Argument
//! errors are `TypeError`/`ValueError` naming what was expected and what was given; the
//! operations' own errors are cuprum's (a bad axis: `cuprum.AxisError`).

use super::array::{PyArray, wrap};
use super::errors::type_name;
use super::operations;
use crate::array::Array;
use crate::array::shape::normalize_axis;
use crate::kernel::Keepdims;
use crate::ops::{self, Bins, IndexMode, Quantiles, Repeats, Side, Split, Tolerance};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// `obj` as a device array: a `cuprum.ndarray` as it is, anything else through
/// `cuprum._cuprum.asarray` (other frameworks' device arrays, NumPy data, lists, scalars).
pub(super) fn array_of(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    if let Ok(x) = obj.cast::<PyArray>() {
        return Ok(x.get().array().clone());
    }
    let converted = obj
        .py()
        .import("cuprum._cuprum")?
        .getattr("asarray")?
        .call1((obj,))?;
    let x = converted.cast::<PyArray>()?;
    Ok(x.get().array().clone())
}

/// An int, or a sequence of ints (`what` names the argument in the error).
fn ints_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<isize>> {
    if let Ok(n) = obj.extract::<isize>() {
        return Ok(vec![n]);
    }
    obj.extract::<Vec<isize>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be an int or a sequence of ints, got {}",
            type_name(obj)
        ))
    })
}

/// An axis argument that may be `None`, an int or a sequence of ints.
fn axes_of(axis: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<isize>>> {
    match axis.filter(|a| !a.is_none()) {
        None => Ok(None),
        Some(a) => Ok(Some(ints_of(a, what)?)),
    }
}

/// One axis argument (`None` or an int); a sequence is not taken by this routine.
fn one_axis(axis: Option<&Bound<'_, PyAny>>, routine: &str) -> PyResult<Option<isize>> {
    match axis.filter(|a| !a.is_none()) {
        None => Ok(None),
        Some(a) => match a.extract::<isize>() {
            Ok(n) => Ok(Some(n)),
            Err(_) if a.is_instance_of::<PyTuple>() || a.is_instance_of::<PyList>() => {
                Err(PyNotImplementedError::new_err(format!(
                    "{routine}: a tuple of axes is not supported (give one int axis or None)"
                )))
            }
            Err(_) => Err(PyTypeError::new_err(format!(
                "{routine}: axis must be an int or None, got {}",
                type_name(a)
            ))),
        },
    }
}

/// The arrays of a sequence argument.
fn arrays_of(seq: &Bound<'_, PyAny>, routine: &str) -> PyResult<Vec<Array>> {
    let iter = seq.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{routine}: arrays must be a sequence of arrays, got {}",
            type_name(seq)
        ))
    })?;
    iter.map(|a| array_of(&a?)).collect()
}

/// NumPy's `mode` of `take` and `put`.
fn index_mode(mode: &str) -> PyResult<IndexMode> {
    match mode {
        "raise" => Ok(IndexMode::Raise),
        "wrap" => Ok(IndexMode::Wrap),
        "clip" => Ok(IndexMode::Clip),
        _ => Err(PyValueError::new_err(format!(
            "clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode:?})"
        ))),
    }
}

fn keepdims(k: bool) -> Keepdims {
    if k { Keepdims::Yes } else { Keepdims::No }
}

/// Arrays as `cuprum.ndarray`s.
fn wrapped(py: Python<'_>, arrays: Vec<Array>) -> PyResult<Vec<Py<PyAny>>> {
    arrays.into_iter().map(|a| wrap(py, a)).collect()
}

/// Arrays as a Python tuple of `cuprum.ndarray`s.
fn tuple_of(py: Python<'_>, arrays: Vec<Array>) -> PyResult<Py<PyAny>> {
    Ok(PyTuple::new(py, wrapped(py, arrays)?)?.into_any().unbind())
}

/// Arrays as a Python list of `cuprum.ndarray`s.
fn list_of(py: Python<'_>, arrays: Vec<Array>) -> PyResult<Py<PyAny>> {
    Ok(PyList::new(py, wrapped(py, arrays)?)?.into_any().unbind())
}

/// `r`, or `r` written into `out` (then `out`).
fn into_out(py: Python<'_>, r: Array, out: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    match out.filter(|o| !o.is_none()) {
        None => wrap(py, r),
        Some(o) => {
            if o.cast::<PyArray>().is_err() {
                return Err(PyTypeError::new_err(format!(
                    "out must be a cuprum.ndarray, got {}",
                    type_name(o)
                )));
            }
            o.set_item(py.Ellipsis(), wrap(py, r)?)?;
            Ok(o.clone().unbind())
        }
    }
}

// ---- helpers shared with ndarray's methods ---------------------------------------------

/// `cumsum` / `cumprod` (`prod`) with NumPy's `axis`, `dtype` and `out`.
pub(super) fn cumulative(
    py: Python<'_>,
    a: &Array,
    prod: bool,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let routine = if prod { "cumprod" } else { "cumsum" };
    let mut axis = one_axis(axis, routine)?;
    if a.ndim() == 0 {
        // NumPy scans a 0-d array as one of shape (1,): axis 0 or -1, or none
        if let Some(x) = axis {
            normalize_axis(x, 1)?;
        }
        axis = None;
    }
    let d = match dtype.filter(|d| !d.is_none()) {
        Some(d) => Some(super::convert::dtype_of(d)?),
        None => None,
    };
    let x = match d {
        Some(d) if d != a.dtype() => a.astype(d)?,
        _ => a.clone(),
    };
    let mut r = if prod {
        ops::cumprod(&x, axis)?
    } else {
        ops::cumsum(&x, axis)?
    };
    if let Some(d) = d.filter(|&d| d != r.dtype()) {
        r = r.astype(d)?;
    }
    into_out(py, r, out)
}

/// `take(a, indices, axis, out, mode)`.
pub(super) fn take_from(
    py: Python<'_>,
    a: &Array,
    indices: &Bound<'_, PyAny>,
    axis: Option<isize>,
    out: Option<&Bound<'_, PyAny>>,
    mode: &str,
) -> PyResult<Py<PyAny>> {
    let idx = array_of(indices)?;
    if let Some(o) = out.filter(|o| !o.is_none())
        && let Ok(o) = o.cast::<PyArray>()
    {
        // NumPy's check: `out`'s values must be castable to `a`'s dtype under 'safe'
        let od = o.get().array().dtype();
        if !crate::ops::promote::can_cast_safe(od, a.dtype()) {
            return Err(PyTypeError::new_err(format!(
                "Cannot cast array data from dtype('{od}') to dtype('{}') according to the \
                 rule 'safe'",
                a.dtype()
            )));
        }
    }
    let r = ops::take_with(a, &idx, axis, index_mode(mode)?)?;
    into_out(py, r, out)
}

/// `put(a, ind, v, mode)`: in place.
pub(super) fn put_into(
    a: &Array,
    ind: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
    mode: &str,
) -> PyResult<()> {
    let idx = array_of(ind)?;
    let values = match operations::operand(a, v)? {
        Some(x) => x,
        None => super::kernels::Arg::Array(array_of(v)?),
    };
    Ok(ops::put_with(a, &idx, values, index_mode(mode)?)?)
}

/// `repeat(a, repeats, axis)`: `repeats` an int or a sequence (or array) of ints.
pub(super) fn repeat_of(
    a: &Array,
    repeats: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<Array> {
    let reps = if let Ok(n) = repeats.extract::<i64>() {
        Repeats::All(n)
    } else if let Ok(v) = repeats.extract::<Vec<i64>>() {
        Repeats::Each(v)
    } else {
        let r = array_of(repeats)?;
        if !r.dtype().is_integer() {
            return Err(PyTypeError::new_err(format!(
                "repeat: repeats must be integers, got an array of {}",
                r.dtype()
            )));
        }
        Repeats::Each(r.astype(crate::array::DType::I64)?.to_vec::<i64>()?)
    };
    Ok(ops::repeat(a, reps, axis)?)
}

/// `trace(a, offset, axis1, axis2, dtype, out)`: the sum of a diagonal, summed in `dtype`
/// when given.
#[allow(clippy::too_many_arguments)]
pub(super) fn trace_of(
    py: Python<'_>,
    a: &Array,
    offset: isize,
    axis1: isize,
    axis2: isize,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if dtype.is_none_or(|d| d.is_none()) {
        return into_out(py, ops::trace(a, offset, axis1, axis2)?, out);
    }
    let diag = ops::diagonal(a, offset, axis1, axis2)?;
    let last = (-1i64).into_pyobject(py)?.into_any();
    operations::reduce(py, "sum", &diag, Some(&last), dtype, out, false, None)
}

/// `compress(condition, a, axis, out)`.
pub(super) fn compress_of(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    a: &Array,
    axis: Option<isize>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let c = array_of(condition)?;
    into_out(py, ops::compress(&c, a, axis)?, out)
}

/// `nonzero(a)`: a tuple of index arrays, one per axis.
pub(super) fn nonzero_of(py: Python<'_>, a: &Array) -> PyResult<Py<PyAny>> {
    if a.ndim() == 0 {
        return Err(PyValueError::new_err(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() \
             instead.",
        ));
    }
    tuple_of(py, ops::nonzero(a)?)
}

// ---- the functions ----------------------------------------------------------------------

/// `sort(a, axis)`: a sorted copy (`None`: of the flattened array).
#[pyfunction]
#[pyo3(signature = (a, axis=None))]
fn sort(py: Python<'_>, a: &Bound<'_, PyAny>, axis: Option<isize>) -> PyResult<Py<PyAny>> {
    wrap(py, ops::sort(&array_of(a)?, axis)?)
}

/// `argsort(a, axis)`: the indices (int64) that sort `a`, stable.
#[pyfunction]
#[pyo3(signature = (a, axis=None))]
fn argsort(py: Python<'_>, a: &Bound<'_, PyAny>, axis: Option<isize>) -> PyResult<Py<PyAny>> {
    wrap(py, ops::argsort(&array_of(a)?, axis)?)
}

/// `cumsum(a, axis=None, dtype=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (a, axis=None, dtype=None, out=None))]
fn cumsum(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    cumulative(py, &array_of(a)?, false, axis, dtype, out)
}

/// `cumprod(a, axis=None, dtype=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (a, axis=None, dtype=None, out=None))]
fn cumprod(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    cumulative(py, &array_of(a)?, true, axis, dtype, out)
}

/// `diff(a, n=1, axis=-1, prepend=None, append=None)`.
#[pyfunction]
#[pyo3(signature = (a, n=1, axis=-1, prepend=None, append=None))]
fn diff(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    n: i64,
    axis: isize,
    prepend: Option<&Bound<'_, PyAny>>,
    append: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let n = usize::try_from(n)
        .map_err(|_| PyValueError::new_err(format!("order must be non-negative but got {n}")))?;
    let pre = prepend.map(array_of).transpose()?;
    let app = append.map(array_of).transpose()?;
    let r = ops::diff_with(&array_of(a)?, n, axis, pre.as_ref(), app.as_ref())?;
    wrap(py, r)
}

/// `flip(m, axis=None)`: `None` reverses every axis.
#[pyfunction]
#[pyo3(signature = (m, axis=None))]
fn flip(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let axes = axes_of(axis, "flip: axis")?;
    wrap(py, ops::flip(&array_of(m)?, axes.as_deref())?)
}

/// `roll(a, shift, axis=None)`: `shift` and `axis` ints or sequences (broadcast together).
#[pyfunction]
#[pyo3(signature = (a, shift, axis=None))]
fn roll(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    shift: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let a = array_of(a)?;
    let shifts = ints_of(shift, "roll: shift")?;
    let Some(axes) = axes_of(axis, "roll: axis")? else {
        let total = shifts.iter().fold(0isize, |s, &x| s.wrapping_add(x));
        return wrap(py, ops::roll(&a, total, None)?);
    };
    let n = shifts.len().max(axes.len());
    let stretch = |v: &[isize]| -> PyResult<Vec<isize>> {
        match v.len() {
            1 => Ok(vec![v[0]; n]),
            k if k == n => Ok(v.to_vec()),
            _ => Err(PyValueError::new_err(format!(
                "roll: shift ({} values) and axis ({} values) do not broadcast",
                shifts.len(),
                axes.len()
            ))),
        }
    };
    let (s, x) = (stretch(&shifts)?, stretch(&axes)?);
    wrap(py, ops::roll_axes(&a, &s, &x)?)
}

/// `repeat(a, repeats, axis=None)`.
#[pyfunction]
#[pyo3(signature = (a, repeats, axis=None))]
fn repeat(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    repeats: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<Py<PyAny>> {
    wrap(py, repeat_of(&array_of(a)?, repeats, axis)?)
}

/// `tile(A, reps)`: `reps` an int or a sequence of non-negative ints.
#[pyfunction]
fn tile(py: Python<'_>, a: &Bound<'_, PyAny>, reps: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let reps = ints_of(reps, "tile: reps")?;
    let reps = reps
        .iter()
        .map(|&r| {
            usize::try_from(r).map_err(|_| {
                PyValueError::new_err(format!("tile: negative dimensions are not allowed ({r})"))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    wrap(py, ops::tile(&array_of(a)?, &reps)?)
}

/// `histogram(a, bins=10, range=None, density=False)`: `(counts, edges)`; `bins` an int or
/// the edges.
#[pyfunction]
#[pyo3(signature = (a, bins, range=None, density=false))]
fn histogram(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    bins: &Bound<'_, PyAny>,
    range: Option<(f64, f64)>,
    density: bool,
) -> PyResult<Py<PyAny>> {
    let a = array_of(a)?;
    let edges;
    let b = if let Ok(n) = bins.extract::<i64>() {
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| PyValueError::new_err("`bins` must be positive, when an integer"))?;
        Bins::Count(n)
    } else {
        edges = array_of(bins)?;
        Bins::Edges(&edges)
    };
    let (counts, e) = ops::histogram(&a, b, range, density)?;
    tuple_of(py, vec![counts, e])
}

/// `bincount(x, weights=None, minlength=0)`.
#[pyfunction]
#[pyo3(signature = (x, weights=None, minlength=0))]
fn bincount(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    weights: Option<&Bound<'_, PyAny>>,
    minlength: i64,
) -> PyResult<Py<PyAny>> {
    let minlength = usize::try_from(minlength)
        .map_err(|_| PyValueError::new_err("'minlength' must not be negative"))?;
    let w = weights.filter(|w| !w.is_none()).map(array_of).transpose()?;
    wrap(py, ops::bincount(&array_of(x)?, w.as_ref(), minlength)?)
}

/// `searchsorted(a, v, side='left', sorter=None)`.
#[pyfunction]
#[pyo3(signature = (a, v, side="left", sorter=None))]
fn searchsorted(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
    side: &str,
    sorter: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let side = match side {
        "left" | "l" => Side::Left,
        "right" | "r" => Side::Right,
        _ => {
            return Err(PyValueError::new_err(format!(
                "side must be 'left' or 'right' (got {side:?})"
            )));
        }
    };
    let s = sorter.filter(|s| !s.is_none()).map(array_of).transpose()?;
    let r = ops::searchsorted_with(&array_of(a)?, &array_of(v)?, side, s.as_ref())?;
    wrap(py, r)
}

/// `isin(element, test_elements, invert=False)`.
#[pyfunction]
#[pyo3(signature = (element, test_elements, invert=false))]
fn isin(
    py: Python<'_>,
    element: &Bound<'_, PyAny>,
    test_elements: &Bound<'_, PyAny>,
    invert: bool,
) -> PyResult<Py<PyAny>> {
    let r = ops::isin_with(&array_of(element)?, &array_of(test_elements)?, invert)?;
    wrap(py, r)
}

/// `median(a, axis=None, keepdims=False)`.
#[pyfunction]
#[pyo3(signature = (a, axis=None, keepdims=false))]
fn median(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    let axis = one_axis(axis, "median")?;
    wrap(
        py,
        ops::median(&array_of(a)?, axis, self::keepdims(keepdims))?,
    )
}

/// The quantiles of `quantile` (`percent`: `percentile`).
fn quantiles(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keep: bool,
    percent: bool,
) -> PyResult<Py<PyAny>> {
    let routine = if percent { "percentile" } else { "quantile" };
    let a = array_of(a)?;
    let axis = one_axis(axis, routine)?;
    let qarray;
    let list: Vec<f64>;
    let qs = if q.cast::<PyArray>().is_err() && super::convert::python_scalar(q)?.is_some() {
        Quantiles::Scalar(q.extract::<f64>()?)
    } else if let Some(v) = (q.is_instance_of::<PyList>() || q.is_instance_of::<PyTuple>())
        .then(|| q.extract::<Vec<f64>>().ok())
        .flatten()
    {
        list = v;
        Quantiles::List(&list)
    } else {
        qarray = array_of(q)?;
        Quantiles::Array(&qarray)
    };
    let r = if percent {
        ops::percentile(&a, qs, axis, keepdims(keep))?
    } else {
        ops::quantile(&a, qs, axis, keepdims(keep))?
    };
    wrap(py, r)
}

/// `quantile(a, q, axis=None, keepdims=False)`: the linear method.
#[pyfunction]
#[pyo3(signature = (a, q, axis=None, keepdims=false))]
fn quantile(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    quantiles(py, a, q, axis, keepdims, false)
}

/// `percentile(a, q, axis=None, keepdims=False)`: the linear method.
#[pyfunction]
#[pyo3(signature = (a, q, axis=None, keepdims=false))]
fn percentile(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    quantiles(py, a, q, axis, keepdims, true)
}

/// `take(a, indices, axis=None, out=None, mode='raise')`.
#[pyfunction]
#[pyo3(signature = (a, indices, axis=None, out=None, mode="raise"))]
fn take(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    axis: Option<isize>,
    out: Option<&Bound<'_, PyAny>>,
    mode: &str,
) -> PyResult<Py<PyAny>> {
    take_from(py, &array_of(a)?, indices, axis, out, mode)
}

/// `put(a, ind, v, mode='raise')`: `a` (a `cuprum.ndarray`) changed in place.
#[pyfunction]
#[pyo3(signature = (a, ind, v, mode="raise"))]
fn put(
    a: &Bound<'_, PyAny>,
    ind: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
    mode: &str,
) -> PyResult<()> {
    let target = a.cast::<PyArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "put: the target must be a cuprum.ndarray, got {}",
            type_name(a)
        ))
    })?;
    put_into(target.get().array(), ind, v, mode)
}

/// `unique(a)`: the sorted unique values of the flattened `a` (all NaNs one value).
#[pyfunction]
fn unique(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    wrap(py, ops::unique(&array_of(a)?)?)
}

/// `unique_all(a, axis=None)`: `(values, indices, inverse, counts)`.
#[pyfunction]
#[pyo3(signature = (a, axis=None))]
fn unique_all(py: Python<'_>, a: &Bound<'_, PyAny>, axis: Option<isize>) -> PyResult<Py<PyAny>> {
    let a = array_of(a)?;
    let u = match axis {
        None => ops::unique_all(&a)?,
        Some(x) => ops::unique_all_axis(&a, x)?,
    };
    tuple_of(py, vec![u.values, u.indices, u.inverse, u.counts])
}

/// `nonzero(a)`: one index array per axis.
#[pyfunction]
fn nonzero(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    nonzero_of(py, &array_of(a)?)
}

/// `flatnonzero(a)`: the indices of the non-zero elements of the flattened array.
#[pyfunction]
fn flatnonzero(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    wrap(py, ops::flatnonzero(&array_of(a)?)?)
}

/// `argwhere(a)`: the indices of the non-zero elements, one row each.
#[pyfunction]
fn argwhere(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    wrap(py, ops::argwhere(&array_of(a)?)?)
}

/// `isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)`: Python numbers weak.
#[pyfunction]
#[pyo3(signature = (a, b, rtol=1e-5, atol=1e-8, equal_nan=false))]
fn isclose(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> PyResult<Py<PyAny>> {
    let tol = Tolerance {
        rtol,
        atol,
        equal_nan,
    };
    wrap(py, close(a, b, tol)?)
}

/// `isclose(a, b)` under `tol` (also `allclose`'s, `package.rs`): an array and a Python
/// number in either order (the number weak), or two arrays.
pub(super) fn close(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, tol: Tolerance) -> PyResult<Array> {
    let a_scalar = a.cast::<PyArray>().is_err() && super::convert::python_scalar(a)?.is_some();
    let b_scalar = b.cast::<PyArray>().is_err() && super::convert::python_scalar(b)?.is_some();
    if a_scalar && !b_scalar {
        let y = array_of(b)?;
        let x = operations::operand(&y, a)?
            .ok_or_else(|| PyTypeError::new_err("isclose: unsupported operand"))?;
        return Ok(ops::isclose(&x, &y, tol)?);
    }
    let x = array_of(a)?;
    let y = match operations::operand(&x, b)? {
        Some(y) => y,
        None => super::kernels::Arg::Array(array_of(b)?),
    };
    Ok(ops::isclose(&x, &y, tol)?)
}

/// `compress(condition, a, axis=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (condition, a, axis=None, out=None))]
fn compress(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    axis: Option<isize>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    compress_of(py, condition, &array_of(a)?, axis, out)
}

/// `stack(arrays, axis=0)`.
#[pyfunction]
#[pyo3(signature = (arrays, axis=0))]
fn stack(py: Python<'_>, arrays: &Bound<'_, PyAny>, axis: isize) -> PyResult<Py<PyAny>> {
    let v = arrays_of(arrays, "stack")?;
    let refs: Vec<&Array> = v.iter().collect();
    wrap(py, ops::stack(&refs, axis)?)
}

/// Where to split: sections (an int) or split points (a sequence of ints).
fn split_of(how: &Bound<'_, PyAny>) -> PyResult<Split> {
    if let Ok(n) = how.extract::<i64>() {
        return usize::try_from(n)
            .ok()
            .filter(|&n| n > 0)
            .map(Split::Sections)
            .ok_or_else(|| PyValueError::new_err("number sections must be larger than 0."));
    }
    if let Ok(v) = how.extract::<Vec<isize>>() {
        return Ok(Split::Indices(v));
    }
    let a = array_of(how)?;
    if !a.dtype().is_integer() || a.ndim() != 1 {
        return Err(PyTypeError::new_err(format!(
            "indices_or_sections must be an int or a 1-D sequence of ints, got {}",
            type_name(how)
        )));
    }
    let v = a.astype(crate::array::DType::I64)?.to_vec::<i64>()?;
    Ok(Split::Indices(
        v.into_iter()
            .map(|i| isize::try_from(i).unwrap_or(isize::MAX))
            .collect(),
    ))
}

/// `split(ary, indices_or_sections, axis=0)`: a list of views.
#[pyfunction]
#[pyo3(signature = (ary, indices_or_sections, axis=0))]
fn split(
    py: Python<'_>,
    ary: &Bound<'_, PyAny>,
    indices_or_sections: &Bound<'_, PyAny>,
    axis: isize,
) -> PyResult<Py<PyAny>> {
    list_of(
        py,
        ops::split(&array_of(ary)?, split_of(indices_or_sections)?, axis)?,
    )
}

/// `array_split(ary, indices_or_sections, axis=0)`: unequal sections allowed.
#[pyfunction]
#[pyo3(signature = (ary, indices_or_sections, axis=0))]
fn array_split(
    py: Python<'_>,
    ary: &Bound<'_, PyAny>,
    indices_or_sections: &Bound<'_, PyAny>,
    axis: isize,
) -> PyResult<Py<PyAny>> {
    list_of(
        py,
        ops::array_split(&array_of(ary)?, split_of(indices_or_sections)?, axis)?,
    )
}

/// `tril(m, k=0)`: zeros above the `k`-th diagonal.
#[pyfunction]
#[pyo3(signature = (m, k=0))]
fn tril(py: Python<'_>, m: &Bound<'_, PyAny>, k: isize) -> PyResult<Py<PyAny>> {
    wrap(py, ops::tril(&array_of(m)?, k)?)
}

/// `triu(m, k=0)`: zeros below the `k`-th diagonal.
#[pyfunction]
#[pyo3(signature = (m, k=0))]
fn triu(py: Python<'_>, m: &Bound<'_, PyAny>, k: isize) -> PyResult<Py<PyAny>> {
    wrap(py, ops::triu(&array_of(m)?, k)?)
}

/// `diagonal(a, offset=0, axis1=0, axis2=1)`.
#[pyfunction]
#[pyo3(signature = (a, offset=0, axis1=0, axis2=1))]
fn diagonal(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    offset: isize,
    axis1: isize,
    axis2: isize,
) -> PyResult<Py<PyAny>> {
    wrap(py, ops::diagonal(&array_of(a)?, offset, axis1, axis2)?)
}

/// `trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (a, offset=0, axis1=0, axis2=1, dtype=None, out=None))]
fn trace(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    offset: isize,
    axis1: isize,
    axis2: isize,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    trace_of(py, &array_of(a)?, offset, axis1, axis2, dtype, out)
}

/// `outer(a, b)`: of the flattened arrays.
#[pyfunction]
fn outer(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    wrap(py, ops::outer(&array_of(a)?, &array_of(b)?)?)
}

/// Normalised, distinct axes of an `ndim`-dimensional array.
fn distinct_axes(axes: &[isize], ndim: usize, what: &str) -> PyResult<Vec<usize>> {
    let mut seen = Vec::with_capacity(axes.len());
    for &x in axes {
        let ax = normalize_axis(x, ndim)?;
        if seen.contains(&ax) {
            return Err(PyValueError::new_err(format!(
                "repeated axis in `{what}` argument"
            )));
        }
        seen.push(ax);
    }
    Ok(seen)
}

/// `squeeze(a, axis=None)`: axes of extent 1 removed (all of them, or the given ones).
#[pyfunction]
#[pyo3(signature = (a, axis=None))]
fn squeeze(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    wrap(py, squeeze_of(&array_of(a)?, axis)?)
}

/// `a` without its axes of extent 1: all of them, or those of `axis` (an int or a tuple;
/// a 0-d array takes 0 and -1, as NumPy's).
pub(super) fn squeeze_of(a: &Array, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    // an int axis (not a tuple) of 0 or -1 names a 0-d array's only "axis", as in NumPy
    let int_axis = axis.and_then(|x| x.extract::<isize>().ok());
    if a.ndim() == 0 && matches!(int_axis, Some(0 | -1)) {
        return Ok(a.clone());
    }
    let Some(axes) = axes_of(axis, "squeeze: axis")? else {
        return Ok(a.squeeze(None)?);
    };
    let mut axes = distinct_axes(&axes, a.ndim(), "axis")?;
    if let Some(&bad) = axes.iter().find(|&&x| a.shape()[x] != 1) {
        return Err(PyValueError::new_err(format!(
            "cannot select an axis to squeeze out which has size not equal to one \
             (axis {bad} has extent {})",
            a.shape()[bad]
        )));
    }
    axes.sort_unstable_by(|x, y| y.cmp(x));
    let mut r = a.clone();
    for x in axes {
        r = r.squeeze(Some(x as isize))?;
    }
    Ok(r)
}

/// `expand_dims(a, axis)`: axes of extent 1 inserted at the given positions of the result.
#[pyfunction]
fn expand_dims(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let a = array_of(a)?;
    let axes = ints_of(axis, "expand_dims: axis")?;
    let mut axes = distinct_axes(&axes, a.ndim() + axes.len(), "axis")?;
    axes.sort_unstable();
    let mut r = a;
    for x in axes {
        r = r.expand_dims(x as isize)?;
    }
    wrap(py, r)
}

/// `swapaxes(a, axis1, axis2)`: a view.
#[pyfunction]
fn swapaxes(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis1: isize,
    axis2: isize,
) -> PyResult<Py<PyAny>> {
    wrap(py, array_of(a)?.swapaxes(axis1, axis2)?)
}

/// `moveaxis(a, source, destination)`: a view with axes moved, the others in order.
#[pyfunction]
fn moveaxis(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    source: &Bound<'_, PyAny>,
    destination: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let a = array_of(a)?;
    let n = a.ndim();
    let src = distinct_axes(&ints_of(source, "moveaxis: source")?, n, "source")?;
    let dst = distinct_axes(
        &ints_of(destination, "moveaxis: destination")?,
        n,
        "destination",
    )?;
    if src.len() != dst.len() {
        return Err(PyValueError::new_err(
            "`source` and `destination` arguments must have the same number of elements",
        ));
    }
    let mut order: Vec<usize> = (0..n).filter(|x| !src.contains(x)).collect();
    let mut pairs: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
    pairs.sort_unstable();
    for (d, s) in pairs {
        order.insert(d.min(order.len()), s);
    }
    let perm: Vec<isize> = order.into_iter().map(|x| x as isize).collect();
    wrap(py, a.permute(&perm)?)
}

/// `broadcast_to(array, shape)`: a view of `array` in `shape` (NumPy's view is read-only;
/// this one is not marked so: writing through it writes the broadcast elements).
#[pyfunction]
fn broadcast_to(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let dims = ints_of(shape, "broadcast_to: shape")?;
    let dims = dims
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                PyValueError::new_err(format!(
                    "all elements of broadcast shape must be non-negative (got {d})"
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    wrap(py, array_of(array)?.broadcast_to(&dims)?)
}

/// Adds the routines to `m` (the `cuprum._cuprum` module).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sort, m)?)?;
    m.add_function(wrap_pyfunction!(argsort, m)?)?;
    m.add_function(wrap_pyfunction!(cumsum, m)?)?;
    m.add_function(wrap_pyfunction!(cumprod, m)?)?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_function(wrap_pyfunction!(flip, m)?)?;
    m.add_function(wrap_pyfunction!(roll, m)?)?;
    m.add_function(wrap_pyfunction!(repeat, m)?)?;
    m.add_function(wrap_pyfunction!(tile, m)?)?;
    m.add_function(wrap_pyfunction!(histogram, m)?)?;
    m.add_function(wrap_pyfunction!(bincount, m)?)?;
    m.add_function(wrap_pyfunction!(searchsorted, m)?)?;
    m.add_function(wrap_pyfunction!(isin, m)?)?;
    m.add_function(wrap_pyfunction!(median, m)?)?;
    m.add_function(wrap_pyfunction!(quantile, m)?)?;
    m.add_function(wrap_pyfunction!(percentile, m)?)?;
    m.add_function(wrap_pyfunction!(take, m)?)?;
    m.add_function(wrap_pyfunction!(put, m)?)?;
    m.add_function(wrap_pyfunction!(unique, m)?)?;
    m.add_function(wrap_pyfunction!(unique_all, m)?)?;
    m.add_function(wrap_pyfunction!(nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(flatnonzero, m)?)?;
    m.add_function(wrap_pyfunction!(argwhere, m)?)?;
    m.add_function(wrap_pyfunction!(isclose, m)?)?;
    m.add_function(wrap_pyfunction!(compress, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(split, m)?)?;
    m.add_function(wrap_pyfunction!(array_split, m)?)?;
    m.add_function(wrap_pyfunction!(tril, m)?)?;
    m.add_function(wrap_pyfunction!(triu, m)?)?;
    m.add_function(wrap_pyfunction!(diagonal, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_function(wrap_pyfunction!(outer, m)?)?;
    m.add_function(wrap_pyfunction!(squeeze, m)?)?;
    m.add_function(wrap_pyfunction!(expand_dims, m)?)?;
    m.add_function(wrap_pyfunction!(swapaxes, m)?)?;
    m.add_function(wrap_pyfunction!(moveaxis, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_to, m)?)?;
    Ok(())
}
