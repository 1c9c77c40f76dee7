//! `cuprum._cuprum`: the native module of the `cuprum` Python package. Everything it holds
//! is `cuprum::python`'s (the `ndarray` class, the kernel classes, the functions the
//! package's Python part arranges into CuPy's namespace); this crate only names the module.

use pyo3::prelude::*;

/// The module: see `cuprum::python::register_package`.
#[pymodule]
fn _cuprum(m: &Bound<'_, PyModule>) -> PyResult<()> {
    cuprum::python::register_package(m)
}
