//! The host device's memory ([`MemoryBackend`] for [`HostDevice`]): aligned host
//! allocations, copies that have finished when they return, "pinned" memory that is
//! ordinary aligned memory, and no peers.

use super::{HostDevice, PINNED_ALIGN};
use crate::error::Result;
use crate::runtime::backend::{DeviceBackend, MemoryBackend, PoolBytes, RawStream};

impl MemoryBackend for HostDevice {
    fn alloc(&self, bytes: usize, _stream: RawStream) -> Result<Option<u64>> {
        Ok(self.alloc_block(bytes))
    }

    unsafe fn free(&self, ptr: u64, bytes: usize, _stream: RawStream) -> bool {
        self.free_block(ptr, bytes);
        true
    }

    fn pool_bytes(&self) -> Result<PoolBytes> {
        // No pool: what the device holds is its live buffers plus the cache.
        let held = self.held_bytes() as u64;
        Ok(PoolBytes {
            reserved: held,
            used: held,
        })
    }

    fn trim_pool(&self, _keep: usize) -> Result<()> {
        Ok(())
    }

    fn set_release_threshold(&self, _bytes: usize) -> Result<()> {
        Ok(())
    }

    unsafe fn copy_dtod(&self, dst: u64, src: u64, bytes: usize, _s: RawStream) -> Result<()> {
        // SAFETY: callers pass ranges inside live host buffers of at least `bytes` bytes
        // (they may overlap: a memmove).
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
        Ok(())
    }

    unsafe fn zero(&self, dst: u64, bytes: usize, _s: RawStream) -> Result<()> {
        // SAFETY: callers pass a range inside a live host buffer.
        unsafe { std::ptr::write_bytes(dst as *mut u8, 0, bytes) };
        Ok(())
    }

    unsafe fn copy_htod(&self, dst: u64, src: &[u8], _s: RawStream) -> Result<()> {
        // SAFETY: `dst` points to at least `src.len()` bytes of a live host buffer, which
        // `src` (a Rust slice) cannot overlap mutably.
        unsafe { std::ptr::copy(src.as_ptr(), dst as *mut u8, src.len()) };
        Ok(())
    }

    unsafe fn copy_dtoh(&self, dst: *mut u8, bytes: usize, src: u64, _s: RawStream) -> Result<()> {
        // SAFETY: `src` points to at least `bytes` bytes of a live host buffer and `dst` to
        // as many bytes nobody else uses meanwhile (the work before has finished: the host
        // device is synchronous).
        unsafe { std::ptr::copy(src as *const u8, dst, bytes) };
        Ok(())
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<Option<*mut u8>> {
        // Ordinary memory: the host device's copies are memcpys.
        let Ok(layout) = std::alloc::Layout::from_size_align(bytes, PINNED_ALIGN) else {
            return Ok(None);
        };
        // SAFETY: `bytes > 0` (the caller's contract), so the layout is not zero-sized.
        let p = unsafe { std::alloc::alloc(layout) };
        Ok((!p.is_null()).then_some(p))
    }

    unsafe fn free_pinned(&self, ptr: *mut u8, bytes: usize) {
        if let Ok(layout) = std::alloc::Layout::from_size_align(bytes, PINNED_ALIGN) {
            // SAFETY: `ptr` came from `alloc_pinned(bytes)`, i.e. `alloc` with this layout.
            unsafe { std::alloc::dealloc(ptr, layout) };
        }
    }

    unsafe fn register_host(&self, _ptr: *mut u8, _bytes: usize) -> Result<()> {
        Ok(())
    }

    unsafe fn unregister_host(&self, _ptr: *mut u8) {}

    unsafe fn copy_htod_async(
        &self,
        dst: u64,
        src: *const u8,
        bytes: usize,
        _s: RawStream,
    ) -> Result<()> {
        // SAFETY: the caller guarantees both ranges (the host device copies at once).
        unsafe { std::ptr::copy(src, dst as *mut u8, bytes) };
        Ok(())
    }

    unsafe fn copy_dtoh_async(
        &self,
        dst: *mut u8,
        src: u64,
        bytes: usize,
        _s: RawStream,
    ) -> Result<()> {
        // SAFETY: the caller guarantees both ranges (the host device copies at once).
        unsafe { std::ptr::copy(src as *const u8, dst, bytes) };
        Ok(())
    }

    fn check_foreign(&self, _ptr: u64) -> Result<()> {
        // Kernels of the host device address every host pointer.
        Ok(())
    }

    unsafe fn write_sync(&self, dst: u64, src: &[u8]) -> Result<()> {
        // SAFETY: the caller guarantees `dst..dst + src.len()` in live host memory that no
        // kernel uses meanwhile.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        Ok(())
    }

    fn can_access_peer(&self, _peer: &dyn DeviceBackend) -> Result<bool> {
        // The host device and a GPU never access each other's memory.
        Ok(false)
    }

    fn enable_peer_access(&self, _peer: &dyn DeviceBackend) -> Result<()> {
        Ok(())
    }

    unsafe fn copy_from_peer(
        &self,
        _dst: u64,
        _src: u64,
        _peer: &dyn DeviceBackend,
        _bytes: usize,
        _s: RawStream,
    ) -> Result<bool> {
        Ok(false)
    }
}
