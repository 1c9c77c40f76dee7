//! The device the documentation's examples run on (a hidden helper of the doc tests).
//!
//! Every example in cuprum's documentation that launches a kernel starts with the hidden
//! line `# if !cuprum::internal::doc_device()? { return Ok(()); }`. On a machine with a GPU
//! the example runs on GPU 0. Without one it runs on the host device (the CPU, kernels
//! compiled by the system C++ compiler at `-O0`, as the test harness does), so `cargo test`
//! runs the examples everywhere; with neither, the example is skipped with a line on
//! stderr. `CUPRUM_REQUIRE_GPU=1` (the GPU suite) turns a missing GPU into a failed example.
//! The examples' kernels are cached in a folder of the system's temporary directory shared
//! by the doc tests of one user (`<tmp>/cuprum-doctests-<uid>`), never in the user's own
//! kernel cache; examples that only compile start with a hidden `set_cache_dir(None)`.
//!
//! Examples about the CUDA devices themselves start with `doc_gpu()` instead, and those of
//! `cuprum::nccl` with `doc_nccl()`: on the host device they are skipped with a line.
//! Every example runs; only the downloads of `setup` and the multi-process NCCL example
//! stay `no_run`. The GPU suite (`scripts/gpu-suite`) keeps rustdoc's merged doctest binary
//! (`--persist-doctests`) and its `run.sh` runs it with `CUPRUM_REQUIRE_GPU=1`, one process
//! per example.

use crate::compile;
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::Device;
use std::sync::OnceLock;

/// Picks the device of this process's documentation examples (once) and says whether they
/// can run: `Ok(true)` on a GPU or the host device, `Ok(false)` (after a `SKIPPED` line on
/// stderr) with neither, an error with neither when `CUPRUM_REQUIRE_GPU=1`.
///
/// ```
/// if !cuprum::internal::doc_device()? {
///     return Ok(());
/// }
/// let x = cuprum::Array::from_slice(&[1.0f32, 2.0], &[2])?;
/// assert_eq!(x.to_vec::<f32>()?, vec![1.0, 2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn doc_device() -> Result<bool> {
    static CHOICE: OnceLock<std::result::Result<bool, String>> = OnceLock::new();
    CHOICE
        .get_or_init(choose)
        .clone()
        .map_err(|m| Error::new(ErrorKind::NoDevice, m))
}

/// The doc tests' own kernel folder: `<tmp>/cuprum-doctests-<uid>`.
fn doc_cache_dir() -> std::path::PathBuf {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    std::env::temp_dir().join(format!("cuprum-doctests-{uid}"))
}

fn choose() -> std::result::Result<bool, String> {
    let dir = doc_cache_dir();
    compile::set_cache_dir(Some(dir.clone()));
    let gpu = match Device::get(0) {
        Ok(_) => return Ok(true),
        Err(e) => e,
    };
    if compile::env::env_bool("CUPRUM_REQUIRE_GPU", false).unwrap_or(true) {
        return Err(format!(
            "CUPRUM_REQUIRE_GPU=1: the documentation examples must run on a GPU, but {gpu}"
        ));
    }
    match compile::host_compiler() {
        Ok(_) => {
            compile::set_host_cache_dir(Some(dir.join("host")));
            if std::env::var_os("CUPRUM_HOST_OPT").is_none() {
                compile::set_host_opt_level(Some(0));
            }
            Device::host().make_default();
            Ok(true)
        }
        Err(host) => {
            eprintln!("SKIPPED doc example: no GPU ({gpu}) and no host C++ compiler ({host})");
            Ok(false)
        }
    }
}

/// Like [`doc_device`], for examples about the CUDA devices themselves (ordinals, peer
/// access, device streams, cuBLAS): `Ok(true)` only on a GPU; on the host device the
/// example is skipped with a line on stderr.
///
/// ```
/// if !cuprum::internal::doc_gpu()? {
///     return Ok(());
/// }
/// assert_eq!(cuprum::Device::get(0)?.ordinal(), 0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn doc_gpu() -> Result<bool> {
    if !doc_device()? {
        return Ok(false);
    }
    match Device::get(0) {
        Ok(_) => Ok(true),
        Err(e) => {
            eprintln!("SKIPPED doc example: it needs a CUDA GPU ({e})");
            Ok(false)
        }
    }
}

/// Like [`doc_gpu`], for examples of [`crate::nccl`]: `Ok(true)` on a GPU where NCCL
/// loads, else skipped with a line on stderr.
///
/// ```
/// if !cuprum::internal::doc_nccl()? {
///     return Ok(());
/// }
/// assert!(cuprum::nccl::UniqueId::new().is_ok());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn doc_nccl() -> Result<bool> {
    if !doc_gpu()? {
        return Ok(false);
    }
    match crate::nccl::version() {
        Ok(_) => Ok(true),
        Err(e) => {
            eprintln!("SKIPPED doc example: it needs NCCL ({e})");
            Ok(false)
        }
    }
}
