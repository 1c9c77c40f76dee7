//! Every call into the CUDA driver, and only those: loading and probing the driver once per
//! process without ever panicking, the error conversion (sticky faults, out of memory), and
//! one thin wrapper per driver entry point the CUDA backend uses. The rest of the backend
//! (`cuda/mod.rs`, `cuda/module.rs`) calls these wrappers and never the driver directly
//! (cudarc's `result` layer keeps its raw calls in one place the same way).
//!
//! Wrappers return the driver's own error ([`DResult`]); the backend turns it into a cuprum
//! error with [`to_error`], naming the call and the device, which records a sticky fault
//! against that device.
//!
//! **Loading never panics.** cudarc panics on a missing library or symbol, so
//! `driver_info` first probes for `libcuda` (a `dlopen` of the candidate names, no CUDA
//! call), then checks `cuDriverGetVersion` against [`MIN_DRIVER_VERSION`] (CUDA 13.0), then
//! calls `cuInit`. The outcome — the driver's version and device count, or a typed error
//! (`NoDriver`, `DriverTooOld`, `NoDevice`, each saying how to choose the host device
//! instead) — is computed once per process. Entry points cudarc does not bind, or binds
//! with a panicking loader, are looked up here in the loaded library (`cuFuncGetParamCount`,
//! CUDA 13.2+; `None` on older drivers).
//!
//! **Contexts.** A device uses its primary context; right after it is retained
//! (`retain_primary`) cudarc's per-buffer event tracking is disabled: cuprum never uses
//! cudarc's buffers or launch builder and orders streams itself (`memory.rs`).

use crate::error::{Error, ErrorKind, Result, err};
use crate::runtime::backend::LaunchMode;
use crate::runtime::fault::sticky;
use cudarc::driver::result;
pub(crate) use cudarc::driver::result::DriverError;
use cudarc::driver::{CudaContext, sys};
use std::ffi::{CString, c_int, c_void};
use std::sync::{Arc, OnceLock};

pub(crate) use cudarc::driver::sys::{
    CUcontext, CUdevice_attribute, CUevent, CUfunction, CUfunction_attribute, CUgraph, CUgraphExec,
    CUmemoryPool, CUmodule, CUstream,
};

/// A driver call's own result.
pub(crate) type DResult<T> = std::result::Result<T, DriverError>;

/// The oldest driver API version cuprum works with (CUDA 13.0).
pub const MIN_DRIVER_VERSION: i32 = 13000;

/// How to run without a GPU, appended to every "no GPU" error.
pub(crate) const HOST_HINT: &str = "to run kernels on the CPU instead, use the host device \
     (`Device::host()`, or CUPRUM_DEVICE=host for the whole program)";

/// What the driver reported when it was loaded.
///
/// ```
/// # if !cuprum_doctest::gpu()? { return Ok(()); }
/// let d = cuprum::runtime::driver_info()?;
/// println!("CUDA driver {}.{} with {} device(s)", d.major(), d.minor(), d.device_count);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DriverInfo {
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub version: i32,
    /// Number of CUDA devices the driver sees.
    pub device_count: usize,
}

impl DriverInfo {
    /// CUDA major version of the driver.
    pub fn major(&self) -> i32 {
        self.version / 1000
    }
    /// CUDA minor version of the driver.
    pub fn minor(&self) -> i32 {
        (self.version % 1000) / 10
    }
}

/// Loads the driver (once) and returns what it reported, or a typed error: no driver
/// library ([`ErrorKind::NoDriver`]), a driver older than CUDA 13.0
/// ([`ErrorKind::DriverTooOld`]), or no device ([`ErrorKind::NoDevice`]).
///
/// ```
/// match cuprum::runtime::driver_info() {
///     Ok(d) => println!("driver {}", d.version),
///     Err(e) => println!("no GPU here: {e} ({:?})", e.kind()),
/// }
/// ```
pub fn driver_info() -> Result<&'static DriverInfo> {
    static INFO: OnceLock<Result<DriverInfo>> = OnceLock::new();
    INFO.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<DriverInfo> {
    // SAFETY: `is_culib_present` only tries to dlopen the candidate library names; it calls
    // no CUDA function. It must come first: every other `sys` call panics without the library.
    if !unsafe { sys::is_culib_present() } {
        let mut names: Vec<String> = cudarc::get_lib_name_candidates("cuda")
            .into_iter()
            .filter(|n| n.starts_with("libcuda.so") || n.ends_with(".dll"))
            .collect();
        names.dedup();
        return Err(err!(
            NoDriver,
            "no CUDA driver: could not load libcuda (tried {}); install the NVIDIA driver \
             (CUDA {}.{} or newer) or run on a machine with a GPU; {HOST_HINT}",
            names.join(", "),
            MIN_DRIVER_VERSION / 1000,
            (MIN_DRIVER_VERSION % 1000) / 10
        ));
    }
    let mut version = 0;
    // SAFETY: the driver library is present (checked above) and `version` is a valid out
    // pointer. cuDriverGetVersion needs no prior cuInit.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| to_error(e, "cuDriverGetVersion", None))?;
    if version < MIN_DRIVER_VERSION {
        return Err(err!(
            DriverTooOld,
            "the CUDA driver supports CUDA {}.{}, cuprum needs {}.{} or newer (driver 580+); \
             {HOST_HINT}",
            version / 1000,
            (version % 1000) / 10,
            MIN_DRIVER_VERSION / 1000,
            (MIN_DRIVER_VERSION % 1000) / 10
        ));
    }
    match result::init() {
        Ok(()) => {}
        Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => {
            return Err(err!(
                NoDevice,
                "the CUDA driver ({}.{}) found no CUDA device; {HOST_HINT}",
                version / 1000,
                (version % 1000) / 10
            ));
        }
        Err(e) => return Err(to_error(e, "cuInit", None)),
    }
    let count = result::device::get_count().map_err(|e| to_error(e, "cuDeviceGetCount", None))?;
    if count <= 0 {
        return Err(err!(
            NoDevice,
            "the CUDA driver found no CUDA device; {HOST_HINT}"
        ));
    }
    Ok(DriverInfo {
        version,
        device_count: count as usize,
    })
}

