//! The host device's streams ([`StreamBackend`] for [`HostDevice`]): ordering tokens,
//! events that keep the moment they were recorded, and no graph capture.

use super::{DEFAULT_STREAM, HostDevice};
use crate::error::{Result, bail};
use crate::runtime::backend::{
    DeviceBackend, RawEvent, RawGraph, RawStream, Rebound, StreamBackend,
};
use std::sync::atomic::Ordering;
use std::time::Instant;

impl StreamBackend for HostDevice {
    fn begin_capture(&self, _s: RawStream) -> Result<()> {
        bail!(
            Unsupported,
            "CUDA graphs need a GPU: the host device runs each launch when it is queued, so \
             there is nothing to capture (call the work directly instead)"
        )
    }

    fn end_capture(&self, _s: RawStream) -> Result<(RawGraph, usize)> {
        bail!(Unsupported, "CUDA graphs need a GPU")
    }

    unsafe fn launch_graph(&self, _g: RawGraph, _s: RawStream) -> Result<()> {
        bail!(Unsupported, "CUDA graphs need a GPU")
    }

    unsafe fn destroy_graph(&self, _g: RawGraph) {}

    unsafe fn rebind_graph(
        &self,
        _g: RawGraph,
        _from: std::ops::Range<u64>,
        _to: u64,
        _watch: std::ops::Range<u64>,
        _layouts: &crate::runtime::capture_state::Layouts,
    ) -> Result<Rebound> {
        bail!(Unsupported, "CUDA graphs need a GPU")
    }

    fn default_stream(&self) -> RawStream {
        DEFAULT_STREAM
    }

    fn create_stream(&self) -> Result<RawStream> {
        // A token distinct from every other stream's handle.
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed) + 2;
        Ok(RawStream(n * 8))
    }

    fn destroy_stream(&self, _s: RawStream) {}

    fn synchronize_stream(&self, _s: RawStream) -> Result<()> {
        Ok(())
    }

    fn stream_done(&self, _s: RawStream) -> Result<bool> {
        // Work of the host device has run when its call returned.
        Ok(true)
    }

    fn stream_wait_stream(
        &self,
        _s: RawStream,
        _peer: &dyn DeviceBackend,
        _other: RawStream,
    ) -> Result<()> {
        // Work here runs when it is queued: the generic layer waits on the host instead.
        Ok(())
    }

    fn create_event(&self) -> Result<RawEvent> {
        let mut ev = self.events();
        let slot = match ev.iter().position(Option::is_none) {
            Some(i) => i,
            None => {
                ev.push(None);
                ev.len() - 1
            }
        };
        ev[slot] = Some(None);
        Ok(RawEvent(slot))
    }

    fn destroy_event(&self, e: RawEvent) {
        if let Some(slot) = self.events().get_mut(e.0) {
            *slot = None;
        }
    }

    fn record_event(&self, e: RawEvent, _s: RawStream) -> Result<()> {
        if let Some(Some(at)) = self.events().get_mut(e.0) {
            *at = Some(Instant::now());
        }
        Ok(())
    }

    fn stream_wait_event(&self, _s: RawStream, _e: RawEvent) -> Result<()> {
        Ok(())
    }

    fn synchronize_event(&self, _e: RawEvent) -> Result<()> {
        Ok(())
    }

    fn event_complete(&self, _e: RawEvent) -> Result<bool> {
        Ok(true)
    }

    fn elapsed_ms(&self, start: RawEvent, end: RawEvent) -> Result<f32> {
        match (self.recorded(start), self.recorded(end)) {
            (Some(a), Some(b)) => Ok(b.saturating_duration_since(a).as_secs_f32() * 1e3),
            _ => bail!(
                InvalidArgument,
                "elapsed time between events needs two events of the host device, both recorded"
            ),
        }
    }
}
