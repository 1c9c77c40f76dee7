//! [`RawKernel`] and [`RawModule`]: complete CUDA C++ kernels with full control over the
//! launch, and arguments checked against the compiled kernel's real parameter list.

use super::args::{ArgKind, ArgValue, KernelArgs};
use crate::array::{Array, Element};
use crate::compile::{CompileOptions, load_raw_source};
use crate::error::{Result, bail, err};
use crate::runtime::{
    ArgPack, Buffer, Device, Function, KernelAttributes, LaunchConfig, LaunchMode, Module,
    Occupancy, Stream, launch,
};
use smallvec::SmallVec;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// Grid or block dimensions: `n`, `(x,)`, `(x, y)` or `(x, y, z)`; missing ones are 1.
///
/// ```
/// use cuprum::kernel::Dim3;
/// assert_eq!(Dim3::from((64, 32)), Dim3(64, 32, 1));
/// assert_eq!(Dim3::from(256), Dim3(256, 1, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim3(pub u32, pub u32, pub u32);

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3(x, 1, 1)
    }
}
impl From<(u32,)> for Dim3 {
    fn from(d: (u32,)) -> Self {
        Dim3(d.0, 1, 1)
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from(d: (u32, u32)) -> Self {
        Dim3(d.0, d.1, 1)
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from(d: (u32, u32, u32)) -> Self {
        Dim3(d.0, d.1, d.2)
    }
}

/// Which compiler builds a raw kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// NVRTC, in process, through the kernel cache (the default).
    #[default]
    Nvrtc,
    /// `nvcc` from `PATH` (or `$NVCC`), for code NVRTC cannot build; results are kept in
    /// memory for the process.
    Nvcc,
}

enum Code {
    Source(String),
    File(PathBuf),
}

struct ModuleSpec {
    code: Code,
    options: CompileOptions,
    backend: Backend,
    cooperative: bool,
    /// Per device: the module and its compiler's log.
    loaded: Mutex<Vec<(usize, Module, String)>>,
}

impl ModuleSpec {
    fn module(&self, device: Device) -> Result<Module> {
        self.module_and_log(device).map(|(m, _)| m)
    }

    /// The module loaded on `device` (compiled first if need be) and the log of its
    /// compile: NVRTC's or nvcc's warnings; empty when there were none, for a module file
    /// and on the host device.
    fn module_and_log(&self, device: Device) -> Result<(Module, String)> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, m, log)) = loaded.iter().find(|(d, ..)| *d == device.ordinal()) {
            return Ok((m.clone(), log.clone()));
        }
        let (m, log) = match &self.code {
            Code::File(path) => {
                let bytes = std::fs::read(path).map_err(|e| {
                    // The driver's error for a missing file ends the message, as CuPy's.
                    let driver = match e.kind() {
                        std::io::ErrorKind::NotFound => {
                            " (CUDA_ERROR_FILE_NOT_FOUND: file not found)"
                        }
                        _ => "",
                    };
                    err!(
                        Io,
                        "cannot read the module file {}: {e}{driver}",
                        path.display()
                    )
                    .with_source(e)
                })?;
                let m = Module::load(device, &bytes).map_err(|e| {
                    crate::Error::new(e.kind(), format!("module file {}: {e}", path.display()))
                })?;
                (m, String::new())
            }
            Code::Source(src) => {
                load_raw_source(device, src, &self.options, self.backend == Backend::Nvcc)?
            }
        };
        loaded.push((device.ordinal(), m.clone(), log.clone()));
        Ok((m, log))
    }
}

impl ModuleSpec {
    /// What [`precompile`](crate::precompile) compiles for this module: its source with
    /// its options (NVRTC only; a module file or nvcc has nothing to warm).
    fn records(&self) -> Vec<crate::bundle::KernelRecord> {
        match (&self.code, self.backend) {
            (Code::Source(src), Backend::Nvrtc) => {
                vec![crate::bundle::KernelRecord::new(src, &self.options)]
            }
            _ => Vec::new(),
        }
    }
}

impl crate::compile::Precompile for RawKernel {
    fn kernels(&self) -> Vec<crate::bundle::KernelRecord> {
        self.spec.records()
    }
}

