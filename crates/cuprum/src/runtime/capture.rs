//! CUDA Graphs: the work cuprum queues on a stream, captured into a [`Graph`] and replayed
//! with one launch (CuPy's `stream.begin_capture()` / `end_capture()` / `graph.launch()`).
//!
//! **What a capture records.** [`Stream::capture`] makes the stream current, starts the
//! driver's capture (relaxed mode), runs the closure, ends the capture and instantiates the
//! graph. Every call that queues GPU work on the stream meanwhile — kernels of every kind,
//! operations, fusions, device copies, memsets — becomes a node; nothing runs until
//! [`Graph::launch`]. A graph replays the same addresses every time: new inputs are copied
//! into the captured input arrays (`assign`) before a launch and the captured outputs hold
//! each run's results — or [`Graph::rebind`] points later launches at other arrays of the
//! same layout (`array/graph_arrays.rs`; the address rewriting is the backend's).
//!
//! **Memory stays valid for every replay.** The graph keeps alive every array whose address
//! the captured work took (their buffers) and every kernel's module. Arrays allocated during
//! the capture get ordinary pool memory, allocated outside the graph at capture time (the
//! allocation is made on a side stream and waited for), so they are valid before the first
//! launch and after the graph is gone; a block freed during the capture (a temporary) is not
//! freed until the graph is dropped, since every replay uses it again. A buffer first used
//! during the capture waits on the host for its own stream's queued work instead of
//! ordering the capturing stream after it (a captured wait on outside work would tie the
//! graph to that moment). Dropping a `Graph` waits for its runs (an event per stream it was
//! launched on; never a device-wide synchronisation, which would break a capture another
//! thread has open), so no replay is still running when its memory goes back.
//!
//! **Calls that cannot be captured are errors naming the call**, checked before the driver
//! sees them, and the capture then ends with that error, leaving the stream usable:
//! synchronising the capturing stream or its device, copies between ordinary host memory and
//! the device (`to_vec`, `from_slice`, `copy_to_slice`, `copy_from_slice`, reading a scalar,
//! printing), asynchronous copies with pinned buffers, and a capture inside a capture. The
//! device's default stream cannot be captured (every thread shares it): capture a stream of
//! your own. Work that other threads queue on the capturing stream is captured too but not
//! kept alive: capture from one thread. Another thread that synchronises the whole device
//! while a capture is open breaks that capture (the driver's rule; it ends with an error).
//! The host device has no graphs (`Unsupported`).

use super::backend::RawGraph;
use super::capture_state::{self, State};
use super::device::Device;
use super::memory::Buffer;
use super::stream::Stream;
use crate::error::{Result, bail};
use std::sync::Arc;

/// Whether this thread is capturing `stream`.
#[inline]
pub(crate) fn is_capturing(stream: &Stream) -> bool {
    capture_state::is_capturing(stream.raw().0)
}

/// Whether this thread is capturing any stream (work queued now would join a graph).
pub(crate) fn capturing_any() -> bool {
    capture_state::active()
}

/// Keeps `buf` for the graph being captured (captured work took its address).
pub(crate) fn keep_buffer(buf: &Arc<Buffer>) {
    capture_state::keep(buf.clone());
}

/// The error for `what`, which cannot be part of a graph, when `stream` is being captured.
pub(crate) fn refuse_in_capture(what: &str, stream: &Stream) -> Result<()> {
    capture_state::refuse(what, stream.raw().0, stream)
}

/// A captured sequence of GPU work, replayed with [`launch`](Graph::launch) (see
/// [`Stream::capture`]).
pub struct Graph {
    raw: RawGraph,
    device: Device,
    nodes: usize,
    kept: State,
    /// The end of the last run on each stream it was launched on (synchronised on drop).
    runs: std::sync::Mutex<Vec<(Stream, super::event::Event)>>,
    /// The captured stream (its blocks are freed there when the graph goes).
    stream: Stream,
    /// Buffers no node uses any more since a rebinding, kept until the runs queued before
    /// it have finished.
    retired: Vec<capture_state::KeptThing>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("device", &self.device)
            .field("nodes", &self.nodes)
            .field("kept", &self.kept.kept.len())
            .finish()
    }
}

/// Ends the capture (also when the closure failed or panicked) and clears this thread's
/// capture state.
struct CaptureGuard {
    stream: Stream,
    ended: bool,
}

impl CaptureGuard {
    fn end(&mut self) -> (Result<(RawGraph, usize)>, State) {
        self.ended = true;
        let kept = capture_state::end();
        let r = self
            .stream
            .device()
            .backend()
            .end_capture(self.stream.raw());
        (r, kept)
    }
}

