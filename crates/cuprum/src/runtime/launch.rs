//! Launching a kernel: the launch configuration, occupancy, the packed argument list, and
//! **the one launch check** every launch passes — generated kernels, RawKernel and Rust
//! kernels alike — before its backend runs it ([`launch`]):
//!
//! - every grid and block dimension at least 1 and within the device's limit;
//! - threads per block within the kernel's and the device's limit;
//! - dynamic shared memory within the kernel's current limit, which is raised when a launch
//!   asks for more (the opt-in above 48 KiB, done once per kernel and size), up to the
//!   device's opt-in limit minus the kernel's static shared memory;
//! - a cooperative launch's grid no larger than the blocks the device runs at once.
//!
//! The kernel's own limits are read from its backend once and kept by its module
//! (`KernelLimits`), so the check costs a few comparisons per launch.
//!
//! A launch is then one `cuLaunchKernel` (on the host device, one call into its runner)
//! with the arguments packed by value in an `ArgPack`: each argument in 16-byte-aligned
//! cells, stored inline (16 cells, 8 arguments) so that a usual launch allocates nothing.
//!
//! Geometry: [`LaunchConfig::linear`] is seed 000's `ceil(n / block)` blocks, at least 1
//! and at most [`MAX_GRID_X`] (2^31 - 1); [`LaunchConfig::grid_stride`] and
//! [`Occupancy::of`] size a grid-stride grid from the driver's
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor` × the SM count (`RawKernel::grid_stride`,
//! `RawKernel::occupancy`, and `cuprum grid` print them).

use super::backend::{LaunchMode, LaunchParams};
use super::module::Function;
use super::stream::Stream;
use crate::error::{Result, bail};
use smallvec::SmallVec;
use std::ffi::c_void;

/// The most blocks a grid may have along x (`2^31 - 1`).
pub const MAX_GRID_X: u32 = i32::MAX as u32;

/// Grid and block dimensions plus dynamic shared memory of one launch.
///
/// Two shapes for `n` items: [`linear`](LaunchConfig::linear), one thread per item
/// (`blocks = ceil(n / block)`, seed 000's `CUDAGrid`), and
/// [`grid_stride`](LaunchConfig::grid_stride), as many blocks as the GPU runs at once for a
/// kernel that loops `for (i = tid; i < n; i += gridDim.x * blockDim.x)`.
///
/// ```
/// use cuprum::runtime::LaunchConfig;
/// let cfg = LaunchConfig::linear(1000, 256);
/// assert_eq!(cfg.grid, (4, 1, 1));
/// assert_eq!(cfg.block, (256, 1, 1));
/// // seed 000: 1,000,000 elements in blocks of 256 need 3,907 blocks (1,000,192 threads)
/// assert_eq!(LaunchConfig::blocks_for(1_000_000, 256), 3907);
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
    /// Blocks of `block` threads that cover `n` items one per thread: `ceil(n / block)`
    /// (0 for no items; `block` 0 counts as 1). Seed 000's `(n + tpb - 1) // tpb`.
    ///
    /// ```
    /// use cuprum::runtime::LaunchConfig;
    /// assert_eq!(LaunchConfig::blocks_for(10_000, 128), 79);
    /// assert_eq!(LaunchConfig::blocks_for(0, 256), 0);
    /// assert_eq!(LaunchConfig::blocks_for(usize::MAX, 1024), usize::MAX / 1024 + 1);
    /// ```
    pub fn blocks_for(n: usize, block: u32) -> usize {
        n.div_ceil(block.max(1) as usize)
    }

    /// Enough blocks of `block` threads to cover `n` items, one item per thread. A launch
    /// has at least one block (kernels check `i < n`), and at most [`MAX_GRID_X`]: beyond
    /// `MAX_GRID_X * block` items a kernel needs a grid-stride loop. `block` 0 counts as 1.
    ///
    /// ```
    /// use cuprum::runtime::{LaunchConfig, MAX_GRID_X};
    /// assert_eq!(LaunchConfig::linear(1_000_000, 256).grid.0, 3907);
    /// assert_eq!(LaunchConfig::linear(0, 256).grid.0, 1);
    /// assert_eq!(LaunchConfig::linear(usize::MAX, 256).grid.0, MAX_GRID_X);
    /// ```
    pub fn linear(n: usize, block: u32) -> LaunchConfig {
        let block = block.max(1);
        let blocks = LaunchConfig::blocks_for(n, block).clamp(1, MAX_GRID_X as usize);
        LaunchConfig {
            grid: (blocks as u32, 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// A grid-stride launch of `f` over `n` items: as many blocks of `block` threads as
    /// the driver's occupancy calculator says fit on the GPU at once
    /// (`cuOccupancyMaxActiveBlocksPerMultiprocessor` × the SM count), but no more than
    /// `n` items need, and at least one. The kernel must loop
    /// `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)`.
    ///
    /// Errors: `block` is 0 or more than the kernel allows, or no block of this size (with
    /// `shared_mem_bytes` of dynamic shared memory) fits on a multiprocessor.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::RawModule;
    /// use cuprum::runtime::LaunchConfig;
    /// let m = RawModule::new(r#"extern "C" __global__ void twice(float* x, long long n) {
    ///     for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    ///         x[i] *= 2; }"#);
    /// let k = m.get_function("twice")?;
    /// let cfg = k.grid_stride(100_000_000, 256, 0)?;
    /// assert!(cfg.grid.0 <= 390_625); // at most what the GPU runs at once
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn grid_stride(
        f: &Function,
        n: usize,
        block: u32,
        shared_mem_bytes: u32,
    ) -> Result<LaunchConfig> {
        let occ = Occupancy::of(f, block, shared_mem_bytes)?;
        Ok(LaunchConfig {
            grid: (grid_stride_blocks(n, block, occ.resident_blocks()), 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes,
        })
    }
}

/// Blocks of a grid-stride launch: what `n` items need, at most `resident` (the blocks the
/// GPU runs at once) and [`MAX_GRID_X`], at least 1.
fn grid_stride_blocks(n: usize, block: u32, resident: u64) -> u32 {
    let need = LaunchConfig::blocks_for(n, block) as u64;
    need.min(resident).clamp(1, u64::from(MAX_GRID_X)) as u32
}

/// What the driver's occupancy calculator says about one kernel launched in blocks of a
/// given size on its device.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::RawModule;
/// let m = RawModule::new(r#"extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1; }"#);
/// let occ = m.get_function("k")?.occupancy(256, 0)?;
/// println!("{} blocks of 256 per SM, {} at once, {:.0}% of the threads an SM can hold",
///          occ.blocks_per_sm, occ.resident_blocks(), 100.0 * occ.fraction());
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupancy {
    /// Threads per block asked about.
    pub block: u32,
    /// Dynamic shared memory per block asked about, in bytes.
    pub shared_mem_bytes: u32,
    /// Blocks of this size one multiprocessor runs at once
    /// (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    pub blocks_per_sm: u32,
    /// Multiprocessors of the device.
    pub sm_count: u32,
    /// Threads one multiprocessor holds at most.
    pub max_threads_per_sm: u32,
}

impl Occupancy {
    /// Asks the driver about `f` in blocks of `block` threads with `shared_mem_bytes` of
    /// dynamic shared memory (above 48 KiB, after the opt-in a launch of that size makes).
    /// Errors when `block` is 0 or larger than the kernel allows, and when no such block
    /// fits on a multiprocessor (too many registers or too much shared memory).
    pub fn of(f: &Function, block: u32, shared_mem_bytes: u32) -> Result<Occupancy> {
        let limit = f.max_threads_per_block()?.max(0) as u32;
        if block == 0 || block > limit {
            bail!(
                Launch,
                "blocks of {block} threads: this kernel allows 1 to {limit} threads per block"
            );
        }
        let device = f.module().device();
        let smem = shared_mem_bytes as usize;
        let limits = f.limits()?;
        if smem > limits.dynamic_shared()
            && smem
                <= device
                    .max_shared_memory_per_block_optin()
                    .saturating_sub(limits.static_shared)
        {
            // The opt-in a launch of this size makes (see `launch`), so that the answer is
            // the launch's.
            f.set_max_dynamic_shared_bytes(smem)?;
        }
        let blocks_per_sm = f.max_active_blocks_per_sm(block, smem)?;
        if blocks_per_sm == 0 {
            bail!(
                Launch,
                "no block of {block} threads with {shared_mem_bytes} bytes of dynamic shared \
                 memory fits on a multiprocessor of device {} ({}): use smaller blocks or less \
                 shared memory",
                device.ordinal(),
                device.name()
            );
        }
        let max_threads_per_sm = device.max_threads_per_sm();
        Ok(Occupancy {
            block,
            shared_mem_bytes,
            blocks_per_sm,
            sm_count: device.sm_count(),
            max_threads_per_sm,
        })
    }

    /// Blocks the whole GPU runs at once: `blocks_per_sm * sm_count`.
    pub fn resident_blocks(&self) -> u64 {
        u64::from(self.blocks_per_sm) * u64::from(self.sm_count)
    }

    /// The theoretical occupancy: the share of a multiprocessor's threads (counted in
    /// whole warps) that resident blocks use, in `0.0..=1.0`.
    pub fn fraction(&self) -> f64 {
        let warps = u64::from(self.block.div_ceil(32)) * 32 * u64::from(self.blocks_per_sm);
        (warps as f64 / f64::from(self.max_threads_per_sm)).min(1.0)
    }
}

/// Kernel arguments packed by value, each 16-byte aligned, ready for `cuLaunchKernel`.
#[derive(Debug, Default)]
pub(crate) struct ArgPack {
    cells: SmallVec<[u128; 16]>,
    starts: SmallVec<[usize; 8]>,
}

impl ArgPack {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// How many arguments are packed.
    #[cfg(feature = "python")]
    pub(crate) fn len(&self) -> usize {
        self.starts.len()
    }

    /// Appends one argument given as its bytes.
    #[inline]
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        if bytes.len() <= 16 {
            // One cell (every scalar and pointer): no loop.
            let mut c = [0u8; 16];
            c[..bytes.len()].copy_from_slice(bytes);
            self.starts.push(self.cells.len());
            self.cells.push(u128::from_ne_bytes(c));
            return;
        }
        self.push_with(bytes.len(), |b| b.copy_from_slice(bytes));
    }

    /// Appends one argument of `len` bytes, written in place by `fill` (which gets them
    /// zeroed): no intermediate buffer.
    pub(crate) fn push_with(&mut self, len: usize, fill: impl FnOnce(&mut [u8])) {
        let at = self.cells.len();
        self.starts.push(at);
        self.cells
            .extend(std::iter::repeat_n(0u128, len.div_ceil(16).max(1)));
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.cells[at..]);
        fill(&mut bytes[..len]);
    }

    /// Appends a plain value (an integer, float or pointer): one cell written at the
    /// value's own width (no copy of a run-time length).
    #[inline(always)]
    pub(crate) fn push<T: bytemuck::Pod>(&mut self, v: T) {
        if size_of::<T>() > 16 {
            return self.push_bytes(bytemuck::bytes_of(&v));
        }
        let mut c = 0u128;
        bytemuck::bytes_of_mut(&mut c)[..size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&v));
        self.starts.push(self.cells.len());
        self.cells.push(c);
    }

    fn pointers(&mut self) -> SmallVec<[*mut c_void; 8]> {
        let base = self.cells.as_mut_ptr();
        // SAFETY: every start is an index inside `cells`.
        let at = |s: usize| unsafe { base.add(s) }.cast::<c_void>();
        let n = self.starts.len();
        if n <= 8 {
            // The common count, without `collect`'s growth checks.
            let mut ptrs = [std::ptr::null_mut(); 8];
            for (p, &s) in ptrs.iter_mut().zip(&self.starts) {
                *p = at(s);
            }
            return SmallVec::from_buf_and_len(ptrs, n);
        }
        self.starts.iter().map(|&s| at(s)).collect()
    }
}

