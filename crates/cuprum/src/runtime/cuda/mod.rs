//! The CUDA backend: a GPU through the CUDA driver (loaded at run time by cudarc, so cuprum
//! builds and starts without CUDA). [`CudaDevice`] implements the runtime's
//! [`DeviceBackend`]: its primary context, its default memory pool (stream-ordered
//! `cuMemAllocAsync`), a non-blocking default stream, events, modules
//! ([`module::CudaModule`]), cuBLAS ([`blas`]) and cuRAND ([`curand`]). Every raw driver
//! call goes through [`driver`]; each method binds the device's context first and names
//! the failing call and the device in its error (a sticky fault is recorded against this
//! device).

pub(crate) mod blas;
pub(crate) mod cufft;
mod culib;
pub(crate) mod curand;
pub(crate) mod driver;
mod graph_rebind;
pub(crate) mod image;
mod memory;
pub(crate) mod module;
mod staging;
mod streams;
mod texture;

use super::backend::{
    CodeTarget, DeviceBackend, DeviceProps, FaultSlots, FftPlan, Gemm, MappedHost, ModuleBackend,
    RawEvent, RawStream, RngAlgorithm, RngBackend,
};
use super::fault::record::RECORD_BYTES;
use super::fault::sticky;
use crate::error::{Error, Result, bail};
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

    fn profiler(&self, collect: bool) -> Result<()> {
        self.bind_ctx()?;
        let call = if collect {
            "cuProfilerStart"
        } else {
            "cuProfilerStop"
        };
        self.check(driver::profiler(collect), call)
    }

    fn load_image(
        &self,
        image: &[u8],
        lowered: Vec<(String, String)>,
    ) -> Result<Arc<dyn ModuleBackend>> {
        self.bind_ctx()?;
        module::CudaModule::load(self, image, lowered).map(|m| Arc::new(m) as _)
    }

    fn link_relocatable(&self, image: &[u8], libraries: &[std::path::PathBuf]) -> Result<Vec<u8>> {
        self.bind_ctx()?;
        let libs = libraries
            .iter()
            .map(|p| {
                std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).map_err(|_| {
                    crate::error::err!(
                        InvalidArgument,
                        "library path {} holds a NUL byte",
                        p.display()
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?;
        driver::link(image, &libs).map_err(|(e, log)| {
            let error = self.error(e, "cuLinkComplete");
            let names: Vec<String> = libraries.iter().map(|p| p.display().to_string()).collect();
            crate::error::Error::new(
                crate::error::ErrorKind::Compile,
                format!(
                    "linking relocatable device code with {} failed: {error}{}",
                    names.join(", "),
                    if log.trim().is_empty() {
                        String::new()
                    } else {
                        format!("\nlinker log:\n{}", log.trim_end())
                    }
                ),
            )
        })
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

    unsafe fn fft(
        &self,
        plan: &FftPlan,
        input: u64,
        output: u64,
        forward: bool,
        s: RawStream,
    ) -> Result<()> {
        self.bind_ctx()?;
        // SAFETY: forwarded from the caller.
        unsafe { cufft::exec(self.ordinal, plan, input, output, forward, stream(s)) }
    }

    fn fft_version(&self) -> Result<i32> {
        self.bind_ctx()?;
        cufft::version()
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

    fn alloc_mapped_forever(&self, bytes: usize) -> Result<MappedHost> {
        self.bind_ctx()?;
        let (host, device) =
            self.check(driver::host_alloc_mapped_forever(bytes), "cuMemHostAlloc")?;
        Ok(MappedHost { host, device })
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
