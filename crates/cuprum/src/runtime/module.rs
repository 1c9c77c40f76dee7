//! [`Module`] (a loaded cubin or PTX image) and [`Function`] (one kernel in it).

use super::device::Device;
use super::driver::{DriverResultExt, driver_error};
use super::host::library::{HostKernel, HostLibrary};
use crate::error::{Result, bail, err};
use cudarc::driver::sys;
use rustc_hash::FxHashMap;
use std::ffi::{CString, c_void};
use std::sync::{Arc, OnceLock};

struct ModuleInner {
    raw: sys::CUmodule,
    device: Device,
    lowered: Vec<(String, String)>,
    /// Parameter count per kernel name, read from the image (see `image.rs`).
    params: FxHashMap<String, usize>,
    /// The host device's module (then `raw` is null).
    host: Option<Arc<HostLibrary>>,
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        if self.host.is_none() && self.device.bind().is_ok() {
            // SAFETY: the module was loaded by `Module::load` and is unloaded once, when the
            // last Module/Function handle goes away.
            let _ = unsafe { sys::cuModuleUnload(self.raw) };
        }
    }
}

/// A module loaded on one device: the compiled form of a CUDA C++ program.
///
/// ```
/// # if !cuprum::internal::doc_device()? { return Ok(()); }
/// use cuprum::compile::{compile_with_cache, CompileOptions};
/// let m = compile_with_cache(r#"extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2; }"#,
///                            &CompileOptions::default())?;
/// let k = m.function("k")?;
/// assert_eq!(k.num_params()?, 1);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Clone)]
pub struct Module(Arc<ModuleInner>);

// SAFETY: module handles may be used from any thread; ownership is reference counted.
unsafe impl Send for ModuleInner {}
// SAFETY: no interior mutability on the Rust side.
unsafe impl Sync for ModuleInner {}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module(device {})", self.0.device.ordinal())
    }
}

impl Module {
    /// Loads a cubin, fatbin or (NUL-terminated or not) PTX image on `device`. A PTX JIT
    /// failure returns the driver's error log.
    pub fn load(device: Device, image: &[u8]) -> Result<Module> {
        Module::load_with_names(device, image, Vec::new())
    }

    /// Like [`load`](Module::load), remembering `(name expression, lowered name)` pairs so
    /// that [`function`](Module::function) accepts the name expressions.
    pub fn load_with_names(
        device: Device,
        image: &[u8],
        lowered: Vec<(String, String)>,
    ) -> Result<Module> {
        device.bind()?;
        let ptx_owned;
        let mut data = image;
        let is_elf = image.starts_with(b"\x7fELF");
        if !is_elf && !image.ends_with(&[0]) && image.first().is_some_and(|b| b.is_ascii()) {
            // PTX text must be NUL-terminated for the driver.
            let mut v = image.to_vec();
            v.push(0);
            ptx_owned = v;
            data = &ptx_owned;
        }
        let mut log = vec![0u8; 8192];
        let mut opts = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `data` is a complete image that outlives the call; the option arrays have
        // the declared length 2; the log buffer is as large as declared.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut raw,
                data.as_ptr().cast(),
                2,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        if let Err(e) = r.result() {
            let len = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            let text = String::from_utf8_lossy(&log[..len]).into_owned();
            let error = driver_error(e, "cuModuleLoadDataEx");
            if text.trim().is_empty() {
                return Err(error);
            }
            return Err(crate::Error::new(
                error.kind(),
                format!("{error}\nJIT log:\n{}", text.trim_end()),
            ));
        }
        Ok(Module(Arc::new(ModuleInner {
            raw,
            device,
            lowered,
            params: super::image::param_counts(image),
            host: None,
        })))
    }

    /// A module of the host device: a loaded shared object's kernels.
    pub(crate) fn from_host(device: Device, lib: Arc<HostLibrary>) -> Module {
        Module(Arc::new(ModuleInner {
            raw: std::ptr::null_mut(),
            device,
            lowered: Vec::new(),
            params: FxHashMap::default(),
            host: Some(lib),
        }))
    }

