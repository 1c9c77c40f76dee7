//! The classes behind `cuprum.cuda`: streams, events and CUDA graphs as CuPy names them
//! (`Stream`, `Event`, `get_elapsed_time`, `stream.begin_capture()` / `end_capture()` →
//! `Graph`), each a face over `runtime`'s [`Stream`], [`Event`] and [`Graph`].
//!
//! Decision: **the current stream is cuprum's own.** `with stream:` and `stream.use()` set
//! the runtime's current stream of the calling thread (`Stream::replace_current`), which
//! every call on cuprum's arrays already runs on (`stream.rs`); the pure-Python
//! `cuprum.cuda` keeps the stack of `with` blocks and the Python objects, so
//! `get_current_stream()` returns the object the user made current. `Stream.null` is the
//! device's default stream — cuprum's non-blocking stream, which the library's work runs
//! on by default, not the driver's legacy NULL stream: its `ptr` is that stream's real
//! handle, so another framework given it orders itself after cuprum's work.
//!
//! **CuPy's blocking streams, where it matters.** A `cupy.cuda.Stream()` is blocking: its
//! work is ordered after what the legacy NULL stream queued before it. cuprum's streams are
//! non-blocking, so that ordering is made at the two places a CuPy program relies on it:
//! a stream made current from the default stream (`with stream:`, `use()`) and a graph
//! replayed on a stream other than the current default one first wait for the default
//! stream's queued work, and the default stream made current again after a user stream
//! (the end of a `with stream:` block, `Stream.null.use()`) waits for that stream's queued
//! work (an event each; skipped while a capture is open, where a wait on an uncaptured
//! stream would break the capture). Work between two user streams stays unordered, as
//! CuPy's; work queued on a user stream that was never current (`stream=` arguments) is
//! not waited for by the default stream (CuPy's NULL stream would): a program reads it
//! after `synchronize()` or an event.
//!
//! A capture (`begin_capture`) is held by the stream object until `end_capture`; both
//! must come from the thread that began it, so the class is `unsendable` (PyO3 refuses a
//! use from another thread with an exception, never undefined behaviour).

use crate::runtime::{Capture, Event, Graph, Stream};
use pyo3::prelude::*;
use std::cell::RefCell;

/// A CUDA stream (`cuprum.cuda.Stream`'s engine).
#[pyclass(name = "_Stream", module = "cuprum.cuda", unsendable)]
pub(crate) struct PyStream {
    stream: Stream,
    capture: RefCell<Option<Capture>>,
}

/// The runtime stream of `obj` when it is a `cuprum.cuda.Stream` (the Python class keeps
/// its engine in `_s`) or its engine.
pub(crate) fn stream_of(obj: &Bound<'_, PyAny>) -> Option<Stream> {
    if let Ok(s) = obj.cast::<PyStream>() {
        return s.try_borrow().ok().map(|s| s.stream.clone());
    }
    let inner = obj.getattr(pyo3::intern!(obj.py(), "_s")).ok()?;
    let s = inner.cast::<PyStream>().ok()?;
    s.try_borrow().ok().map(|s| s.stream.clone())
}

/// `stream` (a `cuprum.cuda.Stream`), or the current stream for `None`.
/// Orders the default stream's next work after the work queued so far on `prev`, when
/// the default stream is current again after `prev` (see the module's docs).
fn default_after(prev: &Stream) -> PyResult<()> {
    let current = Stream::current()?;
    if current != *prev
        && current.device() == prev.device()
        && current == current.device().default_stream()
        && !crate::runtime::capturing_any()
    {
        current.wait_for(prev)?;
    }
    Ok(())
}

/// Orders `stream`'s next work after the work queued so far on the default stream, when
/// the default stream is the current one (see the module's docs).
fn after_default(stream: &Stream) -> PyResult<()> {
    let current = Stream::current()?;
    if current != *stream
        && current == stream.device().default_stream()
        && !crate::runtime::capturing_any()
    {
        stream.wait_for(&current)?;
    }
    Ok(())
}

