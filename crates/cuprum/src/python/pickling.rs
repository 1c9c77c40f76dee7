//! Pickling `RawKernel` and `RawModule` (CuPy pickles both): each keeps the arguments it
//! was made with, and `__reduce__` makes it again from them in the unpickling process (which
//! compiles anew, or finds the kernel in its cache). A kernel taken from a module
//! (`module.get_function(name)`) pickles as that module and the name.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::path::PathBuf;

/// What makes a raw kernel or module again.
pub(crate) enum Recipe {
    /// `RawKernel(code, name, options, backend, enable_cooperative_groups=…)`.
    Kernel {
        code: String,
        name: String,
        options: Vec<String>,
        backend: String,
        cooperative: bool,
    },
    /// `module.get_function(name)`.
    Function {
        module: Py<PyAny>,
        name: String,
        cooperative: bool,
    },
    /// `RawModule(code=…, path=…, options=…, backend=…, enable_cooperative_groups=…,
    /// name_expressions=…)`.
    Module {
        code: Option<String>,
        path: Option<PathBuf>,
        options: Vec<String>,
        backend: String,
        cooperative: bool,
        name_expressions: Option<Vec<String>>,
    },
}

impl Recipe {
    /// Whether the kernel or module was made with `enable_cooperative_groups=True`.
    pub(crate) fn cooperative(&self) -> bool {
        match self {
            Recipe::Kernel { cooperative, .. }
            | Recipe::Function { cooperative, .. }
            | Recipe::Module { cooperative, .. } => *cooperative,
        }
    }

    /// The compile options given (a kernel taken from a module: the module's).
    pub(crate) fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        match self {
            Recipe::Kernel { options, .. } | Recipe::Module { options, .. } => {
                PyTuple::new(py, options)
            }
            Recipe::Function { module, .. } => module
                .bind(py)
                .getattr(pyo3::intern!(py, "options"))?
                .cast_into::<PyTuple>()
                .map_err(Into::into),
        }
    }

    /// `__reduce__`'s answer for an object of class `cls`: a callable and its arguments.
    pub(crate) fn reduce<'py>(
        &self,
        py: Python<'py>,
        cls: &Bound<'py, PyType>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let partial = py.import("functools")?.getattr("partial")?;
        match self {
            Recipe::Kernel {
                code,
                name,
                options,
                backend,
                cooperative,
            } => {
                let kw = PyDict::new(py);
                kw.set_item("enable_cooperative_groups", *cooperative)?;
                let make = partial.call((cls,), Some(&kw))?;
                let args = (code, name, PyTuple::new(py, options)?, backend).into_pyobject(py)?;
                Ok((make, args))
            }
            Recipe::Function { module, name, .. } => {
                let get = py
                    .import("operator")?
                    .getattr("methodcaller")?
                    .call1(("get_function", name))?;
                Ok((get, (module.clone_ref(py),).into_pyobject(py)?))
            }
            Recipe::Module {
                code,
                path,
                options,
                backend,
                cooperative,
                name_expressions,
            } => {
                let kw = PyDict::new(py);
                kw.set_item("code", code)?;
                kw.set_item("path", path)?;
                kw.set_item("options", PyTuple::new(py, options)?)?;
                kw.set_item("backend", backend)?;
                kw.set_item("enable_cooperative_groups", *cooperative)?;
                kw.set_item("name_expressions", name_expressions)?;
                let make = partial.call((cls,), Some(&kw))?;
                Ok((make, PyTuple::empty(py)))
            }
        }
    }
}
