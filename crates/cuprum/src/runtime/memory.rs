//! Device memory: the stream-ordered allocator behind a host-side cache of freed blocks,
//! and the rule that keeps a block from being reused while a stream still uses it.
//!
//! **Allocation.** The backend's stream-ordered allocator (on a GPU `cuMemAllocAsync` /
//! `cuMemFreeAsync` on the device's default pool; on the host aligned host memory). In
//! front of it sits a cache of freed blocks of the devices' default streams (by size class,
//! see `pool.rs`): reusing one costs a lock and a pop instead of two driver calls (~1 µs
//! each), which is what an allocating elementwise call spends most of its host time on. A
//! cached block is only reused on the default stream it was freed on, so stream order keeps
//! the reuse safe, as in the driver's own pool. A second cache serves the CUDA legacy
//! default stream (`CU_STREAM_LEGACY`), which PyTorch and CuPy use as their current stream
//! unless told otherwise and which Python calls borrow (`python/stream.rs`): it lives as
//! long as the context, so its blocks, too, are reused only in its own order. Other
//! borrowed streams may be destroyed by their owner, and their blocks go to the pool. The cache keeps blocks of up to 256 MiB,
//! at most 1 GiB per device (and no more than a sixteenth of its memory), and evicts the
//! least recently freed blocks (freed to the pool) when a new one would exceed that; the
//! pool's release threshold follows the peak of what the library holds (see `pool.rs`).
//!
//! **Streams.** A buffer is allocated and freed on the stream it was made on (its *own*
//! stream). Every internal path that hands a buffer's address to the GPU asks for it with
//! [`Buffer::ptr_on`], naming the stream the work goes to. On its own stream that is a
//! pointer compare. On another stream the buffer records that stream (once) and makes it
//! wait for the work queued so far on the own stream (its allocation and whatever wrote
//! it); when the buffer is dropped, its own stream first waits for every recorded stream
//! (an event recorded there), so the block goes back to the cache or the pool only after
//! that work. The recorded streams are a short locked list (`pool::Users`, empty for a
//! buffer only its own stream uses); it keeps those streams alive but not their users'
//! handles: past `MAX_USERS` (8) entries, the streams whose handles are all gone (no new
//! work can reach them) are waited for by the own stream and forgotten, so a long-lived
//! array does not keep every short-lived stream that used it. Addresses taken with the
//! public `Array::data_ptr` are outside this rule: the caller orders that work
//! (`Stream::wait_for` is the public form of the ordering).
//!
//! **Between devices.** `copy_peer` (behind `Array::to_device`) copies on the
//! destination's stream: `cuMemcpyPeerAsync` once peer access is enabled for the pair
//! (`Device::enable_peer_access`, once per ordered pair and process), else staged through
//! host memory (always between a GPU and the host device). The source buffer records the
//! destination stream, so the copy waits for the source's queued work and the source is
//! freed only after the copy. Pool access for peers (`cuMemPoolSetAccess`) is never
//! granted: kernels never touch another device's arrays.
//!
//! **Out of memory.** A failed allocation releases everything the library keeps (reduction
//! scratch and other registered holders, the block cache), synchronises the device, trims
//! the pool to zero and retries once; a second failure (or a request larger than the
//! device's memory, which never reaches the backend) is `ErrorKind::OutOfMemory` with the
//! requested, free and total bytes, and then nothing stays reserved beyond what the program
//! holds. `Device::release_pool_memory` makes the same release on demand and restarts the
//! pool's threshold from what is held. Under a limit (`Device::set_memory_limit`, or
//! `CUPRUM_GPU_MEMORY_LIMIT` / `CUPY_GPU_MEMORY_LIMIT` when the device opens) an allocation
//! from the backend that would take what the device's allocations hold (live and cached,
//! the pool's used bytes) past it first frees the cached blocks, then is `OutOfMemory`
//! naming the limit; the check holds the limit's lock, so concurrent ones cannot overshoot.
//!
//! **Foreign memory.** A buffer may address memory another library owns (an imported DLPack
//! tensor, `Array::from_raw_parts`): the backend checks first that the device can address
//! it (`DeviceBackend::check_foreign`); it follows the same cross-stream rules, but its drop
//! never frees it nor caches it: its owner is dropped once cuprum's work has run
//! (`foreign.rs`).
//!
//! **Drops never abort.** Once the device has faulted, frees are skipped (the context is
//! gone); a buffer whose free cannot be ordered after another stream's work is leaked
//! rather than handed out again.