impl crate::compile::Precompile for RawModule {
    fn kernels(&self) -> Vec<crate::bundle::KernelRecord> {
        self.spec.records()
    }
}

/// Applies `f` to the spec, first copying it when kernels already share it (those keep
/// the old settings and their loaded modules).
fn edit_spec(spec: &mut Arc<ModuleSpec>, f: impl FnOnce(&mut ModuleSpec)) {
    if Arc::get_mut(spec).is_none() {
        let s = &**spec;
        *spec = Arc::new(ModuleSpec {
            code: match &s.code {
                Code::Source(c) => Code::Source(c.clone()),
                Code::File(p) => Code::File(p.clone()),
            },
            options: s.options.clone(),
            backend: s.backend,
            cooperative: s.cooperative,
            loaded: Mutex::new(Vec::new()),
        });
    }
    if let Some(s) = Arc::get_mut(spec) {
        f(s);
        s.loaded.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

/// A loaded kernel on one device with the parameter list every launch checks against.
struct Loaded {
    device: usize,
    function: Function,
    params: Vec<(usize, usize)>,
}

/// A CUDA C++ kernel compiled on first use (or with [`compile`](RawKernel::compile)) and
/// launched with full control: CuPy's `RawKernel`.
///
/// Every launch checks the arguments against the kernel's real parameters (count and byte
/// sizes, read from the driver) and the launch configuration against the device's limits,
/// so a wrong-width scalar or a strided view is an error instead of silent garbage.
///
/// # Why launching is a safe function
/// Everything a launch hands to the driver is checked, so a launch that is right in CUDA
/// terms cannot be wrong in Rust terms: the argument count and every argument's byte size
/// against the parameter list the driver reports for the compiled kernel; array arguments
/// are addresses of live buffers, registered with the launch's stream so that they are
/// neither freed nor reused before the kernel has run ([Arrays and
/// streams](crate::Stream#arrays-and-streams)); a non-contiguous view is refused unless
/// wrapped in [`Strided`](crate::kernel::Strided); grid, block, threads, dynamic shared
/// memory and cooperative grids are checked against the device's and the kernel's limits.
/// What remains is the kernel's own code: C++ that the caller wrote and NVRTC compiled,
/// whose memory accesses are its author's contract, as for any CUDA kernel (and CuPy's
/// `RawKernel`). cuprum's host code never trusts what a kernel leaves in device memory
/// (`bool` elements are read as bytes and compared with 0; fault records are validated),
/// so a wrong kernel gives wrong values or a [`KernelFault`](crate::ErrorKind::KernelFault)
/// error, not undefined behaviour in Rust. The one exposure no launch check can close is
/// shared with every C++ library a Rust program calls: on systems where the GPU addresses
/// host memory directly (HMM, ATS), a kernel writing through a wild pointer can write into
/// the process. The unit of trust is the kernel source, not the launch.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, kernel::RawKernel};
/// let add = RawKernel::new(r#"
/// extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
///     int i = blockIdx.x * blockDim.x + threadIdx.x;
///     if (i < n) c[i] = a[i] + b[i];
/// }"#, "vector_add");
/// let n = 1000usize;
/// let a = Array::ones(&[n], DType::F32)?;
/// let b = Array::full(&[n], 2.0f32, DType::F32)?;
/// let c = Array::empty(&[n], DType::F32)?;
/// add.launch((n as u32).div_ceil(256), 256, (&a, &b, &c, n as i32))?;
/// assert_eq!(c.to_vec::<f32>()?, vec![3.0; n]);
/// // A 64-bit length where the kernel takes `int` is caught before launching:
/// let err = add.launch(4, 256, (&a, &b, &c, n as i64)).unwrap_err();
/// assert!(err.to_string().contains("argument 3"));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct RawKernel {
    spec: Arc<ModuleSpec>,
    name: String,
    loaded: RwLock<SmallVec<[Arc<Loaded>; 1]>>,
}

impl std::fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawKernel({})", self.name)
    }
}

