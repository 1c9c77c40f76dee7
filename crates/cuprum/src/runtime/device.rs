//! [`Device`]: one device that runs kernels — a GPU or the host — its properties, and the
//! backend its work goes to. Opening devices and choosing the current one is `registry.rs`;
//! the default stream is in `stream.rs`, the memory pool's methods in `memory.rs`.
//!
//! **Devices live for the process.** A device is opened once and its record leaked
//! (`DeviceInner::leak`): what it reported, the memory bookkeeping of `pool.rs`, and its
//! backend (on a GPU: the primary context, the default memory pool and a non-blocking
//! default stream, all made when the device is opened). [`Device`] is a `Copy` handle to
//! that record: it never dangles, and passing it around costs nothing.

use super::backend::{CodeTarget, DeviceBackend, DeviceProps};
use super::fault::{record, sticky};
use super::pool::DeviceMemory;
use crate::error::{Result, bail};
use std::sync::Mutex;

/// The ordinal of the host device (it has no CUDA ordinal): what
/// [`Device::ordinal`] returns for it, and the key under which per-device state keeps it.
pub const HOST_ORDINAL: usize = usize::MAX;

/// [`Device::timer_label`] of the device with ordinal `ordinal` (the profiler keeps
/// ordinals).
pub(crate) fn timer_label(ordinal: usize) -> String {
    if ordinal == HOST_ORDINAL {
        "host".to_string()
    } else {
        format!("GPU-{ordinal}")
    }
}

/// One opened device: what it reported, what cuprum keeps for it, and its backend.
pub(crate) struct DeviceInner {
    pub(crate) ordinal: usize,
    pub(crate) props: DeviceProps,
    pub(crate) memory: DeviceMemory,
    pub(crate) backend: Box<dyn DeviceBackend>,
}

impl DeviceInner {
    /// A device record, leaked: devices are opened once per process and live until it exits.
    pub(crate) fn leak(
        ordinal: usize,
        props: DeviceProps,
        backend: Box<dyn DeviceBackend>,
    ) -> &'static DeviceInner {
        let memory = DeviceMemory::new(props.total_memory);
        Box::leak(Box::new(DeviceInner {
            ordinal,
            props,
            memory,
            backend,
        }))
    }
}

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
/// # if !cuprum_doctest::gpu()? { return Ok(()); }
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
            write!(f, "Device(host: {})", self.0.props.name)
        } else {
            write!(f, "Device({}: {})", self.0.ordinal, self.0.props.name)
        }
    }
}

/// `device 0 (NVIDIA H200)` or `the host device (CPU, 16 threads)`, for messages.
impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_host() {
            write!(f, "the host device ({})", self.0.props.name)
        } else {
            write!(f, "device {} ({})", self.0.ordinal, self.0.props.name)
        }
    }
}

impl Device {
    /// Whether this is the host device ([`Device::host`]).
    #[inline]
    pub fn is_host(self) -> bool {
        self.0.ordinal == HOST_ORDINAL
    }

    /// How arrays name their device in `Debug` output: the ordinal of a GPU (`0`), `host`
    /// for the host device.
    ///
    /// ```
    /// assert_eq!(cuprum::Device::host().label(), "host");
    /// ```
    pub fn label(self) -> String {
        if self.is_host() {
            "host".to_string()
        } else {
            self.0.ordinal.to_string()
        }
    }

    /// Whether work queued on the device has finished when the call that queued it returns
    /// (the host device runs kernels and copies in the calling thread). Memory shared with
    /// another library then needs no stream ordering, and there are no other libraries'
    /// streams to follow; a GPU's work is ordered by streams and events.
    ///
    /// ```
    /// assert!(cuprum::Device::host().completes_on_return());
    /// ```
    pub fn completes_on_return(self) -> bool {
        self.is_host()
    }

    /// Whether kernels' shapes are tuned on this device by timing candidates
    /// (`cuprum::tuning`): a GPU's are; the host device compiles with a C++ compiler and
    /// keeps each family's first shape.
    ///
    /// ```
    /// assert!(!cuprum::Device::host().is_tunable());
    /// ```
    pub fn is_tunable(self) -> bool {
        !self.is_host()
    }

    /// Whether the device's kernels address the process's ordinary memory (the host
    /// device): a NumPy array's data is its memory there, and GPU memory (CUDA's array
    /// interface, `kDLCUDA`) is not.
    ///
    /// ```
    /// assert!(cuprum::Device::host().addresses_host_memory());
    /// ```
    pub fn addresses_host_memory(self) -> bool {
        self.is_host()
    }