impl Function {
    /// Launches this kernel, which must take no parameters, on `stream`. An error when it
    /// takes some (the count comes from the module image, or once from the driver), and
    /// when the configuration is outside the device's or the kernel's limits.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::compile::{compile_with_cache, CompileOptions};
    /// use cuprum::runtime::{LaunchConfig, Stream};
    /// let m = compile_with_cache(r#"extern "C" __global__ void tick() {}"#, &CompileOptions::new())?;
    /// m.function("tick")?.launch_without_arguments(&LaunchConfig::linear(1, 1), &Stream::current()?)?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn launch_without_arguments(&self, config: &LaunchConfig, stream: &Stream) -> Result<()> {
        let n = match self.image_param_count() {
            Some(n) => n,
            None => self.num_params()?,
        };
        if n != 0 {
            bail!(
                Launch,
                "this kernel takes {n} parameter(s): launch_without_arguments launches only \
                 kernels without parameters (RawKernel checks a launch's arguments)"
            );
        }
        // SAFETY: the kernel takes no parameters, so the empty argument list matches it;
        // the launch check keeps the configuration within the limits. What the kernel's
        // code does is its author's contract, as with any CUDA kernel (see `RawKernel`).
        unsafe {
            launch(
                self,
                config,
                stream,
                &mut ArgPack::new(),
                LaunchMode::Plain,
                &|| "this kernel".to_string(),
            )
        }
    }
}