/// Whether a driver error leaves the context unusable (CUDA's "sticky" errors).
pub(crate) fn is_sticky(code: sys::CUresult) -> bool {
    use sys::CUresult as R;
    matches!(
        code,
        R::CUDA_ERROR_ILLEGAL_ADDRESS
            | R::CUDA_ERROR_LAUNCH_FAILED
            | R::CUDA_ERROR_HARDWARE_STACK_ERROR
            | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | R::CUDA_ERROR_MISALIGNED_ADDRESS
            | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | R::CUDA_ERROR_INVALID_PC
            | R::CUDA_ERROR_ASSERT
            | R::CUDA_ERROR_LAUNCH_TIMEOUT
            | R::CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

/// Turns a driver error into a cuprum error naming the call that failed; a sticky error is
/// recorded against `device` (the ordinal of the device whose context made the call).
pub(crate) fn to_error(e: DriverError, call: &str, device: Option<usize>) -> Error {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("CUDA error {}", e.0 as i32));
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let what = format!("{call} failed: {name}: {text}");
    let code = e.0 as i32;
    if is_sticky(e.0) {
        let fault = sticky::record(device, what);
        return fault.with_driver_code(code).with_source(e);
    }
    let kind = if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        ErrorKind::OutOfMemory
    } else {
        ErrorKind::Driver
    };
    Error::new(kind, what).with_driver_code(code).with_source(e)
}

/// Whether the error is the driver's "out of memory".
pub(crate) fn is_out_of_memory(e: &DriverError) -> bool {
    e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
}

// ---- contexts and devices -------------------------------------------------------------

/// Retains device `ordinal`'s primary context (cuInit first) and makes it current.
pub(crate) fn retain_primary(ordinal: usize) -> DResult<Arc<CudaContext>> {
    let ctx = CudaContext::new(ordinal)?;
    // SAFETY: cuprum never uses cudarc's CudaSlice/launch builder, so its per-buffer event
    // tracking would only add cost; all stream ordering is handled by cuprum explicitly.
    unsafe { ctx.disable_event_tracking() };
    Ok(ctx)
}

/// Makes `ctx` current on the calling thread (one query when it already is).
#[inline]
pub(crate) fn bind(ctx: &CudaContext) -> DResult<()> {
    ctx.bind_to_thread()
}

/// A device attribute.
pub(crate) fn device_attribute(ctx: &CudaContext, a: CUdevice_attribute) -> DResult<i32> {
    ctx.attribute(a)
}

/// The device's product name.
pub(crate) fn device_name(ctx: &CudaContext) -> DResult<String> {
    ctx.name()
}

/// The device's UUID (`cuDeviceGetUuid_v2`: a MIG instance's own, not its GPU's).
pub(crate) fn device_uuid(ctx: &CudaContext) -> DResult<[u8; 16]> {
    let id = result::device::get_uuid(ctx.cu_device())?;
    Ok(id.bytes.map(|b| b as u8))
}

/// The device's memory in bytes.
pub(crate) fn total_memory(ctx: &CudaContext) -> DResult<usize> {
    // SAFETY: the device handle comes from a retained context.
    unsafe { result::device::total_mem(ctx.cu_device()) }
}

/// The device's default memory pool (devices that support memory pools have one).
pub(crate) fn default_pool(ctx: &CudaContext) -> DResult<CUmemoryPool> {
    // SAFETY: the device handle comes from a retained context.
    unsafe { result::device::get_default_mem_pool(ctx.cu_device()) }
}

/// Free and total memory of the current context's device.
pub(crate) fn memory_info() -> DResult<(usize, usize)> {
    result::mem_get_info()
}

/// Waits for all work of the current context.
pub(crate) fn synchronize_context() -> DResult<()> {
    result::ctx::synchronize()
}

/// Whether `a`'s device can access `b`'s device's memory.
pub(crate) fn can_access_peer(a: &CudaContext, b: &CudaContext) -> DResult<bool> {
    let mut can: c_int = 0;
    // SAFETY: both device handles come from retained contexts; `can` is a valid out pointer.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, a.cu_device(), b.cu_device()) }.result()?;
    Ok(can != 0)
}

/// Enables the current context's access to `peer`'s memory (already enabled is success).
pub(crate) fn enable_peer_access(peer: &CudaContext) -> DResult<()> {
    // SAFETY: the peer context is a live primary context; the current context is the
    // caller's device.
    let r = unsafe { sys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) };
    if r == sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
        return Ok(());
    }
    r.result()
}

// ---- the memory pool ------------------------------------------------------------------

/// Sets the pool's release threshold (bytes kept across synchronisations).
pub(crate) fn pool_set_release_threshold(pool: CUmemoryPool, bytes: usize) -> DResult<()> {
    let mut v = bytes as u64;
    // SAFETY: the release threshold attribute takes a pointer to a u64; `pool` is a valid
    // memory pool of an open device.
    unsafe {
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut v as *mut u64).cast(),
        )
    }
    .result()
}

