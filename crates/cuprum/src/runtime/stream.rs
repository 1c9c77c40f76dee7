//! [`Stream`]: an ordered queue of GPU work, and the calling thread's current stream.

use super::device::Device;
use super::driver::DriverResultExt;
use crate::error::Result;
use cudarc::driver::{result, sys};
use std::cell::RefCell;
use std::sync::Arc;

struct Owned(sys::CUstream, Device);

// SAFETY: a CUstream handle may be destroyed from any thread.
unsafe impl Send for Owned {}
// SAFETY: `Owned` is never mutated after creation.
unsafe impl Sync for Owned {}

impl Drop for Owned {
    fn drop(&mut self) {
        if self.1.bind().is_ok() {
            // SAFETY: the stream was created by `Stream::new` and is destroyed once, here;
            // the driver lets queued work finish before releasing it.
            let _ = unsafe { result::stream::destroy(self.0) };
        }
    }
}

/// A CUDA stream. Work queued on one stream runs in order; different streams may overlap.
///
/// Every device has a non-blocking default stream; each thread has a *current* stream (the
/// current device's default stream unless overridden with [`Stream::with`] or
/// [`Stream::make_current`]) that array operations and kernels use.
///
/// ```no_run
/// use cuprum::{Array, DType, Stream};
/// let s = Stream::new()?;
/// let a = s.with(|| Array::ones(&[1000], DType::F32))?; // queued on `s`
/// s.synchronize()?;
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct Stream {
    raw: sys::CUstream,
    device: Device,
    _owner: Option<Arc<Owned>>,
}

// SAFETY: a CUstream handle may be used from any thread (the driver serialises access);
// ownership is reference counted through the Arc.
unsafe impl Send for Stream {}
// SAFETY: as above; Stream has no interior mutability.
unsafe impl Sync for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Stream({:p} on device {})",
            self.raw,
            self.device.ordinal()
        )
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw && self.device == other.device
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Stream>> = const { RefCell::new(None) };
}

impl Stream {
    /// A new non-blocking stream on the current device.
    ///
    /// ```no_run
    /// let s = cuprum::Stream::new()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn new() -> Result<Stream> {
        Stream::new_on(Device::current()?)
    }

    /// A new non-blocking stream on `device`.
    pub fn new_on(device: Device) -> Result<Stream> {
        device.bind()?;
        let raw = result::stream::create(result::stream::StreamKind::NonBlocking)
            .call("cuStreamCreate")?;
        Ok(Stream {
            raw,
            device,
            _owner: Some(Arc::new(Owned(raw, device))),
        })
    }

    /// Whether this is its device's default stream (which lives as long as the process).
    #[inline]
    pub(crate) fn is_device_default(&self) -> bool {
        self.raw == self.device.0.default_stream
    }

    pub(crate) fn borrowed(device: Device, raw: sys::CUstream) -> Stream {
        Stream {
            raw,
            device,
            _owner: None,
        }
    }

    /// The calling thread's current stream.
    ///
    /// ```no_run
    /// let s = cuprum::Stream::current()?;
    /// assert_eq!(s, s.device().default_stream());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    #[inline]
    pub fn current() -> Result<Stream> {
        if let Some(s) = CURRENT.with(|c| c.borrow().clone()) {
            return Ok(s);
        }
        Ok(Device::current()?.default_stream())
    }

    /// Runs `f` with this stream as the calling thread's current stream (and its device as
    /// the current device), then restores the previous ones, even if `f` panics.
    pub fn with<R>(&self, f: impl FnOnce() -> R) -> R {
        let _guard = self.make_current();
        self.device.with(f)
    }

    /// Makes this the current stream of the calling thread until the guard is dropped.
    ///
    /// ```no_run
    /// let s = cuprum::Stream::new()?;
    /// {
    ///     let _g = s.make_current();
    ///     assert_eq!(cuprum::Stream::current()?, s);
    /// }
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn make_current(&self) -> StreamGuard {
        let prev = CURRENT.with(|c| c.replace(Some(self.clone())));
        StreamGuard {
            prev,
            _not_send: std::marker::PhantomData,
        }
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Waits for all work queued on the stream; device faults surface here as errors.
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: the handle is valid while `self` (and so its owner) lives.
        unsafe { result::stream::synchronize(self.raw) }.call("cuStreamSynchronize")?;
        super::fault::check(self.device)
    }

    /// Makes future work on this stream wait for `event` (recorded on any stream).
    pub fn wait_event(&self, event: &super::Event) -> Result<()> {
        self.device.bind()?;
        // SAFETY: both handles are valid while their owners live.
        unsafe {
            result::stream::wait_event(
                self.raw,
                event.raw(),
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .call("cuStreamWaitEvent")
    }

    /// The raw `CUstream` handle, for interop with other CUDA libraries.
    pub fn as_raw(&self) -> *mut std::ffi::c_void {
        self.raw.cast()
    }

    #[inline]
    pub(crate) fn raw(&self) -> sys::CUstream {
        self.raw
    }
}

/// Restores the previous current stream when dropped (see [`Stream::make_current`]).
pub struct StreamGuard {
    prev: Option<Stream>,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        CURRENT.with(|c| *c.borrow_mut() = prev);
    }
}
