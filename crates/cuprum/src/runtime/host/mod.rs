//! The host device: the CPU as a device that runs the same kernels, for development and
//! CI without a GPU ([`Device::host`](crate::Device::host), or `CUPRUM_DEVICE=host` for
//! the whole process).
//!
//! - **Memory** is host memory aligned to 256 bytes (like `cuMemAlloc`), in the same size
//!   classes and freed-block cache as a GPU's (`DeviceMemory`), so an allocating call
//!   reuses a block instead of paying for fresh pages.
//! - **Streams** are ordering tokens: a launch or copy has finished when its call returns.
//!   Launches on one stream hold that stream's lock ([`stream_lock`]), so they never
//!   overlap, as on a GPU (split reductions share their scratch on that guarantee).
//! - **Modules** are shared objects the system C++ compiler built from the CUDA C++ source
//!   with cuprum's shim headers (`compile/host`); [`library`] loads them and reads their
//!   kernel table. Every kernel kind goes this way (ElementwiseKernel, ReductionKernel,
//!   RawKernel, RawModule, the routines' programs, fused and Rust kernels): the shim's
//!   prelude defines `__CUPRUM_HOST__`, and the few places of cuprum's own headers and
//!   generated code that use inline PTX have an `#ifdef __CUPRUM_HOST__` form (the array
//!   kernels give each thread a contiguous share instead of a grid-stride loop).
//! - **Events** keep the moment they were recorded (work before it has finished by then).
//! - **Launches** ([`launch`]) spread the blocks of a grid over a pool of worker threads
//!   (one per core, `CUPRUM_HOST_THREADS`); a block runs its threads as plain calls until
//!   one reaches a barrier or a warp operation, then as fibers ([`block`]); warp operations
//!   follow [`warp`]; a fault (assert, trap, divergent or deadlocked barrier, a signal such
//!   as an integer division by zero) ends the launch with a `KernelFault` error naming
//!   block and thread ([`trap`]), and the device stays usable.
//! - **Libraries**: cuRAND is replaced by cuprum's own Philox4x32-10 ([`rng`]: the same
//!   distributions, not the same numbers), cuBLAS by `matrixmultiply` ([`gemm`]), cuFFT by
//!   `rustfft` ([`fft`]).
//!
//! There is no silent fallback inside the library: a GPU that is missing is an error, and
//! every "no GPU" error says how to choose the host device. The test harness, the
//! documentation examples and `cuprum demo` choose it themselves when there is no GPU.

pub(crate) mod abi;
pub(crate) mod block;
mod fft;
mod gemm;
pub(crate) mod launch;
pub(crate) mod library;
mod memory;
mod module;
mod rng;
mod streams;
mod texture;
pub(crate) mod trap;
pub(crate) mod warp;

use super::backend::{
    CodeTarget, DeviceBackend, DeviceProps, FaultSlots, FftPlan, Gemm, MappedHost, ModuleBackend,
    RawEvent, RawStream, RngAlgorithm, RngBackend,
};
use super::fault::record::RECORD_BYTES;
use crate::error::{Result, bail};
use std::any::Any;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The raw handle of the host device's default stream: a token, never dereferenced.
const DEFAULT_STREAM: RawStream = RawStream(8);

/// Alignment of the host device's "pinned" buffers (ordinary memory, cache-line aligned).
const PINNED_ALIGN: usize = 64;

/// Holds the launches of one host stream in order: a launch runs on the calling thread, so
/// two threads launching on one stream would otherwise run their kernels at once. Streams
/// share a fixed set of locks (two streams on one lock only lose overlap); a launch holds
/// one lock and takes no other, so they cannot deadlock.
pub(crate) fn stream_lock(raw: RawStream) -> std::sync::MutexGuard<'static, ()> {
    const LOCKS: usize = 64;
    static L: [std::sync::Mutex<()>; LOCKS] = [const { std::sync::Mutex::new(()) }; LOCKS];
    // tokens are multiples of 8
    L[(raw.0 / 8) % LOCKS]
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Alignment of host "device" memory, as `cuMemAlloc` guarantees.
pub(crate) const ALIGN: usize = 256;

