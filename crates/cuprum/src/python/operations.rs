//! What `cuprum.ndarray`'s operators, indexing and reductions do with Python operands: a
//! face over `ops` (NumPy's promotion, the ufunc table, the reductions, masks and gathers),
//! never a second implementation.
//!
//! Operands: a `cuprum.ndarray` or any device array (`__dlpack__`, imported without a
//! copy), a Python scalar (weak, NumPy 2's rule), a NumPy scalar (strong: passed as a
//! scalar when that gives NumPy's dtype anyway — the common `x * np.float32(2)` on a
//! float32 array — else as a 0-d array), or host data (a list, a NumPy array), uploaded
//! first as CuPy does for `cupy.asarray`. An operand the operator does not take returns
//! `NotImplemented`, so Python tries the other side.
//!
//! Indexing: ints, slices, `...` and `None` give views (`Array::slice`); a boolean array
//! selects (`a[mask]`, a copy) and assigns (`a[mask] = v`, `a[mask] += v` as Python does
//! it: a gather, the operation, a scatter); an integer array gathers along the first axis
//! (`take`) and assigns there (`put`).

use super::array::{PyArray, wrap};
use super::call::Call;
use super::convert;
use super::kernels::{Arg, axes};
use crate::array::{Array, DType, DTypeKind, Scalar, SliceArg};
use crate::error::err;
use crate::kernel::{IntoOperand, Operand};
use crate::ops::elementwise::binary_to;
use crate::ops::promote::promote_types;
use crate::ops::reduce_opts::reduce_opts;
use crate::ops::reduction::ROp;
use crate::ops::ufunc::Op;
use crate::ops::{Index, ReduceOpts};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyEllipsis, PyList, PySlice, PyTuple};

/// `a op other` (or `other op a` when `reflected`).
pub(crate) fn binary(
    op: Op,
    slf: &Bound<'_, PyArray>,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = other.py();
    let a = slf.get().array();
    let held;
    // cuprum's own array (the common case) is borrowed where it is, not cloned.
    let y = match other.cast::<PyArray>() {
        Ok(b) => Operand::Array(b.get().array()),
        Err(_) => match operand(a, other)? {
            Some(b) => {
                held = b;
                held.operand()
            }
            None => return foreign(op.name(), slf, other, reflected),
        },
    };
    let x = Operand::Array(a);
    let r = if reflected {
        binary_to(op, y, x, None)?
    } else {
        binary_to(op, x, y, None)?
    };
    wrap(py, r)
}

/// `a op= other`: written into `a` (NumPy's `same_kind` rule for the result's dtype).
pub(crate) fn in_place(a: &Array, op: Op, other: &Bound<'_, PyAny>) -> PyResult<()> {
    let b = in_place_operand(a, op, other)?;
    binary_to(op, Operand::Array(a), b.operand(), Some(a))?;
    Ok(())
}

/// `other` as the operand of `a op= other` (a `TypeError` where it is none).
pub(crate) fn in_place_operand(a: &Array, op: Op, other: &Bound<'_, PyAny>) -> PyResult<Arg> {
    operand(a, other)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "unsupported operand type for {}: {}",
            op.name(),
            super::errors::type_name(other)
        ))
    })
}

/// `a @ other`.
pub(crate) fn matmul(
    slf: &Bound<'_, PyArray>,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = other.py();
    let a = slf.get().array();
    let b = match operand(a, other)? {
        Some(Arg::Array(b)) => b,
        Some(_) => return Ok(py.NotImplemented()),
        None => return foreign("matmul", slf, other, reflected),
    };
    let r = if reflected {
        crate::ops::matmul(&b, a)?
    } else {
        crate::ops::matmul(a, &b)?
    };
    wrap(py, r)
}

