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
/// use cuprum::dlpack::ConsumerStream;
/// assert_eq!(ConsumerStream::from_python_int(-1)?, None);
/// assert_eq!(ConsumerStream::from_python_int(1)?, Some(ConsumerStream::Legacy));
/// assert_eq!(ConsumerStream::from_python_int(0x1234)?, Some(ConsumerStream::Raw(0x1234)));
/// assert!(ConsumerStream::from_python_int(0).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConsumerStream {
    /// The legacy default stream (`CU_STREAM_LEGACY`, Python's `1`).
    Legacy,
    /// The per-thread default stream (`CU_STREAM_PER_THREAD`, Python's `2`).
    PerThread,
    /// A `CUstream` handle of the array's device (Python's integers above 2). It must be a
    /// live stream: it is passed to the driver as it is.
    Raw(usize),
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
    pub fn from_python_int(value: i64) -> Result<Option<ConsumerStream>> {
        match value {
            -1 => Ok(None),
            1 => Ok(Some(ConsumerStream::Legacy)),
            2 => Ok(Some(ConsumerStream::PerThread)),
            v if v > 2 => Ok(Some(ConsumerStream::Raw(v as usize))),
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
            ConsumerStream::Raw(h) => std::ptr::without_provenance_mut(h),
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
    if device.is_host() {
        // Work of the host device has finished when its call returned.
        return Ok(());
    }
    // SAFETY: the default streams' handles are always valid on a GPU; a raw handle is the
    // consumer's live stream of this device (the array API's contract, stated on `Raw`).
    // The stream is only used within this call unless it lives as long as the process.
    let stream = unsafe { Stream::from_raw(&device, consumer.handle()) }?;
    if consumer.is_process_lifetime() {
        // Records the stream as a user (its first use waits for the own stream).
        let _ = array.buf.ptr_on(&stream);
    }
    array.buf.order_before(&stream)
}