/// The pool's reserved and used bytes.
pub(crate) fn pool_reserved_and_used(pool: CUmemoryPool) -> DResult<(u64, u64)> {
    let get = |attr| -> DResult<u64> {
        let mut v: u64 = 0;
        // SAFETY: the pool is valid for the process; the attribute is a u64 counter and `v`
        // is a valid u64 out pointer.
        unsafe { sys::cuMemPoolGetAttribute(pool, attr, (&mut v as *mut u64).cast()) }.result()?;
        Ok(v)
    };
    use sys::CUmemPool_attribute as A;
    Ok((
        get(A::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
        get(A::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
    ))
}

/// Releases pool memory beyond `keep` bytes that no allocation uses.
pub(crate) fn pool_trim(pool: CUmemoryPool, keep: usize) -> DResult<()> {
    // SAFETY: the pool handle belongs to an open device and lives as long as the process;
    // the driver only releases memory no allocation uses.
    unsafe { sys::cuMemPoolTrimTo(pool, keep) }.result()
}

// ---- memory ---------------------------------------------------------------------------

/// `cuMemAllocAsync` of `bytes` on `stream`.
///
/// # Safety
/// The stream's context is current; the caller owns the result and frees it once.
pub(crate) unsafe fn malloc_async(stream: CUstream, bytes: usize) -> DResult<u64> {
    // SAFETY: forwarded from the caller.
    unsafe { result::malloc_async(stream, bytes) }
}

/// `cuMemFreeAsync` after the work queued on `stream` so far.
///
/// # Safety
/// `ptr` came from `malloc_async` on this context and is freed once.
pub(crate) unsafe fn free_async(ptr: u64, stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::free_async(ptr, stream) }
}

/// `cuMemcpyDtoDAsync`.
///
/// # Safety
/// Both ranges lie in live device memory of the current context, allocated until the copy
/// has run in `stream` order.
pub(crate) unsafe fn copy_dtod(dst: u64, src: u64, bytes: usize, stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::memcpy_dtod_async(dst, src, bytes, stream) }
}

/// `cuMemsetD8Async` to zero.
///
/// # Safety
/// As for [`copy_dtod`], for `dst..dst + bytes`.
pub(crate) unsafe fn zero(dst: u64, bytes: usize, stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::memset_d8_async(dst, 0, bytes, stream) }
}

/// `cuMemcpyHtoDAsync` (pageable memory is staged by the driver before it returns).
///
/// # Safety
/// As for [`copy_dtod`], for `dst..dst + src.len()`.
pub(crate) unsafe fn copy_htod(dst: u64, src: &[u8], stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::memcpy_htod_async(dst, src, stream) }
}

/// `cuMemcpyPeerAsync` from `src` in `src_ctx` to `dst` in `dst_ctx`.
///
/// # Safety
/// Both ranges lie in live memory of their contexts, allocated until the copy has run in
/// `stream` order (a stream of the current context).
pub(crate) unsafe fn copy_peer(
    dst: u64,
    dst_ctx: CUcontext,
    src: u64,
    src_ctx: CUcontext,
    bytes: usize,
    stream: CUstream,
) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, bytes, stream) }.result()
}

/// `cuMemcpyHtoD` (synchronous).
///
/// # Safety
/// `dst..dst + src.len()` lies in live device memory of the current context.
pub(crate) unsafe fn copy_htod_sync(dst: u64, src: &[u8]) -> DResult<()> {
    // SAFETY: forwarded from the caller; the copy reads `src` only during the call.
    unsafe { sys::cuMemcpyHtoD_v2(dst, src.as_ptr().cast(), src.len()) }.result()
}

/// Zeroes the 32-bit word at `dst` (synchronous `cuMemsetD32`).
///
/// # Safety
/// `dst` addresses 4 bytes of live device memory of the current context.
pub(crate) unsafe fn zero_word_sync(dst: u64) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemsetD32_v2(dst, 0, 1) }.result()
}

/// `bytes` of zeroed pinned host memory mapped into the current context's address space,
/// never freed: its host address and its device address.
pub(crate) fn host_alloc_mapped_forever(bytes: usize) -> DResult<(*mut u8, u64)> {
    let mut host: *mut c_void = std::ptr::null_mut();
    // SAFETY: a fresh pinned allocation of `bytes` bytes, mapped into the device's address
    // space; it is zeroed below and never freed.
    unsafe {
        sys::cuMemHostAlloc(
            &mut host,
            bytes,
            sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE,
        )
    }
    .result()?;
    // SAFETY: `host` points to `bytes` writable bytes just allocated.
    unsafe { std::ptr::write_bytes(host.cast::<u8>(), 0, bytes) };
    let mut dev: sys::CUdeviceptr = 0;
    // SAFETY: `host` was allocated with DEVICEMAP in the current context.
    unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0) }.result()?;
    Ok((host.cast(), dev))
}

/// `bytes` of page-locked host memory every context can copy from and to at the link's
/// speed (`cuMemHostAlloc`, portable).
pub(crate) fn host_alloc(bytes: usize) -> DResult<*mut u8> {
    let mut host: *mut c_void = std::ptr::null_mut();
    // SAFETY: a fresh pinned allocation of `bytes` bytes, owned by the caller, who frees it
    // once with `host_free`.
    unsafe { sys::cuMemHostAlloc(&mut host, bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }.result()?;
    Ok(host.cast())
}

/// Frees memory [`host_alloc`] returned (`cuMemFreeHost`).
///
/// # Safety
/// `ptr` came from `host_alloc`, no copy uses it any more, and it is freed once.
pub(crate) unsafe fn host_free(ptr: *mut u8) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemFreeHost(ptr.cast()) }.result()
}

/// Page-locks `bytes` of existing host memory at `ptr` for every context
/// (`cuMemHostRegister`, portable).
///
/// # Safety
/// `ptr..ptr + bytes` is one live allocation of the process that stays allocated until
/// [`host_unregister`].
pub(crate) unsafe fn host_register(ptr: *mut u8, bytes: usize) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemHostRegister_v2(ptr.cast(), bytes, sys::CU_MEMHOSTREGISTER_PORTABLE) }
        .result()
}

