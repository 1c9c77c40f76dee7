//! [`Device`]: one GPU, its primary context, properties, memory pool and default stream.

use super::driver::{DriverResultExt, driver_info};
use super::memory::{DeviceMemory, release_all, set_release_threshold};
use super::pool::INITIAL_THRESHOLD;
use super::stream::Stream;
use crate::error::{Result, bail};
use cudarc::driver::{CudaContext, result, sys};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The ordinal of the host device (it has no CUDA ordinal): what
/// [`Device::ordinal`] returns for it, and the key under which per-device state keeps it.
pub const HOST_ORDINAL: usize = usize::MAX;

pub(crate) struct DeviceInner {
    pub(crate) ordinal: usize,
    pub(crate) name: String,
    pub(crate) cc: (u32, u32),
    pub(crate) sm_count: u32,
    pub(crate) total_memory: usize,
    pub(crate) max_threads_per_block: u32,
    pub(crate) max_threads_per_sm: u32,
    pub(crate) max_shared_per_block: usize,
    pub(crate) max_shared_per_block_optin: usize,
    pub(crate) max_grid: [u32; 3],
    pub(crate) max_block: [u32; 3],
    pub(crate) l2_cache_bytes: usize,
    pub(crate) memory: DeviceMemory,
    pub(crate) backend: Backend,
}

/// What runs a device's work: a GPU through the CUDA driver, or the CPU.
pub(crate) enum Backend {
    Cuda(CudaParts),
    Host(super::host::HostDevice),
}

/// The driver objects of a GPU.
pub(crate) struct CudaParts {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) pool: sys::CUmemoryPool,
    pub(crate) default_stream: sys::CUstream,
}

// SAFETY: the raw handles (context, memory pool) are process-wide driver objects that the
// CUDA driver allows to be used from any thread; the rest is immutable after creation.
unsafe impl Send for DeviceInner {}
// SAFETY: as above; no interior mutability except the OnceLock, which is Sync.
unsafe impl Sync for DeviceInner {}

/// A device that runs kernels: a CUDA GPU ([`Device::get`]) or the CPU
/// ([`Device::host`]). Cheap to copy: devices are opened once per process and live until
/// it exits.
///
/// The host device runs the same kernels on the CPU: the CUDA C++ source is compiled by
/// the system C++ compiler with cuprum's shim headers, arrays live in host memory, and
/// launches run to completion on a thread pool before they return (see
/// [`Device::host`]).
///
/// ```
/// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
/// use cuprum::Device;
/// let dev = Device::get(0)?;
/// println!("{} (sm_{}{}, {} SMs, {} GiB)", dev.name(), dev.compute_capability().0,
///          dev.compute_capability().1, dev.sm_count(), dev.total_memory() >> 30);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Device(pub(crate) &'static DeviceInner);

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        self.0.ordinal == other.0.ordinal
    }
}
impl Eq for Device {}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_host() {
            write!(f, "Device(host: {})", self.0.name)
        } else {
            write!(f, "Device({}: {})", self.0.ordinal, self.0.name)
        }
    }
}

/// `device 0 (NVIDIA H200)` or `the host device (CPU, 16 threads)`, for messages.
impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_host() {
            write!(f, "the host device ({})", self.0.name)
        } else {
            write!(f, "device {} ({})", self.0.ordinal, self.0.name)
        }
    }
}

/// A thread that has not chosen a device uses the process default.
const UNSET: usize = usize::MAX - 1;

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(UNSET) };
}

/// The device chosen with [`Device::make_default`] (`UNSET`: none).
static DEFAULT: AtomicUsize = AtomicUsize::new(UNSET);

/// The process default: [`Device::make_default`]'s choice, else `CUPRUM_DEVICE`, else GPU 0.
fn default_ordinal() -> Result<usize> {
    match DEFAULT.load(Ordering::Acquire) {
        UNSET => env_default(),
        d => Ok(d),
    }
}

/// `CUPRUM_DEVICE`: `host` (or `cpu`), `cuda`, `cuda:N` or `N`; unset or empty: GPU 0.
fn env_default() -> Result<usize> {
    static ENV: OnceLock<Result<usize>> = OnceLock::new();
    ENV.get_or_init(|| {
        let v = std::env::var("CUPRUM_DEVICE").unwrap_or_default();
        parse_device(&v).ok_or_else(|| {
            crate::error::err!(
                InvalidArgument,
                "CUPRUM_DEVICE={v:?} is not a device: expected `host` (the CPU), `cuda`, \
                 `cuda:N` or a GPU ordinal N"
            )
        })
    })
    .clone()
}

