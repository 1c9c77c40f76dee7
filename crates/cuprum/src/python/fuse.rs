//! `cuprum.fuse` (CuPy's `cupy.fuse`): a Python function traced by cuprum's fusion engine
//! ([`crate::fuse`]) and run as its kernels. [`PyFusion`] (`cuprum._cuprum.Fusion`,
//! `<Fusion 'name'>`) is the decorated function; [`PyFusionVar`] (`cuprum._FusionVar`) is
//! what its parameters are while it is traced: a handle to a node of the engine's trace,
//! with the number protocol, the comparisons and the methods of the engine's `Var` — a
//! scalar's value, or an array's ([`PyFusionArray`], its writable subclass). The
//! package's ufuncs, `where`, `clip` and reductions come here when given one (`package.rs`
//! checks for it only where no `cuprum.ndarray` was given, or one type check first).
//!
//! A call as CuPy's: with a traced value among the arguments (a fused function called by
//! another while it is traced) the function runs inline; without a device array (only
//! scalars, NumPy arrays, `None`) it runs eagerly on them; otherwise the arguments are
//! bound as the kernel classes bind theirs (`call.rs`), and the function is traced once per
//! signature — each argument's dtype and number of dimensions, or scalar dtype, whether a
//! scalar is Python's (weak) or NumPy's (strong), and where `None` was passed (given to the
//! function as `None`).
//!
//! Decisions:
//! - **One engine.** Each signature is one [`crate::fuse::Fused`] over a closure that calls
//!   the Python function with one `_FusionVar` per non-`None` argument; the tracer, its
//!   NumPy rules, the planner and the kernels are the Rust ones. A NumPy scalar argument is
//!   the engine's (weak) scalar argument made strong by an `astype` to its own dtype.
//! - **Errors raise where they happen.** Each operation asks the tracer at once whether it
//!   failed and raises cuprum's exception in the user's code (so a traceback names the
//!   line, and `try` works as eagerly); an exception leaving the function (the user's own
//!   `TypeError` too) is kept by the closure and raised again, unchanged, by the call.
//!   The engine names a Rust closure's line in its messages; every operation here records
//!   one location, this file's, which [`clean`] removes from messages.
//! - **Writes** — in-place operators (`d *= 2`, NumPy's `same_kind` rule back to the
//!   value's dtype), `out=` a traced value (ufuncs, reductions), `x[...] = v` — rebind an
//!   array's traced value (aliases see it, as in CuPy); a scalar's value is immutable, as
//!   Python's scalars are (`s += 1` rebinds `s`: pyo3's in-place slots always return
//!   `self`, so scalars' values are a class without them). An array argument written so
//!   is written back to the caller's array after the call, as CuPy writes it: its final
//!   value is one more output of the kernels, copied into the argument (one more pass
//!   over it; fused kernels only write new arrays). The same array passed twice is one
//!   traced value (NumPy's aliasing). A written argument whose memory another input (an
//!   argument, a view) shares is fine when every operation given that input comes before
//!   the first write (the trace's clock, `dynamic::clock`); when one comes after, or both
//!   are written, NumPy's values need the writes done in between, which one call's kernels
//!   cannot give: that call runs the function as NumPy would, one operation at a time on
//!   the caller's arrays (before anything is written). A write that would change a value's
//!   number of dimensions is refused, and so are concrete arrays not passed as arguments
//!   (the engine has none).
//! - **Indexing** an argument (basic indices) reads a view of the caller's array, one more
//!   input of the kernels (`fuse_views.rs`); other indexing is refused.
//! - **A repeat call of cuprum arrays alone** (a signature traced before, no argument
//!   written, no view taken) skips the binding: its arrays are borrowed where they are
//!   (`kernels::own_operands`) and the signature's entry runs the engine's program it
//!   keeps. With the engine's replay of a one-kernel program (`fuse/run.rs`), such a call
//!   costs about what an `ElementwiseKernel` call does (callgrind, host device: 5.0k
//!   instructions outside the launch, from 10.0k).

use super::array::{PyArray, wrap};
use super::call::Call;
use super::convert;
use super::errors::type_name;
use super::fuse_views::{self, Subscript, ViewSpec};
use super::kernels::{Arg, axes, own_operands};
use super::operations::reduction_op;
use crate::array::{Array, DType, Scalar};
use crate::error::{Error, err};
use crate::fuse::{Fused, Lowered, Var, VarArg, dynamic, fuse_dynamic};
use crate::kernel::{IntoOperand, Operand, Outputs};
use crate::ops::ReduceOpts;
use crate::ops::elementwise::check_same_kind;
use crate::ops::scan::ScanOp;
use crate::ops::ufunc::Op;
use pyo3::Borrowed;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PySlice, PyTuple};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::panic::Location;
use std::sync::{Arc, Mutex, OnceLock};

/// The location every traced operation records (see the module docs).
fn loc() -> &'static Location<'static> {
    Location::caller()
}

/// `e` without this file's location (`clean` is the only reader of [`loc`]'s text).
fn clean(e: Error) -> Error {
    let at = loc().to_string();
    let m = e.to_string();
    if !m.contains(&at) {
        return e;
    }
    let m = m
        .replace(&format!(" (at {at})"), "")
        .replace(&format!(" at {at}"), "");
    Error::new(e.kind(), m)
}