/// Unlocks memory [`host_register`] locked (`cuMemHostUnregister`).
///
/// # Safety
/// `ptr` was registered and no copy uses it any more.
pub(crate) unsafe fn host_unregister(ptr: *mut u8) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemHostUnregister(ptr.cast()) }.result()
}

/// `cuMemcpyDtoHAsync` into raw host memory.
///
/// # Safety
/// `src..src + bytes` lies in live device memory of the current context, `dst..dst +
/// bytes` in host memory nobody else reads or writes until the copy has run in `stream`
/// order.
pub(crate) unsafe fn copy_dtoh_raw(
    dst: *mut u8,
    src: u64,
    bytes: usize,
    stream: CUstream,
) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, bytes, stream) }.result()
}

/// `cuMemcpyHtoDAsync` from raw host memory.
///
/// # Safety
/// `dst..dst + bytes` lies in live device memory of the current context, `src..src +
/// bytes` in host memory that stays allocated and unchanged until the copy has run in
/// `stream` order (pinned memory is read by the copy engine then, not before returning).
pub(crate) unsafe fn copy_htod_raw(
    dst: u64,
    src: *const u8,
    bytes: usize,
    stream: CUstream,
) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, stream) }.result()
}

/// A zeroed 4-byte device allocation of the current context, never freed.
pub(crate) fn device_word_forever() -> DResult<u64> {
    let mut p: sys::CUdeviceptr = 0;
    // SAFETY: a 4-byte device allocation, zeroed next and never freed.
    unsafe { sys::cuMemAlloc_v2(&mut p, 4) }.result()?;
    // SAFETY: `p` is a live 4-byte allocation.
    unsafe { zero_word_sync(p) }?;
    Ok(p)
}

// ---- streams and events ---------------------------------------------------------------

/// A new non-blocking stream in the current context.
pub(crate) fn stream_create() -> DResult<CUstream> {
    result::stream::create(result::stream::StreamKind::NonBlocking)
}

/// Destroys a stream (queued work still finishes).
///
/// # Safety
/// `stream` was made by [`stream_create`] and is destroyed once.
pub(crate) unsafe fn stream_destroy(stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::stream::destroy(stream) }
}

/// Waits for the work queued on `stream`.
///
/// # Safety
/// `stream` is a live stream.
pub(crate) unsafe fn stream_synchronize(stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::stream::synchronize(stream) }
}

/// Starts (`true`) or stops profile collection by an attached profiler for the current
/// context (`cuProfilerStart` / `cuProfilerStop`; no effect without a profiler).
pub(crate) fn profiler(collect: bool) -> DResult<()> {
    if collect {
        cudarc::driver::profiler_start()
    } else {
        cudarc::driver::profiler_stop()
    }
}

/// Whether every piece of work queued on `stream` has finished (never blocks).
///
/// # Safety
/// `stream` is a live stream.
pub(crate) unsafe fn stream_done(stream: CUstream) -> DResult<bool> {
    // SAFETY: forwarded from the caller.
    match unsafe { sys::cuStreamQuery(stream) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => e.result().map(|()| false),
    }
}

/// What the driver knows of an address another library handed over: `None` when it is not
/// memory the driver tracks (pageable host memory, garbage), else its memory type
/// (`CU_MEMORYTYPE_*`: 1 host, 2 device, 4 unified) and, for device and unified memory,
/// the ordinal of its device. Asked with `cuPointerGetAttributes`, which answers an
/// unknown address with empty values rather than an error (`cuPointerGetAttribute`'s
/// `CUDA_ERROR_INVALID_VALUE` for every pageable upload was an API error under
/// compute-sanitizer).
pub(crate) fn pointer_info(ptr: u64) -> DResult<Option<(u32, i32)>> {
    let mut kind: u32 = 0;
    let mut ordinal: c_int = -1;
    let mut attrs = [
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
    ];
    let mut data: [*mut c_void; 2] = [
        (&mut kind as *mut u32).cast(),
        (&mut ordinal as *mut c_int).cast(),
    ];
    // SAFETY: `data` holds one live out pointer per attribute, each to a value of the size
    // the attribute is written as (a `CUmemorytype`, an int); the driver only inspects
    // `ptr` (an unknown address gets empty values, not an access).
    unsafe { sys::cuPointerGetAttributes(2, attrs.as_mut_ptr(), data.as_mut_ptr(), ptr) }
        .result()?;
    Ok(match kind {
        0 => None,
        1 => Some((1, -1)),
        k => Some((k, ordinal)),
    })
}

/// Makes later work on `stream` wait for `event`.
///
/// # Safety
/// Both handles are live (the event may belong to another context).
pub(crate) unsafe fn stream_wait_event(stream: CUstream, event: CUevent) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe {
        result::stream::wait_event(
            stream,
            event,
            sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
        )
    }
}

/// A new event of the current context, with or without timing.
pub(crate) fn event_create(timing: bool) -> DResult<CUevent> {
    result::event::create(if timing {
        sys::CUevent_flags::CU_EVENT_DEFAULT
    } else {
        sys::CUevent_flags::CU_EVENT_DISABLE_TIMING
    })
}

/// Records `event` at the current end of `stream`.
///
/// # Safety
/// Both handles are live and of the current context.
pub(crate) unsafe fn event_record(event: CUevent, stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::event::record(event, stream) }
}

/// Destroys an event (a wait already queued on it still completes).
///
/// # Safety
/// `event` was made by [`event_create`] and is destroyed once.
pub(crate) unsafe fn event_destroy(event: CUevent) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::event::destroy(event) }
}

