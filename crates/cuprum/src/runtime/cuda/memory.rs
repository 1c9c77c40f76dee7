//! A GPU's memory ([`MemoryBackend`] for [`CudaDevice`]): blocks of its default pool
//! (stream-ordered `cuMemAllocAsync`/`cuMemFreeAsync`), copies and fills queued on a stream,
//! pinned and registered host memory, large host copies through the pinned lanes of
//! `staging.rs`, foreign pointers, and peer access between GPUs.

use super::{CudaDevice, driver, staging, stream};
use crate::error::Result;
use crate::runtime::backend::{DeviceBackend, MemoryBackend, PoolBytes, RawStream};

impl MemoryBackend for CudaDevice {
    fn alloc(&self, bytes: usize, s: RawStream) -> Result<Option<u64>> {
        self.bind_ctx()?;
        // SAFETY: the context is current and the stream is one of its streams; the block is
        // owned by the caller's Buffer, which frees it once.
        match unsafe { driver::malloc_async(stream(s), bytes) } {
            Ok(p) => Ok(Some(p)),
            Err(e) if driver::is_out_of_memory(&e) => Ok(None),
            Err(e) => Err(self.error(e, "cuMemAllocAsync")),
        }
    }

    unsafe fn free(&self, ptr: u64, _bytes: usize, s: RawStream) -> bool {
        if self.bind_ctx().is_err() {
            return false;
        }
        // SAFETY: `ptr` came from cuMemAllocAsync on this device and is freed once, here,
        // after the work queued on the stream so far (the caller's contract).
        unsafe { driver::free_async(ptr, stream(s)) }.is_ok()
    }

    fn pool_bytes(&self) -> Result<PoolBytes> {
        let (reserved, used) = self.check(
            driver::pool_reserved_and_used(self.pool),
            "cuMemPoolGetAttribute",
        )?;
        Ok(PoolBytes { reserved, used })
    }

    fn trim_pool(&self, keep: usize) -> Result<()> {
        self.bind_ctx()?;
        self.check(driver::pool_trim(self.pool, keep), "cuMemPoolTrimTo")
    }

    fn set_release_threshold(&self, bytes: usize) -> Result<()> {
        self.check(
            driver::pool_set_release_threshold(self.pool, bytes),
            "cuMemPoolSetAttribute(RELEASE_THRESHOLD)",
        )
    }

    unsafe fn copy_dtod(&self, dst: u64, src: u64, bytes: usize, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the caller guarantees both ranges.
        self.check(
            unsafe { driver::copy_dtod(dst, src, bytes, stream(s)) },
            "cuMemcpyDtoDAsync",
        )
    }

    unsafe fn zero(&self, dst: u64, bytes: usize, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the caller guarantees the range.
        self.check(
            unsafe { driver::zero(dst, bytes, stream(s)) },
            "cuMemsetD8Async",
        )
    }

    unsafe fn copy_htod(&self, dst: u64, src: &[u8], s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        if src.len() >= staging::STAGED_MIN {
            // SAFETY: the context is current; the caller guarantees the device range, and
            // `src` is borrowed for the call.
            let staged = unsafe {
                self.staging
                    .upload(dst, src.as_ptr(), src.len(), stream(s), &self.ctx)
            };
            if self.check(staged, "a staged host-to-device copy")? {
                return Ok(());
            }
        }
        // SAFETY: the caller guarantees the device range; for pageable host memory the
        // driver copies out of `src` before returning.
        self.check(
            unsafe { driver::copy_htod(dst, src, stream(s)) },
            "cuMemcpyHtoDAsync",
        )?;
        // From page-locked memory (CuPy's `alloc_pinned_memory`, a pinned PyTorch tensor
        // seen through NumPy …) the copy is truly asynchronous: wait for it, so that `src`
        // may change once this returns, as the contract says.
        if let Ok(Some((1, _))) = driver::pointer_info(src.as_ptr() as u64) {
            // SAFETY: `s` is a live stream of this context (the caller's).
            self.check(
                unsafe { driver::stream_synchronize(stream(s)) },
                "cuStreamSynchronize",
            )?;
        }
        Ok(())
    }

    unsafe fn copy_dtoh(&self, dst: *mut u8, bytes: usize, src: u64, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        if bytes >= staging::STAGED_MIN {
            // SAFETY: the context is current; the caller guarantees both ranges.
            let staged = unsafe { self.staging.download(dst, src, bytes, stream(s), &self.ctx) };
            if self.check(staged, "a staged device-to-host copy")? {
                return Ok(());
            }
        }
        // SAFETY: the caller guarantees the device range and lends `dst` until this returns,
        // after the stream has been synchronised (also when queuing failed: nothing then
        // writes `dst`).
        let queued = unsafe { driver::copy_dtoh_raw(dst, src, bytes, stream(s)) };
        // SAFETY: the stream is one of this device's.
        let done = unsafe { driver::stream_synchronize(stream(s)) };
        self.check(queued, "cuMemcpyDtoHAsync")?;
        self.check(done, "cuStreamSynchronize")
    }