impl RawKernel {
    /// A kernel named `name` (an `extern "C"` symbol) in the CUDA C++ `code`. Nothing is
    /// compiled until the first launch or [`compile`](RawKernel::compile).
    pub fn new(code: impl Into<String>, name: impl Into<String>) -> RawKernel {
        RawKernel::from_spec(
            Arc::new(ModuleSpec {
                code: Code::Source(code.into()),
                options: CompileOptions::new().program_name("raw_kernel.cu"),
                backend: Backend::Nvrtc,
                cooperative: false,
                loaded: Mutex::new(Vec::new()),
            }),
            name.into(),
        )
    }

    fn from_spec(spec: Arc<ModuleSpec>, name: String) -> RawKernel {
        RawKernel {
            spec,
            name,
            loaded: RwLock::new(SmallVec::new()),
        }
    }

    fn edit_spec(mut self, f: impl FnOnce(&mut ModuleSpec)) -> RawKernel {
        edit_spec(&mut self.spec, f);
        self.loaded = RwLock::new(SmallVec::new());
        self
    }

    /// Adds an NVRTC (or nvcc) option, e.g. `"-DN=4"` or `"--use_fast_math"`.
    pub fn option(self, flag: impl Into<String>) -> RawKernel {
        let flag = flag.into();
        self.edit_spec(|s| s.options.options.push(flag))
    }

    /// Replaces all compile options.
    pub fn options(self, opts: CompileOptions) -> RawKernel {
        self.edit_spec(|s| s.options = opts)
    }

    /// Chooses the compiler (NVRTC by default).
    pub fn backend(self, backend: Backend) -> RawKernel {
        self.edit_spec(|s| s.backend = backend)
    }