/// Waits for the work before the event's recorded point.
///
/// # Safety
/// `event` is live.
pub(crate) unsafe fn event_synchronize(event: CUevent) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { result::event::synchronize(event) }
}

/// Whether the work before the event's recorded point has finished.
///
/// # Safety
/// `event` is live.
pub(crate) unsafe fn event_complete(event: CUevent) -> DResult<bool> {
    // SAFETY: forwarded from the caller.
    match unsafe { sys::cuEventQuery(event) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => e.result().map(|()| false),
    }
}

/// Milliseconds between two recorded events.
///
/// # Safety
/// Both events are live and recorded; `end` has completed.
pub(crate) unsafe fn event_elapsed(start: CUevent, end: CUevent) -> DResult<f32> {
    // SAFETY: forwarded from the caller.
    unsafe { result::event::elapsed(start, end) }
}

// ---- graphs ---------------------------------------------------------------------------

/// Starts capturing the work queued on `stream` into a graph (relaxed mode: other calls of
/// the thread stay legal; cuprum refuses the ones that would break the capture itself).
///
/// # Safety
/// `stream` is a live stream of the current context, not capturing.
pub(crate) unsafe fn begin_capture(stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe {
        sys::cuStreamBeginCapture_v2(
            stream,
            sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
        )
    }
    .result()
}

/// Ends the capture of `stream`: the graph, or the error that invalidated the capture (the
/// stream is no longer capturing either way).
///
/// # Safety
/// `stream` is capturing.
pub(crate) unsafe fn end_capture(stream: CUstream) -> DResult<sys::CUgraph> {
    let mut g: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: forwarded from the caller; `g` receives the graph.
    unsafe { sys::cuStreamEndCapture(stream, &mut g) }.result()?;
    Ok(g)
}

/// The number of nodes of a graph.
///
/// # Safety
/// `graph` is live.
pub(crate) unsafe fn graph_node_count(graph: sys::CUgraph) -> DResult<usize> {
    let mut n = 0usize;
    // SAFETY: with a null node array the driver only writes the count.
    unsafe { sys::cuGraphGetNodes(graph, std::ptr::null_mut(), &mut n) }.result()?;
    Ok(n)
}

/// Instantiates `graph` for launching.
///
/// # Safety
/// `graph` is live, of the current context.
pub(crate) unsafe fn graph_instantiate(graph: sys::CUgraph) -> DResult<sys::CUgraphExec> {
    let mut e: sys::CUgraphExec = std::ptr::null_mut();
    // SAFETY: forwarded from the caller; `e` receives the executable graph.
    unsafe { sys::cuGraphInstantiateWithFlags(&mut e, graph, 0) }.result()?;
    Ok(e)
}

/// Queues one run of an instantiated graph on `stream`.
///
/// # Safety
/// Both handles are live and of the current context; the memory the graph's work uses is
/// allocated until the run has finished in `stream` order.
pub(crate) unsafe fn graph_launch(exec: sys::CUgraphExec, stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuGraphLaunch(exec, stream) }.result()
}

/// Destroys a graph and its executable form (queued runs still finish).
///
/// # Safety
/// Both handles came from `end_capture` / `graph_instantiate` (either may be null) and are
/// destroyed once.
pub(crate) unsafe fn graph_destroy(graph: sys::CUgraph, exec: sys::CUgraphExec) {
    // SAFETY: forwarded from the caller.
    unsafe {
        if !exec.is_null() {
            let _ = sys::cuGraphExecDestroy(exec);
        }
        if !graph.is_null() {
            let _ = sys::cuGraphDestroy(graph);
        }
    }
}

/// The nodes of a graph.
///
/// # Safety
/// `graph` is live.
pub(crate) unsafe fn graph_nodes(graph: sys::CUgraph) -> DResult<Vec<sys::CUgraphNode>> {
    // SAFETY: forwarded from the caller.
    let n = unsafe { graph_node_count(graph) }?;
    let mut nodes: Vec<sys::CUgraphNode> = vec![std::ptr::null_mut(); n];
    let mut got = n;
    // SAFETY: `nodes` has room for `got` handles; the driver writes at most that many.
    unsafe { sys::cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut got) }.result()?;
    nodes.truncate(got);
    Ok(nodes)
}

/// What kind of work a graph node is.
///
/// # Safety
/// `node` is a live node.
pub(crate) unsafe fn graph_node_type(node: sys::CUgraphNode) -> DResult<sys::CUgraphNodeType> {
    let mut t = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
    // SAFETY: forwarded from the caller; `t` receives the type.
    unsafe { sys::cuGraphNodeGetType(node, &mut t) }.result()?;
    Ok(t)
}

/// A kernel node's launch: function, dimensions and argument pointers (which point into
/// the node's own storage, valid until its parameters change).
///
/// # Safety
/// `node` is a live kernel node.
pub(crate) unsafe fn kernel_node_params(
    node: sys::CUgraphNode,
) -> DResult<sys::CUDA_KERNEL_NODE_PARAMS_v2> {
    // SAFETY: all-zero is a valid value of this plain C struct (null pointers, zero sizes).
    let mut p: sys::CUDA_KERNEL_NODE_PARAMS_v2 = unsafe { std::mem::zeroed() };
    // SAFETY: forwarded from the caller; `p` receives the parameters.
    unsafe { sys::cuGraphKernelNodeGetParams_v2(node, &mut p) }.result()?;
    Ok(p)
}

