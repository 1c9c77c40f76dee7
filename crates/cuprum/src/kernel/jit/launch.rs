//! Launching a `#[cuprum::kernel]`: the configuration ([`JitConfig`]) and the per-launch
//! work the generated `launch` does through [`Launcher`]: argument checks (dtype,
//! contiguity, device, no `&mut` overlap), the instance lookup, one `cuLaunchKernel`.
//!
//! `k::launch(config, args…)` takes `&Array` / `&mut Array` per slice parameter and each
//! scalar as its Rust type, so rustc checks the count, the types, the mutability, and that
//! one array is not passed both as `&` and `&mut`. At launch each array must have the
//! parameter's dtype, be C-contiguous and live on the launch's device (the `JitConfig`'s
//! stream, else the first array argument's device). The launcher refuses any argument
//! whose bytes overlap a `&mut` one (disjoint views of one buffer are fine): that is what
//! makes the generated `__restrict__` sound. A slice is passed as a pointer and a 64-bit
//! length. Untyped arrays cannot drive inference, so a generic kernel takes `T` from a
//! scalar or a turbofish (typed array views would move the dtype check to compile time;
//! not done yet).

use super::def::KernelDef;
use crate::array::Array;
use crate::array::DeviceField;
use crate::error::{Result, bail};
use crate::kernel::Dim3;
use crate::runtime::{ArgPack, Device, LaunchConfig, LaunchMode, Stream, launch};
use smallvec::SmallVec;

/// How to launch a kernel written in Rust: grid and block (the seed's
/// `kernel((blocks,), (threads,), args)`), dynamic shared memory, stream, checks.
/// `(grid, block)` tuples convert to it.
///
/// ```
/// use cuprum::kernel::{Dim3, JitConfig};
/// let c: JitConfig = (3907u32, 256u32).into();
/// assert_eq!((c.grid(), c.block()), (Dim3(3907, 1, 1), Dim3(256, 1, 1)));
/// let c = JitConfig::for_len(1000, 256).shared_mem(1024);
/// assert_eq!((c.grid(), c.shared_mem_bytes()), (Dim3(4, 1, 1), 1024));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct JitConfig<'s> {
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    stream: Option<&'s Stream>,
    checked: Option<bool>,
}

impl<'s> JitConfig<'s> {
    /// `grid` blocks of `block` threads (each `n`, `(x,)`, `(x, y)` or `(x, y, z)`).
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> JitConfig<'s> {
        JitConfig {
            grid: grid.into(),
            block: block.into(),
            shared_mem: 0,
            stream: None,
            checked: None,
        }
    }

    /// One thread per item: `ceil(n / block)` blocks (at least one) of `block` threads.
    pub fn for_len(n: usize, block: u32) -> JitConfig<'s> {
        let blocks = n
            .div_ceil(block.max(1) as usize)
            .clamp(1, u32::MAX as usize);
        JitConfig::new(blocks as u32, block)
    }

    /// Dynamic shared memory per block, in bytes (what `dynamic_shared::<T>()` views).
    pub fn shared_mem(mut self, bytes: usize) -> Self {
        self.shared_mem = bytes;
        self
    }

    /// Launches on `stream` instead of the current stream.
    pub fn stream(mut self, stream: &'s Stream) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Compiles the checked variant (faults on division by zero, division overflow and
    /// shift overflow, as a Rust debug build panics) or not. Default: checked when the
    /// calling crate is built with debug assertions.
    pub fn checked(mut self, on: bool) -> Self {
        self.checked = Some(on);
        self
    }

    /// The grid.
    pub fn grid(&self) -> Dim3 {
        self.grid
    }
    /// The block.
    pub fn block(&self) -> Dim3 {
        self.block
    }
    /// Dynamic shared memory per block, in bytes.
    pub fn shared_mem_bytes(&self) -> usize {
        self.shared_mem
    }
}

impl<G: Into<Dim3>, B: Into<Dim3>> From<(G, B)> for JitConfig<'_> {
    fn from((g, b): (G, B)) -> Self {
        JitConfig::new(g, b)
    }
}

/// A slice argument's address range, for the overlap check.
struct Range {
    start: u64,
    end: u64,
    mutable: bool,
    name: &'static str,
}

/// One launch in progress (generated code drives it).
#[doc(hidden)]
pub struct Launcher<'s> {
    def: &'static KernelDef,
    config: JitConfig<'s>,
    stream: Stream,
    device: Device,
    /// Whether the device is settled: a stream was given, or an array argument was seen.
    settled: bool,
    pack: ArgPack,
    ranges: SmallVec<[Range; 8]>,
}