fn py_err(e: Error) -> PyErr {
    clean(e).into()
}

/// A traced value inside a fused function (see the module docs). It holds no data. This
/// class is a scalar's value (immutable, as Python's scalars: `s += 1` rebinds `s`);
/// [`PyFusionArray`], its subclass, an array's.
#[pyclass(name = "_FusionVar", module = "cuprum", subclass)]
pub(crate) struct PyFusionVar {
    var: Var,
    dtype: DType,
    ndim: u8,
    /// The time of the first write to this value (`dynamic::clock`; `u32::MAX`: never
    /// written).
    written_at: u32,
}

/// A traced value computed from arrays: writable (in-place operators, `out=`, `x[...] =`).
#[pyclass(name = "_FusionArray", module = "cuprum", extends = PyFusionVar)]
pub(crate) struct PyFusionArray {}

/// `v` as a `_FusionVar` (or `_FusionArray`), or the exception of the operation that made it.
fn traced(py: Python<'_>, v: Var) -> PyResult<Py<PyAny>> {
    let (dtype, ndim, scalar) = dynamic::node_info(v).map_err(py_err)?;
    let var = PyFusionVar {
        var: v,
        dtype,
        ndim,
        written_at: u32::MAX,
    };
    if scalar {
        return Ok(Py::new(py, var)?.into_any());
    }
    let init = PyClassInitializer::from(var).add_subclass(PyFusionArray {});
    Ok(Py::new(py, init)?.into_any())
}

/// CuPy's error for a traced value used as a Python scalar (`if x > 0:`, `int(x)`).
fn no_python_scalar() -> PyErr {
    PyTypeError::new_err(
        "Cannot convert to Python scalar in cuprum.fuse (a traced value has no truth value or \
         number while tracing: use cuprum.where(cond, x, y) instead of if / and / or)",
    )
}

/// Whether subscript `key` is the whole value (`...`, `:`, or a tuple of them).
fn whole(key: &Bound<'_, PyAny>) -> PyResult<bool> {
    let full = |k: &Bound<'_, PyAny>| -> PyResult<bool> {
        if k.is(k.py().Ellipsis()) {
            return Ok(true);
        }
        let Ok(s) = k.cast::<PySlice>() else {
            return Ok(false);
        };
        for part in ["start", "stop", "step"] {
            if !s.getattr(part)?.is_none() {
                return Ok(false);
            }
        }
        Ok(true)
    };
    match key.cast::<PyTuple>() {
        Ok(t) => t.iter().try_fold(true, |all, k| Ok(all && full(&k)?)),
        Err(_) => full(key),
    }
}

/// Whether `obj` is a traced value.
pub(crate) fn is_traced(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyFusionVar>()
}

/// `obj` as an operand of a traced operation: a traced value, a Python scalar (weak), a
/// NumPy scalar (strong); `None` for anything else.
fn operand(obj: &Bound<'_, PyAny>) -> PyResult<Option<VarArg>> {
    if let Ok(v) = obj.cast::<PyFusionVar>() {
        return Ok(Some(VarArg::Var(v.try_borrow()?.var)));
    }
    Ok(match scalar(obj)? {
        Some((s, false)) => Some(VarArg::Literal(s)),
        Some((s, true)) => Some(VarArg::Var(dynamic::strong_literal(s, loc()))),
        None => None,
    })
}

/// A scalar and whether it is strong: NumPy's first (`numpy.float64` is a Python `float`
/// too, and strong in NumPy 2), then Python's.
fn scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<(Scalar, bool)>> {
    if let Some(s) = convert::numpy_scalar(obj)? {
        return Ok(Some((s, true)));
    }
    Ok(convert::python_scalar(obj)?.map(|s| (s, false)))
}

/// The `TypeError` for `obj` as an operand of `what` inside a fused function.
fn not_operand(obj: &Bound<'_, PyAny>, what: &str) -> PyErr {
    let array = obj.is_instance_of::<PyArray>()
        || convert::is_device_array(obj).unwrap_or(false)
        || convert::is_numpy_array(obj).unwrap_or(false);
    if array {
        return PyTypeError::new_err(format!(
            "{what}: a {} that is not an argument of the fused function cannot be used inside \
             it (pass it as an argument)",
            type_name(obj)
        ));
    }
    PyTypeError::new_err(format!(
        "{what}: unsupported operand type {} inside a fused function",
        type_name(obj)
    ))
}

