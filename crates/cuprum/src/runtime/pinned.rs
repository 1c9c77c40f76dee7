//! Page-locked host memory, untyped: allocated through a device's backend
//! (`cuMemHostAlloc` on a GPU, portable to every GPU's context; ordinary memory on the host
//! device) or registered from memory the program owns (`cuMemHostRegister`). The typed,
//! public face is `array::pinned::PinnedBuffer`.
//!
//! A `PinnedBytes` frees (or unregisters) its memory when dropped; whoever queues an
//! asynchronous copy with it keeps it alive until the copy has finished (the public type
//! does so by owning it inside the copy's guard).

use super::device::Device;
use super::memory::human_bytes;
use crate::error::{Result, bail};

/// How the memory came to be locked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Allocated by the backend: freed on drop.
    Allocated,
    /// The program's own memory, registered: unregistered on drop (the owner frees it).
    Registered,
}

/// `bytes` of page-locked host memory of one backend.
#[derive(Debug)]
pub(crate) struct PinnedBytes {
    ptr: *mut u8,
    bytes: usize,
    device: Device,
    origin: Origin,
}

// SAFETY: the memory is plain host memory owned by this value; which thread frees it does
// not matter to the driver (portable allocations belong to no thread or context).
unsafe impl Send for PinnedBytes {}
// SAFETY: shared access only reads the pointer and size.
unsafe impl Sync for PinnedBytes {}

impl PinnedBytes {
    /// `bytes` of uninitialised page-locked memory for `device`'s copies (no allocation
    /// for zero bytes: the pointer is then `align` as an address, never dereferenced).
    pub(crate) fn alloc(device: Device, bytes: usize, align: usize) -> Result<PinnedBytes> {
        if bytes == 0 {
            return Ok(PinnedBytes {
                ptr: std::ptr::without_provenance_mut(align.max(1)),
                bytes,
                device,
                origin: Origin::Allocated,
            });
        }
        device.bind()?;
        match device.backend().alloc_pinned(bytes)? {
            Some(ptr) => Ok(PinnedBytes {
                ptr,
                bytes,
                device,
                origin: Origin::Allocated,
            }),
            None => bail!(
                OutOfMemory,
                "out of page-locked host memory: {} of pinned host memory requested for {}",
                human_bytes(bytes),
                device
            ),
        }
    }

    /// Registers `bytes` of the program's memory at `ptr` for `device`'s copies.
    ///
    /// # Safety
    /// `ptr..ptr + bytes` is one live allocation that outlives the result.
    pub(crate) unsafe fn register(device: Device, ptr: *mut u8, bytes: usize) -> Result<Self> {
        if bytes > 0 {
            device.bind()?;
            // SAFETY: forwarded from the caller.
            unsafe { device.backend().register_host(ptr, bytes) }?;
        }
        Ok(PinnedBytes {
            ptr,
            bytes,
            device,
            origin: Origin::Registered,
        })
    }

    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub(crate) fn device(&self) -> Device {
        self.device
    }

    pub(crate) fn is_registered(&self) -> bool {
        self.origin == Origin::Registered
    }
}

impl Drop for PinnedBytes {
    fn drop(&mut self) {
        if self.bytes == 0 {
            return;
        }
        let backend = self.device.backend();
        // SAFETY: the memory is this value's, allocated or registered by `backend`; no copy
        // uses it any more (copies keep their `PinnedBytes` alive until they finish).
        unsafe {
            match self.origin {
                Origin::Allocated => backend.free_pinned(self.ptr, self.bytes),
                Origin::Registered => backend.unregister_host(self.ptr),
            }
        }
    }
}