/// The ordinal a `CUPRUM_DEVICE` value names.
fn parse_device(v: &str) -> Option<usize> {
    let v = v.trim();
    match v.to_ascii_lowercase().as_str() {
        "" | "cuda" | "gpu" => Some(0),
        "host" | "cpu" => Some(HOST_ORDINAL),
        s => s
            .strip_prefix("cuda:")
            .unwrap_or(s)
            .parse::<usize>()
            .ok()
            .filter(|&n| n < UNSET),
    }
}

/// The device of an ordinal key (`HOST_ORDINAL` is the host device).
fn by_ordinal(ordinal: usize) -> Result<Device> {
    if ordinal == HOST_ORDINAL {
        Ok(Device::host())
    } else {
        Device::get(ordinal)
    }
}

fn registry() -> Result<&'static [OnceLock<Result<&'static DeviceInner>>]> {
    static DEVICES: OnceLock<Vec<OnceLock<Result<&'static DeviceInner>>>> = OnceLock::new();
    let info = driver_info()?;
    Ok(DEVICES.get_or_init(|| (0..info.device_count).map(|_| OnceLock::new()).collect()))
}

impl Device {
    /// Number of CUDA devices, or the error that says why there are none.
    ///
    /// ```
    /// match cuprum::Device::count() {
    ///     Ok(n) => println!("{n} GPU(s)"),
    ///     Err(e) => println!("no GPU: {e}"),
    /// }
    /// ```
    pub fn count() -> Result<usize> {
        Ok(driver_info()?.device_count)
    }