    /// Launches with `cuLaunchCooperativeKernel`, so the kernel may use `grid.sync()`; the
    /// grid must fit on the device at once (checked).
    pub fn cooperative(self, on: bool) -> RawKernel {
        self.edit_spec(|s| s.cooperative = on)
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compiles and loads the kernel on the current device now (a compile error surfaces
    /// here instead of at the first launch).
    pub fn compile(&self) -> Result<()> {
        self.loaded_on(Device::current()?).map(drop)
    }

    /// The compiler's log of the kernel's module on the current device (compiled first if
    /// need be): NVRTC's or nvcc's warnings; empty when there were none, for a module file
    /// and on the host device. CuPy's `compile(log_stream=)` writes it.
    pub fn compile_log(&self) -> Result<String> {
        self.compile()?;
        self.spec
            .module_and_log(Device::current()?)
            .map(|(_, log)| log)
    }

    fn loaded_on(&self, device: Device) -> Result<Arc<Loaded>> {
        {
            let l = self.loaded.read().unwrap_or_else(|p| p.into_inner());
            if let Some(x) = l.iter().find(|x| x.device == device.ordinal()) {
                return Ok(x.clone());
            }
        }
        let module = self.spec.module(device)?;
        let function = module.function(&self.name)?;
        let loaded = Arc::new(Loaded {
            device: device.ordinal(),
            params: function.param_info()?,
            function,
        });
        let mut l = self.loaded.write().unwrap_or_else(|p| p.into_inner());
        l.retain(|x| x.device != device.ordinal());
        l.push(loaded.clone());
        Ok(loaded)
    }

    /// The compiled kernel's attributes on the current device.
    pub fn attributes(&self) -> Result<KernelAttributes> {
        self.loaded_on(Device::current()?)?.function.attributes()
    }

    /// Raises (or lowers) the dynamic shared memory a launch may ask for, up to the
    /// device's opt-in limit.
    pub fn set_max_dynamic_shared_memory(&self, bytes: usize) -> Result<()> {
        let device = Device::current()?;
        let l = self.loaded_on(device)?;
        let static_smem = l.function.static_shared_bytes()?;
        let limit = device
            .max_shared_memory_per_block_optin()
            .saturating_sub(static_smem);
        if bytes > limit {
            bail!(
                Launch,
                "kernel '{}': {bytes} bytes of dynamic shared memory requested, the device allows at most {limit} \
                 ({} per block minus {static_smem} static)",
                self.name,
                device.max_shared_memory_per_block_optin()
            );
        }
        l.function.set_max_dynamic_shared_bytes(bytes)
    }

    /// Sets the preferred shared-memory carveout (percent of the L1/shared storage, 0–100,
    /// or -1 for no preference).
    pub fn set_preferred_carveout(&self, percent: i32) -> Result<()> {
        if !(-1..=100).contains(&percent) {
            bail!(
                InvalidArgument,
                "carveout must be -1 or 0..=100 percent, got {percent}"
            );
        }
        let l = self.loaded_on(Device::current()?)?;
        l.function.set_preferred_carveout(percent)
    }

    /// The driver's occupancy of this kernel on the current device in blocks of `block`
    /// threads with `shared_mem_bytes` of dynamic shared memory (compiles it first).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::RawKernel;
    /// let k = RawKernel::new(r#"extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1; }"#, "k");
    /// let occ = k.occupancy(256, 0)?;
    /// assert!(occ.blocks_per_sm >= 1);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn occupancy(&self, block: u32, shared_mem_bytes: u32) -> Result<Occupancy> {
        Occupancy::of(
            &self.loaded_on(Device::current()?)?.function,
            block,
            shared_mem_bytes,
        )
    }

    /// A grid-stride launch configuration of this kernel for `n` items on the current
    /// device: as many blocks of `block` threads as the GPU runs at once (see
    /// [`LaunchConfig::grid_stride`]). Launch it with
    /// `kernel.configure(cfg.grid, cfg.block).shared_mem(..).launch(args)`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::{Array, DType, RawKernel};
    /// let k = RawKernel::new(r#"extern "C" __global__ void twice(float* x, long long n) {
    ///     for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    ///         x[i] *= 2; }"#, "twice");
    /// let x = Array::ones(&[10_000_000], DType::F32)?;
    /// let cfg = k.grid_stride(x.size(), 256, 0)?;
    /// k.configure(cfg.grid, cfg.block).launch((&x, x.size() as i64))?;
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn grid_stride(&self, n: usize, block: u32, shared_mem_bytes: u32) -> Result<LaunchConfig> {
        LaunchConfig::grid_stride(
            &self.loaded_on(Device::current()?)?.function,
            n,
            block,
            shared_mem_bytes,
        )
    }

    /// Launches with no dynamic shared memory: on the device of the first array argument
    /// (the current stream when it belongs to that device, else the device's default
    /// stream), or on the current stream when no argument is an array.
    pub fn launch(
        &self,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        args: impl KernelArgs,
    ) -> Result<()> {
        self.configure(grid, block).launch(args)
    }

    /// A launch with more settings: `kernel.configure(grid, block).shared_mem(bytes).stream(&s).launch(args)`.
    pub fn configure(&self, grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Launch<'_> {
        Launch {
            kernel: self,
            grid: grid.into(),
            block: block.into(),
            shared_mem: 0,
            stream: None,
        }
    }

    /// The byte size of each of the kernel's parameters on `device` (compiled and loaded
    /// there first): what a caller that sizes its arguments by the kernel reads (Python's
    /// ints take the parameter's width).
    #[cfg(feature = "python")]
    pub(crate) fn param_sizes_on(&self, device: crate::Device) -> Result<SmallVec<[usize; 8]>> {
        Ok(self.loaded_on(device)?.params.iter().map(|p| p.1).collect())
    }

    /// Checks the number of arguments against the kernel's parameters.
    fn check_count(&self, l: &Loaded, given: usize) -> Result<()> {
        if given != l.params.len() {
            bail!(
                Launch,
                "kernel '{}' takes {} parameter(s) ({} bytes each), {} argument(s) were given",
                self.name,
                l.params.len(),
                sizes(&l.params),
                given
            );
        }
        Ok(())
    }

    /// Checks argument `i` against parameter `i` (its byte size; an array must be
    /// contiguous unless the caller opted in).
    fn check_arg(&self, l: &Loaded, i: usize, a: &ArgValue) -> Result<()> {
        let size = l.params.get(i).map_or(0, |p| p.1);
        if a.bytes.len() != size {
            let hint = match (a.kind, size) {
                (ArgKind::Value, 4) if a.bytes.len() == 8 => {
                    " (a 32-bit parameter: pass e.g. `n as i32` or `x as f32`)"
                }
                (ArgKind::Value, 8) if a.bytes.len() == 4 => {
                    " (a 64-bit parameter: pass e.g. `n as i64`, `x as f64`, or an array)"
                }
                _ => "",
            };
            bail!(
                Launch,
                "kernel '{}': argument {i} is {} ({} bytes) but the kernel's parameter {i} is {size} bytes{hint}",
                self.name,
                a.type_name,
                a.bytes.len()
            );
        }
        if let ArgKind::Pointer {
            contiguous: false,
            allow_strided: false,
        } = a.kind
        {
            let (shape, strides) = a.view.clone().unwrap_or_default();
            let (shape, strides) = (shape.to_vec(), strides.to_vec());
            bail!(
                Launch,
                "kernel '{}': argument {i} is a non-contiguous view (shape {:?}, element strides {:?}); \
                 the kernel would see only its first element's address. Pass `.to_contiguous()?`, \
                 or `Strided(&view)` if the kernel indexes the strides itself",
                self.name,
                shape,
                strides
            );
        }
        Ok(())
    }

    /// The error of an array argument on another device than the launch's stream.
    fn device_mismatch(&self, i: usize, stream: Device, given: Device) -> crate::Error {
        err!(
            DeviceMismatch,
            "kernel '{}': expected argument {i} on device {} ({}), the device of the \
             launch's stream, given an array on device {} ({}); move it with `to_device` first",
            self.name(),
            stream.ordinal(),
            stream.name(),
            given.ordinal(),
            given.name()
        )
    }
}

fn sizes(params: &[(usize, usize)]) -> String {
    let v: Vec<String> = params.iter().map(|p| p.1.to_string()).collect();
    format!("[{}]", v.join(", "))
}

/// A configured launch (see [`RawKernel::configure`]).
pub struct Launch<'k> {
    kernel: &'k RawKernel,
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    stream: Option<&'k Stream>,
}