use super::backend::RawStream;
use super::device::Device;
use super::foreign::{ForeignOwner, Release, Terms};
use super::pool::{CacheOf, Evicted, Users, size_class};
use super::stream::{Stream, StreamUse};
use crate::error::{Error, Result, err};
use std::sync::Mutex;

/// Something else that keeps device memory for reuse (e.g. the reduction scratch): called
/// with the device when memory must be given back (out of memory,
/// `Device::release_pool_memory`). It drops what it keeps for that device.
pub(crate) type ReleaseHook = fn(Device);

fn hooks() -> &'static Mutex<Vec<ReleaseHook>> {
    static H: Mutex<Vec<ReleaseHook>> = Mutex::new(Vec::new());
    &H
}

/// Registers a [`ReleaseHook`] (once per function; later calls are no-ops).
pub(crate) fn on_release(hook: ReleaseHook) {
    let mut h = hooks().lock().unwrap_or_else(|p| p.into_inner());
    if !h.iter().any(|&f| std::ptr::fn_addr_eq(f, hook)) {
        h.push(hook);
    }
}

/// Gives back everything the library keeps for `device`: registered holders, then the block
/// cache; synchronises the device and trims the pool to zero. Afterwards the pool reserves
/// only what live buffers use.
pub(crate) fn release_all(device: Device) -> Result<()> {
    let hs: Vec<ReleaseHook> = hooks().lock().unwrap_or_else(|p| p.into_inner()).clone();
    for h in hs {
        h(device);
    }
    flush_cache(device);
    device.synchronize()?;
    device.backend().release_staging();
    device.backend().trim_pool(0)?;
    // What the program needed before is no guide any more: the threshold starts again from
    // what it holds now.
    let threshold = device.memory().policy().reset();
    device.backend().set_release_threshold(threshold)
}

/// Frees every cached block of `device` (in the order of the stream each was freed on).
fn flush_cache(device: Device) {
    for which in [CacheOf::Default, CacheOf::Legacy] {
        let blocks = device.memory().cache(which).drain();
        let stream = match which {
            CacheOf::Default => device.backend().default_stream(),
            CacheOf::Legacy => RawStream(super::stream::CU_STREAM_LEGACY),
        };
        for (ptr, bytes) in blocks {
            free_block(device, ptr, bytes, stream);
        }
    }
}

/// The freed-block cache that serves `stream`, if any (see the module docs).
fn cache_of(stream: &Stream) -> Option<CacheOf> {
    if stream.is_device_default() {
        Some(CacheOf::Default)
    } else if stream.is_legacy_default() {
        Some(CacheOf::Legacy)
    } else {
        None
    }
}

/// Returns a block to the backend on `stream` (its own stream), in stream order; during a
/// graph capture of that stream the block is kept for the graph instead (see `capture.rs`).
fn free_block(device: Device, ptr: u64, bytes: usize, stream: RawStream) {
    if device.check_fault().is_err() || super::capture_state::defer_free(stream.0, ptr, bytes) {
        return;
    }
    // SAFETY: `ptr` came from the backend's `alloc` on this device, belongs to no Buffer or
    // cache any more, and is freed once, here, after all work queued on `stream` so far.
    if unsafe { device.backend().free(ptr, bytes, stream) } {
        device.memory().policy().freed(bytes);
    }
}

/// Frees a block a graph kept, now (its device has been synchronised).
pub(crate) fn free_now(device: Device, ptr: u64, bytes: usize, stream: &Stream) {
    free_block(device, ptr, bytes, stream.raw());
}

/// The error of an allocation that cannot be satisfied.
fn out_of_memory(device: Device, bytes: usize) -> Error {
    let free = device.memory_info().map(|m| m.0).unwrap_or(0);
    err!(
        OutOfMemory,
        "out of memory on {device}: requested {} bytes ({}), {} bytes ({}) free of {} ({})",
        bytes,
        human_bytes(bytes),
        free,
        human_bytes(free),
        device.total_memory(),
        human_bytes(device.total_memory())
    )
}

