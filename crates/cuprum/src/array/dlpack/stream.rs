//! [`ConsumerStream`]: the stream a DLPack consumer names (the array API's
//! `__dlpack__(stream=…)`), and ordering an exported array's pending work before it.

use crate::array::Array;
use crate::error::{Result, bail};
use crate::runtime::Stream;
use std::ffi::c_void;

/// The stream a consumer will use an exported tensor on, as the Python array API's
/// `__dlpack__(stream=…)` passes it for CUDA: `1` the legacy default stream, `2` the
/// per-thread default stream, a larger number a `CUstream` handle (`-1`, no ordering
/// wanted, is `None`).
///
/// ```
/// use cuprum::dlpack::{ConsumerStream, StreamHandle};
/// // SAFETY: the values below 3 name no stream handle; 0x1234 is only compared, never used.
/// unsafe {
///     assert_eq!(ConsumerStream::from_python_int(-1)?, None);
///     assert_eq!(ConsumerStream::from_python_int(1)?, Some(ConsumerStream::Legacy));
///     let raw = ConsumerStream::from_python_int(0x1234)?;
///     assert_eq!(raw, Some(ConsumerStream::Raw(StreamHandle::new(0x1234))));
///     assert!(ConsumerStream::from_python_int(0).is_err());
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConsumerStream {
    /// The legacy default stream (`CU_STREAM_LEGACY`, Python's `1`).
    Legacy,
    /// The per-thread default stream (`CU_STREAM_PER_THREAD`, Python's `2`).
    PerThread,
    /// A `CUstream` handle of the array's device (Python's integers above 2), made only
    /// through the `unsafe` [`StreamHandle::new`]: the driver is given it as it is.
    Raw(StreamHandle),
}

/// A `CUstream` handle a consumer names: only made by `unsafe` code that vouches it is a
/// live stream of the exported array's device for as long as it is used (the driver takes
/// it as it is; a stale or invented handle would be undefined behaviour there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamHandle(usize);

impl StreamHandle {
    /// Wraps a consumer's `CUstream` handle.
    ///
    /// # Safety
    /// `handle` is a live stream of the device of every array exported with it, and stays
    /// live until those exports have returned.
    pub unsafe fn new(handle: usize) -> StreamHandle {
        StreamHandle(handle)
    }

    /// The handle's value.
    pub fn get(self) -> usize {
        self.0
    }
}

impl ConsumerStream {
    /// Reads the integer Python's `__dlpack__(stream=…)` received: `-1` → `None` (no
    /// ordering), `1` → [`Legacy`](ConsumerStream::Legacy), `2` →
    /// [`PerThread`](ConsumerStream::PerThread), `> 2` → [`Raw`](ConsumerStream::Raw).
    /// (Python's `None` means the legacy default stream for CUDA: pass 1.)
    ///
    /// # Errors
    /// `InvalidArgument` for `0` (ambiguous between the legacy and per-thread default
    /// streams, so the array API disallows it for CUDA) and for values below `-1`.
    ///
    /// # Safety
    /// A value above 2 is a live `CUstream` (the array API's contract with the consumer):
    /// see [`StreamHandle::new`].
    pub unsafe fn from_python_int(value: i64) -> Result<Option<ConsumerStream>> {
        match value {
            -1 => Ok(None),
            1 => Ok(Some(ConsumerStream::Legacy)),
            2 => Ok(Some(ConsumerStream::PerThread)),
            // SAFETY: the caller's guarantee.
            v if v > 2 => Ok(Some(ConsumerStream::Raw(unsafe {
                StreamHandle::new(v as usize)
            }))),
            0 => bail!(
                InvalidArgument,
                "stream=0 for a CUDA array is ambiguous (the array API disallows it): expected \
                 -1 (no ordering), 1 (legacy default stream), 2 (per-thread default stream) or \
                 a CUstream handle"
            ),
            v => bail!(
                InvalidArgument,
                "stream={v}: expected -1 (no ordering), 1 (legacy default stream), 2 \
                 (per-thread default stream) or a CUstream handle (> 2)"
            ),
        }
    }

    /// The handle as the driver takes it (`0x1`, `0x2`, or the stream).
    ///
    /// ```
    /// use cuprum::dlpack::ConsumerStream;
    /// assert_eq!(ConsumerStream::PerThread.handle() as usize, 2);
    /// ```
    pub fn handle(self) -> *mut c_void {
        match self {
            ConsumerStream::Legacy => std::ptr::without_provenance_mut(1),
            ConsumerStream::PerThread => std::ptr::without_provenance_mut(2),
            ConsumerStream::Raw(h) => std::ptr::without_provenance_mut(h.0),
        }
    }

    /// Whether the handle lives as long as the process (the two default streams).
    fn is_process_lifetime(self) -> bool {
        !matches!(self, ConsumerStream::Raw(_))
    }
}

/// Orders every stream's work queued so far on `array`'s memory before `consumer` (event
/// waits). The consumer's stream is also remembered by the buffer when it lives as long as
/// the process (the default streams), so the memory's release waits for the consumer's work
/// too; a raw handle's lifetime is the consumer's, and the DLPack deleter is its word that
/// it no longer uses the memory.
pub(super) fn order_for_consumer(array: &Array, consumer: ConsumerStream) -> Result<()> {
    let device = array.device();
    if device.completes_on_return() {
        // Work of the host device has finished when its call returned.
        return Ok(());
    }
    // SAFETY: the default streams' handles are always valid on a GPU; a raw handle is a
    // live stream of this device (`StreamHandle::new`'s contract).
    // The stream is only used within this call unless it lives as long as the process.
    let stream = unsafe { Stream::from_raw(&device, consumer.handle()) }?;
    if consumer.is_process_lifetime() {
        // Records the stream as a user (its first use waits for the own stream).
        let _ = array.buf.ptr_on(&stream);
    }
    array.buf.order_before(&stream)
}
