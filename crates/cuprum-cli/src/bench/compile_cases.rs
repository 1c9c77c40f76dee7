//! The compile workloads: a cold compile with NVRTC already loaded, the first compile of a
//! fresh process, a disk-cache hit in a fresh process (whole and lookup only), the in-process
//! memo hit; for the ElementwiseKernel shape and, where the targets have one, the
//! ReductionKernel one. Each goes through a cache of its own (a temp folder or memory), so
//! the user's kernel cache is untouched. The fresh-process cases run `cuprum bench-child`.

use super::kernels;
use super::subprocess::{ChildMode, children, host_only, nonce, temp_cache_dir};
use super::timed::{R, Timed};
use cuprum::compile::{CompileOptions, KernelCache, compile_with_cache};
use cuprum::profiler::{BenchmarkOptions, benchmark};
use cuprum::runtime::{LaunchConfig, Module};
use cuprum::{DType, Device, Stream};
use std::path::Path;

/// Which generated-kernel shape a compile case compiles.
#[derive(Clone, Copy)]
enum Kind {
    /// The generated source of an ElementwiseKernel `z = x + y * 2` on float32 (what a
    /// user's first call compiles: cuprum's headers, the loop, the expression).
    Elementwise,
    /// The generated source of the seeds' sum-of-squares ReductionKernel, one block per
    /// output (what a short full reduction or a per-row one compiles).
    Reduction,
    /// The same kernel split over blocks with wide loads (what a long contiguous full
    /// reduction compiles: the partials, the ticket and the second combine besides).
    ReductionSplit,
    /// The program of a kernel written in Rust (apply_activation and its device functions).
    Jit,
}

impl Kind {
    /// The kernel's source, its kernel named [`function`](Self::function)`(nonce)`: a new
    /// name is new content for every cache, NVRTC's own included. (NVRTC 13 keeps what it
    /// compiled in the CUDA ComputeCache, `~/.nv/ComputeCache`, by content and across
    /// processes: on the H100 machine a source that differed only in a comment compiled in
    /// 9–15 ms where a renamed kernel took 45–70 ms, 2026-11-27. The rows timed those hits
    /// until then.)
    fn source(self, nonce: u64) -> cuprum::Result<String> {
        let body = match self {
            Kind::Elementwise => cuprum::ElementwiseKernel::new(
                "float32 x, float32 y",
                "float32 z",
                "z = x + y * 2.0f",
                "ew_add",
            )?
            .generated_source(&[DType::F32; 3], &[false; 3])?,
            Kind::Reduction => {
                kernels::sum_of_squares()?.generated_source(&[DType::F32; 2], &[false; 2])?
            }
            // Sample strategy 0: inner, 256 lanes, one reduced dimension, 32-bit, 4-wide
            // loads, split.
            Kind::ReductionSplit => cuprum::internal::reduction_source_for_fuzzing(
                &kernels::sum_of_squares()?,
                &[DType::F32; 2],
                &[false; 2],
                0,
            )?,
            Kind::Jit => crate::rust_kernels::apply_activation::program().to_string(),
        };
        let body = body.replace(self.base(), &self.function(nonce));
        Ok(format!("// nonce {nonce}\n{body}"))
    }

    /// The kernel's name in the generated source.
    fn base(self) -> &'static str {
        match self {
            Kind::Elementwise => "ew_add",
            Kind::Reduction | Kind::ReductionSplit => "sum_of_squares",
            Kind::Jit => "apply_activation",
        }
    }

    /// The kernel's name in the source made with `nonce`.
    fn function(self, nonce: u64) -> String {
        format!("{}_n{nonce}", self.base())
    }
}

