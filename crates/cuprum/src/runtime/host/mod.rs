//! The host device: the CPU as a device that runs the same kernels.
//!
//! - **Memory** is host memory aligned to 256 bytes (like `cuMemAlloc`), in the same size
//!   classes and freed-block cache as a GPU's (`DeviceMemory`), so an allocating call
//!   reuses a block instead of paying for fresh pages.
//! - **Streams** are ordering tokens: a launch or copy has finished when its call returns.
//! - **Modules** are shared objects the system C++ compiler built from the CUDA C++ source
//!   with cuprum's shim headers (`compile/host`); [`library`] loads them and reads their
//!   kernel table.
//! - **Launches** ([`launch`]) spread the blocks of a grid over a pool of worker threads
//!   (one per core, `CUPRUM_HOST_THREADS`); a block runs its threads as plain calls until
//!   one reaches a barrier or a warp operation, then as fibers ([`block`]); warp operations
//!   follow [`warp`]; a fault (assert, trap, divergent or deadlocked barrier, a signal such
//!   as an integer division by zero) ends the launch with an error naming block and
//!   thread ([`trap`]).

pub(crate) mod abi;
pub(crate) mod block;
pub(crate) mod launch;
pub(crate) mod library;
pub(crate) mod rng;
pub(crate) mod trap;
pub(crate) mod warp;

use super::device::{Backend, DeviceInner, HOST_ORDINAL};
use super::memory::DeviceMemory;
use cudarc::driver::sys;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The raw handle of the host device's default stream: a token, never dereferenced.
pub(crate) const DEFAULT_STREAM: sys::CUstream = 8 as sys::CUstream;

/// Holds the launches of one host stream in order: a launch runs on the calling thread, so
/// two threads launching on one stream would otherwise run their kernels at once. Streams
/// share a fixed set of locks (two streams on one lock only lose overlap); a launch holds
/// one lock and takes no other, so they cannot deadlock.
pub(crate) fn stream_lock(raw: sys::CUstream) -> std::sync::MutexGuard<'static, ()> {
    const LOCKS: usize = 64;
    static L: [std::sync::Mutex<()>; LOCKS] = [const { std::sync::Mutex::new(()) }; LOCKS];
    // tokens are multiples of 8
    L[(raw as usize / 8) % LOCKS]
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
}

impl HostDevice {
    /// Bytes the device holds: live buffers plus the freed-block cache.
    pub(crate) fn held_bytes(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// A new stream token (distinct from every other stream's handle).
    pub(crate) fn new_stream_token(&self) -> sys::CUstream {
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed) + 2;
        (n * 8) as sys::CUstream
    }

    /// A block of `bytes` (> 0) aligned to [`ALIGN`], or `None` when the allocator fails.
    pub(crate) fn alloc(&self, bytes: usize) -> Option<u64> {
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

    /// Frees a block `alloc` returned for `bytes`.
    pub(crate) fn free(&self, ptr: u64, bytes: usize) {
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
pub(crate) fn available_memory() -> usize {
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

/// The host device's record.
pub(crate) fn open() -> DeviceInner {
    let total = physical_memory();
    let workers = workers();
    DeviceInner {
        ordinal: HOST_ORDINAL,
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
        memory: DeviceMemory::new(total.max(1 << 30)),
        backend: Backend::Host(HostDevice {
            held: AtomicUsize::new(0),
            next_stream: AtomicUsize::new(0),
        }),
    }
}
