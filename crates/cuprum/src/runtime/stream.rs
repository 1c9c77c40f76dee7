//! [`Stream`]: an ordered queue of GPU work, and the calling thread's current stream.
//!
//! Every device has a non-blocking default stream, made when the device is opened. Each
//! thread has a current device (`registry.rs`) and an optional current-stream override
//! ([`Stream::with`], [`Stream::make_current`]); array work without a stream of its own goes
//! to the current stream. A call given arrays runs on [`Stream::for_device`] of its first
//! array's device: the current stream when it belongs to that device, else that device's
//! default stream (see the kernel layer for the rule "a call runs where its arrays live").
//! [`Stream::wait_for`] is the public form of the ordering buffers apply by themselves
//! across streams (`memory.rs`).

use super::backend::RawStream;
use super::device::Device;
use crate::error::Result;
use std::cell::RefCell;
use std::sync::{Arc, Weak};

/// The driver's handle of the legacy default stream.
pub(crate) const CU_STREAM_LEGACY: usize = 0x1;

/// A created stream, destroyed when the last holder goes: the user's handles (through
/// [`Handle`]) and the buffers that remember it ([`StreamUse`]).
struct Owned(RawStream, Device);

/// What every `Stream` value of a created stream shares. Buffers hold only a `Weak` to it,
/// so they can tell when no handle is left, and so no new work can reach the stream.
struct Handle(Arc<Owned>);

impl Drop for Owned {
    fn drop(&mut self) {
        // The stream was created by `Stream::new_on` and is destroyed once, here; queued
        // work still finishes.
        if self.1.check_fault().is_ok() {
            self.1.backend().destroy_stream(self.0);
        }
    }
}