    fn release_staging(&self) {
        if self.bind_ctx().is_ok() {
            self.staging.release();
        }
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<Option<*mut u8>> {
        self.bind_ctx()?;
        match driver::host_alloc(bytes) {
            Ok(p) => Ok(Some(p)),
            Err(e) if driver::is_out_of_memory(&e) => Ok(None),
            Err(e) => Err(self.error(e, "cuMemHostAlloc")),
        }
    }

    unsafe fn free_pinned(&self, ptr: *mut u8, _bytes: usize) {
        if self.bind_ctx().is_ok() {
            // SAFETY: forwarded from the caller.
            let _ = unsafe { driver::host_free(ptr) };
        }
    }

    unsafe fn register_host(&self, ptr: *mut u8, bytes: usize) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: forwarded from the caller.
        self.check(
            unsafe { driver::host_register(ptr, bytes) },
            "cuMemHostRegister",
        )
    }

    unsafe fn unregister_host(&self, ptr: *mut u8) {
        if self.bind_ctx().is_ok() {
            // SAFETY: forwarded from the caller.
            let _ = unsafe { driver::host_unregister(ptr) };
        }
    }

    unsafe fn copy_htod_async(
        &self,
        dst: u64,
        src: *const u8,
        bytes: usize,
        s: RawStream,
    ) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: forwarded from the caller.
        self.check(
            unsafe { driver::copy_htod_raw(dst, src, bytes, stream(s)) },
            "cuMemcpyHtoDAsync",
        )
    }

    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut u8,
        src: u64,
        bytes: usize,
        s: RawStream,
    ) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: forwarded from the caller.
        self.check(
            unsafe { driver::copy_dtoh_raw(dst, src, bytes, stream(s)) },
            "cuMemcpyDtoHAsync",
        )
    }

    fn check_foreign(&self, ptr: u64) -> Result<()> {
        self.bind_ctx()?;
        let me = self.ordinal;
        match self.check(driver::pointer_info(ptr), "cuPointerGetAttribute")? {
            None => crate::error::bail!(
                InvalidArgument,
                "address {ptr:#x} is not memory the CUDA driver knows (pageable host memory?): \
                 expected device, managed or page-locked memory GPU {me} can address"
            ),
            // Device memory of another GPU (unified memory and page-locked host memory are
            // addressable from every GPU).
            Some((2, other)) if other != me as i32 => crate::error::bail!(
                DeviceMismatch,
                "address {ptr:#x} is device memory of GPU {other}, given as memory of GPU {me}"
            ),
            Some(_) => Ok(()),
        }
    }

    unsafe fn write_sync(&self, dst: u64, src: &[u8]) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the caller guarantees the device range.
        self.check(unsafe { driver::copy_htod_sync(dst, src) }, "cuMemcpyHtoD")
    }

    fn can_access_peer(&self, peer: &dyn DeviceBackend) -> Result<bool> {
        // The host device and a GPU never access each other's memory.
        let Some(p) = Self::peer(peer) else {
            return Ok(false);
        };
        self.check(
            driver::can_access_peer(&self.ctx, &p.ctx),
            "cuDeviceCanAccessPeer",
        )
    }

    fn enable_peer_access(&self, peer: &dyn DeviceBackend) -> Result<()> {
        let Some(p) = Self::peer(peer) else {
            return Ok(());
        };
        self.bind_ctx()?;
        self.check(driver::enable_peer_access(&p.ctx), "cuCtxEnablePeerAccess")
    }

    unsafe fn copy_from_peer(
        &self,
        dst: u64,
        src: u64,
        peer: &dyn DeviceBackend,
        bytes: usize,
        s: RawStream,
    ) -> Result<bool> {
        let Some(p) = Self::peer(peer) else {
            return Ok(false);
        };
        self.bind_ctx()?;
        // SAFETY: the caller guarantees both ranges; the contexts are the two devices'
        // primary contexts and `s` is a stream of this (current) one.
        let r = unsafe {
            driver::copy_peer(
                dst,
                self.ctx.cu_ctx(),
                src,
                p.ctx.cu_ctx(),
                bytes,
                stream(s),
            )
        };
        self.check(r, "cuMemcpyPeerAsync").map(|()| true)
    }
}