impl Drop for CaptureGuard {
    fn drop(&mut self) {
        if !self.ended {
            let (r, kept) = self.end();
            if let Ok((g, _)) = r {
                // SAFETY: the graph was just made and is destroyed once, never launched.
                unsafe { self.stream.device().backend().destroy_graph(g) };
            }
            release(self.stream.device(), &self.stream, kept);
        }
    }
}

impl Stream {
    /// Captures the GPU work `f` queues on this stream into a [`Graph`] instead of running
    /// it, and returns the graph with `f`'s result. The stream is the current stream while
    /// `f` runs (so every cuprum call in `f` queues on it). Arrays made in `f` are ordinary
    /// arrays, allocated at once; their contents are written when the graph runs. See the
    /// module docs for what the graph keeps alive and which calls cannot be captured.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// use cuprum::{Array, DType, ElementwiseKernel, Stream};
    /// let s = Stream::new()?;
    /// let axpy = ElementwiseKernel::new("T x, T a", "T y", "y = a * x + 1", "axpy1")?;
    /// let x = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// let (graph, y) = s.capture(|| {
    ///     let t = axpy.call((&x, 2.0f32))?;  // t = 2x + 1
    ///     axpy.call((&t, 3.0f32))            // y = 3t + 1
    /// })?;
    /// graph.launch(&s)?;
    /// s.synchronize()?;
    /// assert_eq!(y.to_vec::<f32>()?, vec![10.0, 16.0, 22.0]);
    /// x.copy_from_slice(&[0.0f32, 1.0, -1.0])?;   // new input, same array
    /// graph.launch(&s)?;
    /// s.synchronize()?;
    /// assert_eq!(y.to_vec::<f32>()?, vec![4.0, 10.0, -2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn capture<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<(Graph, R)> {
        let capture = self.begin_capture()?;
        let value = self.with(f)?; // an error drops `capture`, which ends it
        Ok((capture.end()?, value))
    }

    /// Starts capturing the GPU work queued on this stream (CuPy's
    /// `stream.begin_capture()`), until [`Capture::end`] makes it a [`Graph`]. Unlike
    /// [`capture`](Stream::capture) it does not make the stream current: queue the work on
    /// it (`Stream::with`, `make_current`, or each call's stream). Dropping the [`Capture`]
    /// without ending it ends the capture and discards what it recorded.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// use cuprum::{Array, DType, ElementwiseKernel, Stream};
    /// let s = Stream::new()?;
    /// let twice = ElementwiseKernel::new("T x", "T y", "y = 2 * x", "twice")?;
    /// let x = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// let capture = s.begin_capture()?;
    /// let y = s.with(|| twice.call((&x,)))?;
    /// let graph = capture.end()?;
    /// graph.launch(&s)?;
    /// s.synchronize()?;
    /// assert_eq!(y.to_vec::<f32>()?, vec![2.0, 4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn begin_capture(&self) -> Result<Capture> {
        let device = self.device();
        if capture_state::active() {
            bail!(
                InvalidArgument,
                "Stream::capture inside another capture: end the first capture before starting one"
            );
        }
        if self.is_device_default() {
            bail!(
                InvalidArgument,
                "Stream::capture of {device}'s default stream: every thread queues work there; \
                 capture a stream of your own (Stream::new())"
            );
        }
        device.check_fault()?;
        device.bind()?;
        device.backend().begin_capture(self.raw())?;
        capture_state::begin(self.raw().0, device.ordinal());
        Ok(Capture {
            guard: CaptureGuard {
                stream: self.clone(),
                ended: false,
            },
            _not_send: std::marker::PhantomData,
        })
    }
}

/// A capture in progress on one stream ([`Stream::begin_capture`]), ended by
/// [`end`](Capture::end) on the thread that began it.
pub struct Capture {
    guard: CaptureGuard,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl std::fmt::Debug for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("stream", &self.guard.stream)
            .finish()
    }
}

impl Capture {
    /// The stream being captured.
    pub fn stream(&self) -> &Stream {
        &self.guard.stream
    }

    /// Ends the capture and instantiates what it recorded as a [`Graph`] (errors: a call
    /// that could not be captured, or the driver's refusal, after which the stream is
    /// usable again).
    pub fn end(mut self) -> Result<Graph> {
        let stream = self.guard.stream.clone();
        let device = stream.device();
        let (made, kept) = self.guard.end();
        let (raw, nodes) = match made {
            Ok(m) => m,
            Err(e) => {
                release(device, &stream, kept);
                return Err(e);
            }
        };
        Ok(Graph {
            raw,
            device,
            nodes,
            kept,
            runs: std::sync::Mutex::new(Vec::new()),
            stream,
            retired: Vec::new(),
        })
    }
}