/// A CUDA stream. Work queued on one stream runs in order; different streams may overlap.
/// On the host device ([`Device::host`]) work runs when it is queued: a stream is then an
/// ordering token, and synchronising it reports the faults of Rust kernels.
///
/// Every device has a non-blocking default stream; each thread has a *current* stream (the
/// current device's default stream unless overridden with [`Stream::with`] or
/// [`Stream::make_current`]) that array operations and kernels use.
///
/// # Arrays and streams
///
/// An array's memory belongs to the stream that was current when it was made (its *own*
/// stream): it is allocated there, and freed there when the last view is dropped. cuprum
/// keeps memory safe across streams by itself:
///
/// - when an array is first used by work on another stream (a kernel, a raw launch, a
///   copy, an operation, cuBLAS, cuRAND), that stream first waits for the work queued so
///   far on the array's own stream (its allocation and whatever wrote it);
/// - when the array is dropped, its memory returns to the pool only after all work queued
///   on every stream that used it, so a new array can never receive memory that a kernel
///   on another stream is still writing.
///
/// Ordering between *later* uses on different streams is yours, as in CUDA: queue an
/// [`Event`](super::Event) and [`wait_event`](Stream::wait_event), or
/// [`wait_for`](Stream::wait_for) the other stream. Addresses taken with
/// [`Array::data_ptr`](crate::Array::data_ptr) and passed outside cuprum are outside this
/// rule too: order that work yourself.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, Stream};
/// let s = Stream::new()?;
/// let a = s.with(|| Array::ones(&[1000], DType::F32))?; // queued on `s`
/// s.synchronize()?;
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct Stream {
    raw: RawStream,
    device: Device,
    _owner: Option<Arc<Handle>>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Stream({:#x} on device {})",
            self.raw.0,
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
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let s = cuprum::Stream::new()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn new() -> Result<Stream> {
        Stream::new_on(Device::current()?)
    }

    /// A new non-blocking stream on `device`.
    pub fn new_on(device: Device) -> Result<Stream> {
        device.bind()?;
        let raw = device.backend().create_stream()?;
        Ok(Stream {
            raw,
            device,
            _owner: Some(Arc::new(Handle(Arc::new(Owned(raw, device))))),
        })
    }

    /// Whether this is its device's default stream (which lives as long as the process).
    #[inline]
    pub(crate) fn is_device_default(&self) -> bool {
        self.raw == self.device.backend().default_stream()
    }

    /// Whether this is a GPU's CUDA legacy default stream (`CU_STREAM_LEGACY`, borrowed).
    pub(crate) fn is_legacy_default(&self) -> bool {
        self.raw.0 == CU_STREAM_LEGACY && !self.device.is_host()
    }

    pub(crate) fn borrowed(device: Device, raw: RawStream) -> Stream {
        Stream {
            raw,
            device,
            _owner: None,
        }
    }

    /// The calling thread's current stream.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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

    /// The stream that work on `device`'s arrays goes to when no stream is given: the
    /// current stream when it belongs to `device`, else `device`'s default stream.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let d0 = cuprum::Device::get(0)?;
    /// assert_eq!(cuprum::Stream::for_device(d0)?.device(), d0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn for_device(device: Device) -> Result<Stream> {
        if let Some(s) = CURRENT.with(|c| c.borrow().clone())
            && s.device == device
        {
            return Ok(s);
        }
        device.check_fault()?;
        Ok(device.default_stream())
    }

    /// Runs `f` with this stream as the calling thread's current stream (and its device as
    /// the current device), then restores the previous ones, even if `f` panics. Arrays
    /// made inside belong to this stream (see [Arrays and streams](Stream#arrays-and-streams)):
    /// they keep it alive, so dropping the `Stream` handle first is fine.
    pub fn with<R>(&self, f: impl FnOnce() -> R) -> R {
        let _guard = self.make_current();
        self.device.with(f)
    }

    /// Makes this the current stream of the calling thread until the guard is dropped.
    /// Arrays made meanwhile belong to this stream (see
    /// [Arrays and streams](Stream#arrays-and-streams)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
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

    /// Sets the calling thread's current stream (`None`: the current device's default
    /// stream) and returns the previous setting, for callers whose scopes are not Rust
    /// scopes (Python's `with stream:` and `stream.use()`); Rust code uses
    /// [`make_current`](Stream::make_current).
    #[cfg(feature = "python")]
    pub(crate) fn replace_current(stream: Option<Stream>) -> Option<Stream> {
        CURRENT.with(|c| c.replace(stream))
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Whether all work queued on the stream so far has finished, without waiting (CuPy's
    /// `stream.done`).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let s = cuprum::Stream::new()?;
    /// s.synchronize()?;
    /// assert!(s.is_done()?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn is_done(&self) -> Result<bool> {
        self.device.check_fault()?;
        // The handle is valid while `self` (and so its owner) lives.
        self.device.backend().stream_done(self.raw)
    }

    /// Waits for all work queued on the stream; device faults surface here as errors.
    pub fn synchronize(&self) -> Result<()> {
        super::capture_state::refuse("Stream::synchronize", self.raw.0, self)?;
        self.device.bind()?;
        // The handle is valid while `self` (and so its owner) lives.
        self.device.backend().synchronize_stream(self.raw)?;
        self.device.check_kernel_faults()
    }

    /// Makes future work on this stream wait for all work queued on `other` so far (an
    /// event recorded there and waited on here; nothing when `other` is this stream).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, Stream};
    /// let (s1, s2) = (Stream::new()?, Stream::new()?);
    /// let a = s1.with(|| Array::zeros(&[1 << 20], DType::F32))?;
    /// s1.with(|| a.fill(1.0f32))?;        // a later write on s1
    /// s2.wait_for(&s1)?;                  // s2's next work sees it
    /// let b = s2.with(|| a.copy())?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn wait_for(&self, other: &Stream) -> Result<()> {
        self.wait_for_raw(other.raw, other.device)
    }

    /// [`wait_for`](Stream::wait_for) a stream a buffer remembers.
    pub(crate) fn wait_for_use(&self, other: &StreamUse) -> Result<()> {
        self.wait_for_raw(other.raw, other.device)
    }

    /// How a buffer remembers this stream (see [`StreamUse`]).
    pub(crate) fn remembered(&self) -> StreamUse {
        StreamUse {
            raw: self.raw,
            device: self.device,
            owned: self._owner.as_ref().map(|h| h.0.clone()),
            handle: self._owner.as_ref().map(Arc::downgrade),
        }
    }

    fn wait_for_raw(&self, other_raw: RawStream, other_device: Device) -> Result<()> {
        if (self.raw == other_raw && self.device == other_device) || other_device.is_synchronous() {
            // Work of a synchronous device (the host) has finished when its call returned:
            // nothing to wait for.
            return Ok(());
        }
        if self.device.is_synchronous() {
            // Work here runs when it is queued: it waits on the host for the other stream.
            return Stream::borrowed(other_device, other_raw).synchronize();
        }
        self.device.check_fault()?;
        other_device.check_fault()?;
        self.device
            .backend()
            .stream_wait_stream(self.raw, other_device.backend(), other_raw)
    }

    /// The raw `CUstream` handle, for interop with other CUDA libraries (an ordering token
    /// on the host device).
    pub fn as_raw(&self) -> *mut std::ffi::c_void {
        self.raw.0 as *mut std::ffi::c_void
    }

    /// The raw `CUstream` handle (the same as [`as_raw`](Stream::as_raw)), e.g. to pass to
    /// another library's `__dlpack__(stream=…)`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let s = cuprum::Stream::new()?;
    /// assert_eq!(s.raw_handle(), s.as_raw());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn raw_handle(&self) -> *mut std::ffi::c_void {
        self.as_raw()
    }

    /// A stream another library made (a `CUstream` of `device`'s primary context, or the
    /// driver's special handles `0x1` = the legacy default stream and `0x2` = the
    /// per-thread default stream), borrowed: cuprum queues work on it and orders it with
    /// events, and never destroys it. On the host device any handle is an ordering token.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Device, Stream};
    /// let dev = Device::current()?;
    /// let own = Stream::new_on(dev)?;
    /// // SAFETY: `own` outlives `s` and every array work on `s` uses.
    /// let s = unsafe { Stream::from_raw(&dev, own.raw_handle())? };
    /// assert_eq!(s, own);
    /// s.synchronize()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for a null handle on a GPU (the legacy default stream is `0x1`
    /// there: a null handle's meaning depends on how the other library was compiled).
    ///
    /// # Safety
    /// `handle` is a live stream of `device` (or `0x1`/`0x2` on a GPU), and it stays alive
    /// as long as any work queued on it through cuprum may still run and any array used on
    /// it is alive (an array remembers the streams that used it, to order its free).
    pub unsafe fn from_raw(device: &Device, handle: *mut std::ffi::c_void) -> Result<Stream> {
        if handle.is_null() && !device.is_synchronous() {
            crate::error::bail!(
                InvalidArgument,
                "a null CUstream handle for {device}: pass 0x1 for the legacy default stream or \
                 0x2 for the per-thread default stream"
            );
        }
        device.bind()?;
        Ok(Stream::borrowed(*device, RawStream(handle as usize)))
    }

    #[inline]
    pub(crate) fn raw(&self) -> RawStream {
        self.raw
    }

    /// Queues a copy of `bytes` host bytes at `src` to device memory at `dst` on this
    /// stream and returns at once (page-locked memory; pageable memory is read before
    /// returning).
    ///
    /// # Safety
    /// `dst..dst + bytes` lies in live memory of this stream's device and `src..src +
    /// bytes` in host memory, both allocated and `src` unchanged until the copy has run in
    /// this stream's order.
    pub(crate) unsafe fn copy_htod_async(
        &self,
        dst: u64,
        src: *const u8,
        bytes: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract is the backend's.
        unsafe {
            self.device
                .backend()
                .copy_htod_async(dst, src, bytes, self.raw)
        }
    }

    /// Queues a copy of `bytes` device bytes at `src` into host memory at `dst` on this
    /// stream and returns at once (page-locked memory).
    ///
    /// # Safety
    /// As for [`copy_htod_async`](Stream::copy_htod_async); nobody else reads or writes
    /// `dst..dst + bytes` until the copy has run in this stream's order.
    pub(crate) unsafe fn copy_dtoh_async(
        &self,
        dst: *mut u8,
        src: u64,
        bytes: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract is the backend's.
        unsafe {
            self.device
                .backend()
                .copy_dtoh_async(dst, src, bytes, self.raw)
        }
    }
}

