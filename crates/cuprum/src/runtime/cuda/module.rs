//! A module loaded on a GPU ([`CudaModule`]): its kernels by name or name expression, their
//! parameters (from the driver, counted from the image where the driver cannot count),
//! attributes, occupancy and launch.
//!
//! **Parameter counts.** `param_info` asks `cuFuncGetParamInfo` exactly once per
//! parameter. The count comes from `cuFuncGetParamCount` where the driver exports it (CUDA
//! 13.2+, looked up in `driver.rs` without cudarc, which would panic on the missing
//! symbol), else from the module image (`image.rs`: the cubin's `KPARAM_INFO` records or
//! the PTX `.entry` list). Only an image neither reader understands (a fatbin) falls back
//! to asking index by index until `CUDA_ERROR_INVALID_VALUE` — the API error
//! compute-sanitizer reports, which the image readers exist to avoid.

use super::CudaDevice;
use super::driver::{self, CUfunction, CUfunction_attribute, CUmodule, CUstream, DResult};
use crate::error::{Error, Result, err};
use crate::runtime::backend::{FuncAttr, KernelId, LaunchMode, LaunchParams, ModuleBackend};
use crate::runtime::fault::sticky;
use cudarc::driver::CudaContext;
use rustc_hash::FxHashMap;
use std::ffi::{CString, c_void};
use std::sync::Arc;

/// A cubin, fatbin or PTX image loaded into one GPU's context.
pub(crate) struct CudaModule {
    raw: CUmodule,
    ordinal: usize,
    ctx: Arc<CudaContext>,
    /// `(name expression, lowered name)` pairs the module answers to.
    lowered: Vec<(String, String)>,
    /// Parameter count per kernel name, read from the image (see `image.rs`).
    params: FxHashMap<String, usize>,
    /// Kernels looked up so far, with the name the image gives them.
    kernels: std::sync::Mutex<Vec<(CUfunction, String)>>,
}

// SAFETY: module and function handles may be used from any thread; the module is unloaded
// once, when the last holder drops it.
unsafe impl Send for CudaModule {}
// SAFETY: the handle list is behind a mutex; the rest is immutable after loading.
unsafe impl Sync for CudaModule {}

impl Drop for CudaModule {
    fn drop(&mut self) {
        if self.bind().is_ok() {
            // SAFETY: the module was loaded by `CudaModule::load` and is unloaded once, when
            // the last Module/Function handle goes away.
            let _ = unsafe { driver::module_unload(self.raw) };
        }
    }
}

fn cu_attr(a: FuncAttr) -> CUfunction_attribute {
    use CUfunction_attribute as A;
    match a {
        FuncAttr::MaxThreadsPerBlock => A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        FuncAttr::SharedSizeBytes => A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
        FuncAttr::ConstSizeBytes => A::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
        FuncAttr::LocalSizeBytes => A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
        FuncAttr::NumRegs => A::CU_FUNC_ATTRIBUTE_NUM_REGS,
        FuncAttr::PtxVersion => A::CU_FUNC_ATTRIBUTE_PTX_VERSION,
        FuncAttr::BinaryVersion => A::CU_FUNC_ATTRIBUTE_BINARY_VERSION,
        FuncAttr::MaxDynamicSharedSizeBytes => A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        FuncAttr::PreferredSharedMemoryCarveout => {
            A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
        }
        FuncAttr::CacheModeCa => A::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA,
    }
}

impl CudaModule {
    /// Loads a cubin, fatbin or (NUL-terminated or not) PTX image on `device` (whose
    /// context is current). A PTX JIT failure returns the driver's error log.
    pub(crate) fn load(
        device: &CudaDevice,
        image: &[u8],
        lowered: Vec<(String, String)>,
    ) -> Result<CudaModule> {
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
        // SAFETY: `data` is a complete image (ELF, fatbin, or PTX made NUL-terminated
        // above); the driver rejects what it cannot parse with an error.
        let raw = match unsafe { driver::module_load(data) } {
            Ok(raw) => raw,
            Err((e, log)) => {
                let error = device.error(e, "cuModuleLoadDataEx");
                if log.trim().is_empty() {
                    return Err(error);
                }
                return Err(Error::new(
                    error.kind(),
                    format!("{error}\nJIT log:\n{}", log.trim_end()),
                ));
            }
        };
        Ok(CudaModule {
            raw,
            ordinal: device.ordinal(),
            ctx: device.ctx.clone(),
            lowered,
            params: super::image::param_counts(image),
            kernels: std::sync::Mutex::new(Vec::new()),
        })
    }

    fn bind(&self) -> Result<()> {
        sticky::check(self.ordinal)?;
        self.check(driver::bind(&self.ctx), "cuCtxSetCurrent")
    }

    fn check<T>(&self, r: DResult<T>, call: &str) -> Result<T> {
        r.map_err(|e| driver::to_error(e, call, Some(self.ordinal)))
    }

