//! [`Module`] (a loaded cubin, PTX image or host module) and [`Function`] (one kernel in
//! it). Both dispatch to the module's backend ([`ModuleBackend`]); a module keeps, per
//! kernel, the limits the launch check reads ([`KernelLimits`]), so that every handle of
//! one kernel sees the same dynamic shared memory limit.

use super::backend::{FuncAttr, KernelId, ModuleBackend};
use super::device::Device;
use super::fault::record;
use crate::error::{Result, bail, err};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

struct ModuleInner {
    device: Device,
    backend: Arc<dyn ModuleBackend>,
    /// The launch limits of each kernel looked up so far.
    limits: Mutex<FxHashMap<KernelId, Arc<OnceLock<KernelLimits>>>>,
}

/// A module loaded on one device: the compiled form of a CUDA C++ program.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::compile::{compile_with_cache, CompileOptions};
/// let m = compile_with_cache(r#"extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2; }"#,
///                            &CompileOptions::default())?;
/// let k = m.function("k")?;
/// assert_eq!(k.num_params()?, 1);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct Module(Arc<ModuleInner>);

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module(device {})", self.0.device.ordinal())
    }
}

impl Module {
    /// Loads a cubin, fatbin or (NUL-terminated or not) PTX image on `device`. A PTX JIT
    /// failure returns the driver's error log; the host device runs no GPU image (an
    /// `Unsupported` error: compile the source for it instead).
    pub fn load(device: Device, image: &[u8]) -> Result<Module> {
        Module::load_with_names(device, image, Vec::new())
    }

    /// Links a relocatable image (compiled with `-dc` / `-rdc=true`) with the static device
    /// libraries at `libraries` into an image [`load`](Module::load) takes (the driver's
    /// linker; the host device links nothing).
    pub(crate) fn link_relocatable(
        device: Device,
        image: &[u8],
        libraries: &[std::path::PathBuf],
    ) -> Result<Vec<u8>> {
        device.check_fault()?;
        device.backend().link_relocatable(image, libraries)
    }

    /// Like [`load`](Module::load), remembering `(name expression, lowered name)` pairs so
    /// that [`function`](Module::function) accepts the name expressions.
    pub fn load_with_names(
        device: Device,
        image: &[u8],
        lowered: Vec<(String, String)>,
    ) -> Result<Module> {
        device.check_fault()?;
        let backend = device.backend().load_image(image, lowered)?;
        Ok(Module::from_backend(device, backend))
    }

    /// A module a backend loaded by other means (the host device's shared objects).
    pub(crate) fn from_backend(device: Device, backend: Arc<dyn ModuleBackend>) -> Module {
        Module(Arc::new(ModuleInner {
            device,
            backend,
            limits: Mutex::new(FxHashMap::default()),
        }))
    }

    /// The kernel named `name`: an `extern "C"` name, a mangled name, or a name expression
    /// given at compile time (`"scale<float, 4>"`), which maps to its lowered name. A name
    /// not found ends its message with the driver's error (`CUDA_ERROR_NOT_FOUND: named
    /// symbol not found`), on every backend, as CuPy's message has it.
    pub fn function(&self, name: &str) -> Result<Function> {
        self.0.device.check_fault()?;
        let Some(id) = self.0.backend.kernel(name)? else {
            bail!(
                InvalidArgument,
                "no kernel named '{name}' in the module (is it declared extern \"C\", or does it need a name expression?) ({NOT_FOUND})"
            );
        };
        let limits = self
            .0
            .limits
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(id)
            .or_default()
            .clone();
        Ok(Function {
            module: self.clone(),
            id,
            limits,
        })
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// Points the module's `cj_fault_ctx` global (kernels written in Rust have one) at its
    /// device's kernel-fault record, with the program's `tag`.
    pub(crate) fn install_fault_record(&self, tag: u32) -> Result<()> {
        let global = self.global("cj_fault_ctx")?;
        let device = self.0.device;
        record::install(device.ordinal(), device.backend(), global, tag)
    }

    /// Device address and size in bytes of a `__device__` or `__constant__` symbol.
    pub fn global(&self, name: &str) -> Result<(u64, usize)> {
        self.0.device.check_fault()?;
        self.0.backend.global(name)?.ok_or_else(|| {
            err!(
                InvalidArgument,
                "no global symbol named '{name}' in the module ({NOT_FOUND})"
            )
        })
    }
}

/// The driver's error for a name a module does not have (`cuModuleGetFunction`,
/// `cuModuleGetGlobal`), which messages end with.
const NOT_FOUND: &str = "CUDA_ERROR_NOT_FOUND: named symbol not found";

/// What the launch check needs to know of one kernel, read from its backend once.
#[derive(Debug)]
pub(crate) struct KernelLimits {
    /// The largest block the kernel launches with.
    pub(crate) max_threads: u32,
    /// Its static shared memory per block, in bytes.
    pub(crate) static_shared: usize,
    /// Its current limit of dynamic shared memory per block, in bytes.
    dynamic_shared: AtomicUsize,
}

impl KernelLimits {
    /// The current limit of dynamic shared memory per block.
    pub(crate) fn dynamic_shared(&self) -> usize {
        self.dynamic_shared.load(Ordering::Relaxed)
    }
}

/// One kernel of a loaded [`Module`]. Keeps its module alive.
#[derive(Clone)]
pub struct Function {
    module: Module,
    id: KernelId,
    limits: Arc<OnceLock<KernelLimits>>,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Function({:#x})", self.id.0)
    }
}

impl Function {
    fn backend(&self) -> Result<&dyn ModuleBackend> {
        self.module.0.device.check_fault()?;
        Ok(&*self.module.0.backend)
    }

