//! Launching a kernel: one `cuLaunchKernel` call with a packed argument list.

use super::driver::DriverResultExt;
use super::module::Function;
use super::stream::Stream;
use crate::error::{Result, bail};
use smallvec::SmallVec;
use std::ffi::c_void;

/// Grid and block dimensions plus dynamic shared memory of one launch.
///
/// ```
/// use cuprum::runtime::LaunchConfig;
/// let cfg = LaunchConfig::linear(1000, 256);
/// assert_eq!(cfg.grid, (4, 1, 1));
/// assert_eq!(cfg.block, (256, 1, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// Enough blocks of `block` threads to cover `n` items, one item per thread.
    pub fn linear(n: usize, block: u32) -> LaunchConfig {
        let blocks = n.div_ceil(block.max(1) as usize).max(1);
        LaunchConfig {
            grid: (blocks.min(u32::MAX as usize) as u32, 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

/// Kernel arguments packed by value, each 16-byte aligned, ready for `cuLaunchKernel`.
#[derive(Default)]
pub(crate) struct ArgPack {
    cells: SmallVec<[u128; 16]>,
    starts: SmallVec<[usize; 8]>,
}

impl ArgPack {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Appends one argument given as its bytes.
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        self.starts.push(self.cells.len());
        let cells = bytes.len().div_ceil(16).max(1);
        let at = self.cells.len();
        self.cells.extend(std::iter::repeat_n(0u128, cells));
        for (k, chunk) in bytes.chunks(16).enumerate() {
            let mut c = [0u8; 16];
            c[..chunk.len()].copy_from_slice(chunk);
            self.cells[at + k] = u128::from_ne_bytes(c);
        }
    }

    /// Appends a plain value (an integer, float or pointer).
    pub(crate) fn push<T: bytemuck::Pod>(&mut self, v: T) {
        self.push_bytes(bytemuck::bytes_of(&v));
    }

    fn pointers(&mut self) -> SmallVec<[*mut c_void; 8]> {
        let base = self.cells.as_mut_ptr();
        self.starts
            .iter()
            // SAFETY: every start is an index inside `cells`.
            .map(|&s| unsafe { base.add(s) }.cast::<c_void>())
            .collect()
    }
}

/// Launches `f` on `stream` with the packed arguments.
///
/// # Safety
/// The arguments must match the kernel's parameter list (count, sizes and meaning), every
/// pointer argument must point to device memory valid for what the kernel accesses until
/// the kernel finishes, and `cfg` must be within the device's limits.
pub(crate) unsafe fn launch(
    f: &Function,
    cfg: &LaunchConfig,
    stream: &Stream,
    args: &mut ArgPack,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    unsafe { launch_kind(f, cfg, stream, args, false) }
}

/// [`launch`], optionally as a cooperative launch (`cuLaunchCooperativeKernel`).
///
/// # Safety
/// As for [`launch`]; for a cooperative launch the grid must also fit on the device at once.
pub(crate) unsafe fn launch_kind(
    f: &Function,
    cfg: &LaunchConfig,
    stream: &Stream,
    args: &mut ArgPack,
    cooperative: bool,
) -> Result<()> {
    if cooperative {
        stream.device().bind()?;
        let mut ptrs = args.pointers();
        // SAFETY: as for the plain launch below.
        return unsafe {
            cudarc::driver::sys::cuLaunchCooperativeKernel(
                f.raw(),
                cfg.grid.0,
                cfg.grid.1,
                cfg.grid.2,
                cfg.block.0,
                cfg.block.1,
                cfg.block.2,
                cfg.shared_mem_bytes,
                stream.raw(),
                ptrs.as_mut_ptr(),
            )
        }
        .call("cuLaunchCooperativeKernel");
    }
    if cfg.grid.0 == 0 || cfg.grid.1 == 0 || cfg.grid.2 == 0 {
        bail!(InvalidArgument, "grid {:?} has a zero dimension", cfg.grid);
    }
    stream.device().bind()?;
    let mut ptrs = args.pointers();
    // SAFETY: the caller guarantees the argument list and configuration; `ptrs` points into
    // `args`, which outlives the call (the driver copies the values during the call).
    unsafe {
        cudarc::driver::sys::cuLaunchKernel(
            f.raw(),
            cfg.grid.0,
            cfg.grid.1,
            cfg.grid.2,
            cfg.block.0,
            cfg.block.1,
            cfg.block.2,
            cfg.shared_mem_bytes,
            stream.raw(),
            ptrs.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .call("cuLaunchKernel")
}