pub(crate) fn stream_or_current(stream: Option<&Bound<'_, PyAny>>) -> PyResult<Stream> {
    match stream.filter(|s| !s.is_none()) {
        None => Ok(Stream::current()?),
        Some(s) => stream_of(s).ok_or_else(|| {
            pyo3::exceptions::PyTypeError::new_err(format!(
                "stream must be a cuprum.cuda.Stream, got {}",
                s.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        }),
    }
}

#[pymethods]
impl PyStream {
    /// A new stream on the current device (`null`: the device's default stream).
    #[new]
    #[pyo3(signature = (null = false))]
    fn new(null: bool) -> PyResult<Self> {
        let stream = if null {
            crate::runtime::Device::current()?.default_stream()
        } else {
            Stream::new()?
        };
        Ok(PyStream {
            stream,
            capture: RefCell::new(None),
        })
    }

    /// A stream another library made (CuPy's `ExternalStream(ptr, device_id=-1)`): `ptr`
    /// a `CUstream` of the device's primary context, or 0 / 1 / 2 for the legacy and
    /// per-thread default streams; `device_id` -1 for the current device. cuprum queues
    /// work on it and never destroys it; keeping it alive while cuprum's work on it may
    /// run is the caller's part, as with CuPy's.
    #[staticmethod]
    fn _external(ptr: usize, device_id: i64) -> PyResult<Self> {
        let current = crate::runtime::Device::current()?;
        let device = match usize::try_from(device_id) {
            Ok(k) if k == current.ordinal() => current,
            Ok(k) => crate::runtime::Device::get(k)?,
            Err(_) if device_id == -1 => current,
            Err(_) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "device_id must be -1 (the current device) or a device id, got {device_id}"
                )));
            }
        };
        Ok(PyStream {
            stream: super::stream::borrow(device, ptr)?,
            capture: RefCell::new(None),
        })
    }

    /// The stream's handle (a `CUstream` on a GPU).
    #[getter]
    fn ptr(&self) -> usize {
        self.stream.raw_handle() as usize
    }

    /// The stream's device id (0 on the host device).
    #[getter]
    fn device_id(&self) -> usize {
        self.stream.device().id()
    }

    /// Whether all work queued so far has run.
    #[getter]
    fn done(&self) -> PyResult<bool> {
        Ok(self.stream.is_done()?)
    }

    /// Waits for the work queued on the stream (the GIL released meanwhile).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        super::syncdetect::declare_synchronize(py)?;
        let s = self.stream.clone();
        // The runtime stream is Send; the wait needs no Python state.
        Ok(py.detach(move || s.synchronize())?)
    }

    /// Makes later work on this stream wait for `event`.
    fn wait_event(&self, event: &Bound<'_, PyEvent>) -> PyResult<()> {
        Ok(self.stream.wait_event(&event.get().event)?)
    }

    /// Makes this the current stream (`None`: the default stream); returns the previous
    /// one, `None` for the default.
    #[staticmethod]
    fn swap_current(stream: Option<PyRef<'_, PyStream>>) -> PyResult<Option<PyStream>> {
        let next = stream.map(|s| s.stream.clone());
        if let Some(s) = &next {
            after_default(s)?;
        }
        let prev = Stream::replace_current(next);
        if let Some(p) = &prev {
            default_after(p)?;
        }
        Ok(prev.map(|stream| PyStream {
            stream,
            capture: RefCell::new(None),
        }))
    }

    /// Starts capturing the work queued on this stream into a graph.
    fn begin_capture(&self) -> PyResult<()> {
        let mut slot = self.capture.borrow_mut();
        if slot.is_some() {
            return Err(crate::error::err!(
                InvalidArgument,
                "begin_capture: this stream is already capturing (call end_capture first)"
            )
            .into());
        }
        *slot = Some(self.stream.begin_capture()?);
        Ok(())
    }

    /// Whether a capture begun on this stream is open.
    #[getter]
    fn is_capturing(&self) -> bool {
        self.capture.borrow().is_some()
    }

    /// Ends the capture and returns the graph it recorded.
    fn end_capture(&self) -> PyResult<PyGraph> {
        let capture = self.capture.borrow_mut().take().ok_or_else(|| {
            crate::error::err!(
                InvalidArgument,
                "end_capture: this stream is not capturing (call begin_capture first)"
            )
        })?;
        Ok(PyGraph {
            graph: capture.end()?,
        })
    }
}