/// A block of `bytes` (a size class) from the backend: on failure everything the library
/// keeps is released and the allocation retried once. `requested` is what the caller asked
/// for (for the error message).
fn backend_alloc(bytes: usize, requested: usize, stream: &Stream) -> Result<u64> {
    let device = stream.device();
    let backend = device.backend();
    // Under a limit, its lock is held until the block is allocated (see `DeviceMemory`).
    let guard = device.memory().limit();
    let _limited = match &*guard {
        Err(e) => return Err(e.clone()),
        Ok(Some(limit)) => {
            within_limit(device, bytes, requested, *limit)?;
            Some(guard)
        }
        Ok(None) => {
            drop(guard);
            None
        }
    };
    let ptr = if bytes > device.total_memory() {
        None
    } else {
        match backend.alloc(bytes, stream.raw())? {
            Some(p) => Some(p),
            None => {
                release_all(device)?;
                backend.alloc(bytes, stream.raw())?
            }
        }
    };
    let Some(ptr) = ptr else {
        // Leave nothing reserved that the program does not hold (a request larger than the
        // device did not try the backend at all).
        release_all(device)?;
        return Err(out_of_memory(device, requested));
    };
    let act = device.memory().policy().allocated(bytes);
    // Failures here are harmless (the pool just keeps more memory); they are not the
    // allocation's error.
    if let Some(t) = act.set_threshold {
        let _ = backend.set_release_threshold(t);
    }
    if let Some(keep) = act.trim_to {
        let _ = backend.trim_pool(keep);
    }
    Ok(ptr)
}

/// Checks that `bytes` more keep `device`'s allocations (live and cached) within `limit`,
/// emptying the cache of freed blocks first when they would not.
fn within_limit(device: Device, bytes: usize, requested: usize, limit: usize) -> Result<()> {
    let held = |d: Device| -> Result<usize> { Ok(d.backend().pool_bytes()?.used as usize) };
    if held(device)?.saturating_add(bytes) <= limit {
        return Ok(());
    }
    flush_cache(device);
    let now = held(device)?;
    if now.saturating_add(bytes) <= limit {
        return Ok(());
    }
    Err(err!(
        OutOfMemory,
        "out of memory on {device}: requested {requested} bytes ({}), {now} bytes ({}) are \
         allocated and the limit is {limit} bytes ({}) (Device::set_memory_limit, CuPy's \
         MemoryPool.set_limit)",
        human_bytes(requested),
        human_bytes(now),
        human_bytes(limit)
    ))
}

/// Other streams a buffer remembers before it forgets those no handle can reach.
const MAX_USERS: usize = 8;

/// An owned block of device memory.
pub(crate) struct Buffer {
    ptr: u64,
    /// The block's real size (its size class), which may exceed what was requested.
    bytes: usize,
    /// The own stream: allocated and freed here.
    stream: Stream,
    /// Other streams work on this buffer was queued on.
    users: Users<StreamUse>,
    /// Who owns the memory: cuprum's pool, or someone else (never freed here).
    owner: Owner,
}

/// Who owns a buffer's memory.
enum Owner {
    /// cuprum: the block goes back to the cache or the backend on drop.
    Pool,
    /// A loaded module (a `__device__`/`__constant__` symbol): the buffer keeps the module
    /// loaded and never frees the memory.
    Module(#[allow(dead_code)] super::Module),
    /// Memory another library owns (an imported DLPack tensor, a raw pointer with an
    /// owner): dropping the owner tells that library the memory is no longer used; cuprum
    /// never frees it nor hands it to its pool.
    Foreign(Option<ForeignOwner>, Release),
}

impl Buffer {
    fn new(ptr: u64, bytes: usize, stream: &Stream, owner: Owner) -> Buffer {
        Buffer {
            ptr,
            bytes,
            stream: stream.clone(),
            users: Users::new(),
            owner,
        }
    }