/// `(offset, size)` of each parameter of a kernel (`func`, or the library kernel `kern`
/// where `func` is null), in order.
///
/// # Safety
/// `func` or `kern` is a live function or kernel handle.
pub(crate) unsafe fn kernel_param_layout(
    func: sys::CUfunction,
    kern: sys::CUkernel,
) -> DResult<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    loop {
        let (mut off, mut size) = (0usize, 0usize);
        let i = out.len();
        // SAFETY: forwarded from the caller; the outputs are plain integers.
        let r = unsafe {
            if func.is_null() {
                sys::cuKernelGetParamInfo(kern, i, &mut off, &mut size)
            } else {
                sys::cuFuncGetParamInfo(func, i, &mut off, &mut size)
            }
        };
        match r.result() {
            Ok(()) => out.push((off, size)),
            // One past the last parameter.
            Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)) => return Ok(out),
            Err(e) => return Err(e),
        }
    }
}

/// Sets a kernel node's parameters in the graph and in its executable form.
///
/// # Safety
/// `node` is a live kernel node of `graph`, `exec` its instantiation; `p` names the same
/// function and points at argument values of that function's layout.
pub(crate) unsafe fn set_kernel_node_params(
    exec: sys::CUgraphExec,
    node: sys::CUgraphNode,
    p: &sys::CUDA_KERNEL_NODE_PARAMS_v2,
) -> DResult<()> {
    // SAFETY: forwarded from the caller; the driver copies the argument values.
    unsafe {
        sys::cuGraphKernelNodeSetParams_v2(node, p).result()?;
        sys::cuGraphExecKernelNodeSetParams_v2(exec, node, p).result()
    }
}

/// A copy node's parameters.
///
/// # Safety
/// `node` is a live memcpy node.
pub(crate) unsafe fn memcpy_node_params(node: sys::CUgraphNode) -> DResult<sys::CUDA_MEMCPY3D> {
    // Zeroed bytes are not a valid `CUDA_MEMCPY3D` (its memory-type enums start at 1): the
    // driver fills every field before it is read.
    let mut p = std::mem::MaybeUninit::<sys::CUDA_MEMCPY3D>::zeroed();
    // SAFETY: forwarded from the caller; `p` receives the parameters.
    unsafe { sys::cuGraphMemcpyNodeGetParams(node, p.as_mut_ptr()) }.result()?;
    // SAFETY: the call succeeded, so the driver wrote the whole struct.
    Ok(unsafe { p.assume_init() })
}

/// Sets a copy node's parameters in the graph and in its executable form.
///
/// # Safety
/// As [`set_kernel_node_params`], for a memcpy node; the current context is the graph's.
pub(crate) unsafe fn set_memcpy_node_params(
    exec: sys::CUgraphExec,
    node: sys::CUgraphNode,
    p: &sys::CUDA_MEMCPY3D,
) -> DResult<()> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: forwarded from the caller; `ctx` receives the current context.
    unsafe {
        sys::cuCtxGetCurrent(&mut ctx).result()?;
        sys::cuGraphMemcpyNodeSetParams(node, p).result()?;
        sys::cuGraphExecMemcpyNodeSetParams(exec, node, p, ctx).result()
    }
}

/// A memset node's parameters.
///
/// # Safety
/// `node` is a live memset node.
pub(crate) unsafe fn memset_node_params(
    node: sys::CUgraphNode,
) -> DResult<sys::CUDA_MEMSET_NODE_PARAMS> {
    // SAFETY: all-zero is a valid value of this plain C struct.
    let mut p: sys::CUDA_MEMSET_NODE_PARAMS = unsafe { std::mem::zeroed() };
    // SAFETY: forwarded from the caller; `p` receives the parameters.
    unsafe { sys::cuGraphMemsetNodeGetParams(node, &mut p) }.result()?;
    Ok(p)
}

/// Sets a memset node's parameters in the graph and in its executable form.
///
/// # Safety
/// As [`set_memcpy_node_params`], for a memset node.
pub(crate) unsafe fn set_memset_node_params(
    exec: sys::CUgraphExec,
    node: sys::CUgraphNode,
    p: &sys::CUDA_MEMSET_NODE_PARAMS,
) -> DResult<()> {
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: forwarded from the caller; `ctx` receives the current context.
    unsafe {
        sys::cuCtxGetCurrent(&mut ctx).result()?;
        sys::cuGraphMemsetNodeSetParams(node, p).result()?;
        sys::cuGraphExecMemsetNodeSetParams(exec, node, p, ctx).result()
    }
}

// ---- modules and kernels --------------------------------------------------------------

/// Loads a complete image (cubin, fatbin or NUL-terminated PTX) into the current context;
/// on failure the driver's JIT log comes with the error.
///
/// # Safety
/// `image` is a complete image of one of those formats.
pub(crate) unsafe fn module_load(
    image: &[u8],
) -> std::result::Result<CUmodule, (DriverError, String)> {
    let mut log = vec![0u8; 8192];
    let mut opts = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    let mut raw: CUmodule = std::ptr::null_mut();
    // SAFETY: `image` is complete (the caller's contract) and outlives the call; the option
    // arrays have the declared length 2; the log buffer is as large as declared.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &mut raw,
            image.as_ptr().cast(),
            2,
            opts.as_mut_ptr(),
            vals.as_mut_ptr(),
        )
    };
    r.result().map(|()| raw).map_err(|e| {
        let len = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        (e, String::from_utf8_lossy(&log[..len]).into_owned())
    })
}

/// Unloads a module.
///
/// # Safety
/// `module` was loaded by [`module_load`], is unloaded once, and no kernel of it is used
/// afterwards.
pub(crate) unsafe fn module_unload(module: CUmodule) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuModuleUnload(module) }.result()
}

/// The kernel `name` of a module; `Ok(None)` when it has none.
///
/// # Safety
/// `module` is loaded.
pub(crate) unsafe fn module_function(
    module: CUmodule,
    name: &CString,
) -> DResult<Option<CUfunction>> {
    let mut f: CUfunction = std::ptr::null_mut();
    // SAFETY: the module is loaded and `name` is NUL-terminated.
    match unsafe { sys::cuModuleGetFunction(&mut f, module, name.as_ptr()) } {
        sys::CUresult::CUDA_ERROR_NOT_FOUND => Ok(None),
        r => r.result().map(|()| Some(f)),
    }
}