fn required(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<VarArg> {
    operand(obj)?.ok_or_else(|| not_operand(obj, what))
}

/// `op` on `args` (`power` with its small exponents, as `**`).
fn apply(op: Op, args: &[VarArg]) -> Var {
    match (op, args) {
        (Op::Pow, [b, e]) => dynamic::power(*b, *e, loc()),
        _ => dynamic::ufunc(op, args, loc()),
    }
}

/// `v` made the value of `target` (a write: see the module docs), converted to its dtype
/// (checked by NumPy's `same_kind` rule when `same_kind`, as for ufuncs; assignment
/// converts unchecked) and keeping its dimensions.
fn assign(target: &Bound<'_, PyFusionVar>, v: VarArg, what: &str, same_kind: bool) -> PyResult<()> {
    let (old, tdtype, tndim) = {
        let t = target.try_borrow()?;
        (t.var, t.dtype, t.ndim)
    };
    fuse_views::check_writable(old)?;
    let keep = |v: VarArg| {
        let yes = VarArg::Literal(Scalar::Bool(true));
        dynamic::ufunc(Op::Where, &[yes, v, VarArg::Var(old)], loc())
    };
    let v = match v {
        VarArg::Var(v) => v,
        lit @ VarArg::Literal(_) => keep(lit),
    };
    let (dtype, ndim, _) = dynamic::node_info(v).map_err(py_err)?;
    if ndim > tndim {
        return Err(err!(
            Shape,
            "{what}: non-broadcastable output operand: a value of {ndim} dimensions written to \
             one of {tndim}"
        )
        .into());
    }
    if same_kind {
        check_same_kind(what, dtype, tdtype)?;
    }
    let v = if ndim < tndim {
        keep(VarArg::Var(v))
    } else {
        v
    };
    let v = dynamic::astype(v, tdtype, loc());
    dynamic::node_info(v).map_err(py_err)?;
    let mut t = target.try_borrow_mut()?;
    if t.written_at == u32::MAX {
        t.written_at = dynamic::clock();
    }
    t.var = v;
    Ok(())
}

/// `v` as the result of an operation given `out=` (`None`: a new traced value).
fn result(
    py: Python<'_>,
    v: Var,
    out: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Py<PyAny>> {
    let Some(o) = out.filter(|o| !o.is_none()) else {
        return traced(py, v);
    };
    if let Ok(t) = o.cast::<PyFusionArray>() {
        assign(t.as_super(), VarArg::Var(v), what, true)?;
        return Ok(o.clone().unbind());
    }
    if is_traced(o) {
        return Err(PyTypeError::new_err(format!(
            "{what}: return arrays must be of ArrayType (out= is a scalar's value)"
        )));
    }
    Err(err!(
        Unsupported,
        "{what}: out= inside a fused function must be a traced value (an argument, or a \
             value computed in it), got {}",
        type_name(o)
    )
    .into())
}

/// The ufunc `op` on traced `args` (the package's ufunc functions and `where`), written to
/// `out` when given.
pub(crate) fn ufunc(
    py: Python<'_>,
    op: Op,
    args: &[Bound<'_, PyAny>],
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ops: SmallVec<[VarArg; 3]> = args
        .iter()
        .map(|a| required(a, op.name()))
        .collect::<PyResult<_>>()?;
    let v = match (op, ops.as_slice()) {
        (Op::Clip, [VarArg::Var(x), lo, hi]) => dynamic::clip(*x, Some(*lo), Some(*hi), loc()),
        _ => apply(op, &ops),
    };
    result(py, v, out, op.name())
}

/// `clip(a, a_min, a_max)` of a traced value (`None`: no bound).
pub(crate) fn clip(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    lo: Option<&Bound<'_, PyAny>>,
    hi: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let VarArg::Var(x) = required(a, "clip")? else {
        return Err(PyTypeError::new_err("clip: the operand must be an array"));
    };
    let bound = |b: Option<&Bound<'_, PyAny>>| match b.filter(|b| !b.is_none()) {
        Some(b) => required(b, "clip").map(Some),
        None => Ok(None),
    };
    let (lo, hi) = (bound(lo)?, bound(hi)?);
    if lo.is_none() && hi.is_none() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "One of max or min must be given",
        ));
    }
    result(py, dynamic::clip(x, lo, hi, loc()), out, "clip")
}

/// The reduction NumPy calls `name` of a traced value, with NumPy's keywords.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce(
    py: Python<'_>,
    name: &str,
    a: &Bound<'_, PyFusionVar>,
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
    let x = a.try_borrow()?.var;
    result(py, dynamic::reduce_with(op, x, &opts, loc()), out, name)
}

impl PyFusionVar {
    fn binary(&self, op: Op, other: &Bound<'_, PyAny>, reflected: bool) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Some(b) = operand(other)? else {
            if other.is_instance_of::<PyArray>() || convert::is_device_array(other)? {
                return Err(not_operand(other, op.name()));
            }
            return Ok(py.NotImplemented());
        };
        let a = VarArg::Var(self.var);
        let v = if reflected {
            apply(op, &[b, a])
        } else {
            apply(op, &[a, b])
        };
        traced(py, v)
    }

    fn unary(&self, py: Python<'_>, op: Op) -> PyResult<Py<PyAny>> {
        traced(py, dynamic::ufunc(op, &[VarArg::Var(self.var)], loc()))
    }

    /// `self op= other` of an array's value: the result, cast back to this value's dtype
    /// (`same_kind`), becomes this value.
    fn in_place(slf: &Bound<'_, Self>, op: Op, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let b = required(other, op.name())?;
        let x = slf.try_borrow()?.var;
        assign(
            slf,
            VarArg::Var(apply(op, &[VarArg::Var(x), b])),
            op.name(),
            true,
        )
    }

    fn reduction(
        slf: &Bound<'_, Self>,
        name: &str,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
        ddof: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        reduce(slf.py(), name, slf, axis, dtype, out, keepdims, ddof)
    }

    fn scan(&self, py: Python<'_>, op: ScanOp, axis: Option<isize>) -> PyResult<Py<PyAny>> {
        traced(py, dynamic::scan(op, self.var, axis, loc()))
    }
}