    /// Allocates at least `bytes` on `stream` (stream-ordered). Zero bytes allocate nothing.
    pub(crate) fn alloc(bytes: usize, stream: &Stream) -> Result<Buffer> {
        let device = stream.device();
        device.check_fault()?;
        if bytes == 0 {
            return Ok(Buffer::new(0, 0, stream, Owner::Pool));
        }
        let Some(class) = size_class(bytes) else {
            return Err(out_of_memory(device, bytes));
        };
        if let Some(which) = cache_of(stream)
            && let Some(ptr) = device.memory().cache(which).take(class)
        {
            return Ok(Buffer::new(ptr, class, stream, Owner::Pool));
        }
        if super::capture_state::is_capturing(stream.raw().0) {
            // Ordinary memory, allocated outside the graph and ready before the capture goes
            // on (see `capture.rs`); freed on the captured stream, later.
            let side = super::capture_state::side(|| Stream::new_on(device))?;
            let ptr = backend_alloc(class, bytes, &side)?;
            side.synchronize()?;
            return Ok(Buffer::new(ptr, class, stream, Owner::Pool));
        }
        let ptr = backend_alloc(class, bytes, stream)?;
        Ok(Buffer::new(ptr, class, stream, Owner::Pool))
    }

    /// Memory owned by a loaded module (a `__device__`/`__constant__` symbol): the buffer
    /// keeps the module alive and never frees the memory.
    pub(crate) fn borrowed(
        ptr: u64,
        bytes: usize,
        stream: &Stream,
        owner: super::Module,
    ) -> Buffer {
        Buffer::new(ptr, bytes, stream, Owner::Module(owner))
    }

    /// Memory another library owns, `bytes` long from `ptr`, used from now on as if it had
    /// been allocated on `stream` (the importing stream: later uses on other streams wait
    /// for its work). cuprum never frees it: once the last view is gone and every stream
    /// that used it has been ordered (see `foreign.rs`), `owner` is
    /// dropped (when `terms.release` says), which tells the other library. With
    /// `terms.check_address` the driver confirms first that the device can address it.
    ///
    /// # Safety
    /// `ptr..ptr + bytes` is memory of `stream`'s device that kernels and copies there can
    /// read (and write, unless the arrays over it are read-only), and it stays allocated
    /// until `owner` is dropped — with `Release::InStreamOrder`, until then and, after,
    /// for work queued on `stream` before the drop (the owner's allocator reuses it only in
    /// `stream`'s order).
    pub(crate) unsafe fn foreign(
        ptr: u64,
        bytes: usize,
        stream: &Stream,
        owner: ForeignOwner,
        terms: Terms,
    ) -> Result<Buffer> {
        let device = stream.device();
        device.check_fault()?;
        if bytes != 0 && terms.check_address {
            device.backend().check_foreign(ptr)?;
        }
        let owner = Owner::Foreign(Some(owner), terms.release);
        Ok(Buffer::new(ptr, bytes, stream, owner))
    }

    /// Makes later work on `stream` wait for all work queued so far on the streams that
    /// used this buffer (its own stream and the recorded ones): an event wait per stream,
    /// never a device synchronisation. The buffer does not record `stream`.
    pub(crate) fn order_before(&self, stream: &Stream) -> Result<()> {
        stream.wait_for(&self.stream)?;
        for u in self.users.snapshot() {
            stream.wait_for_use(&u)?;
        }
        Ok(())
    }

    /// The address, for work queued on `stream`. Every internal path that hands the buffer
    /// to the GPU goes through here: on the own stream it is a pointer compare; on another
    /// stream the first use orders that stream after the own stream's work so far, and the
    /// buffer's free will wait for the stream's work (see the module docs).
    #[inline]
    pub(crate) fn ptr_on(&self, stream: &Stream) -> u64 {
        if stream.raw() != self.stream.raw() && self.bytes != 0 {
            self.used_on(stream);
        }
        self.ptr
    }