/// Address and size of a module's global symbol; `Ok(None)` when it has none.
///
/// # Safety
/// `module` is loaded.
pub(crate) unsafe fn module_global(
    module: CUmodule,
    name: &CString,
) -> DResult<Option<(u64, usize)>> {
    let (mut ptr, mut size) = (0u64, 0usize);
    // SAFETY: the module is loaded, the out pointers are valid.
    match unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut size, module, name.as_ptr()) } {
        sys::CUresult::CUDA_ERROR_NOT_FOUND => Ok(None),
        r => r.result().map(|()| Some((ptr, size))),
    }
}

type ParamCountFn = unsafe extern "C" fn(CUfunction, *mut usize) -> sys::CUresult;

/// The driver's `cuFuncGetParamCount` (CUDA 13.2+), looked up once; `None` on older drivers.
fn param_count_fn() -> Option<ParamCountFn> {
    static F: OnceLock<Option<ParamCountFn>> = OnceLock::new();
    *F.get_or_init(|| {
        // SAFETY: callers hold a loaded function, so the driver library is loaded (cudarc's
        // `culib` then returns it without panicking); looking a symbol up calls nothing, and
        // the symbol has this signature in every CUDA version that exports it.
        unsafe {
            let lib = sys::culib();
            lib.get::<ParamCountFn>(b"cuFuncGetParamCount")
                .ok()
                .map(|s| *s)
        }
    })
}

/// The kernel's parameter count from the driver, where the driver can tell (CUDA 13.2+).
///
/// # Safety
/// `f` is a function of a loaded module.
pub(crate) unsafe fn function_param_count(f: CUfunction) -> Option<DResult<usize>> {
    let count = param_count_fn()?;
    let mut n = 0usize;
    // SAFETY: `count` is the driver's cuFuncGetParamCount; the function is valid (the
    // caller's contract) and `n` is a valid out pointer.
    Some(unsafe { count(f, &mut n) }.result().map(|()| n))
}

/// `(offset, size)` of parameter `i`; `Ok(None)` when `i` is past the end and `past_end_ok`.
///
/// # Safety
/// `f` is a function of a loaded module.
pub(crate) unsafe fn function_param(
    f: CUfunction,
    i: usize,
    past_end_ok: bool,
) -> DResult<Option<(usize, usize)>> {
    let (mut off, mut size) = (0usize, 0usize);
    // SAFETY: the function is valid and the out pointers are valid.
    match unsafe { sys::cuFuncGetParamInfo(f, i, &mut off, &mut size) } {
        sys::CUresult::CUDA_SUCCESS => Ok(Some((off, size))),
        sys::CUresult::CUDA_ERROR_INVALID_VALUE if past_end_ok => Ok(None),
        e => e.result().map(|()| None),
    }
}

/// A function attribute.
///
/// # Safety
/// `f` is a function of a loaded module.
pub(crate) unsafe fn function_attribute(f: CUfunction, attr: CUfunction_attribute) -> DResult<i32> {
    let mut v = 0i32;
    // SAFETY: the function is valid; `v` is a valid out pointer.
    unsafe { sys::cuFuncGetAttribute(&mut v, attr, f) }.result()?;
    Ok(v)
}

/// Sets a function attribute (the driver validates the value).
///
/// # Safety
/// `f` is a function of a loaded module.
pub(crate) unsafe fn set_function_attribute(
    f: CUfunction,
    attr: CUfunction_attribute,
    value: i32,
) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuFuncSetAttribute(f, attr, value) }.result()
}

/// Blocks of `block` threads (and `shared` bytes of dynamic shared memory) of `f` one
/// multiprocessor holds at once.
///
/// # Safety
/// `f` is a function of a loaded module.
pub(crate) unsafe fn max_active_blocks(f: CUfunction, block: u32, shared: usize) -> DResult<u32> {
    let mut n = 0i32;
    // SAFETY: the function is valid; `n` is a valid out pointer.
    unsafe { sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block as i32, shared) }
        .result()?;
    Ok(n.max(0) as u32)
}

/// `cuLaunchKernel`; `cuLaunchCooperativeKernel` for a cooperative launch; for a dependent
/// one `cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`: the
/// kernel's blocks may start as the kernel before it on the stream finishes, and wait for
/// it (and see its memory) at their `griddepcontrol.wait`.
///
/// # Safety
/// `args` holds one pointer per parameter of `f`, each to a value of the parameter's size,
/// alive for the call; the values are valid for what the kernel does; `stream` is a live
/// stream of `f`'s context, which is current. A dependent launch's kernel waits for the
/// grid before it (`griddepcontrol.wait`) before its first access to memory.
pub(crate) unsafe fn launch(
    f: CUfunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared: u32,
    stream: CUstream,
    args: *mut *mut c_void,
    mode: LaunchMode,
) -> DResult<()> {
    let r = match mode {
        // SAFETY: forwarded from the caller; no `extra` parameters.
        LaunchMode::Plain => unsafe {
            sys::cuLaunchKernel(
                f,
                grid.0,
                grid.1,
                grid.2,
                block.0,
                block.1,
                block.2,
                shared,
                stream,
                args,
                std::ptr::null_mut(),
            )
        },
        // SAFETY: forwarded from the caller.
        LaunchMode::Cooperative => unsafe {
            sys::cuLaunchCooperativeKernel(
                f, grid.0, grid.1, grid.2, block.0, block.1, block.2, shared, stream, args,
            )
        },
        LaunchMode::Dependent => {
            // SAFETY: an all-zero launch attribute is a valid plain-data value (the id is
            // set below; the union's other members are integers and arrays of them).
            let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
            attr.id =
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            let config = sys::CUlaunchConfig {
                gridDimX: grid.0,
                gridDimY: grid.1,
                gridDimZ: grid.2,
                blockDimX: block.0,
                blockDimY: block.1,
                blockDimZ: block.2,
                sharedMemBytes: shared,
                hStream: stream,
                attrs: &mut attr,
                numAttrs: 1,
            };
            // SAFETY: `config` and `attr` live for the call (the driver reads them during
            // it); the rest is forwarded from the caller; no `extra` parameters.
            unsafe { sys::cuLaunchKernelEx(&config, f, args, std::ptr::null_mut()) }
        }
    };
    r.result()
}