/// What the host device keeps besides its properties.
pub(crate) struct HostDevice {
    /// Bytes of host blocks allocated and not freed (live buffers and cached blocks).
    held: AtomicUsize,
    /// The next stream token.
    next_stream: AtomicUsize,
    /// The events: per slot `None` when free, else when the event was last recorded.
    events: Mutex<Vec<Option<Option<Instant>>>>,
}

impl HostDevice {
    /// Bytes the device holds: live buffers plus the freed-block cache.
    pub(crate) fn held_bytes(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// A block of `bytes` (> 0) aligned to [`ALIGN`], or `None` when the allocator fails.
    fn alloc_block(&self, bytes: usize) -> Option<u64> {
        let layout = std::alloc::Layout::from_size_align(bytes.max(1), ALIGN).ok()?;
        // SAFETY: the layout has a non-zero size; the block is freed once, by `free`, with
        // the same layout.
        let p = unsafe { std::alloc::alloc(layout) };
        if p.is_null() {
            return None;
        }
        self.held.fetch_add(bytes, Ordering::Relaxed);
        Some(p as u64)
    }

    /// Frees a block `alloc_block` returned for `bytes`.
    fn free_block(&self, ptr: u64, bytes: usize) {
        let Ok(layout) = std::alloc::Layout::from_size_align(bytes.max(1), ALIGN) else {
            return;
        };
        // SAFETY: `ptr` came from `alloc(bytes)` (so from this layout) and no buffer or
        // cache holds it any more.
        unsafe { std::alloc::dealloc(ptr as *mut u8, layout) };
        self.held.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// Worker threads of the host device: `CUPRUM_HOST_THREADS`, else one per core.
pub(crate) fn workers() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("CUPRUM_HOST_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .min(1024)
    })
}

/// Physical memory in bytes.
fn physical_memory() -> usize {
    // SAFETY: sysconf only reads system configuration.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages.max(0) as usize).saturating_mul(size.max(0) as usize)
}

/// Memory available to new allocations (`MemAvailable`, else free pages).
fn available_memory() -> usize {
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo")
        && let Some(kb) = text.lines().find_map(|l| {
            l.strip_prefix("MemAvailable:")
                .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        })
    {
        return kb.saturating_mul(1024);
    }
    // SAFETY: sysconf only reads system configuration.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_AVPHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages.max(0) as usize).saturating_mul(size.max(0) as usize)
}

/// The CPU's model name (`/proc/cpuinfo`), else the architecture.
fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == "model name").then(|| v.trim().to_string())
            })
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// Dynamic shared memory a block may use without raising the kernel's limit (as on GPUs).
pub(crate) const DEFAULT_DYNAMIC_SHARED: usize = 48 << 10;
/// The most dynamic shared memory a kernel's limit may be raised to.
pub(crate) const MAX_DYNAMIC_SHARED: usize = 227 << 10;
/// Blocks one worker is said to hold at once (occupancy and grid-stride sizes).
pub(crate) const BLOCKS_PER_WORKER: u32 = 4;

/// The host device's properties and its backend.
pub(crate) fn open() -> (DeviceProps, HostDevice) {
    let total = physical_memory();
    let workers = workers();
    let props = DeviceProps {
        name: format!("CPU: {}, {workers} threads", cpu_name()),
        cc: (0, 0),
        sm_count: workers as u32,
        total_memory: total,
        max_threads_per_block: 1024,
        max_threads_per_sm: 1024 * BLOCKS_PER_WORKER,
        max_shared_per_block: DEFAULT_DYNAMIC_SHARED,
        max_shared_per_block_optin: MAX_DYNAMIC_SHARED,
        max_grid: [i32::MAX as u32, 65535, 65535],
        max_block: [1024, 1024, 64],
        l2_cache_bytes: 0,
        uuid: "host".to_string(),
    };
    let dev = HostDevice {
        held: AtomicUsize::new(0),
        next_stream: AtomicUsize::new(0),
        events: Mutex::new(Vec::new()),
    };
    (props, dev)
}