impl<'s> Launcher<'s> {
    /// Starts a launch of `def` on the configuration's stream; without one, on the device
    /// of the first array argument (the current stream when it belongs to that device,
    /// else the device's default stream), or the current stream when there is no array.
    pub fn new(def: &'static KernelDef, config: JitConfig<'s>) -> Result<Launcher<'s>> {
        let stream = match config.stream {
            Some(s) => s.clone(),
            None => Stream::current()?,
        };
        Ok(Launcher {
            def,
            config,
            device: stream.device(),
            settled: config.stream.is_some(),
            stream,
            pack: ArgPack::new(),
            ranges: SmallVec::new(),
        })
    }

    fn array<T: DeviceField>(
        &mut self,
        name: &'static str,
        a: &Array,
        mutable: bool,
    ) -> Result<()> {
        let k = self.def.name();
        if mutable {
            a.check_writeable(format_args!("kernel `{k}` (its `&mut` argument `{name}`)"))?;
        }
        let want = T::element_dtype();
        if want != Some(a.dtype()) {
            let want = want.map_or_else(|| "no array".to_string(), |d| d.to_string());
            bail!(
                DType,
                "kernel `{k}`: argument `{name}` is a {} array, the parameter `{name}: &{}[{}]` needs {want}",
                a.dtype(),
                if mutable { "mut " } else { "" },
                std::any::type_name::<T>()
                    .rsplit("::")
                    .next()
                    .unwrap_or("T"),
            );
        }
        if !a.is_c_contiguous() {
            bail!(
                Launch,
                "kernel `{k}`: argument `{name}` is a non-contiguous view (shape {:?}, element strides {:?}); \
                 a slice parameter needs contiguous elements: pass `.to_contiguous()?`",
                a.shape(),
                a.strides()
            );
        }
        if !self.settled {
            self.settled = true;
            if a.device() != self.device {
                self.stream = Stream::for_device(a.device())?;
                self.device = a.device();
            }
        }
        if a.device() != self.device {
            bail!(
                DeviceMismatch,
                "kernel `{k}`: expected argument `{name}` on device {} ({}), the device of the \
                 launch's stream, given an array on device {} ({}); launch with \
                 `.stream(&array.device().default_stream())` or move the array with `to_device`",
                self.device.ordinal(),
                self.device.name(),
                a.device().ordinal(),
                a.device().name()
            );
        }
        // The address for this launch's stream (a use on another stream than the array's own
        // is recorded, so that its memory is not reused before this launch ran).
        let start = a.ptr_on(&self.stream);
        self.ranges.push(Range {
            start,
            end: start + a.nbytes() as u64,
            mutable,
            name,
        });
        self.pack.push(start);
        self.pack.push(a.size() as u64);
        Ok(())
    }

    /// A `&[T]` argument.
    pub fn slice<T: DeviceField>(&mut self, name: &'static str, a: &Array) -> Result<()> {
        self.array::<T>(name, a, false)
    }

    /// A `&mut [T]` argument.
    pub fn slice_mut<T: DeviceField>(&mut self, name: &'static str, a: &mut Array) -> Result<()> {
        self.array::<T>(name, a, true)
    }

    /// A scalar or device type argument, by value (its bytes written field by field).
    #[inline]
    pub fn scalar<T: DeviceField>(&mut self, v: T) {
        let n = std::mem::size_of::<T>();
        if n <= 16 {
            let mut b = [0u8; 16];
            v.write_bytes(&mut b[..n]);
            self.pack.push_bytes(&b[..n]);
        } else {
            self.pack.push_with(n, |b| v.write_bytes(&mut b[..n]));
        }
    }

    /// Checks the configuration and the aliasing, then launches the instance for `key`
    /// (its C++ template arguments from `names`). `debug`: the calling crate's
    /// `cfg!(debug_assertions)` (the default of [`JitConfig::checked`]).
    pub fn launch(
        mut self,
        debug: bool,
        key: &[u64],
        names: &dyn Fn() -> Vec<String>,
    ) -> Result<()> {
        self.check_aliasing()?;
        let checked = self.config.checked.unwrap_or(debug);
        let inst = self.def.instance(self.device, key, checked, names)?;
        let c = self.config;
        let cfg = LaunchConfig {
            grid: (c.grid.0, c.grid.1, c.grid.2),
            block: (c.block.0, c.block.1, c.block.2),
            shared_mem_bytes: u32::try_from(c.shared_mem).unwrap_or(u32::MAX),
        };
        let cooperative = self.def.is_cooperative();
        let name = self.def.name();
        // SAFETY: the argument list is the kernel's parameter list by construction (the
        // macro wrote both from one signature: a pointer and a 64-bit length per slice,
        // each scalar of its Rust type); every pointer is the start of a live contiguous
        // array of the parameter's dtype on this device, whose length is passed with it and
        // checked by every access in the kernel; `&mut` arguments overlap no other
        // argument; `launch` checks the configuration against the device's and the
        // kernel's limits (a kernel that calls grid_sync() launches cooperatively, its grid
        // resident at once).
        unsafe {
            launch(
                &inst.function,
                &cfg,
                &self.stream,
                &mut self.pack,
                LaunchMode::cooperative_if(cooperative),
                &|| {
                    if cooperative {
                        format!("kernel `{name}` (it calls grid_sync())")
                    } else {
                        format!("kernel `{name}`")
                    }
                },
            )
        }
    }

    /// No `&mut` slice shares memory with another argument (what makes `__restrict__`
    /// sound).
    fn check_aliasing(&self) -> Result<()> {
        let k = self.def.name();
        for (i, a) in self.ranges.iter().enumerate() {
            if !a.mutable || a.start == a.end || self.ranges.len() < 2 {
                continue;
            }
            if let Some(b) = self
                .ranges
                .iter()
                .enumerate()
                .find(|(j, b)| *j != i && b.start != b.end && a.start < b.end && b.start < a.end)
                .map(|(_, b)| b)
            {
                bail!(
                    Launch,
                    "kernel `{k}`: argument `{}` (a `&mut` slice) shares memory with argument `{}`; \
                     a `&mut [T]` parameter needs memory that no other argument uses",
                    a.name,
                    b.name
                );
            }
        }
        Ok(())
    }
}