impl<'k> Launch<'k> {
    /// Dynamic shared memory per block, in bytes.
    pub fn shared_mem(mut self, bytes: usize) -> Self {
        self.shared_mem = bytes;
        self
    }
    /// The stream to launch on (default: the current stream). Array arguments may belong
    /// to another stream: cuprum orders their first use and their free with this one (see
    /// [Arrays and streams](crate::Stream#arrays-and-streams)).
    pub fn stream(mut self, stream: &'k Stream) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Checks the arguments and the configuration, then launches.
    pub fn launch(self, args: impl KernelArgs) -> Result<()> {
        let devices = args.devices();
        let owned;
        let stream = match self.stream {
            Some(s) => s,
            None => {
                // The first array argument's device, else the current stream.
                owned = match devices.iter().flatten().next() {
                    Some(&d) => Stream::for_device(d)?,
                    None => Stream::current()?,
                };
                &owned
            }
        };
        let device = stream.device();
        for (i, d) in devices.iter().enumerate() {
            if let Some(d) = *d
                && d != device
            {
                return Err(self.kernel.device_mismatch(i, device, d));
            }
        }
        let loaded = self.kernel.loaded_on(device)?;
        let mut vals: SmallVec<[ArgValue; 8]> = SmallVec::new();
        args.collect_args_on(stream, &mut vals);
        self.kernel.check_count(&loaded, vals.len())?;
        let mut pack = ArgPack::new();
        for (i, v) in vals.iter().enumerate() {
            self.kernel.check_arg(&loaded, i, v)?;
            pack.push_bytes(&v.bytes);
        }
        self.fire(&loaded, stream, &mut pack)
    }

    /// Launches arguments packed and checked against `loaded`'s parameters.
    fn fire(&self, loaded: &Loaded, stream: &Stream, pack: &mut ArgPack) -> Result<()> {
        let k = self.kernel;
        let (g, b) = (self.grid, self.block);
        let cfg = LaunchConfig {
            grid: (g.0, g.1, g.2),
            block: (b.0, b.1, b.2),
            shared_mem_bytes: u32::try_from(self.shared_mem).unwrap_or(u32::MAX),
        };
        // SAFETY: the argument count and every argument's size match the kernel's parameter
        // list as the driver reports it (the callers checked each with `check_arg`, and
        // their number); arrays pass addresses of live device buffers on the stream's device
        // (contiguous unless the caller opted in); `launch` checks the configuration
        // against the device's and the kernel's limits. What the kernel does with the
        // memory is the kernel author's contract, as with any CUDA kernel.
        unsafe {
            launch(
                &loaded.function,
                &cfg,
                stream,
                pack,
                LaunchMode::cooperative_if(k.spec.cooperative),
                &|| format!("kernel '{}'", k.name),
            )
        }
    }

    /// A launch on `stream` whose `count` arguments are pushed one at a time
    /// ([`Arguments::push`], each checked against its parameter as it comes, none collected
    /// first), then launched ([`Arguments::launch`]). Python's launches take this path:
    /// each argument is converted, checked and packed in one step.
    #[cfg(feature = "python")]
    pub(crate) fn start(self, stream: &'k Stream, count: usize) -> Result<Arguments<'k>> {
        let loaded = self.kernel.loaded_on(stream.device())?;
        self.kernel.check_count(&loaded, count)?;
        Ok(Arguments {
            launch: self,
            stream,
            loaded,
            pack: ArgPack::new(),
        })
    }
}

/// The arguments of a launch being packed (see [`Launch::start`]).
#[cfg(feature = "python")]
pub(crate) struct Arguments<'k> {
    launch: Launch<'k>,
    stream: &'k Stream,
    loaded: Arc<Loaded>,
    pack: ArgPack,
}

#[cfg(feature = "python")]
impl Arguments<'_> {
    /// The byte size of the next parameter (`None` past the last).
    pub(crate) fn next_size(&self) -> Option<usize> {
        self.loaded.params.get(self.pack.len()).map(|p| p.1)
    }