    /// Opens device `ordinal` (once per process; later calls are a lookup).
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// assert_eq!(dev.ordinal(), 0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn get(ordinal: usize) -> Result<Device> {
        let reg = registry()?;
        let Some(slot) = reg.get(ordinal) else {
            bail!(
                NoDevice,
                "no CUDA device {ordinal}: this machine has {} device(s) (ordinals 0..{})",
                reg.len(),
                reg.len()
            );
        };
        slot.get_or_init(|| open(ordinal))
            .as_ref()
            .map(|d| Device(d))
            .map_err(Clone::clone)
    }

    /// The CPU as a device: kernels are compiled by the system C++ compiler (`g++` or
    /// `clang++`, from `CUPRUM_HOST_CXX`, `CXX` or `PATH`) with cuprum's shim headers and
    /// run on a pool of worker threads (`CUPRUM_HOST_THREADS`, default: one per core);
    /// arrays live in host memory. Launches are synchronous (streams only order work) and
    /// kernel faults (an `assert`, a trap, a divergent or deadlocked barrier, an integer
    /// division by zero) are errors naming the block and thread. Always available; a
    /// missing compiler is an error at the first compile.
    ///
    /// ```
    /// use cuprum::{Array, Device, DType};
    /// let host = Device::host();
    /// assert!(host.is_host());
    /// let a = host.with(|| Array::from_slice(&[1.0f32, 2.0, 3.0], &[3]))?;
    /// assert_eq!(a.device(), host);
    /// assert_eq!(a.to_vec::<f32>()?, [1.0, 2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn host() -> Device {
        static HOST: OnceLock<&'static DeviceInner> = OnceLock::new();
        Device(HOST.get_or_init(|| Box::leak(Box::new(super::host::open()))))
    }

    /// Whether this is the host device ([`Device::host`]).
    #[inline]
    pub fn is_host(self) -> bool {
        matches!(self.0.backend, Backend::Host(_))
    }

    /// The calling thread's current device: the one chosen with
    /// [`make_current`](Device::make_current) or [`with`](Device::with), else the process
    /// default ([`make_default`](Device::make_default), else `CUPRUM_DEVICE` — `host`,
    /// `cuda`, `cuda:N` or `N` —, else GPU 0).
    ///
    /// ```
    /// # if !cuprum::internal::doc_device()? { return Ok(()); }
    /// let dev = cuprum::Device::current()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn current() -> Result<Device> {
        match CURRENT.with(Cell::get) {
            UNSET => by_ordinal(default_ordinal()?),
            d => by_ordinal(d),
        }
    }

    /// Makes this device the default of every thread that has not chosen one with
    /// [`make_current`](Device::make_current) or [`with`](Device::with), for the rest of
    /// the process (over `CUPRUM_DEVICE`). Test harnesses use it to run a GPU test suite
    /// on the host device where there is no GPU.
    ///
    /// ```
    /// let host = cuprum::Device::host();
    /// host.make_default();
    /// std::thread::spawn(move || assert_eq!(cuprum::Device::current().unwrap(), host))
    ///     .join()
    ///     .unwrap();
    /// ```
    pub fn make_default(self) {
        DEFAULT.store(self.0.ordinal, Ordering::Release);
    }

    /// Makes this the calling thread's current device (like `cupy.cuda.Device(n).use()`).
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// dev.make_current();
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn make_current(self) {
        CURRENT.with(|c| c.set(self.0.ordinal));
    }

    /// Runs `f` with this device current on the calling thread, then restores the previous.
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// let a = dev.with(|| cuprum::Array::zeros(&[4], cuprum::DType::F32))?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn with<R>(self, f: impl FnOnce() -> R) -> R {
        let prev = CURRENT.with(|c| c.replace(self.0.ordinal));
        struct Restore(usize);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(prev);
        f()
    }

    /// Why this machine has no usable GPU — no driver, a driver older than CUDA 13.0, or no
    /// device — or `None` when device 0 opens. For programs that should explain and skip
    /// instead of failing where there is no GPU; other errors still surface at first use.
    ///
    /// ```
    /// if let Some(why) = cuprum::Device::no_gpu_reason() {
    ///     println!("skipping: {why}");
    /// }
    /// ```
    pub fn no_gpu_reason() -> Option<crate::Error> {
        use crate::ErrorKind::{DriverTooOld, NoDevice, NoDriver};
        match Device::get(0) {
            Err(e) if matches!(e.kind(), NoDriver | NoDevice | DriverTooOld) => Some(e),
            _ => None,
        }
    }

    /// Every GPU of this machine, in ordinal order (each opened once per process). The
    /// host device ([`Device::host`]) is not among them; without a usable GPU this is the
    /// error [`Device::count`] gives (no driver, a driver too old, or no device).
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// for dev in cuprum::Device::all()? {
    ///     println!("{}: {}", dev.ordinal(), dev.name());
    /// }
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn all() -> Result<Vec<Device>> {
        (0..Device::count()?).map(Device::get).collect()
    }

    /// Whether kernels and copies on this device can read and write `peer`'s memory
    /// directly (NVLink or PCIe peer-to-peer, `cuDeviceCanAccessPeer`). A device can always
    /// access itself; the host device and a GPU never access each other's memory (copies
    /// between them go through [`Array::to_device`](crate::Array::to_device)).
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// let d0 = cuprum::Device::get(0)?;
    /// assert!(d0.can_access_peer(d0)?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn can_access_peer(self, peer: Device) -> Result<bool> {
        if self == peer {
            return Ok(true);
        }
        let (Some(a), Some(b)) = (self.cuda(), peer.cuda()) else {
            return Ok(false);
        };
        let mut can: std::ffi::c_int = 0;
        // SAFETY: both handles come from opened contexts; `can` is a valid out pointer.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, a.ctx.cu_device(), b.ctx.cu_device()) }
            .call("cuDeviceCanAccessPeer")?;
        Ok(can != 0)
    }

    /// Enables this device's access to `peer`'s memory, once per ordered pair and process;
    /// `Ok(false)` when the driver does not allow it (copies are then staged through the
    /// host).
    pub(crate) fn enable_peer_access(self, peer: Device) -> Result<bool> {
        use std::collections::HashMap;
        use std::sync::Mutex;
        static ENABLED: Mutex<Option<HashMap<(usize, usize), bool>>> = Mutex::new(None);
        if self == peer {
            return Ok(true);
        }
        let key = (self.0.ordinal, peer.0.ordinal);
        let mut map = ENABLED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&on) = map.get_or_insert_with(HashMap::new).get(&key) {
            return Ok(on);
        }
        let on = self.can_access_peer(peer)?;
        if let (true, Some(p)) = (on, peer.cuda()) {
            self.bind()?;
            // SAFETY: this device's context is current; the peer context is a live primary
            // context. Enabling twice is reported as ALREADY_ENABLED, which is success here.
            let r = unsafe { sys::cuCtxEnablePeerAccess(p.ctx.cu_ctx(), 0) };
            if r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
                r.call("cuCtxEnablePeerAccess")?;
            }
        }
        map.get_or_insert_with(HashMap::new).insert(key, on);
        Ok(on)
    }

    /// CUDA device ordinal (0-based); [`HOST_ORDINAL`] (`usize::MAX`) for the host device.
    pub fn ordinal(self) -> usize {
        self.0.ordinal
    }
    /// Product name, e.g. `"NVIDIA H200"`.
    pub fn name(self) -> &'static str {
        &self.0.name
    }
    /// Compute capability `(major, minor)`, e.g. `(9, 0)`; `(0, 0)` for the host device.
    pub fn compute_capability(self) -> (u32, u32) {
        self.0.cc
    }
    /// The architecture number NVRTC uses, e.g. `90` for `sm_90`.
    pub fn arch(self) -> u32 {
        self.0.cc.0 * 10 + self.0.cc.1
    }
    /// Number of streaming multiprocessors (the host device: its worker threads, each runs
    /// one block at a time).
    pub fn sm_count(self) -> u32 {
        self.0.sm_count
    }
    /// Total device memory in bytes (the host device: physical memory).
    pub fn total_memory(self) -> usize {
        self.0.total_memory
    }
    /// Maximum threads in one block.
    pub fn max_threads_per_block(self) -> u32 {
        self.0.max_threads_per_block
    }
    /// Shared memory a block gets without opting in (bytes).
    pub fn max_shared_memory_per_block(self) -> usize {
        self.0.max_shared_per_block
    }
    /// Shared memory a block may get after raising its dynamic limit (bytes).
    pub fn max_shared_memory_per_block_optin(self) -> usize {
        self.0.max_shared_per_block_optin
    }
    /// Largest grid, per dimension.
    pub fn max_grid_dim(self) -> [u32; 3] {
        self.0.max_grid
    }
    /// Largest block, per dimension.
    pub fn max_block_dim(self) -> [u32; 3] {
        self.0.max_block
    }
    /// L2 cache size in bytes.
    pub fn l2_cache_bytes(self) -> usize {
        self.0.l2_cache_bytes
    }

    /// The device's default stream: a non-blocking stream created with the device (it does
    /// not synchronise with the legacy NULL stream).
    pub fn default_stream(self) -> Stream {
        Stream::borrowed(self, self.default_raw_stream())
    }

    /// The raw handle of the default stream (a token that is never dereferenced for the
    /// host device).
    #[inline]
    pub(crate) fn default_raw_stream(self) -> sys::CUstream {
        match &self.0.backend {
            Backend::Cuda(c) => c.default_stream,
            Backend::Host(_) => super::host::DEFAULT_STREAM,
        }
    }

    /// The driver objects of a GPU; `None` for the host device.
    #[inline]
    pub(crate) fn cuda(self) -> Option<&'static CudaParts> {
        match &self.0.backend {
            Backend::Cuda(c) => Some(c),
            Backend::Host(_) => None,
        }
    }

    /// The host device's state; `None` for a GPU.
    #[inline]
    pub(crate) fn host_parts(self) -> Option<&'static super::host::HostDevice> {
        match &self.0.backend {
            Backend::Host(h) => Some(h),
            Backend::Cuda(_) => None,
        }
    }

    /// Free and total device memory in bytes, as the driver reports them now.
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// let (free, total) = cuprum::Device::get(0)?.memory_info()?;
    /// assert!(free <= total);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn memory_info(self) -> Result<(usize, usize)> {
        if self.is_host() {
            return Ok((super::host::available_memory(), self.0.total_memory));
        }
        self.bind()?;
        result::mem_get_info().call("cuMemGetInfo")
    }

    /// Waits until all work on every stream of this device has finished; device faults of
    /// earlier kernels surface here as errors.
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// cuprum::Device::get(0)?.synchronize()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn synchronize(self) -> Result<()> {
        self.bind()?;
        if !self.is_host() {
            result::ctx::synchronize().call("cuCtxSynchronize")?;
        }
        super::fault_record::check(self)
    }

    /// Bytes the memory pool holds (in use plus kept for reuse).
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// println!("pool holds {} bytes, {} in use", dev.pool_reserved_bytes()?, dev.pool_used_bytes()?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn pool_reserved_bytes(self) -> Result<u64> {
        self.pool_attr(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
    }
    /// Bytes of the memory pool in use by allocations: live arrays plus the freed blocks
    /// cuprum keeps for reuse ([`cached_bytes`](Device::cached_bytes)).
    pub fn pool_used_bytes(self) -> Result<u64> {
        self.pool_attr(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)
    }
    /// Bytes of freed blocks cuprum keeps for fast reuse on this device's default stream
    /// (at most 1 GiB, least recently freed blocks evicted first).
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// drop(cuprum::Array::empty(&[1 << 20], cuprum::DType::F32)?);
    /// assert!(dev.cached_bytes() >= 4 << 20);
    /// dev.release_pool_memory()?;
    /// assert_eq!(dev.cached_bytes(), 0);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn cached_bytes(self) -> usize {
        self.0.memory.cached_bytes()
    }
    /// Returns every byte of device memory cuprum keeps for reuse to the driver (CuPy's
    /// `free_all_blocks`): the freed-block cache and the reduction scratch are emptied, the
    /// device is synchronised and the pool trimmed, so that afterwards the pool reserves
    /// only what live arrays use.
    ///
    /// ```
    /// # if !cuprum::internal::doc_gpu()? { return Ok(()); }
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

    fn pool_attr(self, attr: sys::CUmemPool_attribute) -> Result<u64> {
        let Some(cuda) = self.cuda() else {
            // The host device has no pool: what it holds is its live buffers plus the cache.
            return Ok(self.host_parts().map_or(0, |h| h.held_bytes()) as u64);
        };
        let mut v: u64 = 0;
        // SAFETY: the pool is valid for the process; the attribute is a u64 counter and `v`
        // is a valid u64 out pointer.
        unsafe { sys::cuMemPoolGetAttribute(cuda.pool, attr, (&mut v as *mut u64).cast()) }
            .call("cuMemPoolGetAttribute")?;
        Ok(v)
    }

    /// Makes the device's context current on the calling thread (cheap when it already is).
    /// Fails with [`ErrorKind::KernelFault`](crate::ErrorKind::KernelFault) once a kernel
    /// has faulted on the device.
    #[inline]
    pub(crate) fn bind(self) -> Result<()> {
        self.check_fault()?;
        match &self.0.backend {
            Backend::Cuda(c) => c.ctx.bind_to_thread().call("cuCtxSetCurrent"),
            Backend::Host(_) => Ok(()),
        }
    }

    /// The error of an earlier kernel fault on this device, if any (one atomic load).
    #[inline]
    pub(crate) fn check_fault(self) -> Result<()> {
        super::fault::check(self.0.ordinal)
    }
}

