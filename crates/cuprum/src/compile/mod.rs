//! The compile layer: NVRTC discovery and programs, options, and the in-process memo that
//! makes a repeat compile of the same source a hash lookup.

mod nvrtc;
mod options;

pub use nvrtc::{CompiledImage, Nvrtc, nvrtc};
pub use options::CompileOptions;

use crate::error::Result;
use crate::runtime::{Device, Module};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Compiles `source` for an architecture without touching a GPU (no driver needed), e.g.
/// `arch = 90` for `sm_90`. Returns the cubin (or PTX when NVRTC does not know `arch`).
///
/// ```
/// use cuprum::compile::{compile_for_arch, CompileOptions};
/// if cuprum::compile::nvrtc().is_ok() {
///     let img = compile_for_arch(r#"extern "C" __global__ void k() {}"#, &CompileOptions::default(), 90)?;
///     assert!(img.is_cubin && img.image.starts_with(b"\x7fELF"));
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn compile_for_arch(source: &str, opts: &CompileOptions, arch: u32) -> Result<CompiledImage> {
    let nv = nvrtc()?;
    let (target, cubin) = nv.target_for(arch);
    let flags = opts.nvrtc_flags(&target);
    let headers: Vec<(&str, &str)> = opts
        .headers
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    nv.compile(
        source,
        &opts.program_name,
        &flags,
        &headers,
        &opts.name_expressions,
        cubin,
    )
}

#[derive(PartialEq, Eq, Hash)]
struct MemoKey {
    device: usize,
    source: String,
    opts: CompileOptions,
}

type Slot = Arc<OnceLock<Result<Module>>>;

fn memo() -> &'static Mutex<HashMap<MemoKey, Slot>> {
    static MEMO: OnceLock<Mutex<HashMap<MemoKey, Slot>>> = OnceLock::new();
    MEMO.get_or_init(Default::default)
}

/// Compiles `source` for the current device and loads it, or returns the module compiled
/// earlier in this process for the same (device, source, options). Concurrent first calls
/// with the same key compile once; the others wait for that result.
///
/// ```no_run
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
pub fn compile_on(device: Device, source: &str, opts: &CompileOptions) -> Result<Module> {
    let key = MemoKey {
        device: device.ordinal(),
        source: source.to_owned(),
        opts: opts.clone(),
    };
    let slot = {
        let mut map = memo().lock().unwrap_or_else(|p| p.into_inner());
        map.entry(key).or_default().clone()
    };
    slot.get_or_init(|| {
        let img = compile_for_arch(source, opts, device.arch())?;
        Module::load_with_names(device, &img.image, img.lowered_names)
    })
    .clone()
}

/// Drops every module compiled in this process (kernels compile again on next use).
///
/// ```
/// cuprum::compile::clear_memo();
/// ```
pub fn clear_memo() {
    memo().lock().unwrap_or_else(|p| p.into_inner()).clear();
}
