//! [`Event`]: a marker in a stream, for timing and for ordering streams.

use super::device::Device;
use super::driver::DriverResultExt;
use super::stream::Stream;
use crate::error::Result;
use cudarc::driver::{result, sys};

/// A CUDA event with timing enabled.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
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
    /// On the host device: when the event was last recorded (work before it has finished
    /// by then: host launches are synchronous).
    at: std::sync::Mutex<Option<std::time::Instant>>,
}

// SAFETY: event handles may be used from any thread; the Event owns its handle.
unsafe impl Send for Event {}
// SAFETY: no interior mutability on the Rust side.
unsafe impl Sync for Event {}

impl Event {
    /// A timing event on the current device (on the host device it keeps the time it was
    /// recorded).
    pub fn new() -> Result<Event> {
        let device = Device::current()?;
        device.bind()?;
        let raw = if device.is_host() {
            std::ptr::null_mut()
        } else {
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).call("cuEventCreate")?
        };
        Ok(Event {
            raw,
            device,
            at: std::sync::Mutex::new(None),
        })
    }

    pub(crate) fn is_host(&self) -> bool {
        self.device.is_host()
    }

    fn host_time(&self) -> Option<std::time::Instant> {
        *self.at.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records the event at the current end of `stream` (with
    /// [`Stream::wait_event`] it orders work between streams; cuprum already orders each
    /// array's first use on another stream and its free, see
    /// [Arrays and streams](crate::Stream#arrays-and-streams)).
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if self.device.is_host() {
            if !stream.device().is_host() {
                // The moment the GPU stream's work so far has finished.
                stream.synchronize()?;
            }
            *self.at.lock().unwrap_or_else(|p| p.into_inner()) = Some(std::time::Instant::now());
            return Ok(());
        }
        if stream.device().is_host() {
            crate::error::bail!(
                InvalidArgument,
                "an event of {} cannot be recorded on a stream of {}",
                self.device,
                stream.device()
            );
        }
        self.device.bind()?;
        // SAFETY: both handles are valid for the lifetime of their owners.
        unsafe { result::event::record(self.raw, stream.raw()) }.call("cuEventRecord")
    }

    /// Waits until the work before the recorded point has finished.
    pub fn synchronize(&self) -> Result<()> {
        if self.device.is_host() {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: the handle is valid while `self` lives.
        unsafe { result::event::synchronize(self.raw) }.call("cuEventSynchronize")
    }

    /// Whether the work before the recorded point has finished (never blocks).
    pub fn is_complete(&self) -> Result<bool> {
        if self.device.is_host() {
            return Ok(true);
        }
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
        if self.device.is_host() || end.device.is_host() {
            return match (self.host_time(), end.host_time()) {
                (Some(a), Some(b)) if self.device.is_host() && end.device.is_host() => {
                    Ok(b.saturating_duration_since(a).as_secs_f32() * 1e3)
                }
                _ => crate::error::bail!(
                    InvalidArgument,
                    "elapsed time between events needs two events of the host device, both recorded"
                ),
            };
        }
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
        if !self.device.is_host() && self.device.bind().is_ok() {
            // SAFETY: the event is owned by `self` and destroyed exactly once.
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}
