//! Basic indexing of a fused function's array arguments inside `cuprum.fuse` — `x[1]`,
//! `mask[:, None]`, `y[::-1]`, `z[..., 0]` — as CuPy's fusion allows it.
//!
//! Decision — **a view of an argument is one more argument.** The fusion engine has no
//! indexing node; a basic index of an argument is a view of the caller's array, which
//! NumPy's rules make at call time without a copy. So the first time the traced function
//! indexes an argument, the trace stops (the subscript records which argument and which
//! index, and raises), the signature's entry is rebuilt with that view as an extra traced
//! input, and the call traces again; every later call of the signature makes the view from
//! the caller's array (`arg[index]`: NumPy's errors, e.g. an `IndexError`, are the call's)
//! and passes it to the kernels beside the arguments. Views are read-only inside the
//! function (a write through one is refused: the write-back covers arguments only). An
//! index is compared by its canonical text (ints, slices, `...`, `None`), so `x[1]` twice
//! is one view.
//!
//! A value computed inside the function has no array to view: its index may only add axes
//! (`None`, full slices, `...`: CuPy's batch-norm `mean[None, :, None, None]`), which the
//! tracer moves down to the arrays the value reads (`fuse/trace.rs`, `Kind::Expand`);
//! other indices of it are refused.

use super::array::PyArray;
use super::call::Call;
use super::kernels::Arg;
use crate::error::err;
use crate::fuse::Var;
use pyo3::exceptions::{PyIndexError, PyNotImplementedError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PySlice, PyTuple};
use smallvec::SmallVec;
use std::cell::RefCell;

/// Views one signature may take (a bound on the traces a call may restart).
pub(super) const MAX_VIEWS: usize = 16;

/// A view of an argument: the argument's position among the non-`None` arguments, the
/// indices (the caller's objects, applied in order: `x[1][::2]` is two) and their canonical
/// text.
pub(super) struct ViewSpec {
    pub(super) pos: u16,
    pub(super) keys: Vec<Py<PyAny>>,
    pub(super) canon: String,
}

impl ViewSpec {
    pub(super) fn clone_ref(&self, py: Python<'_>) -> ViewSpec {
        ViewSpec {
            pos: self.pos,
            keys: self.keys.iter().map(|k| k.clone_ref(py)).collect(),
            canon: self.canon.clone(),
        }
    }
}

/// What one trace knows: the traced value of each array argument (and its position), the
/// views it was given, and the view it asked for (the trace then restarts).
struct Trace {
    inputs: SmallVec<[(Var, u16); 8]>,
    views: SmallVec<[(u16, String, Var); 4]>,
    /// The indices of each view (parallel to `views`), for a view of a view.
    keys: Vec<Vec<Py<PyAny>>>,
    request: Option<ViewSpec>,
}

impl Trace {
    /// The indices of the view of argument `pos` whose canonical text is `canon`.
    fn requested_keys(&self, pos: u16, canon: &str) -> Option<Vec<Py<PyAny>>> {
        let at = self
            .views
            .iter()
            .position(|(p, c, _)| *p == pos && c == canon)?;
        Python::attach(|py| {
            self.keys
                .get(at)
                .map(|k| k.iter().map(|x| x.clone_ref(py)).collect())
        })
    }
}

