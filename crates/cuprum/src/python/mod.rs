//! `cuprum::python` (feature `python`): cuprum kernels in Python extension modules (PyO3),
//! on the memory of PyTorch, CuPy, JAX and NumPy without a copy.
//!
//! - **In**: [`Call::array`] (or [`array_arg`]) takes any object with `__dlpack__` — a
//!   `torch.Tensor`, `cupy.ndarray`, `jax.Array`, `numpy.ndarray` (host memory: the host
//!   device) or a `cuprum.ndarray` — and imports it through [`crate::dlpack`], zero-copy.
//! - **Out**: [`to_python`] wraps an [`Array`] as a `cuprum.ndarray` ([`PyArray`]) with
//!   `__dlpack__` / `__dlpack_device__`, which `torch.from_dlpack`, `cupy.from_dlpack`,
//!   `jax.dlpack.from_dlpack` and `numpy.from_dlpack` accept.
//! - **Streams**: a [`Call`] runs on the caller's current stream — PyTorch's current stream
//!   when its first array is a torch tensor, CuPy's for a CuPy array, else cuprum's — so
//!   the work is ordered with the framework's work exactly as the framework's own ops
//!   would be (see `stream.rs`).
//! - **Errors**: `?` turns a cuprum [`Error`](crate::Error) into a Python exception:
//!   `cuprum.DTypeError` (a `TypeError`), `cuprum.ShapeError`, `cuprum.DeviceError`,
//!   `cuprum.ArgumentError` (each a `ValueError`), `cuprum.UnsupportedError`
//!   (`NotImplementedError`), `cuprum.OutOfMemoryError` (`MemoryError`), all subclasses
//!   of `cuprum.CuprumError`, the class of every other kind; each has `kind`, the
//!   [`ErrorKind`](crate::ErrorKind)'s name, and cuprum's message (`errors.rs`).
//!
//! Decisions: the feature builds PyO3 with the stable ABI of CPython 3.9 (`abi3-py39`), so
//! one wheel serves every CPython from 3.9; cuprum does not link an interpreter into
//! extension modules (their crate enables `pyo3/extension-module` or builds with maturin).
//! Objects are imported on the call's stream and exported with the consumer's stream, so
//! no call synchronises the device. A call costs a few µs of host time: the framework's
//! stream lookup and each argument's `__dlpack__` (what cuprum caches is in `stream.rs`).
//!
//! The examples below that embed a Python interpreter run when `CUPRUM_DOC_PYTHON=1` is set
//! (with NumPy's site-packages on `PYTHONPATH`):
//! `cargo test -p cuprum --features python --doc src/python/`; otherwise they only compile.
//! CI tests the module through the example extension's wheel instead (`.ci/run`).
//!
//! An extension module (the full one is `examples/python/`):
//!
//! ```no_run
//! use cuprum::python::{Call, to_python};
//! use cuprum::ElementwiseKernel;
//! use pyo3::prelude::*;
//!
//! /// `z = x + y * 2` on any two float32 arrays of one device.
//! #[pyfunction]
//! fn custom_add(py: Python<'_>, x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
//!     static KERNEL: std::sync::OnceLock<cuprum::Result<ElementwiseKernel>> = std::sync::OnceLock::new();
//!     let kernel = KERNEL
//!         .get_or_init(|| ElementwiseKernel::new("float32 x, float32 y", "float32 z", "z = x + y * 2", "custom_add"))
//!         .as_ref()
//!         .map_err(Clone::clone)?;
//!     let call = Call::new(&[x, y])?;
//!     let z = kernel.call((&call.array(x)?, &call.array(y)?))?;
//!     Ok(to_python(py, z)?.unbind())
//! }
//!
//! #[pymodule]
//! fn my_ext(m: &Bound<'_, PyModule>) -> PyResult<()> {
//!     cuprum::python::register(m)?;            // cuprum.ndarray and the exception classes
//!     m.add_function(wrap_pyfunction!(custom_add, m)?)
//! }
//! ```

mod array;
mod augmented;
mod call;
mod capsule;
mod compiler;
mod convert;
mod cucomplex;
mod cuda;
mod errors;
mod exchange;
mod fft;
mod fuse;
mod fuse_views;
mod interface;
mod jit_launch;
mod kernels;
mod memory;
mod module;
mod ndarray;
mod operations;
mod package;
mod pickling;
mod routines;
mod stream;
mod syncdetect;
mod texture;

pub use array::PyArray;
pub use call::{Call, array_arg};
pub use module::{error, register, to_python};
pub use package::register_package;