/// A captured CUDA graph (`cuprum.cuda.Graph`).
#[pyclass(name = "Graph", module = "cuprum.cuda", frozen)]
pub(crate) struct PyGraph {
    graph: Graph,
}

#[pymethods]
impl PyGraph {
    /// Replays the graph on `stream` (the current stream by default).
    #[pyo3(signature = (stream = None))]
    fn launch(&self, stream: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let stream = stream_or_current(stream)?;
        after_default(&stream)?;
        Ok(self.graph.launch(&stream)?)
    }

    /// The number of nodes the capture recorded.
    #[getter]
    fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    fn __repr__(&self) -> String {
        format!("<cuprum.cuda.Graph of {} nodes>", self.graph.node_count())
    }
}

/// A CUDA event (`cuprum.cuda.Event`): recorded on a stream, timed against another
/// (milliseconds, CuPy's `get_elapsed_time`).
#[pyclass(name = "Event", module = "cuprum.cuda", frozen)]
pub(crate) struct PyEvent {
    event: Event,
}

#[pymethods]
impl PyEvent {
    #[new]
    #[pyo3(signature = (block=false, disable_timing=false, interprocess=false))]
    fn new(block: bool, disable_timing: bool, interprocess: bool) -> PyResult<Self> {
        let _ = (block, disable_timing);
        if interprocess {
            return Err(
                crate::error::err!(Unsupported, "interprocess events are not supported").into(),
            );
        }
        Ok(PyEvent {
            event: Event::new()?,
        })
    }

    /// Records the event on `stream` (the current stream by default).
    #[pyo3(signature = (stream=None))]
    fn record(&self, stream: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        Ok(self.event.record(&stream_or_current(stream)?)?)
    }

    /// Waits until the work before the event has run (the GIL released meanwhile).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        super::syncdetect::declare_synchronize(py)?;
        Ok(py.detach(|| self.event.synchronize())?)
    }

    /// Whether the work before the event has run.
    #[getter]
    fn done(&self) -> PyResult<bool> {
        Ok(self.event.is_complete()?)
    }
}

/// Milliseconds between two recorded events.
#[pyfunction]
fn get_elapsed_time(start: &Bound<'_, PyEvent>, end: &Bound<'_, PyEvent>) -> PyResult<f32> {
    Ok(start.get().event.elapsed_ms(&end.get().event)?)
}

/// `cudaGetDeviceProperties` as CuPy's `runtime.getDeviceProperties` gives it: a dict of
/// the CUDA runtime's field names (`name` as bytes) for the properties cuprum reads.
#[pyfunction]
fn _device_properties(py: Python<'_>, device: usize) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    // Device 0 is the package's device (the host device answers as device 0).
    let d = match device {
        0 => crate::runtime::Device::current()?,
        k => crate::runtime::Device::get(k)?,
    };
    let p = pyo3::types::PyDict::new(py);
    let (major, minor) = d.compute_capability();
    p.set_item("name", pyo3::types::PyBytes::new(py, d.name().as_bytes()))?;
    p.set_item("totalGlobalMem", d.total_memory())?;
    p.set_item("sharedMemPerBlock", d.max_shared_memory_per_block())?;
    p.set_item(
        "sharedMemPerBlockOptin",
        d.max_shared_memory_per_block_optin(),
    )?;
    p.set_item("warpSize", 32)?;
    p.set_item("maxThreadsPerBlock", d.max_threads_per_block())?;
    p.set_item("maxThreadsDim", d.max_block_dim().to_vec())?;
    p.set_item("maxGridSize", d.max_grid_dim().to_vec())?;
    p.set_item("major", major)?;
    p.set_item("minor", minor)?;
    p.set_item("multiProcessorCount", d.sm_count())?;
    p.set_item("maxThreadsPerMultiProcessor", d.max_threads_per_sm())?;
    p.set_item("l2CacheSize", d.l2_cache_bytes())?;
    p.set_item("uuid", pyo3::types::PyBytes::new(py, d.uuid().as_bytes()))?;
    Ok(p)
}

/// `(free, total)` bytes of the current device's memory.
#[pyfunction]
fn _mem_get_info() -> PyResult<(usize, usize)> {
    Ok(crate::runtime::Device::current()?.memory_info()?)
}