    /// The kernel named `name`: an `extern "C"` name, a mangled name, or a name expression
    /// given at compile time (`"scale<float, 4>"`), which maps to its lowered name.
    pub fn function(&self, name: &str) -> Result<Function> {
        if let Some(lib) = &self.0.host {
            let Some(k) = lib.kernel(name) else {
                bail!(
                    InvalidArgument,
                    "no kernel named '{name}' in the module (is it a __global__ function, \
                     declared extern \"C\" or given as a name expression?)"
                );
            };
            return Ok(Function {
                raw: std::ptr::null_mut(),
                params: None,
                module: self.clone(),
                host: Some(k),
            });
        }
        let name = self
            .0
            .lowered
            .iter()
            .find(|(e, _)| e == name)
            .map_or(name, |(_, l)| l.as_str());
        let cname = CString::new(name)
            .map_err(|_| err!(InvalidArgument, "kernel name {name:?} contains a NUL byte"))?;
        self.0.device.bind()?;
        let mut f: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: the module is loaded and `cname` is NUL-terminated.
        let r = unsafe { sys::cuModuleGetFunction(&mut f, self.0.raw, cname.as_ptr()) };
        if r == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            bail!(
                InvalidArgument,
                "no kernel named '{name}' in the module (is it declared extern \"C\", or does it need a name expression?)"
            );
        }
        r.call("cuModuleGetFunction")?;
        Ok(Function {
            raw: f,
            params: self.0.params.get(name).copied(),
            module: self.clone(),
            host: None,
        })
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// Device address and size in bytes of a `__device__` or `__constant__` symbol.
    pub fn global(&self, name: &str) -> Result<(u64, usize)> {
        if let Some(lib) = &self.0.host {
            return lib.global(name).ok_or_else(|| {
                err!(
                    InvalidArgument,
                    "no global symbol named '{name}' in the module"
                )
            });
        }
        let cname = CString::new(name)
            .map_err(|_| err!(InvalidArgument, "symbol name {name:?} contains a NUL byte"))?;
        self.0.device.bind()?;
        let (mut ptr, mut size) = (0u64, 0usize);
        // SAFETY: the module is loaded, the out pointers are valid.
        let r =
            unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut size, self.0.raw, cname.as_ptr()) };
        if r == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            bail!(
                InvalidArgument,
                "no global symbol named '{name}' in the module"
            );
        }
        r.call("cuModuleGetGlobal")?;
        Ok((ptr, size))
    }
}

type ParamCountFn = unsafe extern "C" fn(sys::CUfunction, *mut usize) -> sys::CUresult;

/// The driver's `cuFuncGetParamCount` (CUDA 13.2+), looked up once; `None` on older drivers.
fn param_count_fn() -> Option<ParamCountFn> {
    static F: OnceLock<Option<ParamCountFn>> = OnceLock::new();
    *F.get_or_init(|| {
        // SAFETY: callers hold a Function, so the driver library is loaded (cudarc's
        // `culib` then returns it without panicking); looking a symbol up calls nothing, and
        // the symbol has this signature in every CUDA version that exports it.
        unsafe {
            let lib = sys::culib();
            lib.get::<ParamCountFn>(b"cuFuncGetParamCount")
                .ok()
                .map(|s| *s)
        }
    })
}

/// One kernel of a loaded [`Module`]. Keeps its module alive.
#[derive(Clone)]
pub struct Function {
    raw: sys::CUfunction,
    /// The parameter count the module image gives, if it could be read.
    params: Option<usize>,
    module: Module,
    /// The host device's kernel: its index in the module's library.
    host: Option<usize>,
}

// SAFETY: function handles may be used from any thread; the module is kept alive.
unsafe impl Send for Function {}
// SAFETY: no interior mutability on the Rust side.
unsafe impl Sync for Function {}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Function({:p})", self.raw)
    }
}

impl Function {
    /// The kernel's parameters as `(offset, size)` in bytes, from the driver
    /// (`cuFuncGetParamInfo`, asked exactly once per parameter: the count comes from
    /// `cuFuncGetParamCount` on drivers that have it (CUDA 13.2+), else from the module
    /// image).
    pub fn param_info(&self) -> Result<Vec<(usize, usize)>> {
        if let Some(k) = self.host_kernel() {
            return Ok(k.params.clone());
        }
        self.module.0.device.bind()?;
        let count = match param_count_fn() {
            Some(f) => {
                let mut n = 0usize;
                // SAFETY: `f` is the driver's cuFuncGetParamCount; the function is valid
                // and `n` is a valid out pointer.
                unsafe { f(self.raw, &mut n) }.call("cuFuncGetParamCount")?;
                Some(n)
            }
            None => self.params,
        };
        let one = |i: usize| -> Result<Option<(usize, usize)>> {
            let (mut off, mut size) = (0usize, 0usize);
            // SAFETY: the function is valid and the out pointers are valid.
            match unsafe { sys::cuFuncGetParamInfo(self.raw, i, &mut off, &mut size) } {
                sys::CUresult::CUDA_SUCCESS => Ok(Some((off, size))),
                sys::CUresult::CUDA_ERROR_INVALID_VALUE if count.is_none() => Ok(None),
                e => e.call("cuFuncGetParamInfo").map(|()| None),
            }
        };
        let mut out = Vec::new();
        match count {
            Some(n) => {
                for i in 0..n {
                    out.extend(one(i)?);
                }
            }
            // No count known (an image this reader does not understand, e.g. a fatbin):
            // ask until the driver says the index is past the end.
            None => {
                for i in 0.. {
                    match one(i)? {
                        Some(p) => out.push(p),
                        None => break,
                    }
                }
            }
        }
        Ok(out)
    }

