//! The CUDA backend: a GPU through the CUDA driver (loaded at run time by cudarc, so cuprum
//! builds and starts without CUDA). [`CudaDevice`] implements the runtime's
//! [`DeviceBackend`]: its primary context, its default memory pool (stream-ordered
//! `cuMemAllocAsync`), a non-blocking default stream, events, modules
//! ([`module::CudaModule`]), cuBLAS ([`blas`]) and cuRAND ([`curand`]). Every raw driver
//! call goes through [`driver`]; each method binds the device's context first and names
//! the failing call and the device in its error (a sticky fault is recorded against this
//! device).

pub(crate) mod blas;
pub(crate) mod curand;
pub(crate) mod driver;
mod graph_rebind;
pub(crate) mod image;
pub(crate) mod module;
mod staging;

use super::backend::{
    CodeTarget, DeviceBackend, DeviceProps, FaultSlots, Gemm, ModuleBackend, PoolBytes, RawEvent,
    RawGraph, RawStream, Rebound, RngAlgorithm, RngBackend,
};
use super::fault::record::RECORD_BYTES;
use super::fault::sticky;
use crate::error::{Error, Result, bail, err};
use cudarc::driver::CudaContext;
use driver::{CUevent, CUmemoryPool, CUstream, DResult, DriverError};
use std::any::Any;
use std::sync::Arc;

/// One GPU: its primary context, default pool and default stream.
pub(crate) struct CudaDevice {
    ordinal: usize,
    /// The architecture number NVRTC uses (`90` for sm_90).
    arch: u32,
    ctx: Arc<CudaContext>,
    pool: CUmemoryPool,
    default_stream: CUstream,
    /// The pinned lanes of large host copies (see `staging.rs`).
    staging: staging::Staging,
}

// SAFETY: the raw handles (context, memory pool, stream) are process-wide driver objects
// that the CUDA driver allows to be used from any thread; nothing here is mutated after
// opening.
unsafe impl Send for CudaDevice {}
// SAFETY: as above.
unsafe impl Sync for CudaDevice {}

fn stream(s: RawStream) -> CUstream {
    s.0 as CUstream
}

fn event(e: RawEvent) -> CUevent {
    e.0 as CUevent
}

/// Whether a device name is a MIG instance's: the driver names those
/// `<GPU> MIG <profile>`, e.g. `NVIDIA H100 80GB HBM3 MIG 2g.20gb`. (`cuDeviceGetUuid_v2`
/// gives the instance's own UUID; no driver attribute says "MIG".)
fn name_is_mig(name: &str) -> bool {
    name.split_whitespace().any(|w| w == "MIG")
}

