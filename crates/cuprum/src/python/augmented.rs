//! `x[mask] op= v` as one masked update: Python runs that statement as `t = x[mask]`,
//! `t op= v`, `x[mask] = t` — a gather and a scatter, each counting the mask on the host
//! (NumPy's shape for `t`), so every such statement waits for the device twice. Where the
//! subscript being evaluated is exactly the load half of that statement and `v` is one
//! plain name or constant (the package's `_augmented.augmented_load` reads the caller's
//! bytecode), `__getitem__` returns a [`PendingSelection`] instead: its in-place operator
//! records `op` and `v`, and the store becomes `Masked::update_with` (`if (mask) x = x op
//! v`, no count, no host round trip).
//!
//! Nothing of the user's runs between the load and the store (the value is loaded by one
//! instruction that calls no user code), so the result is NumPy's element for element,
//! errors included (the same checks run, at the store instead of at `op=`). A pending
//! selection that meets anything else (a store into another array or key, which the
//! bytecode rules out) is first materialised as the gather and the operation would have
//! made it. Without the package (an extension module on its own) the test answers no and
//! every subscript is the ordinary gather.

use super::array::{no_modulo, wrap};
use super::kernels::Arg;
use super::operations as ops;
use crate::array::Array;
use crate::kernel::{IntoOperand, Operand};
use crate::ops::elementwise::binary_to;
use crate::ops::ufunc::Op;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::sync::Mutex;

/// The package's bytecode test, or `None` where the package is not installed.
static TEST: PyOnceLock<Option<Py<PyAny>>> = PyOnceLock::new();

/// Whether the subscript being evaluated is the load of `x[key] op= name`.
pub(super) fn augmented_load(py: Python<'_>) -> bool {
    let test = TEST.get_or_init(py, || {
        py.import("cuprum._augmented")
            .and_then(|m| m.getattr("augmented_load"))
            .ok()
            .map(Bound::unbind)
    });
    test.as_ref()
        .and_then(|f| f.call0(py).ok())
        .and_then(|r| r.extract::<bool>(py).ok())
        .unwrap_or(false)
}

/// `x[mask]` waiting for its `op=` and its store (module docs).
#[pyclass(name = "_PendingSelection", module = "cuprum", frozen)]
pub(crate) struct PendingSelection {
    base: Array,
    mask: Array,
    key: Py<PyAny>,
    update: Mutex<Option<(Op, Arg)>>,
}

/// The pending selection `base[mask]` (the mask already checked against `base`).
pub(super) fn pending(
    py: Python<'_>,
    base: &Array,
    mask: Array,
    key: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    base.masked(&mask).check()?;
    let p = PendingSelection {
        base: base.clone(),
        mask,
        key: key.clone().unbind(),
        update: Mutex::new(None),
    };
    Ok(Py::new(py, p)?.into_any())
}

impl PendingSelection {
    fn record(&self, op: Op, o: &Bound<'_, PyAny>) -> PyResult<()> {
        let arg = ops::in_place_operand(&self.base, op, o)?;
        let mut u = self.update.lock().map_err(|_| poisoned())?;
        if u.is_some() {
            return Err(PyRuntimeError::new_err(
                "a pending masked selection took a second in-place operation",
            ));
        }
        *u = Some((op, arg));
        Ok(())
    }

    /// `target[key] = self`: the masked update where `target` and `key` are the ones this
    /// selection was loaded from; otherwise the selection made real first.
    pub(super) fn store(
        &self,
        target: &Array,
        key: &Bound<'_, PyAny>,
        set: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<()>,
    ) -> PyResult<()> {
        let update = self.update.lock().map_err(|_| poisoned())?.take();
        match update {
            Some((op, arg)) if key.is(&self.key) && same_view(target, &self.base) => {
                Ok(self.base.masked(&self.mask).update_with(op, &arg)?)
            }
            update => {
                let t = self.base.masked(&self.mask).get()?;
                if let Some((op, arg)) = update {
                    binary_to(op, Operand::Array(&t), arg.operand(), Some(&t))?;
                }
                set(wrap(key.py(), t)?.bind(key.py()))
            }
        }
    }
}

fn same_view(a: &Array, b: &Array) -> bool {
    a.data_ptr() == b.data_ptr()
        && a.dtype() == b.dtype()
        && a.shape() == b.shape()
        && a.strides() == b.strides()
}

fn poisoned() -> PyErr {
    PyRuntimeError::new_err("a pending masked selection's lock was poisoned")
}

#[pymethods]
impl PendingSelection {
    fn __iadd__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::Add, o)
    }
    fn __isub__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::Sub, o)
    }
    fn __imul__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::Mul, o)
    }
    fn __itruediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::Div, o)
    }
    fn __ifloordiv__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::FloorDiv, o)
    }
    fn __imod__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::Rem, o)
    }
    fn __ipow__(&self, o: &Bound<'_, PyAny>, m: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        no_modulo(m)?;
        self.record(Op::Pow, o)
    }
    fn __iand__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::BitAnd, o)
    }
    fn __ior__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::BitOr, o)
    }
    fn __ixor__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::BitXor, o)
    }
    fn __ilshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::LeftShift, o)
    }
    fn __irshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        self.record(Op::RightShift, o)
    }
}

/// `value` as a pending selection, if it is one.
pub(super) fn as_pending<'a, 'py>(
    value: &'a Bound<'py, PyAny>,
) -> Option<&'a Bound<'py, PendingSelection>> {
    value.cast::<PendingSelection>().ok()
}