    /// The device as DLPack names a device, `(device_type, device_id)`: `(1, 0)`
    /// (`kDLCPU`) for the host device, whose memory is the process's, and `(2, ordinal)`
    /// (`kDLCUDA`) for a GPU. The array layer's DLPack exchange and the Python package's
    /// `__dlpack_device__` answer with it.
    ///
    /// ```
    /// assert_eq!(cuprum::Device::host().dlpack_device(), (1, 0));
    /// ```
    pub fn dlpack_device(self) -> (i32, i32) {
        if self.is_host() {
            (1, 0)
        } else {
            (2, i32::try_from(self.0.ordinal).unwrap_or(i32::MAX))
        }
    }

    /// How frameworks name the device (PyTorch's `cuda:0`; `host` for the host device).
    ///
    /// ```
    /// assert_eq!(cuprum::Device::host().framework_name(), "host");
    /// ```
    pub fn framework_name(self) -> String {
        if self.is_host() {
            "host".to_string()
        } else {
            format!("cuda:{}", self.0.ordinal)
        }
    }

    /// How the profiler's tables head the device's times: `GPU-0`, or `host`.
    ///
    /// ```
    /// assert_eq!(cuprum::Device::host().timer_label(), "host");
    /// ```
    pub fn timer_label(self) -> String {
        timer_label(self.0.ordinal)
    }

    /// Which code the device runs: CUDA code for an architecture, or host code (what the
    /// compile layer builds kernels into for it).
    ///
    /// ```
    /// use cuprum::runtime::CodeTarget;
    /// assert_eq!(cuprum::Device::host().code_target(), CodeTarget::Host);
    /// ```
    pub fn code_target(self) -> CodeTarget {
        self.0.backend.code_target()
    }

