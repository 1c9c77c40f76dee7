//! The compile layer: NVRTC discovery and programs, options, cuprum's bundled headers, the
//! persistent kernel cache (memory memo + disk), and readable compile errors.
//!
//! Two levels sit in front of NVRTC:
//! - per process, [`compile_with_cache`] (`modules.rs`) keeps loaded modules per (device,
//!   source, options) in an FxHash map: a repeat call is one hash and one compare (well
//!   under a microsecond for typical sources);
//! - below it, [`KernelCache`] (`cache.rs`) keeps compiled images in memory and on disk
//!   (see its docs for the key, the entry format and the environment variables).
//!
//! Both levels hold a `OnceLock` per key, so concurrent first calls with one key compile
//! once and the others wait for that result; failures are not kept, so a later call (after
//! fixing an include, or after [`setup()`]) tries again.
//!
//! Layout: `program.rs` is one uncached NVRTC program; `modules.rs` the module memo and the
//! compiler per kind of device (NVRTC or `nvcc.rs` for a GPU, `host/` for the host
//! device); `cache.rs` the kernel cache; `discovery.rs`, `python.rs` and `wheels.rs` where
//! NVRTC and the CUDA headers are; `setup.rs` their installation; `headers.rs` cuprum's
//! bundled headers; `profile.rs` where a cold compile's time goes; `failure.rs` readable
//! compile errors; `record.rs` and `bundle/` kernel bundles; `archive.rs` the cache's export
//! and import; `precompile.rs` the warm-up.

mod archive;
pub mod bundle;
pub(crate) mod cache;
mod discovery;
pub(crate) mod env;
mod failure;
mod headers;
pub(crate) mod host;
mod modules;
mod nvcc;
mod nvrtc;
mod options;
mod precompile;
mod process;
mod profile;
mod program;
mod ptxas;
mod python;
pub(crate) mod record;
pub(crate) use python::python_sites;
mod setup;
pub(crate) mod tuning;
mod wheels;

pub use archive::{export_cache, import_cache};
pub use cache::{
    CACHE_FORMAT_VERSION, CacheEntry, CacheStats, KernelCache, default_dir, set_cache_dir,
};
pub use discovery::{
    CUDA_MAJOR, Component, Found, Origin, Report, cuda_headers, data_dir, locate, python_name,
};
pub use failure::{CompileFailure, Diagnostic, SourceSpan};
pub use headers::BUNDLED as BUNDLED_HEADERS;
pub use host::{
    CompilerKind, HostCompiler, SHIM_HEADERS, host_compiler, set_host_cache_dir, set_host_opt_level,
};
pub(crate) use modules::load_raw_source;
pub use modules::{clear_memo, compile_for_arch, compile_on, compile_with_cache};
pub use nvrtc::{CompiledImage, Nvrtc, Steps, nvrtc};

/// For the crate's unit tests that need NVRTC: true when it loads; else a skip that says
/// so (`test` names the test), or a failure under `CUPRUM_REQUIRE_NVRTC=1` (CI), as the
/// integration tests' harness does.
#[cfg(test)]
pub(crate) fn nvrtc_for_test(test: &str) -> bool {
    match nvrtc() {
        Ok(_) => true,
        Err(e) if std::env::var_os("CUPRUM_REQUIRE_NVRTC").is_some_and(|v| v == "1") => {
            panic!("{test}: CUPRUM_REQUIRE_NVRTC=1 but NVRTC is missing: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED {test}: no NVRTC ({e})");
            false
        }
    }
}
pub use options::CompileOptions;
pub use precompile::{Precompile, precompile, precompile_with_progress};
pub use profile::{CompileProfile, profile_compile};
pub use program::needs_cuda_headers;
#[doc(hidden)]
pub use program::retries_on_this_thread;
pub use ptxas::{KernelResources, resource_usage};
pub use setup::{Setup, SetupReport, auto_setup_allowed, setup, wheel_requirements};