    #[cold]
    fn used_on(&self, stream: &Stream) {
        if !self.users.record(|u| u.is(stream), || stream.remembered()) {
            return;
        }
        if super::capture_state::is_capturing(stream.raw().0) {
            // A captured wait on outside work would tie the graph to this moment: the work
            // queued so far on the own stream is waited for on the host instead.
            let _ = self.stream.synchronize();
            return;
        }
        if stream.wait_for(&self.stream).is_err() {
            // No event could be queued (a broken context): wait on the host instead; if even
            // that fails, the launch that follows reports the context's error.
            let _ = self.stream.synchronize();
        }
        // A long-lived buffer used by many short-lived streams would keep them all alive:
        // past a few, the streams whose handles are all gone (no new work can reach them)
        // are waited for now by the own stream and forgotten.
        for s in self.users.prune_over(MAX_USERS, StreamUse::is_orphan) {
            if self.stream.wait_for_use(&s).is_err() {
                let _ = s.synchronize();
            }
        }
    }

    /// The address, without recording a use (for alignment checks and messages).
    #[inline]
    pub(crate) fn addr(&self) -> u64 {
        self.ptr
    }

    /// The size in bytes.
    #[inline]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    #[inline]
    pub(crate) fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Orders the own stream after every other stream that used the buffer. False when
    /// that could not be done (the block must then never be reused).
    fn wait_for_users(&mut self) -> bool {
        let users = self.users.take();
        if super::capture_state::is_capturing(self.stream.raw().0) {
            // Freed with the graph; the other streams' work is waited for on the host now (a
            // captured wait on them would become part of the graph).
            return users.iter().all(|s| s.synchronize().is_ok());
        }
        users
            .iter()
            .all(|s| self.stream.wait_for_use(s).is_ok() || s.synchronize().is_ok())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        match &mut self.owner {
            Owner::Pool => {}
            Owner::Module(_) => return,
            Owner::Foreign(owner, release) => {
                let (owner, release) = (owner.take(), *release);
                release_foreign(self.wait_for_users(), &self.stream, owner, release);
                return;
            }
        }
        if self.bytes == 0 {
            return;
        }
        if !self.wait_for_users() {
            // Another stream may still use the block and nothing can order its free after
            // that work (a broken context): leak it rather than hand it out again.
            return;
        }
        let device = self.stream.device();
        let raw = self.stream.raw();
        if let Some(which) = cache_of(&self.stream) {
            let mut evicted = Evicted::new();
            let kept = device
                .memory()
                .cache(which)
                .give(self.bytes, self.ptr, &mut evicted);
            for (ptr, bytes) in evicted {
                free_block(device, ptr, bytes, raw);
            }
            if kept {
                return;
            }
        }
        free_block(device, self.ptr, self.bytes, raw);
    }
}

/// Gives foreign memory back to its owner once cuprum's work on it is done: the own stream
/// has been ordered after every other stream that used it (`ordered`); the owner is
/// dropped after the own stream's work so far has run (at once on a synchronous device,
/// or when `release` says the owner reuses the memory in the stream's order).
fn release_foreign(ordered: bool, stream: &Stream, owner: Option<ForeignOwner>, release: Release) {
    let Some(owner) = owner else { return };
    if !ordered || stream.device().check_fault().is_err() {
        // Another stream may still use the memory and nothing can order the release after
        // it (a broken context): keep it rather than let its owner reuse it.
        std::mem::forget(owner);
        return;
    }
    super::foreign::release_after(stream, owner, release);
}

/// Copies `bytes` between device addresses on `stream`.
///
/// # Safety
/// `src..src + bytes` and `dst..dst + bytes` must lie inside live device allocations of
/// `stream`'s device that stay allocated until the copy has run in `stream` order (addresses
/// taken with `ptr_on(stream)`), and every byte written must be a valid value of the
/// elements stored there (a `bool` array holds only 0 and 1).
pub(crate) unsafe fn copy_dtod(dst: u64, src: u64, bytes: usize, stream: &Stream) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    stream.device().check_fault()?;
    // SAFETY: the caller guarantees both ranges.
    unsafe {
        stream
            .device()
            .backend()
            .copy_dtod(dst, src, bytes, stream.raw())
    }
}