/// The CUDA driver's version (`cuDriverGetVersion`: 13000 for CUDA 13.0); an error
/// without a driver.
#[pyfunction]
fn _driver_version() -> PyResult<i32> {
    Ok(crate::runtime::driver_info()?.version)
}

/// The version of the CUDA toolkit cuprum compiles with (its NVRTC: 13000 for 13.0); an
/// error where no NVRTC is found.
#[pyfunction]
fn _toolkit_version() -> PyResult<i32> {
    let (major, minor) = crate::compile::nvrtc()?.version();
    Ok(major * 1000 + minor * 10)
}

/// The device `device`'s memory pool as `(reserved, in use by live arrays, kept for
/// reuse)` bytes (CuPy's `MemoryPool` reports these).
#[pyfunction]
fn _pool_info(device: usize) -> PyResult<(u64, u64, u64)> {
    let d = pool_device(device)?;
    let cached = d.cached_bytes() as u64;
    let used = d.pool_used_bytes()?;
    Ok((
        d.pool_reserved_bytes()?,
        used.saturating_sub(cached),
        cached,
    ))
}

/// How many freed blocks `device`'s pool keeps for reuse (CuPy's `n_free_blocks`).
#[pyfunction]
fn _pool_free_blocks(device: usize) -> PyResult<usize> {
    Ok(pool_device(device)?.cached_blocks())
}

/// Sets (`Some`) or removes (`None`) the allocation limit of `device` (CuPy's
/// `MemoryPool.set_limit`).
#[pyfunction]
#[pyo3(signature = (device, bytes))]
fn _set_memory_limit(device: usize, bytes: Option<usize>) -> PyResult<()> {
    pool_device(device)?.set_memory_limit(bytes);
    Ok(())
}

/// The allocation limit of `device` (0: none, as CuPy's `get_limit`).
#[pyfunction]
fn _memory_limit(device: usize) -> PyResult<usize> {
    Ok(pool_device(device)?.memory_limit().unwrap_or(0))
}

/// A range an attached profiler records (`cuprum.profiler.profile()`'s engine).
#[pyclass(name = "_ProfileRange", module = "cuprum.profiler", unsendable)]
struct PyProfileRange(RefCell<Option<crate::profiler::ProfileRange>>);

#[pymethods]
impl PyProfileRange {
    /// Starts collection on the current device.
    #[new]
    fn new() -> PyResult<Self> {
        Ok(PyProfileRange(RefCell::new(Some(
            crate::profiler::profile()?,
        ))))
    }

    /// Stops collection (once; later calls do nothing).
    fn stop(&self) -> PyResult<()> {
        match self.0.borrow_mut().take() {
            Some(range) => Ok(range.stop()?),
            None => Ok(()),
        }
    }
}

/// Returns the memory `device`'s pool keeps for reuse to the driver (CuPy's
/// `free_all_blocks`).
#[pyfunction]
fn _free_all_blocks(device: usize) -> PyResult<()> {
    Ok(pool_device(device)?.release_pool_memory()?)
}

/// Device `k` of the package (0: the current device, which the host device answers as).
fn pool_device(k: usize) -> PyResult<crate::runtime::Device> {
    Ok(match k {
        0 => crate::runtime::Device::current()?,
        k => crate::runtime::Device::get(k)?,
    })
}

/// Adds the `cuprum.cuda` classes to `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_device_properties, m)?)?;
    m.add_function(wrap_pyfunction!(_mem_get_info, m)?)?;
    m.add_function(wrap_pyfunction!(_driver_version, m)?)?;
    m.add_function(wrap_pyfunction!(_toolkit_version, m)?)?;
    m.add_function(wrap_pyfunction!(_pool_info, m)?)?;
    m.add_function(wrap_pyfunction!(_free_all_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(_pool_free_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(_set_memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(_memory_limit, m)?)?;
    m.add_class::<PyProfileRange>()?;
    m.add_class::<PyStream>()?;
    m.add_class::<PyGraph>()?;
    m.add_class::<PyEvent>()?;
    m.add_function(wrap_pyfunction!(get_elapsed_time, m)?)
}