    /// The kernel's parameters as `(offset, size)` in bytes, from the driver
    /// (`cuFuncGetParamInfo`, asked exactly once per parameter: the count comes from
    /// `cuFuncGetParamCount` on drivers that have it (CUDA 13.2+), else from the module
    /// image).
    pub fn param_info(&self) -> Result<Vec<(usize, usize)>> {
        self.backend()?.param_info(self.id)
    }

    /// Number of kernel parameters.
    pub fn num_params(&self) -> Result<usize> {
        Ok(self.param_info()?.len())
    }

    /// The parameter count the module image gives (no driver call), if it could be read.
    pub(crate) fn image_param_count(&self) -> Option<usize> {
        self.module.0.backend.image_param_count(self.id)
    }

    /// Registers per thread the compiled kernel uses.
    pub fn num_registers(&self) -> Result<i32> {
        self.attribute(FuncAttr::NumRegs)
    }

    /// Largest block this kernel can be launched with on its device.
    pub fn max_threads_per_block(&self) -> Result<i32> {
        self.attribute(FuncAttr::MaxThreadsPerBlock)
    }

    /// Sets a kernel attribute (dynamic shared memory limit, carveout …).
    pub(super) fn set_attribute(&self, attr: FuncAttr, value: i32) -> Result<()> {
        self.backend()?.set_attribute(self.id, attr, value)?;
        if let (FuncAttr::MaxDynamicSharedSizeBytes, Some(l)) = (attr, self.limits.get()) {
            l.dynamic_shared
                .store(value.max(0) as usize, Ordering::Relaxed);
        }
        Ok(())
    }

    /// How many blocks of `block_threads` threads (with `shared_bytes` of dynamic shared
    /// memory) fit on one multiprocessor at once.
    pub fn max_active_blocks_per_sm(&self, block_threads: u32, shared_bytes: usize) -> Result<u32> {
        self.backend()?
            .max_active_blocks_per_sm(self.id, block_threads, shared_bytes)
    }

    pub(super) fn attribute(&self, attr: FuncAttr) -> Result<i32> {
        self.backend()?.attribute(self.id, attr)
    }

    /// The limits the launch check reads (asked from the backend on first use).
    pub(crate) fn limits(&self) -> Result<&KernelLimits> {
        if let Some(l) = self.limits.get() {
            return Ok(l);
        }
        let l = KernelLimits {
            max_threads: self.max_threads_per_block()?.max(0) as u32,
            static_shared: self.attribute(FuncAttr::SharedSizeBytes)?.max(0) as usize,
            dynamic_shared: AtomicUsize::new(
                self.attribute(FuncAttr::MaxDynamicSharedSizeBytes)?.max(0) as usize,
            ),
        };
        Ok(self.limits.get_or_init(|| l))
    }

    /// The module the kernel lives in.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The kernel's backend and handle, for a launch.
    pub(crate) fn launch_parts(&self) -> (&dyn ModuleBackend, KernelId) {
        (&*self.module.0.backend, self.id)
    }
}