#[pymethods]
impl PyFusionVar {
    /// NumPy defers to this class's operators (`numpy.float32(2) * x` is `x.__rmul__`).
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// The dtype (a `numpy.dtype`).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::numpy_dtype(py, self.dtype)
    }

    /// The number of dimensions (shapes are known per call, not while tracing).
    #[getter]
    fn ndim(&self) -> u8 {
        self.ndim
    }

    fn __repr__(&self) -> String {
        format!("<_FusionVar dtype={} ndim={}>", self.dtype, self.ndim)
    }

    /// A traced value has no truth value (Python's `if` would take one branch for every
    /// element): use `cuprum.where`.
    fn __bool__(&self) -> PyResult<bool> {
        Err(no_python_scalar())
    }
    fn __int__(&self) -> PyResult<i64> {
        Err(no_python_scalar())
    }
    fn __float__(&self) -> PyResult<f64> {
        Err(no_python_scalar())
    }

    /// `astype(dtype)`: NumPy's conversion.
    #[pyo3(signature = (dtype, order="K", casting=None, subok=None, copy=true))]
    fn astype(
        &self,
        py: Python<'_>,
        dtype: &Bound<'_, PyAny>,
        order: &str,
        casting: Option<&Bound<'_, PyAny>>,
        subok: Option<&Bound<'_, PyAny>>,
        copy: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = (order, casting, subok, copy);
        let d = convert::dtype_of(dtype)?;
        traced(py, dynamic::astype(self.var, d, loc()))
    }

    /// The value itself (traced values are never written).
    fn copy(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        traced(py, self.var)
    }

    fn conj(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Conj)
    }
    fn conjugate(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Conj)
    }
    #[getter]
    fn real(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Real)
    }
    #[getter]
    fn imag(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Imag)
    }

    #[pyo3(signature = (min=None, max=None, out=None))]
    fn clip(
        slf: &Bound<'_, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        clip(slf.py(), slf.as_any(), min, max, out)
    }

    /// Inclusive cumulative sum along `axis` (`None`: of the flattened value).
    #[pyo3(signature = (axis=None))]
    fn cumsum(&self, py: Python<'_>, axis: Option<isize>) -> PyResult<Py<PyAny>> {
        self.scan(py, ScanOp::Sum, axis)
    }
    /// Inclusive cumulative product along `axis` (`None`: of the flattened value).
    #[pyo3(signature = (axis=None))]
    fn cumprod(&self, py: Python<'_>, axis: Option<isize>) -> PyResult<Py<PyAny>> {
        self.scan(py, ScanOp::Prod, axis)
    }

    /// `sum(axis=None, dtype=None, out=None, keepdims=False)` and the other reductions,
    /// with NumPy's keywords (`out=` is refused).
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn sum(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "sum", axis, dtype, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn prod(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "prod", axis, dtype, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, keepdims=false))]
    fn mean(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "mean", axis, dtype, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, ddof=0.0, keepdims=false))]
    fn var(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        ddof: f64,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "var", axis, dtype, out, keepdims, Some(ddof))
    }
    #[pyo3(signature = (axis=None, dtype=None, out=None, ddof=0.0, keepdims=false))]
    fn std(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        ddof: f64,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "std", axis, dtype, out, keepdims, Some(ddof))
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn max(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "max", axis, None, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn min(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "min", axis, None, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn all(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "all", axis, None, out, keepdims, None)
    }
    #[pyo3(signature = (axis=None, out=None, keepdims=false))]
    fn any(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        Self::reduction(slf, "any", axis, None, out, keepdims, None)
    }

    fn __add__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Add, o, false)
    }
    fn __radd__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Add, o, true)
    }
    fn __sub__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Sub, o, false)
    }
    fn __rsub__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Sub, o, true)
    }
    fn __mul__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Mul, o, false)
    }
    fn __rmul__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Mul, o, true)
    }
    fn __truediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Div, o, false)
    }
    fn __rtruediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Div, o, true)
    }
    fn __floordiv__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::FloorDiv, o, false)
    }
    fn __rfloordiv__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::FloorDiv, o, true)
    }
    fn __mod__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Rem, o, false)
    }
    fn __rmod__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::Rem, o, true)
    }
    fn __pow__(&self, o: &Bound<'_, PyAny>, m: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        super::array::no_modulo(m)?;
        self.binary(Op::Pow, o, false)
    }
    fn __rpow__(&self, o: &Bound<'_, PyAny>, m: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        super::array::no_modulo(m)?;
        self.binary(Op::Pow, o, true)
    }
    fn __and__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::BitAnd, o, false)
    }
    fn __rand__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::BitAnd, o, true)
    }
    fn __or__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::BitOr, o, false)
    }
    fn __ror__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::BitOr, o, true)
    }
    fn __xor__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::BitXor, o, false)
    }
    fn __rxor__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::BitXor, o, true)
    }
    fn __lshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::LeftShift, o, false)
    }
    fn __rlshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::LeftShift, o, true)
    }
    fn __rshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::RightShift, o, false)
    }
    fn __rrshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(Op::RightShift, o, true)
    }

    fn __richcmp__(&self, o: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let b = match op {
            CompareOp::Lt => Op::Less,
            CompareOp::Le => Op::LessEqual,
            CompareOp::Eq => Op::Equal,
            CompareOp::Ne => Op::NotEqual,
            CompareOp::Gt => Op::Greater,
            CompareOp::Ge => Op::GreaterEqual,
        };
        self.binary(b, o, false)
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Neg)
    }
    fn __pos__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Pos)
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Abs)
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.unary(py, Op::Invert)
    }
}

