//! [`Event`]: a marker in a stream, for timing and for ordering streams.

use super::backend::RawEvent;
use super::device::Device;
use super::stream::Stream;
use crate::error::{Result, bail};

/// A CUDA event with timing enabled (on the host device: the moment it was recorded).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
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
    raw: RawEvent,
    device: Device,
}

impl Event {
    /// A timing event on the current device (on the host device it keeps the time it was
    /// recorded).
    pub fn new() -> Result<Event> {
        Event::new_on(Device::current()?)
    }

    /// A timing event on `device`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Device, Event, Stream};
    /// let s = Stream::current()?;
    /// let e = Event::new_on(s.device())?;
    /// e.record(&s)?;
    /// e.synchronize()?;
    /// assert!(e.is_complete()?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn new_on(device: Device) -> Result<Event> {
        device.bind()?;
        let raw = device.backend().create_event()?;
        Ok(Event { raw, device })
    }

    /// An event without timing on `device`, for ordering and waiting only (cheaper to
    /// record; `elapsed_ms` with it is an error of the driver).
    pub(crate) fn marker_on(device: Device) -> Result<Event> {
        device.bind()?;
        let raw = device.backend().create_marker_event()?;
        Ok(Event { raw, device })
    }

    /// The device the event belongs to.
    pub(crate) fn device(&self) -> Device {
        self.device
    }

    /// Records the event at the current end of `stream` (with
    /// [`Stream::wait_event`] it orders work between streams; cuprum already orders each
    /// array's first use on another stream and its free, see
    /// [Arrays and streams](crate::Stream#arrays-and-streams)).
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if stream.device() != self.device {
            if self.device.is_synchronous() {
                // The moment the other stream's work so far has finished.
                stream.synchronize()?;
            } else if stream.device().is_synchronous() {
                bail!(
                    InvalidArgument,
                    "an event of {} cannot be recorded on a stream of {}",
                    self.device,
                    stream.device()
                );
            }
        }
        self.device.check_fault()?;
        // Both handles are valid for the lifetime of their owners.
        self.device.backend().record_event(self.raw, stream.raw())
    }

    /// Waits until the work before the recorded point has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.device.check_fault()?;
        self.device.backend().synchronize_event(self.raw)
    }

    /// Whether the work before the recorded point has finished (never blocks).
    pub fn is_complete(&self) -> Result<bool> {
        self.device.check_fault()?;
        self.device.backend().event_complete(self.raw)
    }

    /// Milliseconds of GPU time between `self` and a later `end` (waits for `end`).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        if self.device != end.device {
            bail!(
                InvalidArgument,
                "elapsed time between events of two devices ({} and {}): both must belong to one",
                self.device,
                end.device
            );
        }
        self.device.check_fault()?;
        self.device.backend().elapsed_ms(self.raw, end.raw)
    }

    pub(crate) fn raw(&self) -> RawEvent {
        self.raw
    }
}

impl Stream {
    /// Makes future work on this stream wait for `event` (recorded on any stream).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        if self.device().is_synchronous() {
            return event.synchronize();
        }
        if event.device().is_synchronous() {
            return Ok(());
        }
        self.device().check_fault()?;
        self.device()
            .backend()
            .stream_wait_event(self.raw(), event.raw())
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // The event is owned by `self` and destroyed exactly once.
        if self.device.check_fault().is_ok() {
            self.device.backend().destroy_event(self.raw);
        }
    }
}