/// An operator between array `slf` and an `other` that is no operand of cuprum's (NumPy's
/// rule, NEP 13, as CuPy follows it): an object that opts out of NumPy's ufuncs
/// (`__array_ufunc__ = None`), or has no `__array_ufunc__`, gets `NotImplemented` (Python
/// then asks its reflected operator); one that overrides them gets NumPy's ufunc `name`,
/// whose dispatch reaches its `__array_ufunc__` with the operands in the operator's order
/// (cuprum's own `__array_ufunc__` declines such operands).
fn foreign(
    name: &str,
    slf: &Bound<'_, PyArray>,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = other.py();
    match other.getattr(pyo3::intern!(py, "__array_ufunc__")) {
        Ok(u) if !u.is_none() => {
            let ufunc = convert::numpy(py)?.getattr(name)?;
            let r = if reflected {
                ufunc.call1((other, slf))?
            } else {
                ufunc.call1((slf, other))?
            };
            Ok(r.unbind())
        }
        _ => Ok(py.NotImplemented()),
    }
}

/// Whether `x` is an operand cuprum's ufuncs take (its `__array_ufunc__` declines the
/// others, so NumPy asks theirs): cuprum's and NumPy's arrays and scalars, Python numbers,
/// lists and tuples, and device arrays of other frameworks.
pub(crate) fn takes_operand(x: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = x.py();
    Ok(x.cast::<PyArray>().is_ok()
        || x.is_none()
        || convert::python_scalar(x)?.is_some()
        || convert::numpy_scalar(x)?.is_some()
        || convert::is_numpy_array(x)?
        || x.is_instance_of::<PyList>()
        || x.is_instance_of::<PyTuple>()
        || convert::is_device_array(x)?
        || x.hasattr(pyo3::intern!(py, "__cupy_get_ndarray__"))?)
}

/// `other` as the second operand of an operation with `a` (`None`: not an operand).
pub(crate) fn operand(a: &Array, other: &Bound<'_, PyAny>) -> PyResult<Option<Arg>> {
    if let Ok(b) = other.cast::<PyArray>() {
        return Ok(Some(Arg::Array(b.get().array().clone())));
    }
    if let Some(s) = convert::python_scalar(other)? {
        return Ok(Some(Arg::Scalar(s)));
    }
    if let Some(s) = convert::numpy_scalar(other)? {
        return Ok(Some(strong_scalar(a, s)?));
    }
    if convert::is_device_array(other)? {
        let call = Call::new(&[other])?;
        return Ok(Some(Arg::Array(call.array(other)?)));
    }
    if convert::is_numpy_array(other)?
        || other.is_instance_of::<PyList>()
        || other.is_instance_of::<PyTuple>()
    {
        return Ok(Some(Arg::Array(
            a.device().with(|| convert::upload(other, None))?,
        )));
    }
    Ok(None)
}

/// A NumPy scalar beside array `a`: strong in NumPy 2, so it joins the promotion with its
/// own dtype. Where that promotion keeps `a`'s dtype a weak scalar gives the same result
/// (and costs no upload); otherwise it becomes a 0-d array.
fn strong_scalar(a: &Array, s: Scalar) -> PyResult<Arg> {
    if promote_types(a.dtype(), s.dtype()) == a.dtype() {
        return Ok(Arg::Scalar(s));
    }
    let z = a.device().with(|| Array::full(&[], s, s.dtype()))?;
    Ok(Arg::Array(z))
}

/// A reduction by NumPy's name with its keywords.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce(
    py: Python<'_>,
    name: &str,
    a: &Array,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    ddof: Option<f64>,
) -> PyResult<Py<PyAny>> {
    let op = reduction_op(name)?;
    let mut opts = ReduceOpts::new().keepdims(keepdims);
    if let Some(ax) = axis.filter(|x| !x.is_none()) {
        opts = opts.axis(axes(ax)?);
    }
    if let Some(d) = dtype.filter(|x| !x.is_none()) {
        opts = opts.dtype(convert::dtype_of(d)?);
    }
    if let Some(d) = ddof.filter(|&d| d != 0.0) {
        opts = opts.ddof(d);
    }
    let out_array = match out.filter(|o| !o.is_none()) {
        Some(o) => Some(
            o.cast::<PyArray>()
                .map_err(|_| PyTypeError::new_err("Output arguments type must be cuprum.ndarray"))?
                .get()
                .array()
                .clone(),
        ),
        None => None,
    };
    let r = match &out_array {
        Some(o) => reduce_opts(op, a, &opts.out(o))?,
        None => reduce_opts(op, a, &opts)?,
    };
    if a.dtype().kind() == DTypeKind::Complex
        && r.dtype().kind() != DTypeKind::Complex
        && matches!(
            op,
            ROp::Sum | ROp::Prod | ROp::Mean | ROp::NanSum | ROp::NanMean | ROp::Max | ROp::Min
        )
    {
        complex_warning(py)?;
    }
    wrap(py, r)
}

