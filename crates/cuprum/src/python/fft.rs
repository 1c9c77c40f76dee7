//! `cuprum.fft`'s engine (`cuprum._cuprum._fft`, `_fftn`, `_fft_plan_cache`,
//! `_cufft_version`): faces over [`crate::ops::fft`], which the pure-Python
//! `python/cuprum/fft/` arranges into NumPy's signatures (`n`, `s` with `-1` entries,
//! `axes`, `norm`). Lengths arrive already checked by the Python side (≥ 1) and resolved.

use super::array::wrap;
use super::routines::array_of;
use crate::ops::fft::{self, Norm};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn unknown(kind: &str) -> PyErr {
    PyValueError::new_err(format!("unknown FFT kind {kind:?}"))
}

/// A 1-D transform: `kind` is `fft`, `ifft`, `rfft`, `irfft`, `hfft` or `ihfft`.
#[pyfunction]
#[pyo3(signature = (a, n, axis, norm, kind))]
fn _fft(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    n: Option<usize>,
    axis: isize,
    norm: Option<&str>,
    kind: &str,
) -> PyResult<Py<PyAny>> {
    let a = array_of(a)?;
    let norm = Norm::parse(norm)?;
    let f = match kind {
        "fft" => fft::fft,
        "ifft" => fft::ifft,
        "rfft" => fft::rfft,
        "irfft" => fft::irfft,
        "hfft" => fft::hfft,
        "ihfft" => fft::ihfft,
        _ => return Err(unknown(kind)),
    };
    let r = py.detach(|| f(&a, n, axis, norm))?;
    wrap(py, r)
}

/// An n-d transform: `kind` is `fftn`, `ifftn`, `rfftn` or `irfftn`.
#[pyfunction]
#[pyo3(signature = (a, s, axes, norm, kind))]
fn _fftn(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    s: Option<Vec<usize>>,
    axes: Option<Vec<isize>>,
    norm: Option<&str>,
    kind: &str,
) -> PyResult<Py<PyAny>> {
    let a = array_of(a)?;
    let norm = Norm::parse(norm)?;
    let f = match kind {
        "fftn" => fft::fftn,
        "ifftn" => fft::ifftn,
        "rfftn" => fft::rfftn,
        "irfftn" => fft::irfftn,
        _ => return Err(unknown(kind)),
    };
    let r = py.detach(|| f(&a, s.as_deref(), axes.as_deref(), norm))?;
    wrap(py, r)
}

/// The plan cache: `op` is `"size"` (the limit), `"set_size"` (to `value`), `"len"`
/// (plans held) or `"clear"`; returns the limit or the count.
#[pyfunction]
#[pyo3(signature = (op, value=0))]
fn _fft_plan_cache(op: &str, value: usize) -> PyResult<usize> {
    match op {
        "size" => Ok(crate::runtime::fft_plan_cache_limit()),
        "set_size" => {
            crate::runtime::set_fft_plan_cache_limit(value);
            Ok(value)
        }
        "len" => Ok(crate::runtime::fft_plan_cache_len()),
        "clear" => {
            crate::runtime::clear_fft_plan_cache();
            Ok(0)
        }
        _ => Err(PyValueError::new_err(format!(
            "unknown plan cache operation {op:?}"
        ))),
    }
}

/// cuFFT's version on the current device.
#[pyfunction]
fn _cufft_version() -> PyResult<i32> {
    Ok(crate::runtime::cufft_version()?)
}

/// Adds the functions to the package's native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fft, m)?)?;
    m.add_function(wrap_pyfunction!(_fftn, m)?)?;
    m.add_function(wrap_pyfunction!(_fft_plan_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_cufft_version, m)?)?;
    Ok(())
}