    /// Checks the next argument against its parameter (and an array's device against the
    /// stream's), and packs it.
    pub(crate) fn push(&mut self, v: &ArgValue) -> Result<()> {
        let i = self.pack.len();
        self.launch.kernel.check_arg(&self.loaded, i, v)?;
        self.pack.push_bytes(&v.bytes);
        Ok(())
    }

    /// Packs an array argument (its address on the launch's stream): a contiguous array for
    /// an 8-byte parameter directly, anything else through [`Arguments::push`] (its
    /// checks and messages).
    pub(crate) fn push_array(&mut self, a: &Array) -> Result<()> {
        if self.next_size() == Some(8) && a.is_c_contiguous() {
            self.pack.push(a.ptr_on(self.stream));
            return Ok(());
        }
        self.push(&super::args::KernelArg::to_arg_on(a, self.stream))
    }

    /// Packs a value given as its bytes (`type_name` for the message when its size is not
    /// the parameter's).
    pub(crate) fn push_value(&mut self, bytes: &[u8], type_name: &'static str) -> Result<()> {
        if self.next_size() == Some(bytes.len()) {
            self.pack.push_bytes(bytes);
            return Ok(());
        }
        self.push(&ArgValue {
            bytes: SmallVec::from_slice(bytes),
            kind: ArgKind::Value,
            type_name,
            view: None,
        })
    }

    /// Checks that an array argument `i` is on the launch's device.
    pub(crate) fn check_device(&self, i: usize, d: Device) -> Result<()> {
        let device = self.stream.device();
        if d != device {
            return Err(self.launch.kernel.device_mismatch(i, device, d));
        }
        Ok(())
    }

    /// Launches, every argument pushed.
    pub(crate) fn launch(mut self) -> Result<()> {
        self.launch
            .kernel
            .check_count(&self.loaded, self.pack.len())?;
        self.launch.fire(&self.loaded, self.stream, &mut self.pack)
    }
}

/// A CUDA C++ module with several kernels, `__device__`/`__constant__` globals and template
/// instantiations: CuPy's `RawModule`. Compiled per device on first use.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, kernel::RawModule};
/// let m = RawModule::new(r#"
/// template<typename T, int N> __global__ void scale(T* x, int n) {
///     int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= N; }
/// __constant__ float coeffs[4];
/// "#).name_expression("scale<float, 4>");
/// let k = m.get_function("scale<float, 4>")?;
/// let x = Array::ones(&[8], DType::F32)?;
/// k.launch(1, 8, (&x, 8i32))?;
/// assert_eq!(x.to_vec::<f32>()?, vec![4.0; 8]);
/// let c = m.get_global::<f32>("coeffs")?;          // a typed view of constant memory
/// c.copy_from_slice(&[1.0f32, 2.0, 3.0, 4.0])?;
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct RawModule {
    spec: Arc<ModuleSpec>,
}

