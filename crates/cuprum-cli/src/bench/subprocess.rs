//! The bench's child processes: what one `cuprum bench-child` process times (`ChildMode`),
//! running such processes and reading their seconds (`children`), and the nonces and
//! temporary cache folders that keep each case's kernels new and the user's cache untouched.

use super::timed::R;
use clap::ValueEnum;
use cuprum::profiler::PerfCaseResult;
use std::path::{Path, PathBuf};

pub(super) fn nonce() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

pub(super) fn temp_cache_dir(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "cuprum-bench-{tag}-{}-{}",
        std::process::id(),
        nonce()
    ))
}

/// What one `bench-child` process times.
#[derive(Clone, Copy, ValueEnum)]
pub enum ChildMode {
    /// Empty cache: compile the elementwise-shaped kernel.
    First,
    /// The elementwise-shaped kernel is on disk.
    Disk,
    /// The sum-of-squares ReductionKernel source is on disk.
    DiskReduction,
    /// The first call of a new fused function, NVRTC warmed (the cache is the folder,
    /// through `CUPRUM_CACHE_DIR`).
    FuseCold,
    /// Where that first call spends its time (a diagnostic, not a workload): prints
    /// `name=ms` pairs (see `fuse_cases::cold_parts`).
    FuseColdParts,
    /// Where the compile rows' time goes, and a Rust kernel's first launch (a diagnostic):
    /// prints `name=ms` pairs (see `compile_cases::compile_parts`).
    CompileColdParts,
    /// The host device: a fresh ElementwiseKernel whose compiled module is in `DIR/host`
    /// (see `host_cases::disk_hit`).
    HostDisk,
    /// Load `DIR`'s bundle of the demo's kernels and look each up (`bundle_cases.rs`).
    BundleLoad,
}

/// Runs `cuprum bench-child MODE DIR` `n` times; each prints its total seconds and the
/// seconds of the cache lookup alone (before the driver loads the module). `lookup_only`
/// keeps the second number instead of the first.
pub(super) fn children(
    name: &str,
    mode: ChildMode,
    dir: &Path,
    n: usize,
    lookup_only: bool,
) -> R<PerfCaseResult> {
    let exe = std::env::current_exe()?;
    let mode = mode
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    let mut cpu = Vec::new();
    for _ in 0..n {
        let out = std::process::Command::new(&exe)
            .arg("bench-child")
            .arg(&mode)
            .arg(dir)
            .env("CUPRUM_CACHE_DIR", dir)
            .output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let nums: Vec<f64> = text
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        match nums.get(usize::from(lookup_only)) {
            Some(&s) if out.status.success() => cpu.push(s),
            _ => {
                return Err(format!(
                    "bench-child {mode} failed: {text}{}",
                    String::from_utf8_lossy(&out.stderr)
                )
                .into());
            }
        }
    }
    Ok(host_only(name, cpu))
}

/// A result with host times only (the GPU column is 0).
pub(super) fn host_only(name: &str, cpu_times: Vec<f64>) -> PerfCaseResult {
    PerfCaseResult {
        name: name.into(),
        gpu_times: vec![0.0; cpu_times.len()],
        cpu_times,
        device: 0,
    }
}
