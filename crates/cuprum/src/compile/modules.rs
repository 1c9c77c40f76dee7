//! Compiled modules per process: the memo of loaded modules per (device, source, options)
//! in front of the kernel cache, the compiler chosen for each kind of device, and
//! `clear_memo`.
//!
//! This is the one place above the runtime that looks at which kind of device runs a
//! kernel ([`Device::code_target`]): choosing the compiler is the compile layer's job (a
//! GPU gets NVRTC's or nvcc's cubin, the host device a shared object from the system C++
//! compiler).
//!
//! Every compile passes through here, so this is where kernels are recorded for bundles
//! (`record.rs`) and where the registered bundles are asked first (`bundle/`): a GPU
//! kernel's image comes from `image_for` (record → bundles → kernel cache → NVRTC).

use super::bundle::Lookup;
use super::cache::KernelCache;
use super::host;
use super::nvcc;
use super::nvrtc::CompiledImage;
use super::options::CompileOptions;
use crate::error::{ErrorKind, Result};
use crate::runtime::{CodeTarget, Device, Module};
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

/// Compiles `source` for an architecture (e.g. `90` for `sm_90`) through the global
/// [`KernelCache`], without touching a GPU. Returns the cubin (or PTX for the newest
/// architecture NVRTC knows when it does not know `arch`).
///
/// ```
/// use cuprum::compile::{compile_for_arch, CompileOptions};
/// # cuprum::compile::set_cache_dir(None); // doc tests leave the user's cache alone
/// if cuprum::compile::nvrtc().is_ok() {
///     let img = compile_for_arch(r#"extern "C" __global__ void k() {}"#, &CompileOptions::default(), 90)?;
///     assert!(img.is_cubin && img.image.starts_with(b"\x7fELF"));
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn compile_for_arch(
    source: &str,
    opts: &CompileOptions,
    arch: u32,
) -> Result<Arc<CompiledImage>> {
    image_for(source, opts, arch)
}

/// The image of `source` for architecture `arch`, the one way every GPU compile takes:
/// recorded (`CUPRUM_BUNDLE_RECORD`), then the registered bundles, then the kernel cache
/// (its memo, its disk entries, NVRTC). A kernel the bundles lack compiles with NVRTC when
/// it is here; without NVRTC, the error says how to add the kernel to the bundle.
fn image_for(source: &str, opts: &CompileOptions, arch: u32) -> Result<Arc<CompiledImage>> {
    super::record::record(source, opts, Some(arch))?;
    let held = match super::bundle::lookup(source, opts, arch) {
        Lookup::Hit(img) => return Ok(img),
        Lookup::NoBundles => return KernelCache::global()?.compile(source, opts, arch),
        Lookup::Missing(held) => held,
    };
    match KernelCache::global()?.compile(source, opts, arch) {
        Err(e) if e.kind() == ErrorKind::NvrtcNotFound => {
            Err(super::bundle::missing(source, opts, arch, held, &e))
        }
        r => r,
    }
}

struct ModEntry {
    device: usize,
    source: String,
    opts: CompileOptions,
    slot: Arc<OnceLock<Result<Module>>>,
}

fn modules() -> &'static Mutex<FxHashMap<u64, Vec<ModEntry>>> {
    static M: OnceLock<Mutex<FxHashMap<u64, Vec<ModEntry>>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

/// Compiles `source` for the current device and loads it, or returns the module loaded
/// earlier in this process for the same (device, source, options). Concurrent first calls
/// with the same key compile once; the others wait for that result. Below the memo, the
/// disk cache makes a new process skip NVRTC.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::compile::{compile_with_cache, CompileOptions};
/// let src = r#"extern "C" __global__ void twice(float* x, int n) {
///     int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }"#;
/// let m = compile_with_cache(src, &CompileOptions::default())?;
/// let f = m.function("twice")?;
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn compile_with_cache(source: &str, opts: &CompileOptions) -> Result<Module> {
    compile_on(Device::current()?, source, opts)
}

