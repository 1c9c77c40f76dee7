//! The compile workloads: a cold compile with NVRTC already loaded, the first compile of a
//! fresh process, a disk-cache hit in a fresh process (whole and lookup only), the in-process
//! memo hit; for the ElementwiseKernel shape and, where the targets have one, the
//! ReductionKernel one. Each goes through a cache of its own (a temp folder or memory), so
//! the user's kernel cache is untouched. The fresh-process cases run `cuprum bench-child`.

use super::kernels;
use super::timed::{R, Timed};
use clap::{Args, ValueEnum};
use cuprum::compile::{CompileOptions, KernelCache, compile_with_cache};
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::runtime::{LaunchConfig, Module};
use cuprum::{DType, Device, Stream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Which generated-kernel shape a compile case compiles.
#[derive(Clone, Copy)]
enum Kind {
    /// A small kernel of the shape generated elementwise kernels have.
    Elementwise,
    /// The generated source of the seeds' sum-of-squares ReductionKernel.
    Reduction,
    /// The program of a kernel written in Rust (apply_activation and its device functions).
    Jit,
}

impl Kind {
    /// The kernel's source; `nonce` (in a comment) defeats caches.
    fn source(self, nonce: u64) -> cuprum::Result<String> {
        let body = match self {
            Kind::Elementwise => ELEMENTWISE_SRC.to_string(),
            Kind::Reduction => {
                kernels::sum_of_squares()?.generated_source(&[DType::F32; 2], &[false; 2])?
            }
            Kind::Jit => crate::rust_kernels::apply_activation::program().to_string(),
        };
        Ok(format!("// nonce {nonce}\n{body}"))
    }

    fn function(self) -> &'static str {
        match self {
            Kind::Elementwise => "ew_add",
            Kind::Reduction => "sum_of_squares",
            Kind::Jit => "apply_activation",
        }
    }
}

const ELEMENTWISE_SRC: &str = "#include <cuprum/indexer.cuh>\n\
    extern \"C\" __global__ void ew_add(const float* __restrict__ x, const float* __restrict__ y,\n\
    \x20   float* __restrict__ z, unsigned int n) {\n\
    \x20 for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n\
    \x20   z[i] = x[i] + y[i] * 2.0f;\n}\n";

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

/// Compile + load of `kind`'s source with `nonce` through `cache`.
fn compile_and_load(cache: &KernelCache, kind: Kind, nonce: u64) -> cuprum::Result<()> {
    let dev = Device::current()?;
    let img = cache.compile(&kind.source(nonce)?, &CompileOptions::default(), dev.arch())?;
    Module::load(dev, &img.image)?
        .function(kind.function())
        .map(drop)
}

/// Compiles of new sources (memory-only cache), after one that loads and warms NVRTC.
fn cold(o: &BenchmarkOptions, name: &str, kind: Kind) -> R<Timed> {
    let cache = KernelCache::new(None);
    compile_and_load(&cache, kind, nonce())?;
    let base = nonce();
    let mut k = 0u64;
    let o = o.clone().n_repeat(o.n_repeat.min(20)).n_warmup(0);
    let r = benchmark(
        name,
        || {
            k += 1;
            compile_and_load(&cache, kind, base + k)
        },
        &o,
    )?;
    Ok((r, 0))
}

pub fn compile_cold(o: &BenchmarkOptions) -> R<Timed> {
    cold(o, "compile_cold_elementwise", Kind::Elementwise)
}

pub fn compile_cold_reduction(o: &BenchmarkOptions) -> R<Timed> {
    cold(o, "compile_cold_reduction", Kind::Reduction)
}