impl RawModule {
    /// A module from CUDA C++ source (NVRTC by default).
    pub fn new(code: impl Into<String>) -> RawModule {
        RawModule {
            spec: Arc::new(ModuleSpec {
                code: Code::Source(code.into()),
                options: CompileOptions::new().program_name("raw_module.cu"),
                backend: Backend::Nvrtc,
                cooperative: false,
                loaded: Mutex::new(Vec::new()),
            }),
        }
    }

    /// A module from a cubin, PTX or fatbin file (read on first use).
    pub fn from_file(path: impl AsRef<Path>) -> RawModule {
        RawModule {
            spec: Arc::new(ModuleSpec {
                code: Code::File(path.as_ref().to_path_buf()),
                options: CompileOptions::new(),
                backend: Backend::Nvrtc,
                cooperative: false,
                loaded: Mutex::new(Vec::new()),
            }),
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut ModuleSpec)) -> RawModule {
        edit_spec(&mut self.spec, f);
        self
    }

    /// Adds a compile option.
    pub fn option(self, flag: impl Into<String>) -> RawModule {
        let flag = flag.into();
        self.edit(|s| s.options.options.push(flag))
    }

    /// Adds a name expression (a template instantiation, e.g. `scale<float, 4>`) that
    /// [`get_function`](RawModule::get_function) then accepts.
    pub fn name_expression(self, expr: impl Into<String>) -> RawModule {
        let expr = expr.into();
        self.edit(|s| s.options.name_expressions.push(expr))
    }

    /// Replaces all compile options.
    pub fn options(self, opts: CompileOptions) -> RawModule {
        self.edit(|s| s.options = opts)
    }

    /// Chooses the compiler.
    pub fn backend(self, backend: Backend) -> RawModule {
        self.edit(|s| s.backend = backend)
    }

    /// Kernels from this module launch cooperatively.
    pub fn cooperative(self, on: bool) -> RawModule {
        self.edit(|s| s.cooperative = on)
    }

    /// Compiles and loads the module on the current device now.
    pub fn compile(&self) -> Result<()> {
        self.spec.module(Device::current()?).map(drop)
    }

    /// The compiler's log of the module on the current device (compiled first if need
    /// be): NVRTC's or nvcc's warnings; empty when there were none, for a module file and
    /// on the host device.
    pub fn compile_log(&self) -> Result<String> {
        self.spec
            .module_and_log(Device::current()?)
            .map(|(_, log)| log)
    }

    /// The kernel `name` (an `extern "C"` name, a mangled name, or a name expression given
    /// with [`name_expression`](RawModule::name_expression)), loaded now on the current
    /// device.
    pub fn get_function(&self, name: &str) -> Result<RawKernel> {
        if let Code::File(_) = self.spec.code
            && self.spec.options.name_expressions.iter().any(|e| e == name)
        {
            bail!(
                InvalidArgument,
                "need CUDA C++ code for the requested kernels"
            );
        }
        let k = RawKernel::from_spec(self.spec.clone(), name.to_string());
        k.compile()?;
        Ok(k)
    }

    /// A typed 1-D view of the `__device__` or `__constant__` symbol `name` on the current
    /// device (its size must be a whole number of `T`s). Reading and writing it reads and
    /// writes the module's memory.
    pub fn get_global<T: Element>(&self, name: &str) -> Result<Array> {
        let device = Device::current()?;
        let m = self.spec.module(device)?;
        let (ptr, bytes) = m.global(name)?;
        let item = std::mem::size_of::<T>();
        if bytes % item != 0 {
            bail!(
                DType,
                "global '{name}' is {bytes} bytes, not a whole number of {} ({item} bytes each)",
                T::DTYPE
            );
        }
        let stream = Stream::current()?;
        let buf = Buffer::borrowed(ptr, bytes, &stream, m);
        Ok(Array::from_buffer(
            buf,
            T::DTYPE,
            smallvec::smallvec![bytes / item],
        ))
    }
}
