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
    let image = loadable(device, &img.image)?;
    let m = Module::load_with_names(device, &image, img.lowered_names.clone())?;
    Ok((m, img.log.clone()))
}

/// `image` as the driver loads it: a relocatable cubin (compiled with `-dc` or
/// `-rdc=true`, as device code that launches kernels must be) linked with the CUDA device
/// runtime first (`libcudadevrt.a`, found where NVRTC is: `discovery::cudadevrt`); any
/// other image as it is. The kernel cache keeps the compiled image, so a link takes place
/// at each load of such a module.
fn loadable(device: Device, image: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>> {
    if !is_relocatable(image) {
        return Ok(std::borrow::Cow::Borrowed(image));
    }
    let Some(lib) = super::discovery::cudadevrt() else {
        crate::error::bail!(
            Compile,
            "the module was compiled as relocatable device code (-dc / -rdc=true), which must \
             be linked with the CUDA device runtime, libcudadevrt.a, and no CUDA toolkit or \
             pip wheel beside NVRTC has it (pip install nvidia-cuda-runtime, or set CUDA_HOME)"
        );
    };
    Ok(std::borrow::Cow::Owned(Module::link_relocatable(
        device,
        image,
        &[lib],
    )?))
}

/// Whether `image` is an ELF relocatable object (`e_type` 1, at byte 16): a cubin compiled
/// with `-dc`, not yet linked.
fn is_relocatable(image: &[u8]) -> bool {
    image.starts_with(b"\x7fELF") && image.get(16..18) == Some(&[1, 0][..])
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
            Ok((Module::load(device, &loadable(device, &cubin)?)?, log))
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

#[cfg(test)]
mod tests {
    #[test]
    fn relocatable_objects_are_told_from_loadable_images() {
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.resize(64, 0);
        elf[16] = 1; // ET_REL: a cubin compiled with -dc
        assert!(super::is_relocatable(&elf));
        elf[16] = 2; // ET_EXEC: a linked cubin
        assert!(!super::is_relocatable(&elf));
        assert!(!super::is_relocatable(b"// PTX\n.version 8.0"));
        assert!(!super::is_relocatable(b"\x7fELF"));
    }
}