/// A UUID as `nvidia-smi -L` prints it (and `CUDA_VISIBLE_DEVICES` takes it):
/// `GPU-` or `MIG-` and 8-4-4-4-12 hex digits.
fn uuid_text(bytes: &[u8; 16], mig: bool) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let h = hex.concat();
    format!(
        "{}-{}-{}-{}-{}-{}",
        if mig { "MIG" } else { "GPU" },
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// Opens GPU `ordinal`: its properties and its backend. The pool's release threshold starts
/// at `threshold` bytes.
pub(crate) fn open(ordinal: usize, threshold: usize) -> Result<(DeviceProps, CudaDevice)> {
    let at = |call: &'static str| move |e: DriverError| driver::to_error(e, call, Some(ordinal));
    let ctx = driver::retain_primary(ordinal)
        .map_err(at("opening the device (cuDevicePrimaryCtxRetain)"))?;
    use driver::CUdevice_attribute as A;
    let attr = |a: A| -> Result<i32> {
        driver::device_attribute(&ctx, a).map_err(at("cuDeviceGetAttribute"))
    };
    let name = driver::device_name(&ctx).map_err(at("cuDeviceGetName"))?;
    if attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? == 0 {
        bail!(
            Unsupported,
            "device {ordinal} ({name}) does not support stream-ordered memory pools"
        );
    }
    let total_memory = driver::total_memory(&ctx).map_err(at("cuDeviceTotalMem"))?;
    let pool = driver::default_pool(&ctx).map_err(at("cuDeviceGetDefaultMemPool"))?;
    driver::pool_set_release_threshold(pool, threshold)
        .map_err(at("cuMemPoolSetAttribute(RELEASE_THRESHOLD)"))?;
    let uuid = uuid_text(
        &driver::device_uuid(&ctx).map_err(at("cuDeviceGetUuid"))?,
        name_is_mig(&name),
    );
    let props = DeviceProps {
        name,
        cc: (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u32,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u32,
        ),
        sm_count: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        total_memory,
        max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32,
        max_threads_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?.max(1)
            as u32,
        max_shared_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)? as usize,
        max_shared_per_block_optin: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
            as usize,
        max_grid: [
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)? as u32,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)? as u32,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)? as u32,
        ],
        max_block: [
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)? as u32,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)? as u32,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)? as u32,
        ],
        l2_cache_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
        uuid,
    };
    let default_stream = driver::stream_create().map_err(at("cuStreamCreate"))?;
    let dev = CudaDevice {
        ordinal,
        arch: props.cc.0 * 10 + props.cc.1,
        ctx,
        pool,
        default_stream,
        staging: staging::Staging::new(),
    };
    Ok((props, dev))
}

impl CudaDevice {
    /// A driver error of a call this device made (a sticky fault is recorded against it).
    pub(crate) fn error(&self, e: DriverError, call: &str) -> Error {
        driver::to_error(e, call, Some(self.ordinal))
    }

    /// `r` with its error turned into a cuprum error naming `call` and this device.
    pub(crate) fn check<T>(&self, r: DResult<T>, call: &str) -> Result<T> {
        r.map_err(|e| self.error(e, call))
    }

    /// Makes the context current (after an earlier sticky fault: that fault's error).
    #[inline]
    pub(crate) fn bind_ctx(&self) -> Result<()> {
        sticky::check(self.ordinal)?;
        self.check(driver::bind(&self.ctx), "cuCtxSetCurrent")
    }

    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// `peer` as a GPU of this backend, if it is one.
    fn peer(peer: &dyn DeviceBackend) -> Option<&CudaDevice> {
        peer.as_any().downcast_ref::<CudaDevice>()
    }
}

impl DeviceBackend for CudaDevice {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn code_target(&self) -> CodeTarget {
        CodeTarget::Cuda(self.arch)
    }

    fn is_synchronous(&self) -> bool {
        false
    }

    fn bind(&self) -> Result<()> {
        self.bind_ctx()
    }

    fn synchronize(&self) -> Result<()> {
        self.bind_ctx()?;
        self.check(driver::synchronize_context(), "cuCtxSynchronize")
    }

    fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind_ctx()?;
        self.check(driver::memory_info(), "cuMemGetInfo")
    }

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
        )
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

    fn begin_capture(&self, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the stream is one of this device's; the caller checked it is not capturing.
        self.check(
            unsafe { driver::begin_capture(stream(s)) },
            "cuStreamBeginCapture",
        )
    }

    fn end_capture(&self, s: RawStream) -> Result<(RawGraph, usize)> {
        self.bind_ctx()?;
        // SAFETY: the stream is capturing (begun by `begin_capture`).
        let g = self.check(
            unsafe { driver::end_capture(stream(s)) },
            "cuStreamEndCapture",
        )?;
        // SAFETY: `g` is the live graph just captured.
        let made = unsafe { driver::graph_node_count(g) }
            .and_then(|n| unsafe { driver::graph_instantiate(g) }.map(|e| (e, n)));
        match made {
            Ok((e, n)) => Ok((RawGraph(g as usize, e as usize), n)),
            Err(err) => {
                // SAFETY: `g` is destroyed once; there is no executable graph.
                unsafe { driver::graph_destroy(g, std::ptr::null_mut()) };
                Err(self.error(err, "cuGraphInstantiate"))
            }
        }
    }

    unsafe fn launch_graph(&self, g: RawGraph, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: forwarded from the caller.
        self.check(
            unsafe { driver::graph_launch(g.1 as driver::CUgraphExec, stream(s)) },
            "cuGraphLaunch",
        )
    }

    unsafe fn destroy_graph(&self, g: RawGraph) {
        if self.bind_ctx().is_ok() {
            // SAFETY: forwarded from the caller.
            unsafe { driver::graph_destroy(g.0 as driver::CUgraph, g.1 as driver::CUgraphExec) };
        }
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

    unsafe fn rebind_graph(
        &self,
        g: RawGraph,
        from: std::ops::Range<u64>,
        to: u64,
        watch: std::ops::Range<u64>,
        layouts: &crate::runtime::capture_state::Layouts,
    ) -> Result<Rebound> {
        self.bind_ctx()?;
        let m = graph_rebind::Move {
            from,
            to,
            watch,
            layouts,
        };
        // SAFETY: forwarded from the caller; the context is current.
        self.check(
            unsafe { graph_rebind::rebind(g.0 as driver::CUgraph, g.1 as driver::CUgraphExec, &m) },
            "cuGraphExecKernelNodeSetParams",
        )
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

    fn default_stream(&self) -> RawStream {
        RawStream(self.default_stream as usize)
    }

    fn create_stream(&self) -> Result<RawStream> {
        self.bind_ctx()?;
        let s = self.check(driver::stream_create(), "cuStreamCreate")?;
        Ok(RawStream(s as usize))
    }

    fn destroy_stream(&self, s: RawStream) {
        if self.bind_ctx().is_ok() {
            // SAFETY: the stream was made by `create_stream` and is destroyed once (the
            // owner's drop); the driver lets queued work finish before releasing it.
            let _ = unsafe { driver::stream_destroy(stream(s)) };
        }
    }

    fn stream_done(&self, s: RawStream) -> Result<bool> {
        self.bind_ctx()?;
        // SAFETY: the stream is live while its owner (the caller's Stream) lives.
        self.check(unsafe { driver::stream_done(stream(s)) }, "cuStreamQuery")
    }

    fn synchronize_stream(&self, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the stream is live while its owner (the caller's Stream) lives.
        self.check(
            unsafe { driver::stream_synchronize(stream(s)) },
            "cuStreamSynchronize",
        )
    }

    fn stream_wait_stream(
        &self,
        s: RawStream,
        peer: &dyn DeviceBackend,
        other: RawStream,
    ) -> Result<()> {
        let Some(p) = Self::peer(peer) else {
            return Err(err!(
                DeviceMismatch,
                "a GPU stream can only wait on a stream of another GPU here"
            ));
        };
        p.bind_ctx()?;
        let e = p.check(driver::event_create(false), "cuEventCreate")?;
        // SAFETY: `e` was just created in the peer's (current) context and both streams
        // are valid while their owners live; a stream may wait on an event of another
        // context.
        let r = p
            .check(
                unsafe { driver::event_record(e, stream(other)) },
                "cuEventRecord",
            )
            .and_then(|()| self.bind_ctx())
            .and_then(|()| {
                // SAFETY: as above.
                self.check(
                    unsafe { driver::stream_wait_event(stream(s), e) },
                    "cuStreamWaitEvent",
                )
            });
        if p.bind_ctx().is_ok() {
            // SAFETY: the event is destroyed once; a wait already queued on it still
            // completes (the driver releases it when the event completes).
            let _ = unsafe { driver::event_destroy(e) };
        }
        r
    }

    fn create_event(&self) -> Result<RawEvent> {
        self.bind_ctx()?;
        let e = self.check(driver::event_create(true), "cuEventCreate")?;
        Ok(RawEvent(e as usize))
    }

    fn create_marker_event(&self) -> Result<RawEvent> {
        self.bind_ctx()?;
        let e = self.check(driver::event_create(false), "cuEventCreate")?;
        Ok(RawEvent(e as usize))
    }

    fn destroy_event(&self, e: RawEvent) {
        if self.bind_ctx().is_ok() {
            // SAFETY: the event is owned by its `Event` and destroyed exactly once.
            let _ = unsafe { driver::event_destroy(event(e)) };
        }
    }

    fn record_event(&self, e: RawEvent, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: both handles are valid for the lifetime of their owners.
        self.check(
            unsafe { driver::event_record(event(e), stream(s)) },
            "cuEventRecord",
        )
    }

    fn stream_wait_event(&self, s: RawStream, e: RawEvent) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: both handles are valid while their owners live.
        self.check(
            unsafe { driver::stream_wait_event(stream(s), event(e)) },
            "cuStreamWaitEvent",
        )
    }

    fn synchronize_event(&self, e: RawEvent) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: the event is valid while its owner lives.
        self.check(
            unsafe { driver::event_synchronize(event(e)) },
            "cuEventSynchronize",
        )
    }

    fn event_complete(&self, e: RawEvent) -> Result<bool> {
        self.bind_ctx()?;
        // SAFETY: the event is valid while its owner lives.
        self.check(unsafe { driver::event_complete(event(e)) }, "cuEventQuery")
    }

    fn elapsed_ms(&self, start: RawEvent, end: RawEvent) -> Result<f32> {
        self.synchronize_event(end)?;
        // SAFETY: both events are valid and recorded; `end` has completed.
        self.check(
            unsafe { driver::event_elapsed(event(start), event(end)) },
            "cuEventElapsedTime",
        )
    }

    fn load_image(
        &self,
        image: &[u8],
        lowered: Vec<(String, String)>,
    ) -> Result<Arc<dyn ModuleBackend>> {
        self.bind_ctx()?;
        module::CudaModule::load(self, image, lowered).map(|m| Arc::new(m) as _)
    }

    fn rng(&self, seed: u64, algorithm: RngAlgorithm) -> Result<Box<dyn RngBackend>> {
        self.bind_ctx()?;
        curand::Curand::new(self, seed, algorithm).map(|g| Box::new(g) as _)
    }

    unsafe fn gemm(&self, g: &Gemm, s: RawStream) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: forwarded from the caller.
        unsafe { blas::gemm(self.ordinal, g, stream(s)) }
    }

    fn blas_version(&self) -> Result<i32> {
        self.bind_ctx()?;
        blas::version(self.ordinal)
    }

    fn alloc_fault_slots(&self) -> Result<FaultSlots> {
        self.bind_ctx()?;
        let (host, record) = self.check(
            driver::host_alloc_mapped_forever(RECORD_BYTES),
            "cuMemHostAlloc",
        )?;
        let claim = self.check(driver::device_word_forever(), "cuMemAlloc")?;
        Ok(FaultSlots {
            host,
            record,
            claim,
        })
    }

    fn reset_fault_claim(&self, slots: &FaultSlots) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: `claim` is the live 4-byte device allocation of this device.
        self.check(
            unsafe { driver::zero_word_sync(slots.claim) },
            "cuMemsetD32",
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_print_as_nvidia_smi_does() {
        let b: [u8; 16] = std::array::from_fn(|i| (i as u8) * 17);
        assert_eq!(
            super::uuid_text(&b, false),
            "GPU-00112233-4455-6677-8899-aabbccddeeff"
        );
        assert!(super::uuid_text(&b, true).starts_with("MIG-00112233-"));
        assert!(super::name_is_mig("NVIDIA H100 80GB HBM3 MIG 2g.20gb"));
        assert!(!super::name_is_mig("NVIDIA H100 80GB HBM3"));
        assert!(!super::name_is_mig("NVIDIA MIGHTY"));
    }
}
