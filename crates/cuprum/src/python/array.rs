//! `cuprum.Array`: a cuprum array as a Python object that every DLPack consumer takes
//! (`torch.from_dlpack`, `cupy.from_dlpack`, `jax.dlpack.from_dlpack`, `numpy.from_dlpack`).
//!
//! It holds a view (no copy); `__dlpack__` exports it as the array API says: `stream=None`
//! is the legacy default stream for CUDA, an integer is read by
//! [`ConsumerStream::from_python_int`] and cuprum's pending work on the array is ordered
//! before that stream (an event wait, never a synchronisation); host arrays ignore
//! `stream`. `max_version` ≥ (1, 0) gives a `"dltensor_versioned"` capsule, `None` or an
//! older one a legacy `"dltensor"` capsule. `dl_device` must be the array's own device
//! (`BufferError` otherwise: cuprum does not copy across devices in `__dlpack__`);
//! `copy=True` exports a fresh copy, `copy=False` or `None` the array itself.

use super::capsule;
use crate::array::Array;
use crate::dlpack::{ConsumerStream, ExportOptions};
use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

/// A cuprum [`Array`] as a Python object (`cuprum.Array`): `__dlpack__`,
/// `__dlpack_device__`, `shape`, `dtype` (NumPy's name), `ndim`, `size`, `device`,
/// `__repr__`. Make one with [`to_python`](super::to_python); read one back (or any DLPack
/// object) with [`Call::array`](super::Call::array) or [`array_arg`](super::array_arg).
#[pyclass(name = "Array", module = "cuprum", frozen, weakref)]
pub struct PyArray {
    pub(super) array: Array,
}

impl PyArray {
    /// The cuprum array this object holds (a view, cheap to clone).
    pub fn array(&self) -> &Array {
        &self.array
    }
}

impl From<Array> for PyArray {
    fn from(array: Array) -> Self {
        PyArray { array }
    }
}

#[pymethods]
impl PyArray {
    /// The DLPack capsule of this array (see the module docs).
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<i64>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i64)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let own = self.array.dlpack_device();
        if let Some((kind, id)) = dl_device
            && (kind, id) != (own.0, i64::from(own.1))
        {
            return Err(PyBufferError::new_err(format!(
                "cuprum.Array on DLPack device ({}, {}) cannot be exported to device \
                 ({kind}, {id}): cuprum exports only on the array's own device",
                own.0, own.1
            )));
        }
        let consumer_stream = if self.array.device().is_host() {
            None
        } else {
            // The array API: `None` is the legacy default stream for CUDA.
            // SAFETY: the array API's contract: a consumer passes a live stream of the
            // array's device (as CuPy and PyTorch trust it).
            unsafe { ConsumerStream::from_python_int(stream.unwrap_or(1)) }?
        };
        let opts = ExportOptions {
            consumer_stream,
            ..Default::default()
        };
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        if copy == Some(true) {
            let fresh = self
                .array
                .device()
                .default_stream()
                .with(|| self.array.copy())?;
            return capsule::export(py, &fresh, &opts, versioned);
        }
        capsule::export(py, &self.array, &opts, versioned)
    }

    /// `(device type, device id)`: `(2, n)` for CUDA device n, `(1, 0)` for the host device.
    fn __dlpack_device__(&self) -> (i32, i32) {
        self.array.dlpack_device()
    }

    /// The shape, as a tuple.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.array.shape())
    }

    /// NumPy's name of the dtype (`"float32"`).
    #[getter]
    fn dtype(&self) -> &'static str {
        self.array.dtype().name()
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.array.ndim()
    }

    /// Number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.array.size()
    }

    /// `"cuda:n"` or `"host"`.
    #[getter]
    fn device(&self) -> String {
        device_label(&self.array)
    }

    fn __repr__(&self) -> String {
        let shape = match self.array.shape() {
            [n] => format!("({n},)"),
            s => format!(
                "({})",
                s.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "cuprum.Array(shape={shape}, dtype={}, device={})",
            self.array.dtype().name(),
            device_label(&self.array)
        )
    }
}

fn device_label(array: &Array) -> String {
    let d = array.device();
    if d.is_host() {
        "host".into()
    } else {
        format!("cuda:{}", d.ordinal())
    }
}