thread_local! {
    static TRACE: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

/// Starts a trace whose array arguments are `inputs` (traced value, position) and whose
/// views `specs` are the traced values `view_vars`, in order.
pub(super) fn begin(
    py: Python<'_>,
    inputs: SmallVec<[(Var, u16); 8]>,
    specs: &[ViewSpec],
    view_vars: &[Var],
) {
    let views = specs
        .iter()
        .zip(view_vars)
        .map(|(s, &v)| (s.pos, s.canon.clone(), v))
        .collect();
    let keys = specs.iter().map(|s| s.clone_ref(py).keys).collect();
    TRACE.with(|t| {
        *t.borrow_mut() = Some(Trace {
            inputs,
            views,
            keys,
            request: None,
        })
    });
}

/// Ends the thread's trace (if one ran): the view it asked for, if any.
pub(super) fn end() -> Option<ViewSpec> {
    TRACE.with(|t| t.borrow_mut().take().and_then(|tr| tr.request))
}

/// What `var[key]` is while tracing.
pub(super) enum Subscript {
    /// The traced view of an argument (or of a view of one).
    View(Var),
    /// New axes of a computed value: bit `k` of `new` set for a new axis `k` of the
    /// result's `ndim` (the caller records it: `dynamic::expand_dims`).
    Expand { new: u64, ndim: u8 },
}

/// `var[key]` (of `ndim` dimensions) while tracing: the traced view of an argument, or of a
/// view of one (asking for a new one stops the trace with an exception the call catches),
/// or new axes of a computed value.
pub(super) fn subscript(var: Var, ndim: u8, key: &Bound<'_, PyAny>) -> PyResult<Subscript> {
    let canon = canonical(key)?;
    let computed = TRACE.with(|t| {
        t.borrow().as_ref().is_some_and(|tr| {
            !tr.inputs.iter().any(|(v, _)| *v == var) && !tr.views.iter().any(|(_, _, v)| *v == var)
        })
    });
    if computed {
        let (new, ndim) = new_axes(ndim, key)?;
        return Ok(Subscript::Expand { new, ndim });
    }
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        let Some(tr) = t.as_mut() else {
            return Err(not_an_argument());
        };
        // An argument, or a view (of which the new index is one more step).
        let (pos, canon) = if let Some(&(_, pos)) = tr.inputs.iter().find(|(v, _)| *v == var) {
            (pos, canon)
        } else if let Some((pos, base, _)) = tr.views.iter().find(|(_, _, v)| *v == var) {
            (*pos, format!("{base}|{canon}"))
        } else {
            return Err(not_an_argument());
        };
        if let Some((_, _, v)) = tr.views.iter().find(|(p, c, _)| *p == pos && *c == canon) {
            return Ok(Subscript::View(*v));
        }
        let mut keys: Vec<Py<PyAny>> = match canon.rsplit_once('|') {
            Some((base, _)) => tr.requested_keys(pos, base).ok_or_else(not_an_argument)?,
            None => Vec::new(),
        };
        keys.push(key.clone().unbind());
        tr.request = Some(ViewSpec { pos, keys, canon });
        Err(PyNotImplementedError::new_err(
            "cuprum.fuse: the trace restarts with a view of an argument (this exception \
             ends the trace; do not catch it inside a fused function)",
        ))
    })
}

/// Refuses a write to a view of an argument (the write-back covers arguments only).
pub(super) fn check_writable(var: Var) -> PyResult<()> {
    let is_view = TRACE.with(|t| {
        t.borrow()
            .as_ref()
            .is_some_and(|tr| tr.views.iter().any(|(_, _, v)| *v == var))
    });
    if is_view {
        return Err(err!(
            Unsupported,
            "writing through a view of an argument (x[i] op= v, or a view passed as out=) is \
             not supported inside a fused function: write the whole argument (x[...] = ...)"
        )
        .into());
    }
    Ok(())
}

fn not_an_argument() -> PyErr {
    err!(
        Unsupported,
        "indexing a value computed inside a fused function takes only new axes (None, full \
         slices `:` and `...`, as in `mean[None, :, None]`): index an argument of the \
         function instead (basic indices: ints, slices, ..., None)"
    )
    .into()
}

