//! Launching a kernel on the host device: the grid's blocks are handed out in increasing
//! linear order (x fastest), in chunks, to the worker threads, each running whole blocks
//! (so a block never moves between threads, and its thread-local shared memory is its
//! own); the call returns when every block has finished. A block that faults stops the
//! hand-out; the first fault is the launch's error.
//!
//! Blocks taken later never hold back blocks taken earlier, so a block may wait for a
//! block of lower index (CUB-style look-back) but not for a higher one. A cooperative
//! launch runs every block on a thread of its own, all at once, for `grid.sync()`.

use super::abi::{Dim3, FAULT_ASSERT, FAULT_DIVIDE, FAULT_MESSAGE, FAULT_TRAP};
use super::block::{BlockFault, GridBarrier, LaunchShape, run_block, threads_text};
use super::library::HostKernel;
use crate::error::{Error, ErrorKind, Result};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Launches below this many threads in all run on the calling thread.
const INLINE_THREADS: u64 = 4096;

/// The worker pool of the host device.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static P: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    P.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(super::workers())
            .thread_name(|i| format!("cuprum-host-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `f` once on every worker of the host pool (on the calling thread alone when there
/// is one worker or no pool), and returns when all are done.
pub(crate) fn on_workers(f: &(dyn Fn() + Sync)) {
    match pool() {
        Some(p) if super::workers() > 1 => {
            p.broadcast(|_| f());
        }
        _ => f(),
    }
}

/// Launches `kernel` named `name` with the packed argument pointers `args`.
///
/// # Safety
/// `args` must hold one pointer per kernel parameter, each to a value of the parameter's
/// size (16-byte aligned), alive until the call returns; pointers inside those values must
/// be valid for what the kernel does with them.
pub(crate) unsafe fn launch(
    kernel: &HostKernel,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    dyn_smem: usize,
    args: *const *mut c_void,
    cooperative: bool,
) -> Result<()> {
    let total = u64::from(grid.0) * u64::from(grid.1) * u64::from(grid.2);
    let shape = LaunchShape {
        run: kernel.run,
        args,
        grid: Dim3::of(grid),
        block: Dim3::of(block),
        dyn_smem,
        grid_barrier: cooperative.then(|| GridBarrier::new(total as usize)),
    };
    if total == 0 || shape.threads() == 0 {
        return Ok(());
    }
    let first: Mutex<Option<(u64, BlockFault)>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let fail = |index: u64, f: BlockFault| {
        stop.store(true, Ordering::Relaxed);
        let mut g = first.lock().unwrap_or_else(|p| p.into_inner());
        if g.as_ref().is_none_or(|(i, _)| index < *i) {
            *g = Some((index, f));
        }
    };
    if cooperative {
        std::thread::scope(|s| {
            for index in 0..total {
                let (shape, fail) = (&shape, &fail);
                s.spawn(move || {
                    if let Err(f) = run_block(shape, index) {
                        fail(index, f);
                    }
                });
            }
        });
    } else if total * u64::from(shape.threads()) < INLINE_THREADS || super::workers() == 1 {
        for index in 0..total {
            if let Err(f) = run_block(&shape, index) {
                fail(index, f);
                break;
            }
        }
    } else {
        let chunk = (total / (super::workers() as u64 * 8)).clamp(1, 64);
        let next = AtomicU64::new(0);
        on_workers(&|| {
            loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let start = next.fetch_add(chunk, Ordering::Relaxed);
                if start >= total {
                    return;
                }
                for index in start..(start + chunk).min(total) {
                    if let Err(f) = run_block(&shape, index) {
                        fail(index, f);
                        return;
                    }
                }
            }
        });
    }
    flush_printf();
    match first.into_inner().unwrap_or_else(|p| p.into_inner()) {
        None => Ok(()),
        Some((index, f)) => Err(fault_error(&kernel.name, shape.grid.unravel(index), &f)),
    }
}

/// Kernel `printf` writes to C's `stdout` buffer: a launch flushes it when its blocks are
/// done, so the kernel's lines come before the caller's own output even into a pipe (a
/// GPU's lines appear at the next synchronisation).
fn flush_printf() {
    // SAFETY: fflush(NULL) flushes every open C output stream; it reads no pointer of ours.
    unsafe {
        libc::fflush(std::ptr::null_mut());
    }
}

fn dim(d: Dim3) -> String {
    format!("({}, {}, {})", d.x, d.y, d.z)
}

/// The error of a block's fault, naming the kernel, block and thread(s).
pub(crate) fn fault_error(kernel: &str, block: Dim3, f: &BlockFault) -> Error {
    let at = |t: Dim3| format!("kernel '{kernel}', block {}, thread {}", dim(block), dim(t));
    let msg = match f {
        BlockFault::Kernel {
            thread,
            kind,
            line,
            file,
            func,
            expr,
        } => match *kind {
            // CUDA's own wording of a device-side assert.
            FAULT_ASSERT => format!(
                "{file}:{line}: {func}: block: [{},{},{}], thread: [{},{},{}] Assertion `{expr}` \
                 failed. ({})",
                block.x,
                block.y,
                block.z,
                thread.x,
                thread.y,
                thread.z,
                at(*thread)
            ),
            FAULT_TRAP => format!("__trap() at {file}:{line} in {}", at(*thread)),
            FAULT_DIVIDE => format!(
                "integer division by zero (or the most negative value divided by -1) at \
                 {file}:{line} in {}",
                at(*thread)
            ),
            FAULT_MESSAGE => format!("{expr} at {file}:{line} in {}", at(*thread)),
            k => format!("fault {k} at {file}:{line} in {}", at(*thread)),
        },
        BlockFault::Signal { thread, trap } => {
            format!("{} in {}", trap.describe(), at(*thread))
        }
        BlockFault::Divergent { sites } => {
            let parts: Vec<String> = sites
                .iter()
                .map(|(site, t)| format!("threads {} wait at {site}", threads_text(t)))
                .collect();
            format!(
                "divergent barrier in kernel '{kernel}', block {}: {}; every live thread of a \
                 block must reach the same __syncthreads()",
                dim(block),
                parts.join(", while ")
            )
        }
        BlockFault::Deadlock { waits } => {
            let parts: Vec<String> = waits
                .iter()
                .map(|(site, t)| format!("threads {} wait at {site}", threads_text(t)))
                .collect();
            format!(
                "deadlock in kernel '{kernel}', block {}: {}, and nothing can release them (a \
                 warp operation waits for lanes that wait at a barrier, or a barrier for \
                 threads that wait at a warp operation)",
                dim(block),
                parts.join("; ")
            )
        }
        BlockFault::GridSyncNotCooperative { thread } => format!(
            "grid.sync() in a launch that is not cooperative ({}); launch the kernel with \
             `.cooperative(true)`",
            at(*thread)
        ),
        BlockFault::Stack(e) => format!("kernel '{kernel}', block {}: {e}", dim(block)),
    };
    Error::new(
        ErrorKind::KernelFault,
        format!("{msg}; the launch stopped (the host device stays usable)"),
    )
}
