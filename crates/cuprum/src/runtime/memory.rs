//! Device memory from the stream-ordered allocator. The device's pool keeps freed memory
//! (release threshold = ∞), so a repeat allocation is a pool lookup of about a microsecond,
//! like CuPy's memory pool.
//!
//! In front of the driver's pool sits a small host-side cache of freed blocks of the
//! devices' default streams (keyed by device and size, rounded up to 512 bytes): reusing
//! one costs a lock and a vector pop instead of two driver calls (~1 µs each), which is
//! what an allocating elementwise call spends most of its host time on. A block is only
//! reused on the stream it was freed on, so stream order keeps the reuse safe, as in the
//! driver's own pool. Blocks over 256 MiB are not cached, the cache holds at most 4 GiB,
//! and an allocation that runs out of memory empties it before retrying.
//!
//! Ordering rule: a buffer is allocated and freed on the stream that was current when it was
//! created. Work on another stream that uses the buffer must be finished (or ordered with an
//! [`Event`](super::Event)) before the last handle to the buffer is dropped.

use super::driver::{DriverResultExt, driver_error};
use super::stream::Stream;
use crate::error::{Result, err};
use cudarc::driver::{result, sys};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Allocation granularity (and the cache's size classes).
const GRANULE: usize = 512;
/// Largest block the cache keeps.
const CACHE_MAX_BLOCK: usize = 256 << 20;
/// Most bytes the cache holds.
const CACHE_MAX_TOTAL: usize = 4 << 30;

/// Freed default-stream blocks per (device ordinal, bytes).
#[derive(Default)]
struct BlockCache {
    free: Mutex<FxHashMap<(usize, usize), Vec<sys::CUdeviceptr>>>,
    bytes: AtomicUsize,
}

fn cache() -> &'static BlockCache {
    static C: OnceLock<BlockCache> = OnceLock::new();
    C.get_or_init(BlockCache::default)
}

impl BlockCache {
    fn take(&self, device: usize, bytes: usize) -> Option<sys::CUdeviceptr> {
        let mut m = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let p = m.get_mut(&(device, bytes))?.pop()?;
        self.bytes.fetch_sub(bytes, Ordering::Relaxed);
        Some(p)
    }

    /// Keeps a block; false when it should go back to the driver instead.
    fn give(&self, device: usize, bytes: usize, ptr: sys::CUdeviceptr) -> bool {
        if bytes > CACHE_MAX_BLOCK || self.bytes.load(Ordering::Relaxed) + bytes > CACHE_MAX_TOTAL {
            return false;
        }
        let mut m = self.free.lock().unwrap_or_else(|p| p.into_inner());
        m.entry((device, bytes)).or_default().push(ptr);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        true
    }

    /// Returns every block of `device` to the driver (on its default stream).
    fn flush(&self, device: super::Device) {
        let blocks: Vec<(usize, Vec<sys::CUdeviceptr>)> = {
            let mut m = self.free.lock().unwrap_or_else(|p| p.into_inner());
            let keys: Vec<(usize, usize)> = m
                .keys()
                .filter(|k| k.0 == device.ordinal())
                .copied()
                .collect();
            keys.into_iter()
                .filter_map(|k| m.remove(&k).map(|v| (k.1, v)))
                .collect()
        };
        let stream = device.default_stream();
        for (bytes, ptrs) in blocks {
            for p in ptrs {
                self.bytes.fetch_sub(bytes, Ordering::Relaxed);
                // SAFETY: each block came from cuMemAllocAsync on the default stream and
                // left every Buffer when it entered the cache; it is freed once, here.
                let _ = unsafe { result::free_async(p, stream.raw()) };
            }
        }
    }
}

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
        let bytes = bytes.div_ceil(GRANULE) * GRANULE;
        let device = stream.device();
        let cached = stream.is_device_default();
        if cached && let Some(ptr) = cache().take(device.ordinal(), bytes) {
            return Ok(Buffer {
                ptr,
                bytes,
                stream: stream.clone(),
                owner: None,
            });
        }
        device.bind()?;
        // SAFETY: the context is current and the stream is valid; the result is owned by
        // the returned Buffer, which frees it once.
        let first = unsafe { result::malloc_async(stream.raw(), bytes) };
        let ptr = match first {
            Ok(p) => p,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                // Memory the pool keeps for other streams may become usable after a
                // synchronisation; give it back and try once more.
                cache().flush(device);
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
        if self.stream.is_device_default()
            && cache().give(self.stream.device().ordinal(), self.bytes, self.ptr)
        {
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

/// Sets `bytes` bytes at a device address to zero on `stream`.
pub(crate) fn zero_device(dst: u64, bytes: usize, stream: &Stream) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    stream.device().bind()?;
    // SAFETY: callers pass a range inside a live buffer used in `stream` order.
    unsafe { result::memset_d8_async(dst, 0, bytes, stream.raw()) }.call("cuMemsetD8Async")
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