/// Gives back what a capture kept (after its work has finished or never ran).
fn release(device: Device, stream: &Stream, kept: State) {
    if !kept.frees.is_empty() {
        // The blocks are freed in the captured stream's order (the graph's runs have been
        // waited for; other streams that used them were waited for when they were freed).
        for (ptr, bytes) in kept.frees {
            super::memory::free_now(device, ptr, bytes, stream);
        }
    }
    drop(kept.kept);
    drop(kept.side);
}

impl Graph {
    /// Queues one run of the captured work on `stream` (a stream of the graph's device;
    /// it returns at once).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        if stream.device() != self.device {
            bail!(
                InvalidArgument,
                "Graph::launch: the graph was captured on {} but the stream belongs to {}",
                self.device,
                stream.device()
            );
        }
        if capture_state::active() {
            bail!(
                InvalidArgument,
                "Graph::launch inside a capture: launch it after the capture"
            );
        }
        self.device.check_fault()?;
        // SAFETY: the graph is alive; every buffer and module its work uses is kept by
        // `self`, and dropping `self` waits for its runs (below) before they go.
        unsafe { self.device.backend().launch_graph(self.raw, stream.raw()) }?;
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, e)) = runs.iter().find(|(s, _)| s == stream) {
            return e.record(stream);
        }
        let e = super::event::Event::marker_on(self.device)?;
        e.record(stream)?;
        runs.push((stream.clone(), e));
        Ok(())
    }

    /// The number of nodes (kernels, copies, memsets …) the capture recorded.
    pub fn node_count(&self) -> usize {
        self.nodes
    }

    /// The device the graph runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Makes later runs use `new` (from its address `to` on) wherever the captured work
    /// used an address inside `from` (a range of `old`'s memory): the raw form of
    /// `Graph::rebind`, which checks that the two arrays have one layout. The graph keeps
    /// `new`; `old` is let go once no node uses its memory and the runs queued so far have
    /// finished. The number of addresses rewritten.
    pub(crate) fn rebind_buffer(
        &mut self,
        old: &Arc<Buffer>,
        from: std::ops::Range<u64>,
        new: &Arc<Buffer>,
        to: u64,
    ) -> Result<usize> {
        if capture_state::active() {
            bail!(
                InvalidArgument,
                "Graph::rebind inside a capture: rebind before or after the capture"
            );
        }
        self.device.check_fault()?;
        self.reap()?;
        let base = old.addr();
        let watch = base..base + old.bytes() as u64;
        // Later runs on the captured stream are ordered after the new memory's own work so
        // far (as a capture orders each buffer's first use).
        let _ = new.ptr_on(&self.stream);
        // SAFETY: the graph is alive and `&mut self` excludes launches meanwhile; `new` is
        // kept below for as long as the graph can run.
        let done = unsafe {
            self.device.backend().rebind_graph(
                self.raw,
                from.clone(),
                to,
                watch,
                &self.kept.layouts,
            )
        }?;
        if done.rewritten == 0 {
            bail!(
                InvalidArgument,
                "Graph::rebind: the captured work does not use the array to replace (bytes \
                 {:#x}..{:#x}); pass an array the capture used, or one a previous rebind put in",
                from.start,
                from.end
            );
        }
        self.kept.hold(new.clone());
        if done.still_in_watch == 0
            && !Arc::ptr_eq(old, new)
            && let Some(t) = self.kept.unhold(Arc::as_ptr(old).cast::<()>() as usize)
        {
            self.retired.push(t);
        }
        Ok(done.rewritten)
    }

    /// Lets retired buffers go once every run queued so far has finished.
    fn reap(&mut self) -> Result<()> {
        if self.retired.is_empty() {
            return Ok(());
        }
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        for (_, e) in runs.iter() {
            if !e.is_complete()? {
                return Ok(());
            }
        }
        drop(runs);
        self.retired.clear();
        Ok(())
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // No run may still use the kept memory when it goes back (a device-wide
        // synchronisation would break a capture another thread has open).
        let runs = std::mem::take(&mut *self.runs.lock().unwrap_or_else(|p| p.into_inner()));
        for (_, e) in runs {
            let _ = e.synchronize();
        }
        // SAFETY: the graph came from `end_capture` and is destroyed once.
        unsafe { self.device.backend().destroy_graph(self.raw) };
        release(self.device, &self.stream, std::mem::take(&mut self.kept));
        self.retired.clear();
    }
}