    /// The backend the device's work goes to.
    #[inline]
    pub(crate) fn backend(self) -> &'static dyn DeviceBackend {
        &*self.0.backend
    }

    /// What cuprum keeps for the device's memory (the freed-block cache, the pool policy).
    #[inline]
    pub(crate) fn memory(self) -> &'static DeviceMemory {
        &self.0.memory
    }

    /// Whether work on this device has finished when the call that queued it returns (the
    /// host device).
    #[inline]
    pub(crate) fn is_synchronous(self) -> bool {
        self.0.backend.is_synchronous()
    }

    /// `Unsupported` unless this is a CUDA GPU, naming `what` needs one (e.g. NCCL).
    pub(crate) fn require_gpu(self, what: &str) -> Result<()> {
        if let CodeTarget::Cuda(_) = self.code_target() {
            return Ok(());
        }
        bail!(
            Unsupported,
            "{what} run on GPUs, given {self}: move the arrays to a GPU with `to_device`"
        )
    }

    /// Whether kernels and copies on this device can read and write `peer`'s memory
    /// directly (NVLink or PCIe peer-to-peer, `cuDeviceCanAccessPeer`). A device can always
    /// access itself; the host device and a GPU never access each other's memory (copies
    /// between them go through [`Array::to_device`](crate::Array::to_device)).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let d0 = cuprum::Device::get(0)?;
    /// assert!(d0.can_access_peer(d0)?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn can_access_peer(self, peer: Device) -> Result<bool> {
        if self == peer {
            return Ok(true);
        }
        self.backend().can_access_peer(peer.backend())
    }

    /// Enables this device's access to `peer`'s memory, once per ordered pair and process;
    /// `Ok(false)` when the driver does not allow it (copies are then staged through the
    /// host).
    pub(crate) fn enable_peer_access(self, peer: Device) -> Result<bool> {
        use std::collections::HashMap;
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
        if on {
            self.check_fault()?;
            self.backend().enable_peer_access(peer.backend())?;
        }
        map.get_or_insert_with(HashMap::new).insert(key, on);
        Ok(on)
    }

    /// CUDA device ordinal (0-based); [`HOST_ORDINAL`] (`usize::MAX`) for the host device.
    pub fn ordinal(self) -> usize {
        self.0.ordinal
    }

    /// The device's number as a program counts its devices (CuPy's `Device.id`): a GPU's
    /// ordinal, and 0 for the host device (the only device a host-device process has).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let dev = cuprum::Device::current()?;
    /// assert_eq!(dev.id(), if dev.is_host() { 0 } else { dev.ordinal() });
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn id(self) -> usize {
        if self.is_host() { 0 } else { self.0.ordinal }
    }
    /// Product name, e.g. `"NVIDIA H200"`.
    pub fn name(self) -> &'static str {
        &self.0.props.name
    }
    /// Compute capability `(major, minor)`, e.g. `(9, 0)`; `(0, 0)` for the host device.
    pub fn compute_capability(self) -> (u32, u32) {
        self.0.props.cc
    }
    /// The architecture number NVRTC uses, e.g. `90` for `sm_90`.
    pub fn arch(self) -> u32 {
        self.0.props.cc.0 * 10 + self.0.props.cc.1
    }
    /// Number of streaming multiprocessors (the host device: its worker threads, each runs
    /// one block at a time).
    pub fn sm_count(self) -> u32 {
        self.0.props.sm_count
    }
    /// The device's UUID as `nvidia-smi -L` prints it (and `CUDA_VISIBLE_DEVICES` takes
    /// it): `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, or `MIG-…` for a MIG instance, whose
    /// own properties (SM count, memory) are the ones cuprum reads; `"host"` for the host
    /// device.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let id = cuprum::Device::current()?.uuid();
    /// assert!(id == "host" || id.starts_with("GPU-") || id.starts_with("MIG-"));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn uuid(self) -> &'static str {
        &self.0.props.uuid
    }
    /// Total device memory in bytes (the host device: physical memory).
    pub fn total_memory(self) -> usize {
        self.0.props.total_memory
    }
    /// Maximum threads in one block.
    pub fn max_threads_per_block(self) -> u32 {
        self.0.props.max_threads_per_block
    }
    /// Threads one multiprocessor holds at most.
    pub(crate) fn max_threads_per_sm(self) -> u32 {
        self.0.props.max_threads_per_sm
    }
    /// Shared memory a block gets without opting in (bytes).
    pub fn max_shared_memory_per_block(self) -> usize {
        self.0.props.max_shared_per_block
    }
    /// Shared memory a block may get after raising its dynamic limit (bytes).
    pub fn max_shared_memory_per_block_optin(self) -> usize {
        self.0.props.max_shared_per_block_optin
    }
    /// Largest grid, per dimension.
    pub fn max_grid_dim(self) -> [u32; 3] {
        self.0.props.max_grid
    }
    /// Largest block, per dimension.
    pub fn max_block_dim(self) -> [u32; 3] {
        self.0.props.max_block
    }
    /// L2 cache size in bytes.
    pub fn l2_cache_bytes(self) -> usize {
        self.0.props.l2_cache_bytes
    }

    /// Free and total device memory in bytes, as the driver reports them now (the host
    /// device: available and physical memory).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let (free, total) = cuprum::Device::get(0)?.memory_info()?;
    /// assert!(free <= total);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn memory_info(self) -> Result<(usize, usize)> {
        self.check_fault()?;
        let (free, _) = self.backend().memory_info()?;
        Ok((free, self.total_memory()))
    }

    /// Waits until all work on every stream of this device has finished; device faults of
    /// earlier kernels surface here as errors.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// cuprum::Device::get(0)?.synchronize()?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn synchronize(self) -> Result<()> {
        if super::capture_state::is_capturing_on(self.ordinal()) {
            crate::error::bail!(
                InvalidArgument,
                "Device::synchronize inside a graph capture on {self}: captured work does not \
                 run until Graph::launch (synchronise after a launch)"
            );
        }
        self.bind()?;
        self.backend().synchronize()?;
        self.check_kernel_faults()
    }

    /// Waits for all work on the device without reporting (or consuming) a Rust kernel's
    /// recorded fault: for owners that must know the device is idle before they free
    /// something kernels use by handle (texture objects), and leave faults to the next
    /// synchronisation the user makes. Refused inside a graph capture.
    pub(crate) fn wait_idle(self) -> Result<()> {
        if super::capture_state::is_capturing_on(self.ordinal()) {
            crate::error::bail!(
                InvalidArgument,
                "waiting for {self} inside a graph capture: captured work has not run"
            );
        }
        self.bind()?;
        self.backend().synchronize()
    }

    /// The first fault a Rust kernel recorded on this device since the last check (after a
    /// synchronisation), as an error.
    #[inline]
    pub(crate) fn check_kernel_faults(self) -> Result<()> {
        record::check(self.0.ordinal, self.backend())
    }

    /// Bytes the memory pool holds (in use plus kept for reuse).
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? { return Ok(()); }
    /// let dev = cuprum::Device::get(0)?;
    /// println!("pool holds {} bytes, {} in use", dev.pool_reserved_bytes()?, dev.pool_used_bytes()?);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn pool_reserved_bytes(self) -> Result<u64> {
        Ok(self.backend().pool_bytes()?.reserved)
    }
    /// Bytes of the memory pool in use by allocations: live arrays plus the freed blocks
    /// cuprum keeps for reuse ([`cached_bytes`](Device::cached_bytes)).
    pub fn pool_used_bytes(self) -> Result<u64> {
        Ok(self.backend().pool_bytes()?.used)
    }

    /// Makes the device usable on the calling thread (its CUDA context current; cheap when
    /// it already is). Fails with [`ErrorKind::KernelFault`](crate::ErrorKind::KernelFault)
    /// once a kernel has faulted on the device.
    #[inline]
    pub(crate) fn bind(self) -> Result<()> {
        self.check_fault()?;
        self.backend().bind()
    }

    /// The error of an earlier kernel fault on this device, if any (one atomic load).
    #[inline]
    pub(crate) fn check_fault(self) -> Result<()> {
        sticky::check(self.0.ordinal)
    }
}