/// Copies `bytes` from `src` (memory of `src_device`) to `dst` (memory of `stream`'s
/// device), queued on `stream`. Between two GPUs: a peer copy once peer access is enabled
/// (once per pair), else (and always between a GPU and the host device) staged through
/// host memory (the source is read on `src_stream`, which this call waits for).
///
/// # Safety
/// `src..src + bytes` must lie inside a live allocation of `src_device` and
/// `dst..dst + bytes` inside a live allocation of `stream`'s device, both staying allocated
/// until the copy has run in `stream` order (and, staged, in `src_stream` order); every
/// byte written must be a valid value of the elements stored at `dst`.
pub(crate) unsafe fn copy_peer(
    dst: u64,
    src: u64,
    src_device: Device,
    bytes: usize,
    stream: &Stream,
    src_stream: &Stream,
) -> Result<()> {
    let dst_device = stream.device();
    if dst_device == src_device {
        // SAFETY: the caller's guarantee, with both ranges on one device.
        return unsafe { copy_dtod(dst, src, bytes, stream) };
    }
    if bytes == 0 {
        return Ok(());
    }
    let direct =
        dst_device.enable_peer_access(src_device)? && src_device.enable_peer_access(dst_device)?;
    if direct {
        dst_device.check_fault()?;
        // SAFETY: `dst` and `src` point to at least `bytes` bytes of live buffers of the two
        // devices (callers order both buffers with `stream` through `ptr_on`).
        let done = unsafe {
            dst_device
                .backend()
                .copy_from_peer(dst, src, src_device.backend(), bytes, stream.raw())
        }?;
        if done {
            return Ok(());
        }
    }
    let mut host = vec![0u8; bytes];
    // SAFETY: `host` holds `bytes` bytes; the caller guarantees both device ranges.
    unsafe {
        copy_dtoh(as_uninit(&mut host), src, src_stream)?;
        copy_htod(dst, &host, stream)?;
    }
    // The pageable host copy has been read once copy_htod returns.
    Ok(())
}

/// Sets `bytes` bytes at a device address to zero on `stream`.
///
/// # Safety
/// `dst..dst + bytes` must lie inside a live device allocation of `stream`'s device that
/// stays allocated until the memset has run in `stream` order (an address taken with
/// `ptr_on(stream)`). Zero bytes are a valid value of every element type.
pub(crate) unsafe fn zero_device(dst: u64, bytes: usize, stream: &Stream) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    stream.device().check_fault()?;
    // SAFETY: the caller guarantees the range.
    unsafe { stream.device().backend().zero(dst, bytes, stream.raw()) }
}

/// Copies host bytes to a device address on `stream`. Returns once the host bytes have
/// been read (pageable memory is staged by the driver).
///
/// # Safety
/// `dst..dst + src.len()` must lie inside a live device allocation of `stream`'s device that
/// stays allocated until the copy has run in `stream` order (an address taken with
/// `ptr_on(stream)`), and `src` must hold valid values of the elements stored there.
pub(crate) unsafe fn copy_htod(dst: u64, src: &[u8], stream: &Stream) -> Result<()> {
    super::capture_state::refuse(
        "a copy from host memory (from_slice, copy_from_slice …)",
        stream.raw().0,
        stream,
    )?;
    if src.is_empty() {
        return Ok(());
    }
    stream.device().check_fault()?;
    // SAFETY: the caller guarantees the device range.
    unsafe { stream.device().backend().copy_htod(dst, src, stream.raw()) }
}

/// Copies device bytes into host memory after the work queued on `stream` and waits for
/// the copy (large copies run through the backend's pinned staging at the link's speed).
/// `dst` may be uninitialised: every byte of it is written on success.
///
/// # Safety
/// `src..src + dst.len()` must lie inside a live device allocation of `stream`'s device
/// (an address taken with `ptr_on(stream)`).
pub(crate) unsafe fn copy_dtoh(
    dst: &mut [std::mem::MaybeUninit<u8>],
    src: u64,
    stream: &Stream,
) -> Result<()> {
    super::capture_state::refuse(
        "a copy to host memory (to_vec, copy_to_slice, reading a scalar, printing …)",
        stream.raw().0,
        stream,
    )?;
    if dst.is_empty() {
        return Ok(());
    }
    stream.device().check_fault()?;
    // SAFETY: the caller guarantees the device range; `dst` is borrowed mutably for the
    // call, and the backend returns only once it is no longer written.
    unsafe {
        stream
            .device()
            .backend()
            .copy_dtoh(dst.as_mut_ptr().cast(), dst.len(), src, stream.raw())
    }?;
    // The stream has run up to the copy: a fault a Rust kernel recorded meanwhile is
    // reported here, as after any synchronisation.
    stream.device().check_kernel_faults()
}