/// NumPy's `ComplexWarning` where complex values were cast to a real dtype (`dtype=` or
/// `out=` of a reduction): the imaginary parts were dropped.
pub(crate) fn complex_warning(py: Python<'_>) -> PyResult<()> {
    let np = convert::numpy(py)?;
    let class = match np
        .getattr("exceptions")
        .and_then(|e| e.getattr("ComplexWarning"))
    {
        Ok(c) => c,
        Err(_) => np.getattr("ComplexWarning")?, // NumPy < 1.25
    };
    PyErr::warn(
        py,
        &class,
        c"Casting complex values to real discards the imaginary part",
        1,
    )
}

/// The reduction NumPy calls `name`.
pub(crate) fn reduction_op(name: &str) -> PyResult<ROp> {
    Ok(match name {
        "sum" => ROp::Sum,
        "prod" => ROp::Prod,
        "mean" => ROp::Mean,
        "var" => ROp::Var,
        "std" => ROp::Std,
        "max" | "amax" => ROp::Max,
        "min" | "amin" => ROp::Min,
        "argmax" => ROp::ArgMax,
        "argmin" => ROp::ArgMin,
        "all" => ROp::All,
        "any" => ROp::Any,
        "count_nonzero" => ROp::CountNonzero,
        "nansum" => ROp::NanSum,
        "nanmean" => ROp::NanMean,
        "nanmax" => ROp::NanMax,
        "nanmin" => ROp::NanMin,
        "nanargmax" => ROp::NanArgMax,
        "nanargmin" => ROp::NanArgMin,
        other => return Err(err!(InvalidArgument, "no reduction named {other:?}").into()),
    })
}

/// What a subscript is.
pub(crate) enum Key {
    /// Ints, slices, `...`, `None`: a view.
    Basic(Vec<SliceArg>),
    /// A boolean array: a selection.
    Mask(Array),
    /// An integer array: a gather along the first axis.
    Indices(Array),
    /// Index arrays mixed with other entries, or several of them (`ops::Index`).
    Advanced(Vec<Index>),
}

/// `a[key]`, the subscript already read.
pub(crate) fn get_key(a: &Array, key: Key) -> PyResult<Array> {
    Ok(match key {
        Key::Basic(args) => a.slice(&args)?,
        Key::Mask(m) => a.masked(&m).get()?,
        Key::Indices(i) if a.ndim() > 0 && a.shape()[0] > 0 => crate::ops::take(a, &i, Some(0))?,
        Key::Indices(i) => a.index(&[Index::Array(i)])?,
        Key::Advanced(k) => a.index(&k)?,
    })
}

/// `a[key] = value`.
pub(crate) fn set_item(
    a: &Array,
    key: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let v = operand(a, value)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "cannot assign a {} to an array element",
            super::errors::type_name(value)
        ))
    })?;
    match subscript(a, key)? {
        Key::Basic(args) => {
            let view = a.slice(&args)?;
            match v {
                Arg::Texture(_) => {
                    return Err(PyTypeError::new_err(
                        "cannot assign a texture object to an array element",
                    ));
                }
                Arg::Scalar(s) => view.fill(s)?,
                Arg::Array(src) => {
                    let src = if src.dtype() == view.dtype() {
                        src
                    } else {
                        src.astype(view.dtype())?
                    };
                    view.assign(&crate::ops::subscript::fit_value(&src, view.shape())?)?
                }
            }
        }
        Key::Mask(m) => a.masked(&m).set(&v)?,
        // `put` writes flat positions: the same as NumPy's rows only for a 1-D array
        Key::Indices(i) if a.ndim() == 1 && a.shape()[0] > 0 => crate::ops::put(a, &i, &v)?,
        Key::Indices(i) => a.index_put(&[Index::Array(i)], &v)?,
        Key::Advanced(k) => a.index_put(&k, &v)?,
    }
    Ok(())
}