pub fn compile_cold_jit(o: &BenchmarkOptions) -> R<Timed> {
    cold(o, "compile_cold_jit", Kind::Jit)
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
fn host_only(name: &str, cpu_times: Vec<f64>) -> PerfCaseResult {
    PerfCaseResult {
        name: name.into(),
        gpu_times: vec![0.0; cpu_times.len()],
        cpu_times,
        device: 0,
    }
}

pub fn compile_first(o: &BenchmarkOptions) -> R<Timed> {
    let name = "compile_first_in_process";
    let mut all = Vec::new();
    for _ in 0..o.n_repeat.clamp(1, 5) {
        let dir = temp_cache_dir("first");
        let r = children(name, ChildMode::First, &dir, 1, false);
        let _ = std::fs::remove_dir_all(&dir);
        all.extend(r?.cpu_times);
    }
    Ok((host_only(name, all), 0))
}

/// Fresh processes finding `mode`'s kernel on disk (written here first).
fn disk_hit(o: &BenchmarkOptions, name: &str, mode: ChildMode, lookup_only: bool) -> R<Timed> {
    let dir = temp_cache_dir(name);
    compile_and_load(&KernelCache::new(Some(dir.clone())), mode.kind(), 0)?;
    let r = children(name, mode, &dir, o.n_repeat.clamp(1, 10), lookup_only);
    let _ = std::fs::remove_dir_all(&dir);
    Ok((r?, 0))
}

pub fn compile_disk_hit(o: &BenchmarkOptions) -> R<Timed> {
    disk_hit(o, "compile_disk_hit", ChildMode::Disk, false)
}

pub fn compile_disk_hit_lookup(o: &BenchmarkOptions) -> R<Timed> {
    disk_hit(o, "compile_disk_hit_lookup", ChildMode::Disk, true)
}

pub fn compile_disk_hit_reduction(o: &BenchmarkOptions) -> R<Timed> {
    disk_hit(
        o,
        "compile_disk_hit_reduction",
        ChildMode::DiskReduction,
        false,
    )
}

/// `fuse_compile_cold`: fresh processes, each with an empty cache folder, timing the first
/// call of a new fused function after warming NVRTC (`bench-child fuse-cold`).
pub fn fuse_cold(o: &BenchmarkOptions) -> R<Timed> {
    let name = "fuse_compile_cold";
    let dir = temp_cache_dir("fuse-cold");
    let r = children(
        name,
        ChildMode::FuseCold,
        &dir,
        o.n_repeat.clamp(1, 10),
        false,
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok((r?, 0))
}

pub fn compile_memo_hit(o: &BenchmarkOptions) -> R<Timed> {
    let src = "extern \"C\" __global__ void memo_hit_kernel() {}\n";
    let opts = CompileOptions::default();
    let s = Stream::current()?;
    let one = LaunchConfig::linear(1, 1);
    let r = benchmark(
        "compile_memo_hit",
        || {
            let f = compile_with_cache(src, &opts)?.function("memo_hit_kernel")?;
            f.launch_without_arguments(&one, &s)
        },
        o,
    )?;
    Ok((r, 0))
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
    /// The host device: a fresh ElementwiseKernel whose compiled module is in `DIR/host`
    /// (see `host_cases::disk_hit`).
    HostDisk,
}

impl ChildMode {
    fn kind(self) -> Kind {
        match self {
            ChildMode::First
            | ChildMode::Disk
            | ChildMode::FuseCold
            | ChildMode::FuseColdParts
            | ChildMode::HostDisk => Kind::Elementwise,
            ChildMode::DiskReduction => Kind::Reduction,
        }
    }
}

#[derive(Args)]
pub struct ChildArgs {
    mode: ChildMode,
    /// The cache folder.
    dir: PathBuf,
}

/// One timed source generation + compile + load in this fresh process; prints seconds
/// (total, then up to the end of the cache lookup).
pub fn child(args: &ChildArgs) -> R<ExitCode> {
    if let ChildMode::FuseCold = args.mode {
        let s = super::fuse_cases::cold_first_call(nonce())?;
        out!("{s} {s}");
        return Ok(ExitCode::SUCCESS);
    }
    if let ChildMode::FuseColdParts = args.mode {
        out!("{}", super::fuse_cases::cold_parts(nonce())?);
        return Ok(ExitCode::SUCCESS);
    }
    if let ChildMode::HostDisk = args.mode {
        let s = super::host_cases::disk_hit_child(&args.dir)?;
        out!("{s} {s}");
        return Ok(ExitCode::SUCCESS);
    }
    let dev = Device::get(0)?;
    dev.make_current();
    let cache = KernelCache::new(Some(args.dir.clone()));
    let fresh = matches!(args.mode, ChildMode::First);
    let kind = args.mode.kind();
    let t = std::time::Instant::now();
    let src = kind.source(if fresh { nonce() } else { 0 })?;
    let img = cache.compile(&src, &CompileOptions::default(), dev.arch())?;
    let lookup = t.elapsed().as_secs_f64();
    Module::load(dev, &img.image)?.function(kind.function())?;
    let s = t.elapsed().as_secs_f64();
    let st = cache.stats();
    let expected = if fresh {
        st.misses == 1
    } else {
        st.disk_hits == 1
    };
    if !expected {
        return Err(format!("bench-child: unexpected cache behaviour {st:?}").into());
    }
    out!("{s} {lookup}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both shapes compile (NVRTC only, no GPU) to a cubin that has the kernel `function`
    /// looks up.
    #[test]
    fn both_kinds_compile_to_their_kernel() {
        if !crate::harness::nvrtc() {
            return;
        }
        let cache = KernelCache::new(None);
        for kind in [Kind::Elementwise, Kind::Reduction] {
            let src = kind.source(7).unwrap();
            assert!(src.starts_with("// nonce 7\n"), "{src}");
            let img = cache.compile(&src, &CompileOptions::default(), 90).unwrap();
            let name = kind.function().as_bytes();
            assert!(img.image.windows(name.len()).any(|w| w == name));
        }
    }
}