/// [`compile_with_cache`] for a given device.
///
/// ```
/// # if !cuprum_doctest::gpu()? { return Ok(()); }
/// use cuprum::{Device, compile::{compile_on, CompileOptions}};
/// let m = compile_on(Device::get(0)?, r#"extern "C" __global__ void k() {}"#, &CompileOptions::default())?;
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn compile_on(device: Device, source: &str, opts: &CompileOptions) -> Result<Module> {
    let mut h = FxHasher::default();
    device.ordinal().hash(&mut h);
    source.hash(&mut h);
    opts.hash(&mut h);
    let hash = h.finish();
    let slot = {
        let mut map = modules().lock().unwrap_or_else(|p| p.into_inner());
        let bucket = map.entry(hash).or_default();
        match bucket
            .iter()
            .find(|e| e.device == device.ordinal() && e.source == source && &e.opts == opts)
        {
            Some(e) => e.slot.clone(),
            None => {
                let slot: Arc<OnceLock<Result<Module>>> = Arc::default();
                bucket.push(ModEntry {
                    device: device.ordinal(),
                    source: source.to_owned(),
                    opts: opts.clone(),
                    slot: slot.clone(),
                });
                slot
            }
        }
    };
    let r = slot
        .get_or_init(|| match device.code_target() {
            CodeTarget::Host => super::record::record(source, opts, None)
                .and_then(|()| host::compile(source, opts))
                .map(|lib| Module::from_backend(device, lib)),
            CodeTarget::Cuda(arch) => load_nvrtc(device, source, opts, arch).map(|(m, _)| m),
        })
        .clone();
    if r.is_err() {
        let mut map = modules().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(b) = map.get_mut(&hash) {
            b.retain(|e| !Arc::ptr_eq(&e.slot, &slot));
        }
    }
    r
}

/// Makes `source` ready for `device` ahead of its first call (`precompile`): on a GPU its
/// image (bundles, disk cache or NVRTC), on the host device its loaded library.
pub(crate) fn warm(device: Device, source: &str, opts: &CompileOptions) -> Result<()> {
    match device.code_target() {
        CodeTarget::Host => compile_on(device, source, opts).map(drop),
        CodeTarget::Cuda(arch) => image_for(source, opts, arch).map(drop),
    }
}

/// Compiles `source` with NVRTC for `arch` (through the kernel cache) and loads it on
/// `device`, not kept in the process's module memo.
fn load_nvrtc(
    device: Device,
    source: &str,
    opts: &CompileOptions,
    arch: u32,
) -> Result<(Module, String)> {
    let img = image_for(source, opts, arch)?;
    let m = Module::load_with_names(device, &img.image, img.lowered_names.clone())?;
    Ok((m, img.log.clone()))
}

/// Compiles a raw module's `source` for `device` and loads it: on a GPU with NVRTC through
/// the kernel cache, or with `nvcc` when `nvcc` is set, one module per call (a raw module's
/// globals are its own); on the host device with the system C++ compiler, whichever GPU
/// compiler was chosen. With the module: the compile's log (NVRTC's or nvcc's warnings;
/// empty on the host device).
///
/// The compile layer is the one place above the runtime that looks at which kind of
/// device runs a kernel ([`Device::code_target`]): choosing the compiler is its job.
pub(crate) fn load_raw_source(
    device: Device,
    source: &str,
    opts: &CompileOptions,
    nvcc: bool,
) -> Result<(Module, String)> {
    match device.code_target() {
        CodeTarget::Host => Ok((compile_on(device, source, opts)?, String::new())),
        CodeTarget::Cuda(arch) if nvcc => {
            let (cubin, log) = nvcc::compile(source, opts, arch)?;
            Ok((Module::load(device, &cubin)?, log))
        }
        CodeTarget::Cuda(arch) => load_nvrtc(device, source, opts, arch),
    }
}

/// Drops every module and image kept in this process (the disk cache stays: kernels load
/// again from disk, or compile, on next use) and empties every [`Memo`](crate::Memo).
/// Like `cupy.clear_memo()`.
///
/// ```
/// use cuprum::Memo;
/// static M: Memo<u8, u8> = Memo::new();
/// M.get_or_insert(1, || 1)?;
/// cuprum::clear_memo();
/// assert!(M.is_empty());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn clear_memo() {
    modules().lock().unwrap_or_else(|p| p.into_inner()).clear();
    host::clear_memo();
    if let Ok(c) = KernelCache::global() {
        c.clear_memo();
    }
    crate::memo::clear_all();
}