/// `target[...] = value` (a setter writing a whole view: `a.real = v`).
pub(crate) fn assign_all(target: &Array, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let v = operand(target, value)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "cannot assign a {} to an array",
            super::errors::type_name(value)
        ))
    })?;
    Ok(target.index_put(&[], &v)?)
}

/// A subscript as `ops::Index` entries (`ufunc.at`, and any subscript with index arrays).
pub(crate) fn index_entries(a: &Array, key: &Bound<'_, PyAny>) -> PyResult<Vec<Index>> {
    Ok(match subscript(a, key)? {
        Key::Basic(args) => args.into_iter().map(Index::Basic).collect(),
        Key::Mask(m) | Key::Indices(m) => vec![Index::Array(m)],
        Key::Advanced(k) => k,
    })
}

pub(crate) fn subscript(a: &Array, key: &Bound<'_, PyAny>) -> PyResult<Key> {
    if let Ok(t) = key.cast::<PyTuple>() {
        if t.len() == 1 {
            let only = t.get_item(0)?;
            if !only.is_instance_of::<PyTuple>() {
                return subscript(a, &only);
            }
        }
        let mut args = Vec::with_capacity(t.len() + 1);
        let mut entries: Option<Vec<Index>> = None;
        for (i, k) in t.iter().enumerate() {
            match basic(&k)? {
                Some(Part::One(s)) => args.push(s),
                Some(Part::Ellipsis) => {
                    let consumed_after = t.iter().skip(i + 1).filter(|x| !x.is_none()).count();
                    let used = args
                        .iter()
                        .filter(|x| !matches!(x, SliceArg::NewAxis))
                        .count();
                    let fill = a.ndim().saturating_sub(used + consumed_after);
                    args.extend(std::iter::repeat_n(full(), fill));
                }
                None => {
                    // an index array: the whole tuple is an advanced subscript
                    entries = Some(advanced_entries(a, t)?);
                    break;
                }
            }
        }
        if let Some(e) = entries {
            return Ok(Key::Advanced(e));
        }
        if t.iter()
            .filter(|x| x.is_instance_of::<PyEllipsis>())
            .count()
            > 1
        {
            return Err(PyIndexError::new_err(
                "an index can only have a single ellipsis ('...')",
            ));
        }
        return Ok(Key::Basic(args));
    }
    match basic(key)? {
        Some(Part::One(s)) => return Ok(Key::Basic(vec![s])),
        Some(Part::Ellipsis) => return Ok(Key::Basic(Vec::new())),
        None => {}
    }
    let index = index_array(a, key)?;
    match index.dtype() {
        // a 0-d mask adds an axis; an empty one selects nothing whatever its shape (NumPy)
        DType::Bool if index.ndim() == 0 || index.size() == 0 => {
            Ok(Key::Advanced(vec![Index::Array(index)]))
        }
        DType::Bool => Ok(Key::Mask(index)),
        d if is_integer(d) => Ok(Key::Indices(index)),
        d => Err(PyIndexError::new_err(format!(
            "arrays used as indices must be of integer or boolean type, got {d}"
        ))),
    }
}