/// Compile + load of `kind`'s source with `nonce` through `cache`.
fn compile_and_load(cache: &KernelCache, kind: Kind, nonce: u64) -> cuprum::Result<()> {
    let dev = Device::current()?;
    let img = cache.compile(&kind.source(nonce)?, &CompileOptions::default(), dev.arch())?;
    Module::load(dev, &img.image)?
        .function(&kind.function(nonce))
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

pub fn compile_cold_reduction_split(o: &BenchmarkOptions) -> R<Timed> {
    cold(o, "compile_cold_reduction_split", Kind::ReductionSplit)
}

pub fn compile_cold_jit(o: &BenchmarkOptions) -> R<Timed> {
    cold(o, "compile_cold_jit", Kind::Jit)
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

impl ChildMode {
    /// The kernel shape a compile mode compiles.
    fn kind(self) -> Kind {
        match self {
            ChildMode::First
            | ChildMode::Disk
            | ChildMode::FuseCold
            | ChildMode::FuseColdParts
            | ChildMode::CompileColdParts
            | ChildMode::HostDisk
            | ChildMode::BundleLoad => Kind::Elementwise,
            ChildMode::DiskReduction => Kind::Reduction,
        }
    }
}

/// `bench-child compile-cold-parts DIR` (a diagnostic; `DIR` an empty folder): where the
/// compile rows' time goes, in a fresh process with NVRTC warmed, as `name=ms` pairs. Per
/// row (`ew`, `red`, `red_split`, `jit`; medians of 5 new sources each): `_nvrtc` (the
/// key and NVRTC: a memory-only cache's compile), `_load` (the driver's module load),
/// `_fn` (the function lookup). Then the first launch of the `apply_activation` Rust
/// kernel through its generated launcher, the path a program takes: `jit_launch1` (module
/// memo, kernel cache with `DIR` on disk — NVRTC and the entry's write —, load, the fault
/// record, the launch; its `#[cuprum::kernel]` program is compiled here for the first
/// time), `jit_launch2` (a repeat launch), `jit_sync` (a synchronisation after them).
pub fn compile_parts(dir: &Path) -> R<String> {
    cuprum::compile::set_cache_dir(Some(dir.to_path_buf()));
    let dev = Device::get(0)?;
    dev.make_current();
    let ms = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1e3;
    compile_and_load(&KernelCache::new(None), Kind::Elementwise, nonce())?;
    let mut out = String::new();
    let kinds = [
        ("ew", Kind::Elementwise),
        ("red", Kind::Reduction),
        ("red_split", Kind::ReductionSplit),
        ("jit", Kind::Jit),
    ];
    for (label, kind) in kinds {
        let mut parts = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..5 {
            let n = nonce();
            let src = kind.source(n)?;
            let cache = KernelCache::new(None);
            let t = std::time::Instant::now();
            let img = cache.compile(&src, &CompileOptions::default(), dev.arch())?;
            parts[0].push(ms(t));
            let t = std::time::Instant::now();
            let m = Module::load(dev, &img.image)?;
            parts[1].push(ms(t));
            let t = std::time::Instant::now();
            m.function(&kind.function(n))?;
            parts[2].push(ms(t));
        }
        for (name, v) in ["nvrtc", "load", "fn"].iter().zip(parts.iter_mut()) {
            v.sort_by(f64::total_cmp);
            out.push_str(&format!("{label}_{name}={:.2} ", v[v.len() / 2]));
        }
    }
    let n = 1 << 20;
    let x = cuprum::random::uniform(-1.0, 1.0, &[n], DType::F32)?;
    let mut y = cuprum::Array::empty(&[n], DType::F32)?;
    dev.synchronize()?;
    let cfg = cuprum::kernel::JitConfig::for_len(n, 256);
    let launch = crate::rust_kernels::apply_activation::launch;
    let t = std::time::Instant::now();
    launch(cfg, &x, &mut y, n as i32, 1)?;
    let first = ms(t);
    let t = std::time::Instant::now();
    launch(cfg, &x, &mut y, n as i32, 1)?;
    let second = ms(t);
    let t = std::time::Instant::now();
    dev.synchronize()?;
    out.push_str(&format!(
        "jit_launch1={first:.2} jit_launch2={second:.3} jit_sync={:.2}",
        ms(t)
    ));
    Ok(out)
}

/// `bench-child first`, `disk` or `disk-reduction`: one timed source generation + compile +
/// load in this fresh process, checked to be a miss (`first`) or a disk hit; the seconds in
/// total, then up to the end of the cache lookup.
pub fn compile_child(mode: ChildMode, dir: &Path) -> R<(f64, f64)> {
    let dev = Device::get(0)?;
    dev.make_current();
    let cache = KernelCache::new(Some(dir.to_path_buf()));
    let fresh = matches!(mode, ChildMode::First);
    let kind = mode.kind();
    let t = std::time::Instant::now();
    let n = if fresh { nonce() } else { 0 };
    let src = kind.source(n)?;
    let img = cache.compile(&src, &CompileOptions::default(), dev.arch())?;
    let lookup = t.elapsed().as_secs_f64();
    Module::load(dev, &img.image)?.function(&kind.function(n))?;
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
    Ok((s, lookup))
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
        for kind in [
            Kind::Elementwise,
            Kind::Reduction,
            Kind::ReductionSplit,
            Kind::Jit,
        ] {
            let src = kind.source(7).unwrap();
            assert!(src.starts_with("// nonce 7\n"), "{src}");
            let img = cache.compile(&src, &CompileOptions::default(), 90).unwrap();
            let name = kind.function(7);
            let name = name.as_bytes();
            assert!(img.image.windows(name.len()).any(|w| w == name));
            // Only the split kernel has the second stage.
            let split = matches!(kind, Kind::ReductionSplit);
            assert_eq!(src.contains("atomicAdd(&_counters"), split, "{src}");
        }
    }
}
