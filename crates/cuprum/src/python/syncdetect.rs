//! CuPy's synchronization detection (`cupyx.allow_synchronize`): inside
//! `allow_synchronize(False)` on a thread, whatever makes the host wait for the device
//! (a download: `get()`, `item()`, `bool(x)` …; a stream's, event's or device's
//! `synchronize`) raises `DeviceSynchronized` instead. The flag is per thread (Python
//! threads are OS threads), set and restored by the Python context manager in
//! `cuprum/_syncdetect.py`, which also defines the exception.

use pyo3::prelude::*;
use std::cell::Cell;

thread_local! {
    static ALLOWED: Cell<bool> = const { Cell::new(true) };
}

/// Sets whether this thread may synchronize with the device; returns the previous setting.
#[pyfunction]
pub(crate) fn _set_allow_synchronize(allow: bool) -> bool {
    ALLOWED.with(|a| a.replace(allow))
}

/// `Ok` where this thread may synchronize, else CuPy's `DeviceSynchronized`.
pub(crate) fn declare_synchronize(py: Python<'_>) -> PyResult<()> {
    if ALLOWED.with(Cell::get) {
        return Ok(());
    }
    let class = py
        .import("cuprum._syncdetect")?
        .getattr("DeviceSynchronized")?;
    Err(PyErr::from_value(class.call0()?))
}