#[pymethods]
impl PyFusionArray {
    /// `x[i]`, `x[:, None]`, `x[::-1]` … of an argument: basic indexing, as a view of the
    /// caller's array (`fuse_views.rs`).
    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let var = slf.as_super().try_borrow()?.var;
        let ndim = slf.as_super().try_borrow()?.ndim;
        let v = match fuse_views::subscript(var, ndim, key)? {
            Subscript::View(v) => v,
            Subscript::Expand { new, ndim } => dynamic::expand_dims(var, new, ndim, loc()),
        };
        traced(slf.py(), v)
    }

    /// `x[...] = v` and `x[:] = v` (NumPy's assignment: converted unchecked, broadcast to
    /// `x`); other subscripts are refused.
    fn __setitem__(
        slf: &Bound<'_, Self>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if !whole(key)? {
            return Err(err!(
                Unsupported,
                "indexing a traced value is not supported inside a fused function (only \
                 x[...] = v and x[:] = v are)"
            )
            .into());
        }
        assign(
            slf.as_super(),
            required(value, "setitem")?,
            "setitem",
            false,
        )
    }

    fn __iadd__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::Add, o)
    }
    fn __isub__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::Sub, o)
    }
    fn __imul__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::Mul, o)
    }
    fn __itruediv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::Div, o)
    }
    fn __ifloordiv__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::FloorDiv, o)
    }
    fn __imod__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::Rem, o)
    }
    fn __ipow__(
        slf: &Bound<'_, Self>,
        o: &Bound<'_, PyAny>,
        m: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        super::array::no_modulo(m)?;
        PyFusionVar::in_place(slf.as_super(), Op::Pow, o)
    }
    fn __iand__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::BitAnd, o)
    }
    fn __ior__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::BitOr, o)
    }
    fn __ixor__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::BitXor, o)
    }
    fn __ilshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::LeftShift, o)
    }
    fn __irshift__(slf: &Bound<'_, Self>, o: &Bound<'_, PyAny>) -> PyResult<()> {
        PyFusionVar::in_place(slf.as_super(), Op::RightShift, o)
    }
}

/// How a traced function's values come back, known once it is traced.
#[derive(Clone)]
struct Returns {
    /// `None`: it returned `None`; `Some(true)`: a tuple; `Some(false)`: one value.
    tuple: Option<bool>,
    /// How many of the kernels' outputs are its values; the rest are written arguments.
    values: usize,
    /// The array arguments written to (positions among the non-`None` arguments), in the
    /// order of the outputs after the values.
    written: SmallVec<[u16; 4]>,
    /// The time (`dynamic::clock`) of each written argument's first write (parallel to
    /// `written`).
    written_at: SmallVec<[u32; 4]>,
    /// The time of the last operation given each traced input (the non-`None` arguments,
    /// then the views) as an operand, `u32::MAX` for one returned as it is; `None` for one
    /// never used.
    read: Vec<Option<u32>>,
}

/// What the traced function did, kept by the closure for the call (this thread's).
enum Outcome {
    Returned(Returns),
    /// Raised (or returned something that is no traced value).
    Raised(PyErr),
}

thread_local! {
    static OUTCOME: RefCell<Option<Outcome>> = const { RefCell::new(None) };
}

/// One argument of a call as the signature sees it: (kind, dtype, ndim, alias). Kinds: 0
/// `None`, 1 a Python scalar (weak), 2 a NumPy scalar (strong), 3 an array; alias: 1 + the
/// position (among the non-`None` arguments) of an earlier argument that is the same
/// array object, whose traced value it shares (writes to one are seen by the other, as in
/// NumPy), else 0.
type ArgKey = (u8, DType, u8, u16);

/// One traced signature: the engine's fused function, and how its values come back.
struct Entry {
    fused: Fused,
    returns: OnceLock<Returns>,
    /// Views of arguments the function indexes (`fuse_views.rs`): extra kernel inputs.
    views: Vec<ViewSpec>,
    /// The engine's program of this signature, once a call of cuprum arrays alone ran
    /// it (`express`).
    program: OnceLock<Arc<Lowered>>,
}

/// Signatures kept at most per function (the engine's own bound).
const MAX_ENTRIES: usize = 64;

/// A fused function (`cuprum.fuse`'s result; see the module docs).
#[pyclass(name = "Fusion", module = "cuprum", frozen, dict, weakref)]
pub(crate) struct PyFusion {
    func: Py<PyAny>,
    name: String,
    cache: Mutex<FxHashMap<SmallVec<[ArgKey; 8]>, Arc<Entry>>>,
}