/// The new axes `key` gives a value of `ndim` dimensions computed inside the function: only
/// `None`, `:` and `...` (the tracer moves them down to the arrays the value reads,
/// `fuse/trace.rs`), as (bit mask of the new axes, dimensions of the result).
fn new_axes(ndim: u8, key: &Bound<'_, PyAny>) -> PyResult<(u64, u8)> {
    let items: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    let full = |k: &Bound<'_, PyAny>| -> PyResult<bool> {
        let Ok(s) = k.cast::<PySlice>() else {
            return Ok(false);
        };
        let py = k.py();
        Ok(s.getattr(pyo3::intern!(py, "start"))?.is_none()
            && s.getattr(pyo3::intern!(py, "stop"))?.is_none()
            && s.getattr(pyo3::intern!(py, "step"))?.is_none())
    };
    let mut kinds = Vec::with_capacity(items.len());
    for k in &items {
        kinds.push(if k.is_none() {
            'n'
        } else if k.is_instance_of::<PyEllipsis>() {
            'e'
        } else if full(k)? {
            's'
        } else {
            return Err(not_an_argument());
        });
    }
    let slices = kinds.iter().filter(|&&k| k == 's').count();
    if slices > usize::from(ndim) {
        return Err(PyIndexError::new_err(format!(
            "too many indices for array: array is {ndim}-dimensional, but {slices} were indexed"
        )));
    }
    if kinds.iter().filter(|&&k| k == 'e').count() > 1 {
        return Err(PyIndexError::new_err(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    // Result axes: `true` for a new one.
    let mut axes: Vec<bool> = Vec::with_capacity(usize::from(ndim) + kinds.len());
    let mut old = usize::from(ndim);
    for k in &kinds {
        match k {
            'n' => axes.push(true),
            's' => {
                axes.push(false);
                old -= 1;
            }
            _ => {
                let rest = old - (slices - axes.iter().filter(|&&a| !a).count());
                axes.extend(std::iter::repeat_n(false, rest));
                old -= rest;
            }
        }
    }
    axes.extend(std::iter::repeat_n(false, old));
    if axes.len() > crate::shape::MAX_NDIM {
        return Err(PyIndexError::new_err(format!(
            "an array may have at most {} dimensions, got {}",
            crate::shape::MAX_NDIM,
            axes.len()
        )));
    }
    let new = axes
        .iter()
        .enumerate()
        .filter(|(_, a)| **a)
        .fold(0u64, |m, (k, _)| m | (1u64 << k));
    Ok((new, axes.len() as u8))
}

/// The canonical text of a basic index (`i3`, `s1:None:-1`, `e`, `n`, joined by `,`;
/// a tuple in parentheses); anything else (arrays, booleans, lists) is refused.
pub(super) fn canonical(key: &Bound<'_, PyAny>) -> PyResult<String> {
    match key.cast::<PyTuple>() {
        Ok(t) => {
            let parts: PyResult<Vec<String>> = t.iter().map(|k| one(&k)).collect();
            Ok(format!("({})", parts?.join(",")))
        }
        Err(_) => one(key),
    }
}

fn one(k: &Bound<'_, PyAny>) -> PyResult<String> {
    if k.is_none() {
        return Ok("n".into());
    }
    if k.is_instance_of::<PyEllipsis>() {
        return Ok("e".into());
    }
    if let Ok(s) = k.cast::<PySlice>() {
        let mut parts = Vec::with_capacity(3);
        for name in ["start", "stop", "step"] {
            let p = s.getattr(name)?;
            parts.push(if p.is_none() {
                "None".to_string()
            } else {
                int_of(&p)?.to_string()
            });
        }
        return Ok(format!("s{}", parts.join(":")));
    }
    Ok(format!("i{}", int_of(k)?))
}

fn int_of(k: &Bound<'_, PyAny>) -> PyResult<i64> {
    if !k.is_instance_of::<PyBool>()
        && let Ok(i) = k.call_method0(pyo3::intern!(k.py(), "__index__"))
        && let Ok(i) = i.extract::<i64>()
    {
        return Ok(i);
    }
    Err(PyNotImplementedError::new_err(format!(
        "indexing inside a fused function takes ints, slices, ... and None (basic indexing of \
         an argument), not {}",
        super::errors::type_name(k)
    )))
}

/// The views `specs` of this call's arguments (`objs[pos].1`: an argument's position in
/// `items`), made as NumPy makes them: each an extra array argument of the kernels.
pub(super) fn arguments(
    py: Python<'_>,
    call: &Call,
    items: &[Bound<'_, PyAny>],
    objs: &[(usize, usize)],
    specs: &[ViewSpec],
) -> PyResult<Vec<Arg>> {
    // A Vec: most calls have no views, and an empty one is three words to move.
    let mut out = Vec::new();
    for s in specs {
        let Some(obj) = objs
            .get(usize::from(s.pos))
            .and_then(|&(_, i)| items.get(i))
        else {
            return Err(err!(InvalidArgument, "fused view of a missing argument").into());
        };
        let mut view = obj.clone();
        for k in &s.keys {
            view = view.get_item(k.bind(py))?;
        }
        let array = match view.cast::<PyArray>() {
            Ok(a) => a.get().array().clone(),
            Err(_) => call.array(&view)?,
        };
        out.push(Arg::Array(array));
    }
    Ok(out)
}