/// The one launch check (see the module docs): `what` names the kernel in errors (called
/// only when there is one), `cooperative` asks for a grid that runs at once. Raises the
/// kernel's dynamic shared memory limit when the launch needs it and the device allows it.
pub(crate) fn check_launch(
    f: &Function,
    cfg: &LaunchConfig,
    cooperative: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let device = f.module().device();
    let (mg, mb) = (device.max_grid_dim(), device.max_block_dim());
    let fits = |d: (u32, u32, u32), max: [u32; 3]| {
        d.0 != 0 && d.1 != 0 && d.2 != 0 && d.0 <= max[0] && d.1 <= max[1] && d.2 <= max[2]
    };
    // The loop below names the dimension that does not fit; a launch that fits skips it.
    let dims_fit = fits(cfg.grid, mg) && fits(cfg.block, mb);
    for (which, d, max) in [("grid", cfg.grid, mg), ("block", cfg.block, mb)] {
        if dims_fit {
            break;
        }
        let dims = [d.0, d.1, d.2];
        for k in 0..3 {
            if dims[k] == 0 {
                bail!(
                    Launch,
                    "{}: {which} {dims:?} has a zero dimension (CuPy would silently launch 1)",
                    what()
                );
            }
            if dims[k] > max[k] {
                bail!(
                    Launch,
                    "{}: {which} dimension {} is {}, the device allows at most {}",
                    what(),
                    ["x", "y", "z"][k],
                    dims[k],
                    max[k]
                );
            }
        }
    }
    let limits = f.limits()?;
    let threads = u64::from(cfg.block.0) * u64::from(cfg.block.1) * u64::from(cfg.block.2);
    let limit = u64::from(limits.max_threads.min(device.max_threads_per_block()));
    if threads > limit {
        bail!(
            Launch,
            "{}: block {:?} has {threads} threads, this kernel allows at most {limit} per block",
            what(),
            cfg.block
        );
    }
    let smem = cfg.shared_mem_bytes as usize;
    if smem > limits.dynamic_shared() {
        let optin = device.max_shared_memory_per_block_optin();
        let max = optin.saturating_sub(limits.static_shared);
        if smem > max {
            bail!(
                Launch,
                "{}: {smem} bytes of dynamic shared memory requested, the device allows at \
                 most {max} ({optin} per block minus {} static)",
                what(),
                limits.static_shared
            );
        }
        // The opt-in: raise the kernel's limit to what this launch needs.
        f.set_max_dynamic_shared_bytes(smem)?;
    }
    if cooperative {
        let per_sm = f.max_active_blocks_per_sm(threads as u32, smem)?;
        let max = u64::from(per_sm) * u64::from(device.sm_count());
        let blocks = u64::from(cfg.grid.0) * u64::from(cfg.grid.1) * u64::from(cfg.grid.2);
        if blocks > max {
            bail!(
                Launch,
                "{}: the cooperative grid of {blocks} blocks exceeds the limit ({max} = {per_sm} \
                 per SM x {} SMs) of blocks that can run at once",
                what(),
                device.sm_count()
            );
        }
    }
    Ok(())
}