/// Calls `func` with one traced value per non-`None` argument of `key`, and returns the
/// values it returned, then the final values of the array arguments it wrote to.
fn run_traced(
    py: Python<'_>,
    func: &Py<PyAny>,
    key: &[ArgKey],
    vars: &[Var],
) -> Result<(SmallVec<[Var; 4]>, Returns), Outcome> {
    let raised = |e: PyErr| Outcome::Raised(e);
    let mut args: Vec<Py<PyAny>> = Vec::with_capacity(key.len());
    let mut arrays: SmallVec<[(u16, Py<PyAny>, Var); 4]> = SmallVec::new();
    for (&(kind, dtype, _, alias), pos) in key.iter().filter(|k| k.0 != 0).zip(0u16..) {
        let Some(&v) = vars.get(usize::from(pos)) else {
            return Err(raised(
                err!(InvalidArgument, "too few traced values").into(),
            ));
        };
        if let Some(same) = args.get(usize::from(alias).wrapping_sub(1)) {
            args.push(same.clone_ref(py));
            continue;
        }
        let v = if kind == 2 {
            dynamic::astype(v, dtype, loc())
        } else {
            v
        };
        let obj = traced(py, v).map_err(raised)?;
        if kind == 3 {
            arrays.push((pos, obj.clone_ref(py), v));
        }
        args.push(obj);
    }
    let mut objs = args.into_iter();
    let all = key.iter().map(|k| match k.0 {
        0 => py.None(),
        _ => objs.next().unwrap_or_else(|| py.None()),
    });
    let args = PyTuple::new(py, all.collect::<Vec<_>>()).map_err(raised)?;
    let r = func.bind(py).call1(args).map_err(raised)?;
    // A failure the function caught is still the call's.
    if let Some(&v) = vars.first() {
        dynamic::node_info(v).map_err(|e| raised(py_err(e)))?;
    }
    let var_of = |o: &Bound<'_, PyAny>| match o.cast::<PyFusionVar>() {
        Ok(v) => Ok(v.try_borrow().map_err(|e| raised(e.into()))?.var),
        Err(_) => Err(raised(PyTypeError::new_err(format!(
            "Fusion function can't return {}",
            o.get_type()
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| type_name(o))
        )))),
    };
    let (mut outs, tuple): (SmallVec<[Var; 4]>, _) = if r.is_none() {
        (SmallVec::new(), None)
    } else if let Ok(t) = r.cast::<PyTuple>() {
        let outs = t.iter().filter(|o| !o.is_none()).map(|o| var_of(&o));
        (outs.collect::<Result<_, _>>()?, Some(true))
    } else {
        (SmallVec::from_elem(var_of(&r)?, 1), Some(false))
    };
    let values = outs.len();
    let (mut written, mut written_at) = (SmallVec::new(), SmallVec::new());
    for (pos, obj, first) in arrays {
        let now = var_of(obj.bind(py))?;
        if now != first {
            outs.push(now);
            written.push(pos);
            let at = obj.bind(py).cast::<PyFusionVar>().ok();
            let at = at.and_then(|v| v.try_borrow().ok().map(|v| v.written_at));
            // Unknown: as if written first (every later read then counts).
            written_at.push(at.unwrap_or(0));
        }
    }
    let read = vars
        .iter()
        .map(|&v| match outs.contains(&v) {
            true => Some(u32::MAX),
            false => dynamic::last_use(v),
        })
        .collect();
    Ok((
        outs,
        Returns {
            tuple,
            values,
            written,
            written_at,
            read,
        },
    ))
}