/// Every entry of a tuple subscript holding an index array.
fn advanced_entries(a: &Array, t: &Bound<'_, PyTuple>) -> PyResult<Vec<Index>> {
    let mut out = Vec::with_capacity(t.len());
    for k in t.iter() {
        out.push(match basic(&k)? {
            Some(Part::One(s)) => Index::Basic(s),
            Some(Part::Ellipsis) => Index::Ellipsis,
            None => {
                let index = index_array(a, &k)?;
                if !is_integer(index.dtype()) && index.dtype() != DType::Bool {
                    return Err(PyIndexError::new_err(format!(
                        "only integers, slices (`:`), ellipsis (`...`), None and integer or \
                         boolean arrays are valid indices; got an array of {} in a tuple",
                        index.dtype()
                    )));
                }
                Index::Array(index)
            }
        });
    }
    Ok(out)
}

/// An entry that is not an int, a slice, `...` or `None`, as an index array: a cuprum
/// array, another library's device array, or host data (a list, a NumPy array, a bool).
/// An empty list is an empty int64 array, as in NumPy.
fn index_array(a: &Array, key: &Bound<'_, PyAny>) -> PyResult<Array> {
    if let Ok(k) = key.cast::<PyArray>() {
        return Ok(k.get().array().clone());
    }
    if convert::is_device_array(key)? {
        let call = Call::new(&[key])?;
        return call.array(key);
    }
    if !(key.is_instance_of::<PyList>()
        || key.is_instance_of::<PyTuple>()
        || key.is_instance_of::<pyo3::types::PyBool>()
        || convert::is_numpy_array(key)?
        || convert::numpy_scalar(key)?.is_some())
    {
        return Err(PyIndexError::new_err(format!(
            "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean arrays \
             are valid indices; got a {}",
            super::errors::type_name(key)
        )));
    }
    if convert::is_numpy_array(key)? {
        // a NumPy array of a dtype cuprum has no arrays of (object, str, structured …)
        // is NumPy's IndexError, not a dtype error of the upload
        let dtype = key.getattr(pyo3::intern!(key.py(), "dtype"))?;
        let kind: String = dtype.getattr(pyo3::intern!(key.py(), "kind"))?.extract()?;
        if !matches!(kind.as_str(), "b" | "i" | "u" | "f" | "c") {
            return Err(PyIndexError::new_err(format!(
                "arrays used as indices must be of integer or boolean type, got {}",
                dtype.str()?
            )));
        }
    }
    let up = a.device().with(|| convert::upload(key, None))?;
    if up.size() == 0 && key.is_instance_of::<PyList>() && !is_integer(up.dtype()) {
        return Ok(a.device().with(|| Array::empty(up.shape(), DType::I64))?);
    }
    Ok(up)
}

enum Part {
    One(SliceArg),
    Ellipsis,
}

fn full() -> SliceArg {
    SliceArg::Range {
        start: None,
        end: None,
        step: 1,
    }
}

/// One basic subscript: an int (or an object with `__index__`), a slice, `None`, `...`.
fn basic(k: &Bound<'_, PyAny>) -> PyResult<Option<Part>> {
    if k.is_none() {
        return Ok(Some(Part::One(SliceArg::NewAxis)));
    }
    if k.is_instance_of::<PyEllipsis>() {
        return Ok(Some(Part::Ellipsis));
    }
    if let Ok(s) = k.cast::<PySlice>() {
        let get = |name: &str| -> PyResult<Option<isize>> {
            let v = s.getattr(name)?;
            if v.is_none() {
                Ok(None)
            } else {
                v.extract().map(Some)
            }
        };
        let step = get("step")?.unwrap_or(1);
        if step == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "slice step cannot be zero",
            ));
        }
        return Ok(Some(Part::One(SliceArg::Range {
            start: get("start")?,
            end: get("stop")?,
            step,
        })));
    }
    if k.is_instance_of::<pyo3::types::PyBool>() {
        return Ok(None);
    }
    if k.is_instance_of::<pyo3::types::PyInt>()
        || convert::numpy_scalar(k)?.is_some_and(|s| is_integer(s.dtype()))
    {
        return Ok(Some(Part::One(SliceArg::Index(k.extract()?))));
    }
    Ok(None)
}

fn is_integer(d: DType) -> bool {
    matches!(
        d.kind(),
        crate::array::DTypeKind::SignedInt | crate::array::DTypeKind::UnsignedInt
    )
}