/// Checks ([`check_launch`]) and launches `f` on `stream` with the packed arguments, ordered
/// as `mode` says (a cooperative launch: every block resident at once, for `grid.sync()`; a
/// dependent one: only for kernels that wait for the one before them first).
/// `what` names the kernel in errors.
///
/// # Safety
/// The arguments must match the kernel's parameter list (count, sizes and meaning), and
/// every pointer argument must point to device memory valid for what the kernel accesses
/// until the kernel finishes.
pub(crate) unsafe fn launch(
    f: &Function,
    cfg: &LaunchConfig,
    stream: &Stream,
    args: &mut ArgPack,
    mode: LaunchMode,
    what: &dyn Fn() -> String,
) -> Result<()> {
    check_launch(f, cfg, mode == LaunchMode::Cooperative, what)?;
    stream.device().check_fault()?;
    let (module, kernel) = f.launch_parts();
    if super::capture_state::is_capturing(stream.raw().0) {
        // The graph keeps the kernel's module loaded, and its parameters' layout (for
        // `Graph::rebind`).
        super::capture_state::keep(std::sync::Arc::new(f.clone()));
        super::capture_state::keep_layout(kernel.0, || f.param_info().ok());
    }
    let mut ptrs = args.pointers();
    // SAFETY: the caller guarantees the argument list; `ptrs` points into `args`, which
    // outlives the call (the backend copies the values during the call); the configuration
    // passed the launch check.
    let params = LaunchParams {
        grid: cfg.grid,
        block: cfg.block,
        shared: cfg.shared_mem_bytes,
        stream: stream.raw(),
        mode,
    };
    unsafe { module.launch(kernel, &params, ptrs.as_mut_ptr()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_configs_follow_seed_000() {
        // seed 000: CUDAGrid(1000000) → 3,907 blocks of 256, 1,000,192 threads
        assert_eq!(LaunchConfig::blocks_for(1_000_000, 256), 3907);
        // its block-size analysis for N=10000
        for (tpb, blocks) in [(128, 79), (256, 40), (512, 20)] {
            assert_eq!(LaunchConfig::blocks_for(10_000, tpb), blocks);
            assert_eq!(
                LaunchConfig::linear(10_000, tpb).grid,
                (blocks as u32, 1, 1)
            );
        }
        // no items: no blocks needed, one launched; block 0 counts as 1; no overflow
        assert_eq!(LaunchConfig::blocks_for(0, 256), 0);
        assert_eq!(LaunchConfig::linear(0, 256).grid, (1, 1, 1));
        assert_eq!(LaunchConfig::linear(5, 0).block, (1, 1, 1));
        assert_eq!(LaunchConfig::linear(5, 0).grid, (5, 1, 1));
        assert_eq!(LaunchConfig::blocks_for(usize::MAX, 1), usize::MAX);
        assert_eq!(LaunchConfig::linear(usize::MAX, 1).grid.0, MAX_GRID_X);
        assert_eq!(LaunchConfig::linear(usize::MAX, u32::MAX).block.0, u32::MAX);
    }

    #[test]
    fn grid_stride_blocks_are_capped_by_residency_and_need() {
        // 132 SMs x 8 blocks of 256 at once
        assert_eq!(grid_stride_blocks(100_000_000, 256, 1056), 1056);
        assert_eq!(grid_stride_blocks(1000, 256, 1056), 4);
        assert_eq!(grid_stride_blocks(0, 256, 1056), 1);
        assert_eq!(grid_stride_blocks(usize::MAX, 1, u64::MAX), MAX_GRID_X);
        assert_eq!(grid_stride_blocks(10, 0, 5), 5);
    }
}