impl PyFusion {
    /// The entry of `key`: cached, or a new fused function for it (traced on first call).
    fn entry(&self, py: Python<'_>, key: SmallVec<[ArgKey; 8]>) -> Arc<Entry> {
        if let Some(e) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return e.clone();
        }
        self.build(py, key, Vec::new())
    }

    /// A call whose arguments are all cuprum arrays on one device, of a signature traced
    /// before whose values are all returned (no argument written, no view of one taken):
    /// the engine's program on the arrays as they are, without binding them one by one.
    /// `None` for any other call, which takes the general path.
    fn express(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> Option<PyResult<Py<PyAny>>> {
        let items: SmallVec<[Borrowed<'_, '_, PyAny>; 8]> = args.iter_borrowed().collect();
        let ops = own_operands(&items)?;
        let mut key: SmallVec<[ArgKey; 8]> = SmallVec::new();
        for (i, (a, op)) in items.iter().zip(&ops).enumerate() {
            let Operand::Array(x) = op else {
                return None;
            };
            let alias = items[..i].iter().position(|o| o.is(a)).map_or(0, |p| p + 1);
            key.push((3, x.dtype(), x.ndim() as u8, alias as u16));
        }
        let entry = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)?
            .clone();
        let r = entry.returns.get()?;
        if !entry.views.is_empty() || !r.written.is_empty() {
            return None;
        }
        let program = match entry.program.get() {
            Some(p) => p.clone(),
            None => {
                let p = entry.fused.traced(&ops)?;
                entry.program.get_or_init(|| p).clone()
            }
        };
        Some(match entry.fused.run_traced(&program, &ops) {
            Ok(outs) => values(py, outs, r.tuple),
            Err(e) => Err(py_err(e)),
        })
    }

    /// A new entry of `key` whose function takes `views` of its arguments too (after
    /// them, in order), replacing the cached one.
    fn build(
        &self,
        py: Python<'_>,
        key: SmallVec<[ArgKey; 8]>,
        views: Vec<ViewSpec>,
    ) -> Arc<Entry> {
        let (func, sig) = (self.func.clone_ref(py), key.clone());
        let arity = key.iter().filter(|k| k.0 != 0).count();
        let wanted: Vec<ViewSpec> = views.iter().map(|v| v.clone_ref(py)).collect();
        let fused = fuse_dynamic(
            &self.name,
            arity + views.len(),
            loc(),
            move |vars: &[Var]| {
                Python::attach(|py| {
                    let inputs = sig
                        .iter()
                        .filter(|k| k.0 != 0)
                        .zip(0u16..)
                        .filter(|(k, _)| k.0 == 3)
                        .filter_map(|(_, pos)| vars.get(usize::from(pos)).map(|&v| (v, pos)))
                        .collect();
                    fuse_views::begin(py, inputs, &wanted, vars.get(arity..).unwrap_or_default());
                    let (outs, outcome) = match run_traced(py, &func, &sig, vars) {
                        Ok((outs, r)) => (outs, Outcome::Returned(r)),
                        Err(o) => (SmallVec::new(), o),
                    };
                    OUTCOME.with(|c| *c.borrow_mut() = Some(outcome));
                    outs
                })
            },
        );
        let e = Arc::new(Entry {
            fused,
            returns: OnceLock::new(),
            program: OnceLock::new(),
            views,
        });
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= MAX_ENTRIES {
            cache.clear();
        }
        cache.insert(key, e.clone());
        e
    }

    /// Whether one call's kernels cannot give NumPy's values: a written array argument's
    /// memory is shared by another input (an argument that is not the same object, or a
    /// view) that is written too, or read after that first write (NumPy would read the
    /// values written there; the kernels read every input as the call found it).
    fn aliasing_hazard(r: &Returns, inputs: &[&Arg], objs: &[(usize, usize)]) -> bool {
        r.written.iter().zip(&r.written_at).any(|(&w, &at)| {
            let w = usize::from(w);
            let (Some(Arg::Array(dst)), Some(&(wptr, _))) = (inputs.get(w), objs.get(w)) else {
                return false;
            };
            inputs.iter().enumerate().any(|(k, arg)| {
                let Arg::Array(b) = arg else { return false };
                // Views have no object of their own.
                let ptr = objs.get(k).map_or(0, |o| o.0);
                let written = r.written.iter().any(|&o| usize::from(o) == k);
                let late = r.read.get(k).copied().unwrap_or(Some(u32::MAX)) > Some(at);
                k != w && ptr != wptr && (written || late) && overlap(dst, b)
            })
        })
    }

    /// The `TypeError` CuPy raises for an argument of an unsupported type.
    fn invalid_args(&self, args: &Bound<'_, PyTuple>) -> PyErr {
        let types: Vec<String> = args
            .iter()
            .map(|a| {
                a.get_type()
                    .repr()
                    .map(|r| r.to_string())
                    .unwrap_or_default()
            })
            .collect();
        PyTypeError::new_err(format!(
            "Invalid argument type for '{}': ({})",
            self.name,
            types.join(", ")
        ))
    }
}

/// Whether the elements of `a` and `b` may overlap (one buffer, intersecting byte spans).
fn overlap(a: &Array, b: &Array) -> bool {
    let span = |a: &Array| -> Option<(i128, i128)> {
        if a.shape().contains(&0) {
            return None;
        }
        let item = a.dtype().itemsize() as i128;
        let base = i128::from(a.data_ptr());
        let (mut lo, mut hi) = (base, base + item);
        for (&d, &s) in a.shape().iter().zip(a.strides()) {
            let ext = (d as i128 - 1) * s as i128 * item;
            if ext < 0 {
                lo += ext;
            } else {
                hi += ext;
            }
        }
        Some((lo, hi))
    };
    match (span(a), span(b)) {
        (Some(x), Some(y)) => a.shares_memory(b) && x.0 < y.1 && y.0 < x.1,
        _ => false,
    }
}

/// Whether `obj` is a device array (a `cuprum.ndarray`, or another framework's).
fn is_device(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.is_instance_of::<PyArray>() || convert::is_device_array(obj)?)
}