impl HostDevice {
    fn events(&self) -> std::sync::MutexGuard<'_, Vec<Option<Option<Instant>>>> {
        self.events.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// When event `e` was last recorded (`None`: never, or no such event).
    fn recorded(&self, e: RawEvent) -> Option<Instant> {
        self.events().get(e.0).copied().flatten().flatten()
    }
}

impl DeviceBackend for HostDevice {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn code_target(&self) -> CodeTarget {
        CodeTarget::Host
    }

    fn is_synchronous(&self) -> bool {
        true
    }

    fn bind(&self) -> Result<()> {
        Ok(())
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn memory_info(&self) -> Result<(usize, usize)> {
        Ok((available_memory(), physical_memory()))
    }

    fn load_image(
        &self,
        _image: &[u8],
        _lowered: Vec<(String, String)>,
    ) -> Result<Arc<dyn ModuleBackend>> {
        bail!(
            Unsupported,
            "a compiled GPU image (cubin, PTX, fatbin) cannot run on the host device; load \
             the CUDA C++ source instead (RawModule::new)"
        )
    }

    fn link_relocatable(
        &self,
        _image: &[u8],
        _libraries: &[std::path::PathBuf],
    ) -> Result<Vec<u8>> {
        bail!(
            Unsupported,
            "a relocatable GPU image cannot be linked or run on the host device"
        )
    }

    fn rng(&self, seed: u64, _algorithm: RngAlgorithm) -> Result<Box<dyn RngBackend>> {
        // Philox for every algorithm: cuRAND's XORWOW output order is its own.
        Ok(Box::new(rng::HostRng::new(seed)))
    }

    unsafe fn gemm(&self, g: &Gemm, _s: RawStream) -> Result<()> {
        // SAFETY: forwarded from the caller; on the host device the addresses are host
        // memory.
        unsafe { gemm::gemm(g) };
        Ok(())
    }

    fn blas_version(&self) -> Result<i32> {
        bail!(
            Blas,
            "the host device multiplies matrices with matrixmultiply: cuBLAS belongs to GPUs"
        )
    }

    unsafe fn fft(
        &self,
        plan: &FftPlan,
        input: u64,
        output: u64,
        forward: bool,
        _s: RawStream,
    ) -> Result<()> {
        // SAFETY: forwarded from the caller; on the host device the addresses are host
        // memory.
        unsafe { fft::fft(plan, input, output, forward) };
        Ok(())
    }

    fn fft_version(&self) -> Result<i32> {
        bail!(
            Fft,
            "the host device transforms with rustfft: cuFFT belongs to GPUs"
        )
    }

    fn alloc_fault_slots(&self) -> Result<FaultSlots> {
        // The host device's kernels write the record and the claim word directly.
        let record: &'static mut [u64] =
            Box::leak(vec![0u64; RECORD_BYTES.div_ceil(8)].into_boxed_slice());
        let claim: &'static mut u32 = Box::leak(Box::new(0u32));
        let host = record.as_mut_ptr().cast::<u8>();
        Ok(FaultSlots {
            host,
            record: host as u64,
            claim: claim as *mut u32 as u64,
        })
    }

    fn reset_fault_claim(&self, slots: &FaultSlots) -> Result<()> {
        // SAFETY: the claim word is the process-lifetime allocation made above; kernels only
        // touch it with atomics.
        unsafe { AtomicU32::from_ptr(slots.claim as *mut u32) }.store(0, Ordering::Release);
        Ok(())
    }

    fn alloc_mapped_forever(&self, bytes: usize) -> Result<MappedHost> {
        // Kernels here address host memory directly: ordinary zeroed memory, leaked, in
        // 64-byte lines (the alignment the trait promises).
        #[derive(Clone, Copy)]
        #[repr(C, align(64))]
        struct Line([u8; 64]);
        let lines: &'static mut [Line] =
            Box::leak(vec![Line([0; 64]); bytes.div_ceil(64).max(1)].into_boxed_slice());
        let host = lines.as_mut_ptr().cast::<u8>();
        Ok(MappedHost {
            host,
            device: host as u64,
        })
    }
}