/// Links the relocatable cubin `image` (compiled with `-dc` / `-rdc=true`) with the static
/// device libraries `libraries` (e.g. `libcudadevrt.a`, for launches from device code)
/// through the driver's linker (`cuLink*`, in the current context), and returns the linked
/// image with the linker's error log on failure.
pub(crate) fn link(
    image: &[u8],
    libraries: &[std::ffi::CString],
) -> std::result::Result<Vec<u8>, (DriverError, String)> {
    let mut log = vec![0u8; 8192];
    let mut opts = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    let text = |log: &[u8]| {
        let len = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        String::from_utf8_lossy(&log[..len]).into_owned()
    };
    // SAFETY: the option arrays have the declared length 2 and the log buffer the declared
    // size; both outlive the link state, which is destroyed below on every path.
    unsafe { sys::cuLinkCreate_v2(2, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state) }
        .result()
        .map_err(|e| (e, String::new()))?;
    let linked = (|| -> DResult<Vec<u8>> {
        // SAFETY: `image` outlives the call (the driver reads it during it); the name is a
        // NUL-terminated literal; no per-input options.
        unsafe {
            sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_CUBIN,
                image.as_ptr().cast_mut().cast(),
                image.len(),
                c"cuprum_relocatable.cubin".as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
        .result()?;
        for lib in libraries {
            // SAFETY: `lib` is a NUL-terminated path that outlives the call.
            unsafe {
                sys::cuLinkAddFile_v2(
                    state,
                    sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
                    lib.as_ptr(),
                    0,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
            }
            .result()?;
        }
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `state` is live; the linked image stays owned by it until it is destroyed.
        unsafe { sys::cuLinkComplete(state, &mut out, &mut size) }.result()?;
        if out.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: cuLinkComplete returned `size` readable bytes at `out`, valid until the
        // state is destroyed (below, after this copy).
        Ok(unsafe { std::slice::from_raw_parts(out.cast::<u8>(), size) }.to_vec())
    })();
    let log_text = text(&log);
    // SAFETY: `state` came from cuLinkCreate and is destroyed once; nothing refers to its
    // output any more (it was copied).
    unsafe { sys::cuLinkDestroy(state) };
    linked.map_err(|e| (e, log_text))
}

// ---- CUDA arrays, texture and surface objects -----------------------------------------------

/// `cuArray3DCreate` of `desc` in the current context.
pub(crate) fn array_create(desc: &sys::CUDA_ARRAY3D_DESCRIPTOR) -> DResult<sys::CUarray> {
    let mut a: sys::CUarray = std::ptr::null_mut();
    // SAFETY: `desc` is a valid descriptor and `a` a place for the handle.
    unsafe { sys::cuArray3DCreate_v2(&mut a, desc) }.result()?;
    Ok(a)
}

/// `cuArrayDestroy`.
///
/// # Safety
/// `array` is a live array of the current context that no queued work uses.
pub(crate) unsafe fn array_destroy(array: sys::CUarray) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuArrayDestroy(array) }.result()
}

/// `cuMemcpy3DAsync` of `copy` on `stream`.
///
/// # Safety
/// Every address and array `copy` names is live memory of the current context, covering
/// the copied extent, and stays allocated until the copy has run in `stream` order.
pub(crate) unsafe fn copy_3d(copy: &sys::CUDA_MEMCPY3D, stream: CUstream) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemcpy3DAsync_v2(copy, stream) }.result()
}

/// `cuTexObjectCreate` (no resource view).
///
/// # Safety
/// The memory `res` names is live and stays so until the object is destroyed.
pub(crate) unsafe fn texture_create(
    res: &sys::CUDA_RESOURCE_DESC,
    tex: &sys::CUDA_TEXTURE_DESC,
) -> DResult<u64> {
    let mut t: sys::CUtexObject = 0;
    // SAFETY: both descriptors are valid; the caller keeps the resource alive.
    unsafe { sys::cuTexObjectCreate(&mut t, res, tex, std::ptr::null()) }.result()?;
    Ok(t)
}

/// `cuTexObjectDestroy`.
///
/// # Safety
/// `handle` is a live texture object that no queued work uses.
pub(crate) unsafe fn texture_destroy(handle: u64) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuTexObjectDestroy(handle) }.result()
}

/// `cuSurfObjectCreate`.
///
/// # Safety
/// As for [`texture_create`].
pub(crate) unsafe fn surface_create(res: &sys::CUDA_RESOURCE_DESC) -> DResult<u64> {
    let mut s: sys::CUsurfObject = 0;
    // SAFETY: the descriptor is valid; the caller keeps the array alive.
    unsafe { sys::cuSurfObjectCreate(&mut s, res) }.result()?;
    Ok(s)
}

/// `cuSurfObjectDestroy`.
///
/// # Safety
/// `handle` is a live surface object that no queued work uses.
pub(crate) unsafe fn surface_destroy(handle: u64) -> DResult<()> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuSurfObjectDestroy(handle) }.result()
}