#[pymethods]
impl PyFusion {
    #[new]
    #[pyo3(signature = (func, kernel_name=None))]
    fn new(func: &Bound<'_, PyAny>, kernel_name: Option<String>) -> PyResult<Self> {
        if !func.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "fuse takes a function, got {}",
                type_name(func)
            )));
        }
        let name = match kernel_name {
            Some(n) => n,
            None => func
                .getattr(pyo3::intern!(func.py(), "__name__"))?
                .extract()?,
        };
        Ok(PyFusion {
            func: func.clone().unbind(),
            name,
            cache: Mutex::new(FxHashMap::default()),
        })
    }

    /// The function before fusing.
    #[getter]
    fn func(&self, py: Python<'_>) -> Py<PyAny> {
        self.func.clone_ref(py)
    }

    /// The name of the function (its kernels are named after it).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __repr__(&self) -> String {
        format!("<Fusion '{}'>", self.name)
    }

    /// Forgets every traced signature.
    fn clear_cache(&self) {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Runs the function fused on `args` (positional only; see the module docs).
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        if let Some(done) = self.express(py, args) {
            return done;
        }
        let items: SmallVec<[Bound<'_, PyAny>; 8]> = args.iter().collect();
        let mut arrays: SmallVec<[&Bound<'_, PyAny>; 8]> = SmallVec::new();
        for a in &items {
            if a.is_exact_instance_of::<PyArray>() {
                arrays.push(a);
                continue;
            }
            if is_traced(a) {
                // Called while another fused function is traced: inline, as CuPy.
                return Ok(self.func.bind(py).call1(args)?.unbind());
            }
            if is_device(a)? {
                arrays.push(a);
            }
        }
        if arrays.is_empty() {
            return Ok(self.func.bind(py).call1(args)?.unbind());
        }
        let call = Call::new(&arrays)?;
        let mut bound: SmallVec<[Arg; 8]> = SmallVec::new();
        let mut key: SmallVec<[ArgKey; 8]> = SmallVec::new();
        // Each non-`None` argument's object and position in the call.
        let mut objs: SmallVec<[(usize, usize); 8]> = SmallVec::new();
        for (i, a) in items.iter().enumerate() {
            let (kind, arg) = if a.is_exact_instance_of::<PyArray>() {
                // cuprum's own arrays first (the common case): one type check.
                (3, Arg::Array(call.array(a)?))
            } else if a.is_none() {
                key.push((0, DType::Bool, 0, 0));
                continue;
            } else if let Some((s, strong)) = scalar(a)? {
                (1 + u8::from(strong), Arg::Scalar(s))
            } else if is_device(a)?
                || (call.device().addresses_host_memory() && convert::is_numpy_array(a)?)
            {
                (3, Arg::Array(call.array(a)?))
            } else {
                return Err(self.invalid_args(args));
            };
            let ptr = a.as_ptr() as usize;
            let alias = match &arg {
                Arg::Array(_) => objs.iter().position(|o| o.0 == ptr).map_or(0, |p| p + 1),
                Arg::Scalar(_) | Arg::Texture(_) => 0,
            };
            key.push(match &arg {
                Arg::Array(x) => (kind, x.dtype(), x.ndim() as u8, alias as u16),
                Arg::Scalar(s) => (kind, s.dtype(), 0, 0),
                Arg::Texture(_) => (kind, crate::array::DType::U64, 0, 0),
            });
            objs.push((ptr, i));
            bound.push(arg);
        }
        let mut entry = self.entry(py, key.clone());
        let (result, outcome, views) = loop {
            let views = fuse_views::arguments(py, &call, &items, &objs, &entry.views)?;
            let ops: SmallVec<[Operand<'_>; 8]> =
                bound.iter().chain(&views).map(Arg::operand).collect();
            OUTCOME.with(|c| c.borrow_mut().take());
            let result = entry.fused.invoke(&ops);
            drop(ops);
            let outcome = OUTCOME.with(|c| c.borrow_mut().take());
            let Some(view) = fuse_views::end() else {
                break (result, outcome, views);
            };
            // The function indexed an argument: trace again with that view as an input.
            if entry.views.len() >= fuse_views::MAX_VIEWS {
                return Err(err!(
                    Unsupported,
                    "fused `{}`: more than {} distinct views of arguments",
                    self.name,
                    fuse_views::MAX_VIEWS
                )
                .into());
            }
            let mut views: Vec<ViewSpec> = entry.views.iter().map(|v| v.clone_ref(py)).collect();
            views.push(view);
            entry = self.build(py, key.clone(), views);
        };
        let outs = match (result, outcome) {
            (Ok(outs), o) => {
                if let Some(Outcome::Returned(r)) = o {
                    let _ = entry.returns.set(r);
                }
                outs
            }
            (Err(_), Some(Outcome::Raised(e))) => return Err(e),
            // Nothing returned and nothing written: nothing to run.
            (Err(_), Some(Outcome::Returned(r))) if r.values + r.written.len() == 0 => {
                return values(py, SmallVec::new(), r.tuple);
            }
            (Err(e), _) => return Err(py_err(e)),
        };
        let Some(r) = entry.returns.get() else {
            return values(py, outs, Some(false));
        };
        let inputs: SmallVec<[&Arg; 8]> = bound.iter().chain(&views).collect();
        if Self::aliasing_hazard(r, &inputs, &objs) {
            // Nothing is written yet: run the function as NumPy would, one operation at a
            // time on the caller's arrays (whose operations copy what they overlap).
            return Ok(self.func.bind(py).call1(args)?.unbind());
        }
        let mut outs = outs;
        let kept = r.values.min(outs.len());
        for (pos, src) in r.written.iter().zip(outs.drain(kept..)) {
            if let Some(Arg::Array(dst)) = bound.get(usize::from(*pos)) {
                dst.assign(&src.broadcast_to(dst.shape())?)?;
            }
        }
        values(py, outs, r.tuple)
    }
}

/// A fused call's values as the function returned them: `None`, one array, or a tuple.
fn values(py: Python<'_>, outs: Outputs, tuple: Option<bool>) -> PyResult<Py<PyAny>> {
    match tuple {
        None => Ok(py.None()),
        Some(false) if outs.len() == 1 => {
            let a = outs
                .into_iter()
                .next()
                .ok_or_else(|| err!(Launch, "no result"))?;
            wrap(py, a)
        }
        Some(_) => {
            let items = outs
                .into_iter()
                .map(|a| wrap(py, a))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyTuple::new(py, items)?.into_any().unbind())
        }
    }
}