    fn function(&self, k: KernelId) -> CUfunction {
        k.0 as CUfunction
    }

    /// The image's name of kernel `k` (for its parameter count).
    fn image_name(&self, k: KernelId) -> Option<String> {
        let ks = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        ks.iter()
            .find(|(f, _)| *f as usize == k.0)
            .map(|(_, n)| n.clone())
    }
}

impl ModuleBackend for CudaModule {
    fn kernel(&self, name: &str) -> Result<Option<KernelId>> {
        let name = self
            .lowered
            .iter()
            .find(|(e, _)| e == name)
            .map_or(name, |(_, l)| l.as_str());
        let cname = CString::new(name)
            .map_err(|_| err!(InvalidArgument, "kernel name {name:?} contains a NUL byte"))?;
        self.bind()?;
        // SAFETY: the module is loaded while `self` lives.
        let f = self.check(
            unsafe { driver::module_function(self.raw, &cname) },
            "cuModuleGetFunction",
        )?;
        Ok(f.map(|f| {
            let mut ks = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
            if !ks.iter().any(|(g, _)| *g == f) {
                ks.push((f, name.to_string()));
            }
            KernelId(f as usize)
        }))
    }

    fn global(&self, name: &str) -> Result<Option<(u64, usize)>> {
        let cname = CString::new(name)
            .map_err(|_| err!(InvalidArgument, "symbol name {name:?} contains a NUL byte"))?;
        self.bind()?;
        // SAFETY: the module is loaded while `self` lives.
        self.check(
            unsafe { driver::module_global(self.raw, &cname) },
            "cuModuleGetGlobal",
        )
    }

    /// `cuFuncGetParamInfo`, asked exactly once per parameter: the count comes from
    /// `cuFuncGetParamCount` on drivers that have it (CUDA 13.2+), else from the image.
    fn param_info(&self, k: KernelId) -> Result<Vec<(usize, usize)>> {
        self.bind()?;
        let f = self.function(k);
        // SAFETY: `f` is a kernel of this loaded module.
        let count = match unsafe { driver::function_param_count(f) } {
            Some(n) => Some(self.check(n, "cuFuncGetParamCount")?),
            None => self.image_param_count(k),
        };
        // SAFETY: as above.
        let one = |i: usize| unsafe { driver::function_param(f, i, count.is_none()) };
        let mut out = Vec::new();
        match count {
            Some(n) => {
                for i in 0..n {
                    out.extend(self.check(one(i), "cuFuncGetParamInfo")?);
                }
            }
            // No count known (an image this reader does not understand, e.g. a fatbin):
            // ask until the driver says the index is past the end.
            None => {
                for i in 0.. {
                    match self.check(one(i), "cuFuncGetParamInfo")? {
                        Some(p) => out.push(p),
                        None => break,
                    }
                }
            }
        }
        Ok(out)
    }

    fn image_param_count(&self, k: KernelId) -> Option<usize> {
        let name = self.image_name(k)?;
        self.params.get(&name).copied()
    }

    fn attribute(&self, k: KernelId, attr: FuncAttr) -> Result<i32> {
        self.bind()?;
        // SAFETY: `k` is a kernel of this loaded module.
        self.check(
            unsafe { driver::function_attribute(self.function(k), cu_attr(attr)) },
            "cuFuncGetAttribute",
        )
    }

    fn set_attribute(&self, k: KernelId, attr: FuncAttr, value: i32) -> Result<()> {
        self.bind()?;
        // SAFETY: `k` is a kernel of this loaded module; the driver validates the value.
        self.check(
            unsafe { driver::set_function_attribute(self.function(k), cu_attr(attr), value) },
            "cuFuncSetAttribute",
        )
    }

    fn max_active_blocks_per_sm(&self, k: KernelId, block: u32, shared: usize) -> Result<u32> {
        self.bind()?;
        // SAFETY: `k` is a kernel of this loaded module.
        self.check(
            unsafe { driver::max_active_blocks(self.function(k), block, shared) },
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        )
    }

    unsafe fn launch(&self, k: KernelId, p: &LaunchParams, args: *mut *mut c_void) -> Result<()> {
        self.bind()?;
        let call = match p.mode {
            LaunchMode::Plain => "cuLaunchKernel",
            LaunchMode::Cooperative => "cuLaunchCooperativeKernel",
            LaunchMode::Dependent => "cuLaunchKernelEx",
        };
        // SAFETY: forwarded from the caller: `args` matches the kernel's parameters and the
        // configuration passed the launch check; the stream is one of this context's.
        self.check(
            unsafe {
                driver::launch(
                    self.function(k),
                    p.grid,
                    p.block,
                    p.shared,
                    p.stream.0 as CUstream,
                    args,
                    p.mode,
                )
            },
            call,
        )
    }
}