/// `bytes` as the uninitialised-bytes view [`copy_dtoh`] writes (it only stores valid
/// bytes).
pub(crate) fn as_uninit(bytes: &mut [u8]) -> &mut [std::mem::MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and every byte written through the
    // view is an initialised byte, so `bytes` stays initialised.
    unsafe { &mut *(bytes as *mut [u8] as *mut [std::mem::MaybeUninit<u8>]) }
}

impl Device {
    /// Bytes of freed blocks cuprum keeps for fast reuse on this device's default stream
    /// (at most 1 GiB, least recently freed blocks evicted first).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// drop(cuprum::Array::empty(&[1 << 20], cuprum::DType::F32)?);
    /// assert!(dev.cached_bytes() >= 4 << 20);
    /// dev.release_pool_memory()?;
    /// assert_eq!(dev.cached_bytes(), 0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cached_bytes(self) -> usize {
        self.memory().cached_bytes()
    }

    /// How many freed blocks cuprum keeps for reuse on this device (CuPy's
    /// `MemoryPool.n_free_blocks`); their bytes are [`Device::cached_bytes`].
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let dev = cuprum::Device::current()?;
    /// drop(cuprum::Array::empty(&[1 << 20], cuprum::DType::F32)?);
    /// assert!(dev.cached_blocks() >= 1);
    /// dev.release_pool_memory()?;
    /// assert_eq!(dev.cached_blocks(), 0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cached_blocks(self) -> usize {
        self.memory().cached_blocks()
    }

    /// Returns every byte of device memory cuprum keeps for reuse to the driver (CuPy's
    /// `free_all_blocks`): the freed-block cache and the reduction scratch are emptied, the
    /// device is synchronised and the pool trimmed, so that afterwards the pool reserves
    /// only what live arrays use.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// let a = cuprum::Array::zeros(&[1 << 20], cuprum::DType::F32)?;
    /// drop(a);
    /// dev.release_pool_memory()?;
    /// assert!(dev.pool_reserved_bytes()? < 64 << 20);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn release_pool_memory(self) -> Result<()> {
        release_all(self)
    }

    /// Limits the bytes this device's allocations hold, live arrays and freed blocks kept
    /// for reuse together (CuPy's `MemoryPool.set_limit`); `None` (or 0) removes the limit. An
    /// allocation that would go past it first empties the cache of freed blocks, then
    /// fails with [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory). Memory
    /// already held is not freed by setting a lower limit.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, ErrorKind};
    /// let dev = cuprum::Device::current()?;
    /// dev.set_memory_limit(Some(64 << 20));
    /// assert_eq!(dev.memory_limit(), Some(64 << 20));
    /// let small = Array::zeros(&[1 << 20], DType::F32)?; // 4 MiB fit
    /// let err = Array::zeros(&[32 << 20], DType::F32).unwrap_err(); // 128 MiB do not
    /// assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    /// dev.set_memory_limit(None);
    /// drop(small);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn set_memory_limit(self, bytes: Option<usize>) {
        *self.memory().limit() = Ok(bytes.filter(|&b| b > 0));
    }

    /// The limit in force, if any: the one [`set_memory_limit`](Device::set_memory_limit)
    /// set, else `CUPRUM_GPU_MEMORY_LIMIT` (or CuPy's `CUPY_GPU_MEMORY_LIMIT`): bytes, or a
    /// percentage of the device's memory (`50%`), read when the device is opened (a value
    /// that is neither makes every allocation fail with an error naming it, until a limit
    /// is set).
    pub fn memory_limit(self) -> Option<usize> {
        self.memory().limit().as_ref().ok().copied().flatten()
    }
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
