//! [`Event`]: a marker in a stream, for timing and for ordering streams.

use super::device::Device;
use super::driver::DriverResultExt;
use super::stream::Stream;
use crate::error::Result;
use cudarc::driver::{result, sys};

/// A CUDA event with timing enabled.
///
/// ```no_run
/// use cuprum::{Event, Stream};
/// let s = Stream::current()?;
/// let (start, end) = (Event::new()?, Event::new()?);
/// start.record(&s)?;
/// // ... queue work on s ...
/// end.record(&s)?;
/// println!("{:.3} ms", start.elapsed_ms(&end)?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Event {
    raw: sys::CUevent,
    device: Device,
}

// SAFETY: event handles may be used from any thread; the Event owns its handle.
unsafe impl Send for Event {}
// SAFETY: no interior mutability on the Rust side.
unsafe impl Sync for Event {}

impl Event {
    /// A timing event on the current device.
    pub fn new() -> Result<Event> {
        let device = Device::current()?;
        device.bind()?;
        let raw =
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).call("cuEventCreate")?;
        Ok(Event { raw, device })
    }

    /// Records the event at the current end of `stream` (with
    /// [`Stream::wait_event`] it orders work between streams; cuprum already orders each
    /// array's first use on another stream and its free, see
    /// [Arrays and streams](crate::Stream#arrays-and-streams)).
    pub fn record(&self, stream: &Stream) -> Result<()> {
        self.device.bind()?;
        // SAFETY: both handles are valid for the lifetime of their owners.
        unsafe { result::event::record(self.raw, stream.raw()) }.call("cuEventRecord")
    }

    /// Waits until the work before the recorded point has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: the handle is valid while `self` lives.
        unsafe { result::event::synchronize(self.raw) }.call("cuEventSynchronize")
    }

    /// Whether the work before the recorded point has finished (never blocks).
    pub fn is_complete(&self) -> Result<bool> {
        self.device.bind()?;
        // SAFETY: the handle is valid while `self` lives.
        match unsafe { sys::cuEventQuery(self.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => e.call("cuEventQuery").map(|_| false),
        }
    }

    /// Milliseconds of GPU time between `self` and a later `end` (waits for `end`).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        end.synchronize()?;
        // SAFETY: both events are valid and recorded; `end` has completed.
        unsafe { result::event::elapsed(self.raw, end.raw) }.call("cuEventElapsedTime")
    }

    pub(crate) fn raw(&self) -> sys::CUevent {
        self.raw
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: the event is owned by `self` and destroyed exactly once.
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}
