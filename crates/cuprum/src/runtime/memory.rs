//! Device memory from the stream-ordered allocator. The device's pool keeps freed memory
//! (release threshold = ∞), so a repeat allocation is a pool lookup of about a microsecond,
//! like CuPy's memory pool.
//!
//! Ordering rule: a buffer is allocated and freed on the stream that was current when it was
//! created. Work on another stream that uses the buffer must be finished (or ordered with an
//! [`Event`](super::Event)) before the last handle to the buffer is dropped.

use super::driver::{DriverResultExt, driver_error};
use super::stream::Stream;
use crate::error::{Result, err};
use cudarc::driver::{result, sys};

/// An owned block of device memory.
pub(crate) struct Buffer {
    ptr: sys::CUdeviceptr,
    bytes: usize,
    stream: Stream,
    /// Set for memory the buffer does not own (a module's global): keeps the module loaded
    /// and is never freed here.
    owner: Option<super::Module>,
}

impl Buffer {
    /// Allocates `bytes` on `stream` (stream-ordered). Zero bytes allocate nothing.
    pub(crate) fn alloc(bytes: usize, stream: &Stream) -> Result<Buffer> {
        if bytes == 0 {
            return Ok(Buffer {
                ptr: 0,
                bytes: 0,
                stream: stream.clone(),
                owner: None,
            });
        }
        let device = stream.device();
        device.bind()?;
        // SAFETY: the context is current and the stream is valid; the result is owned by
        // the returned Buffer, which frees it once.
        let first = unsafe { result::malloc_async(stream.raw(), bytes) };
        let ptr = match first {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                // Memory the pool keeps for other streams may become usable after a
                // synchronisation; give it back and try once more.
                device.synchronize()?;
                // SAFETY: the device's pool lives as long as the process.
                let _ = unsafe { sys::cuMemPoolTrimTo(device.0.pool, 0) };
                // SAFETY: as for the first attempt.
                match unsafe { result::malloc_async(stream.raw(), bytes) } {
                    Ok(p) => p,
                    Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                        let (free, total) = device.memory_info().unwrap_or((0, 0));
                        return Err(err!(
                            OutOfMemory,
                            "out of memory on device {} ({}): requested {} bytes ({}), {} bytes free of {}",
                            device.ordinal(),
                            device.name(),
                            bytes,
                            human_bytes(bytes),
                            free,
                            total
                        ));
                    }
                    Err(e) => return Err(driver_error(e, "cuMemAllocAsync")),
                }
            }
            Err(e) => return Err(driver_error(e, "cuMemAllocAsync")),
        };
        Ok(Buffer {
            ptr,
            bytes,
            stream: stream.clone(),
            owner: None,
        })
    }

    /// Memory owned by a loaded module (a `__device__`/`__constant__` symbol): the buffer
    /// keeps the module alive and never frees the memory.
    pub(crate) fn borrowed(
        ptr: u64,
        bytes: usize,
        stream: &Stream,
        owner: super::Module,
    ) -> Buffer {
        Buffer {
            ptr,
            bytes,
            stream: stream.clone(),
            owner: Some(owner),
        }
    }

    #[inline]
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }
    #[inline]
    pub(crate) fn stream(&self) -> &Stream {
        &self.stream
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.bytes == 0 || self.owner.is_some() {
            return;
        }
        if self.stream.device().bind().is_ok() {
            // SAFETY: `ptr` came from cuMemAllocAsync on this stream and is freed once, in
            // stream order after all work queued on the stream so far.
            let _ = unsafe { result::free_async(self.ptr, self.stream.raw()) };
        }
    }
}

/// Copies `bytes` between device addresses on `stream`.
pub(crate) fn copy_dtod(dst: u64, src: u64, bytes: usize, stream: &Stream) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    stream.device().bind()?;
    // SAFETY: callers pass ranges inside live buffers of at least `bytes` bytes.
    unsafe { result::memcpy_dtod_async(dst, src, bytes, stream.raw()) }.call("cuMemcpyDtoDAsync")
}

/// Copies host bytes to a device address on `stream`. Returns once the host bytes have
/// been read (pageable memory is staged by the driver).
pub(crate) fn copy_htod(dst: u64, src: &[u8], stream: &Stream) -> Result<()> {
    if src.is_empty() {
        return Ok(());
    }
    stream.device().bind()?;
    // SAFETY: `dst` points to at least `src.len()` bytes of a live buffer; for pageable host
    // memory the driver copies out of `src` before returning.
    unsafe { result::memcpy_htod_async(dst, src, stream.raw()) }.call("cuMemcpyHtoDAsync")
}

/// Copies device bytes into host memory on `stream` and waits for the copy.
pub(crate) fn copy_dtoh(dst: &mut [u8], src: u64, stream: &Stream) -> Result<()> {
    if dst.is_empty() {
        return Ok(());
    }
    stream.device().bind()?;
    // SAFETY: `src` points to at least `dst.len()` bytes of a live buffer; the stream is
    // synchronised before `dst` is read or dropped.
    unsafe { result::memcpy_dtoh_async(dst, src, stream.raw()) }.call("cuMemcpyDtoHAsync")?;
    stream.synchronize()
}

/// `1.5 GiB`-style size for messages.
pub(crate) fn human_bytes(b: usize) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", U[i])
    }
}