/// The ordinal of the opened device whose context is current on the calling thread.
pub(crate) fn current_context_ordinal() -> Option<usize> {
    let mut dev: sys::CUdevice = 0;
    // SAFETY: `dev` is a valid out pointer; the call only reads the thread's context.
    unsafe { sys::cuCtxGetDevice(&mut dev) }.result().ok()?;
    let reg = registry().ok()?;
    reg.iter()
        .enumerate()
        .find_map(|(i, slot)| match slot.get() {
            Some(Ok(d)) if Device(d).cuda().is_some_and(|c| c.ctx.cu_device() == dev) => Some(i),
            _ => None,
        })
}

fn open(ordinal: usize) -> Result<&'static DeviceInner> {
    let ctx = CudaContext::new(ordinal).call("opening the device (cuDevicePrimaryCtxRetain)")?;
    // SAFETY: cuprum never uses cudarc's CudaSlice/launch builder, so its per-buffer event
    // tracking would only add cost; all stream ordering is handled by cuprum explicitly.
    unsafe { ctx.disable_event_tracking() };
    let dev = ctx.cu_device();
    let attr = |a: sys::CUdevice_attribute| -> Result<i32> {
        ctx.attribute(a).call("cuDeviceGetAttribute")
    };
    use sys::CUdevice_attribute as A;
    let name = ctx.name().call("cuDeviceGetName")?;
    let cc = (
        attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u32,
        attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u32,
    );
    if attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? == 0 {
        bail!(
            Unsupported,
            "device {ordinal} ({name}) does not support stream-ordered memory pools"
        );
    }
    // SAFETY: `dev` is a valid device handle from the context just created.
    let total_memory = unsafe { result::device::total_mem(dev) }.call("cuDeviceTotalMem")?;
    // SAFETY: as above; the default pool exists for devices that support memory pools.
    let pool =
        unsafe { result::device::get_default_mem_pool(dev) }.call("cuDeviceGetDefaultMemPool")?;
    // The pool's release threshold follows the peak of what cuprum holds (see
    // `pool::PoolPolicy`); it starts at 256 MiB.
    set_release_threshold(pool, INITIAL_THRESHOLD)?;
    let inner = DeviceInner {
        ordinal,
        name,
        cc,
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
        memory: DeviceMemory::new(total_memory),
        backend: Backend::Cuda(CudaParts {
            default_stream: cudarc::driver::result::stream::create(
                cudarc::driver::result::stream::StreamKind::NonBlocking,
            )
            .call("cuStreamCreate")?,
            ctx,
            pool,
        }),
    };
    Ok(Box::leak(Box::new(inner)))
}