/// A stream as a buffer remembers it after work on it used the buffer: it keeps the CUDA
/// stream alive (so the buffer's free can still wait for it) but not the user's handle, so
/// that [`is_orphan`](StreamUse::is_orphan) can tell when no new work can reach it.
#[derive(Clone)]
pub(crate) struct StreamUse {
    raw: RawStream,
    device: Device,
    owned: Option<Arc<Owned>>,
    handle: Option<Weak<Handle>>,
}

impl StreamUse {
    /// Whether this is `stream`.
    #[inline]
    pub(crate) fn is(&self, stream: &Stream) -> bool {
        self.raw == stream.raw && self.device == stream.device
    }

    /// True when no `Stream` handle of it is left anywhere: every piece of work it will
    /// ever run has been queued (a device's default stream is never an orphan).
    pub(crate) fn is_orphan(&self) -> bool {
        self.handle.as_ref().is_some_and(|w| w.strong_count() == 0)
    }

    /// Waits on the host for the stream's work.
    pub(crate) fn synchronize(&self) -> Result<()> {
        let _keep = &self.owned;
        Stream::borrowed(self.device, self.raw).synchronize()
    }
}

impl Device {
    /// The device's default stream: a non-blocking stream created with the device (it does
    /// not synchronise with the legacy NULL stream).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let dev = cuprum::Device::current()?;
    /// assert_eq!(dev.default_stream().device(), dev);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn default_stream(self) -> Stream {
        Stream::borrowed(self, self.backend().default_stream())
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
