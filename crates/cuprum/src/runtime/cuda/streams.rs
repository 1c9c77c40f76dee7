//! A GPU's streams ([`StreamBackend`] for [`CudaDevice`]): non-blocking streams, events
//! (timing events and marker events without timing), waits between streams of one or two
//! GPUs, and CUDA graphs captured from a stream (rebinding through `graph_rebind.rs`).

use super::{CudaDevice, driver, event, graph_rebind, stream};
use crate::error::{Result, err};
use crate::runtime::backend::{
    DeviceBackend, RawEvent, RawGraph, RawStream, Rebound, StreamBackend,
};

impl StreamBackend for CudaDevice {
    fn begin_capture(&self, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the stream is one of this device's; the caller checked it is not capturing.
        self.check(
            unsafe { driver::begin_capture(stream(s)) },
            "cuStreamBeginCapture",
        )
    }

    fn end_capture(&self, s: RawStream) -> Result<(RawGraph, usize)> {
        self.bind_ctx()?;
        // SAFETY: the stream is capturing (begun by `begin_capture`).
        let g = self.check(
            unsafe { driver::end_capture(stream(s)) },
            "cuStreamEndCapture",
        )?;
        // SAFETY: `g` is the live graph just captured.
        let made = unsafe { driver::graph_node_count(g) }
            .and_then(|n| unsafe { driver::graph_instantiate(g) }.map(|e| (e, n)));
        match made {
            Ok((e, n)) => Ok((RawGraph(g as usize, e as usize), n)),
            Err(err) => {
                // SAFETY: `g` is destroyed once; there is no executable graph.
                unsafe { driver::graph_destroy(g, std::ptr::null_mut()) };
                Err(self.error(err, "cuGraphInstantiate"))
            }
        }
    }

    unsafe fn launch_graph(&self, g: RawGraph, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: forwarded from the caller.
        self.check(
            unsafe { driver::graph_launch(g.1 as driver::CUgraphExec, stream(s)) },
            "cuGraphLaunch",
        )
    }

    unsafe fn destroy_graph(&self, g: RawGraph) {
        if self.bind_ctx().is_ok() {
            // SAFETY: forwarded from the caller.
            unsafe { driver::graph_destroy(g.0 as driver::CUgraph, g.1 as driver::CUgraphExec) };
        }
    }

    unsafe fn rebind_graph(
        &self,
        g: RawGraph,
        from: std::ops::Range<u64>,
        to: u64,
        watch: std::ops::Range<u64>,
        layouts: &crate::runtime::capture_state::Layouts,
    ) -> Result<Rebound> {
        self.bind_ctx()?;
        let m = graph_rebind::Move {
            from,
            to,
            watch,
            layouts,
        };
        // SAFETY: forwarded from the caller; the context is current.
        self.check(
            unsafe { graph_rebind::rebind(g.0 as driver::CUgraph, g.1 as driver::CUgraphExec, &m) },
            "cuGraphExecKernelNodeSetParams",
        )
    }

    fn default_stream(&self) -> RawStream {
        RawStream(self.default_stream as usize)
    }

    fn create_stream(&self) -> Result<RawStream> {
        self.bind_ctx()?;
        let s = self.check(driver::stream_create(), "cuStreamCreate")?;
        Ok(RawStream(s as usize))
    }

    fn destroy_stream(&self, s: RawStream) {
        if self.bind_ctx().is_ok() {
            // SAFETY: the stream was made by `create_stream` and is destroyed once (the
            // owner's drop); the driver lets queued work finish before releasing it.
            let _ = unsafe { driver::stream_destroy(stream(s)) };
        }
    }

    fn stream_done(&self, s: RawStream) -> Result<bool> {
        self.bind_ctx()?;
        // SAFETY: the stream is live while its owner (the caller's Stream) lives.
        self.check(unsafe { driver::stream_done(stream(s)) }, "cuStreamQuery")
    }

    fn synchronize_stream(&self, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the stream is live while its owner (the caller's Stream) lives.
        self.check(
            unsafe { driver::stream_synchronize(stream(s)) },
            "cuStreamSynchronize",
        )
    }

    fn stream_wait_stream(
        &self,
        s: RawStream,
        peer: &dyn DeviceBackend,
        other: RawStream,
    ) -> Result<()> {
        let Some(p) = Self::peer(peer) else {
            return Err(err!(
                DeviceMismatch,
                "a GPU stream can only wait on a stream of another GPU here"
            ));
        };
        p.bind_ctx()?;
        let e = p.check(driver::event_create(false), "cuEventCreate")?;
        // SAFETY: `e` was just created in the peer's (current) context and both streams
        // are valid while their owners live; a stream may wait on an event of another
        // context.
        let r = p
            .check(
                unsafe { driver::event_record(e, stream(other)) },
                "cuEventRecord",
            )
            .and_then(|()| self.bind_ctx())
            .and_then(|()| {
                // SAFETY: as above.
                self.check(
                    unsafe { driver::stream_wait_event(stream(s), e) },
                    "cuStreamWaitEvent",
                )
            });
        if p.bind_ctx().is_ok() {
            // SAFETY: the event is destroyed once; a wait already queued on it still
            // completes (the driver releases it when the event completes).
            let _ = unsafe { driver::event_destroy(e) };
        }
        r
    }

    fn create_event(&self) -> Result<RawEvent> {
        self.bind_ctx()?;
        let e = self.check(driver::event_create(true), "cuEventCreate")?;
        Ok(RawEvent(e as usize))
    }

    fn create_marker_event(&self) -> Result<RawEvent> {
        self.bind_ctx()?;
        let e = self.check(driver::event_create(false), "cuEventCreate")?;
        Ok(RawEvent(e as usize))
    }

    fn destroy_event(&self, e: RawEvent) {
        if self.bind_ctx().is_ok() {
            // SAFETY: the event is owned by its `Event` and destroyed exactly once.
            let _ = unsafe { driver::event_destroy(event(e)) };
        }
    }

    fn record_event(&self, e: RawEvent, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: both handles are valid for the lifetime of their owners.
        self.check(
            unsafe { driver::event_record(event(e), stream(s)) },
            "cuEventRecord",
        )
    }

    fn stream_wait_event(&self, s: RawStream, e: RawEvent) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: both handles are valid while their owners live.
        self.check(
            unsafe { driver::stream_wait_event(stream(s), event(e)) },
            "cuStreamWaitEvent",
        )
    }

    fn synchronize_event(&self, e: RawEvent) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the event is valid while its owner lives.
        self.check(
            unsafe { driver::event_synchronize(event(e)) },
            "cuEventSynchronize",
        )
    }

    fn event_complete(&self, e: RawEvent) -> Result<bool> {
        self.bind_ctx()?;
        // SAFETY: the event is valid while its owner lives.
        self.check(unsafe { driver::event_complete(event(e)) }, "cuEventQuery")
    }

    fn elapsed_ms(&self, start: RawEvent, end: RawEvent) -> Result<f32> {
        self.synchronize_event(end)?;
        // SAFETY: both events are valid and recorded; `end` has completed.
        self.check(
            unsafe { driver::event_elapsed(event(start), event(end)) },
            "cuEventElapsedTime",
        )
    }
}