    /// Number of kernel parameters.
    pub fn num_params(&self) -> Result<usize> {
        Ok(self.param_info()?.len())
    }

    /// The parameter count the module image gives (no driver call), if it could be read.
    pub(crate) fn image_param_count(&self) -> Option<usize> {
        self.params
    }

    /// Registers per thread the compiled kernel uses.
    pub fn num_registers(&self) -> Result<i32> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }

    /// Largest block this kernel can be launched with on its device.
    pub fn max_threads_per_block(&self) -> Result<i32> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    }

    /// Sets a function attribute (dynamic shared memory limit, carveout ...).
    pub(super) fn set_attribute(&self, attr: sys::CUfunction_attribute, value: i32) -> Result<()> {
        if let Some(k) = self.host_kernel() {
            use sys::CUfunction_attribute as A;
            match attr {
                A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
                    let v = usize::try_from(value).unwrap_or(usize::MAX);
                    if v > super::host::MAX_DYNAMIC_SHARED {
                        bail!(
                            Launch,
                            "{value} bytes of dynamic shared memory: the host device allows at \
                             most {}",
                            super::host::MAX_DYNAMIC_SHARED
                        );
                    }
                    k.max_dynamic_shared
                        .store(v, std::sync::atomic::Ordering::Relaxed);
                }
                A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {
                    k.carveout
                        .store(value, std::sync::atomic::Ordering::Relaxed);
                }
                _ => {}
            }
            return Ok(());
        }
        self.module.0.device.bind()?;
        // SAFETY: the function is valid; the driver validates the value.
        unsafe { sys::cuFuncSetAttribute(self.raw, attr, value) }.call("cuFuncSetAttribute")
    }

    /// How many blocks of `block_threads` threads (with `shared_bytes` of dynamic shared
    /// memory) fit on one multiprocessor at once.
    pub fn max_active_blocks_per_sm(&self, block_threads: u32, shared_bytes: usize) -> Result<u32> {
        if let Some(k) = self.host_kernel() {
            let fits =
                (1..=1024).contains(&block_threads) && shared_bytes <= k.max_dynamic_shared();
            return Ok(if fits {
                super::host::BLOCKS_PER_WORKER
            } else {
                0
            });
        }
        self.module.0.device.bind()?;
        let mut n = 0i32;
        // SAFETY: the function is valid; `n` is a valid out pointer.
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                self.raw,
                block_threads as i32,
                shared_bytes,
            )
        }
        .call("cuOccupancyMaxActiveBlocksPerMultiprocessor")?;
        Ok(n.max(0) as u32)
    }

    pub(super) fn attribute(&self, attr: sys::CUfunction_attribute) -> Result<i32> {
        if let Some(k) = self.host_kernel() {
            use sys::CUfunction_attribute as A;
            return Ok(match attr {
                A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => 1024,
                A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => k.max_dynamic_shared() as i32,
                A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {
                    k.carveout.load(std::sync::atomic::Ordering::Relaxed)
                }
                // Static shared memory, registers, local memory and the PTX/SASS versions
                // have no meaning for host code.
                _ => 0,
            });
        }
        self.module.0.device.bind()?;
        let mut v = 0i32;
        // SAFETY: the function is valid; `v` is a valid out pointer.
        unsafe { sys::cuFuncGetAttribute(&mut v, attr, self.raw) }.call("cuFuncGetAttribute")?;
        Ok(v)
    }

    /// The module the kernel lives in.
    pub fn module(&self) -> &Module {
        &self.module
    }

    #[inline]
    pub(crate) fn raw(&self) -> sys::CUfunction {
        self.raw
    }

    /// The host device's kernel, or `None` for a GPU function.
    #[inline]
    pub(crate) fn host_kernel(&self) -> Option<&HostKernel> {
        let i = self.host?;
        self.module.0.host.as_ref()?.kernels.get(i)
    }
}
