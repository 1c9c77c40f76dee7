//! The device cuprum's documentation examples run on: a dev-dependency of cuprum's doc
//! tests, kept out of the library itself.
//!
//! Every example in cuprum's documentation (its rustdoc and the user guide's chapters) that
//! launches a kernel starts with the hidden line
//! `# if !cuprum_doctest::device()? { return Ok(()); }`. On a machine with a GPU the example
//! runs on GPU 0. Without one it runs on the host device (the CPU, kernels compiled by the
//! system C++ compiler at `-O0`, as the test harness does), so `cargo test` runs the examples
//! everywhere; with neither, the example is skipped with a line on stderr.
//! `CUPRUM_REQUIRE_GPU=1` (the GPU suite) turns a missing GPU into a failed example.
//!
//! The examples' kernels are cached in a folder of the system's temporary directory shared by
//! the doc tests of one user (`<tmp>/cuprum-doctests-<uid>`), never in the user's own kernel
//! cache; examples that only compile start with a hidden `set_cache_dir(None)`.
//!
//! Examples about the CUDA devices themselves start with [`gpu`] instead, and those of
//! `cuprum::nccl` with [`nccl`]: on the host device they are skipped with a line. Every
//! example runs; only the downloads of `setup` and the multi-process NCCL example stay
//! `no_run`. The GPU suite (`scripts/gpu-suite`) keeps rustdoc's merged doctest binary
//! (`--persist-doctests`) and its `run.sh` runs it with `CUPRUM_REQUIRE_GPU=1`, one process
//! per example.

use cuprum::Device;
use cuprum::compile;
use std::sync::OnceLock;

/// What the first call decided, for the process.
#[derive(Clone, Copy)]
enum Choice {
    Gpu,
    Host,
    Skip,
    /// `CUPRUM_REQUIRE_GPU=1` and no GPU: each call answers with the GPU's error.
    Missing,
}

/// Picks the device of this process's documentation examples (once) and says whether they
/// can run: `Ok(true)` on a GPU or the host device, `Ok(false)` (after a `SKIPPED` line on
/// stderr) with neither, the GPU's error when there is none and `CUPRUM_REQUIRE_GPU=1`.
///
/// ```
/// if !cuprum_doctest::device()? {
///     return Ok(());
/// }
/// let x = cuprum::Array::from_slice(&[1.0f32, 2.0], &[2])?;
/// assert_eq!(x.to_vec::<f32>()?, vec![1.0, 2.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn device() -> cuprum::Result<bool> {
    static CHOICE: OnceLock<Choice> = OnceLock::new();
    match *CHOICE.get_or_init(choose) {
        Choice::Gpu | Choice::Host => Ok(true),
        Choice::Skip => Ok(false),
        Choice::Missing => Device::get(0).map(|_| true),
    }
}

/// The doc tests' own kernel folder: `<tmp>/cuprum-doctests-<uid>`.
fn cache_dir() -> std::path::PathBuf {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    std::env::temp_dir().join(format!("cuprum-doctests-{uid}"))
}

/// `CUPRUM_REQUIRE_GPU`: unset, empty, `0` or `false` is no; `1`, `true` or anything else
/// (a value that cannot be read) is yes.
fn gpu_required() -> bool {
    match std::env::var("CUPRUM_REQUIRE_GPU") {
        Err(std::env::VarError::NotPresent) => false,
        Err(std::env::VarError::NotUnicode(_)) => true,
        Ok(v) => !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false"),
    }
}

fn choose() -> Choice {
    let dir = cache_dir();
    compile::set_cache_dir(Some(dir.clone()));
    let gpu = match Device::get(0) {
        Ok(_) => return Choice::Gpu,
        Err(e) => e,
    };
    if gpu_required() {
        eprintln!("CUPRUM_REQUIRE_GPU=1: the documentation examples must run on a GPU, but {gpu}");
        return Choice::Missing;
    }
    match compile::host_compiler() {
        Ok(_) => {
            compile::set_host_cache_dir(Some(dir.join("host")));
            if std::env::var_os("CUPRUM_HOST_OPT").is_none() {
                compile::set_host_opt_level(Some(0));
            }
            Device::host().make_default();
            Choice::Host
        }
        Err(host) => {
            eprintln!("SKIPPED doc example: no GPU ({gpu}) and no host C++ compiler ({host})");
            Choice::Skip
        }
    }
}

/// Like [`device`], for examples about the CUDA devices themselves (ordinals, peer access,
/// device streams, cuBLAS): `Ok(true)` only on a GPU; on the host device the example is
/// skipped with a line on stderr.
///
/// ```
/// if !cuprum_doctest::gpu()? {
///     return Ok(());
/// }
/// assert_eq!(cuprum::Device::get(0)?.ordinal(), 0);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn gpu() -> cuprum::Result<bool> {
    if !device()? {
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

/// Like [`gpu`], for examples of `cuprum::nccl`: `Ok(true)` on a GPU where NCCL loads,
/// else skipped with a line on stderr.
///
/// ```
/// if !cuprum_doctest::nccl()? {
///     return Ok(());
/// }
/// assert!(cuprum::nccl::UniqueId::new().is_ok());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn nccl() -> cuprum::Result<bool> {
    if !gpu()? {
        return Ok(false);
    }
    match cuprum::nccl::version() {
        Ok(_) => Ok(true),
        Err(e) => {
            eprintln!("SKIPPED doc example: it needs NCCL ({e})");
            Ok(false)
        }
    }
}
