//! `cuprum bench`: the benchmark workloads of shared/reference/perf-targets.md that exist so
//! far, each timed with `cuprum::profiler::benchmark` (median of the repeats), with GB/s and
//! the fraction of the device-to-device copy bandwidth measured in the same run.
//!
//! Workloads: the copy ceiling, host-overhead floors (`launch_floor`, `*_overhead`),
//! allocation, compilation and cache cases, the seed RawKernels (`raw_*`, `prime1M_raw`,
//! matmul, shared-memory reduction) and the ElementwiseKernel cases (`ew_*`, broadcast,
//! transposed, multi-output trig, complex `abs2`, `prime1M_elementwise`) and the
//! ReductionKernel cases (the seed's MSE, and the same with built-ins as `cp.mean((a - b) **
//! 2)`; sums of squares: full, per axis, host overhead).
//! scripts/cupy_bench.py times CuPy's equivalents, where there are, under the same names.

use clap::Args;
use cuprum::compile::{CompileOptions, KernelCache, compile_with_cache};
use cuprum::kernel::IntoOperand;
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::runtime::Module;
use cuprum::{Array, DType, Device, ElementwiseKernel, RawKernel, ReductionKernel, Stream, ops};
use std::path::PathBuf;

type R<T> = Result<T, Box<dyn std::error::Error>>;
use serde::Serialize;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct BenchArgs {
    /// Only workloads whose name contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Timed repeats per workload (a workload also stops after ~2 s).
    #[arg(long, default_value_t = 100)]
    repeat: usize,
}

/// One workload's result row.
#[derive(Serialize)]
struct Row {
    name: &'static str,
    what: &'static str,
    gpu_us: f64,
    cpu_us: f64,
    bytes: u64,
    gb_per_s: Option<f64>,
    pct_of_copy: Option<f64>,
    repeats: usize,
}

type Workload = fn(&BenchmarkOptions) -> R<(PerfCaseResult, u64)>;

const WORKLOADS: &[(&str, &str, Workload)] = &[
    (
        "copy_1GiB_f32",
        "device-to-device copy of 2^28 float32 (the ceiling)",
        copy_1gib,
    ),
    (
        "launch_floor",
        "bare cuLaunchKernel of an empty kernel (host time is the floor)",
        launch_floor,
    ),
    (
        "alloc_empty_1M_f32",
        "Array::empty of 1e6 float32 from the pool, dropped",
        alloc_empty,
    ),
    (
        "compile_cold_elementwise",
        "compile + load of a new small kernel, NVRTC already loaded",
        compile_cold,
    ),
    (
        "compile_first_in_process",
        "first compile of a fresh process, NVRTC load included",
        compile_first,
    ),
    (
        "compile_disk_hit",
        "first call of a fresh process with the kernel on disk",
        compile_disk_hit,
    ),
    (
        "compile_disk_hit_lookup",
        "the same, cache lookup only (read + checksum + decode, no driver load)",
        compile_disk_hit_lookup,
    ),
    (
        "compile_memo_hit",
        "compile_with_cache repeat + function lookup + launch",
        compile_memo_hit,
    ),
    (
        "raw_add4_overhead",
        "RawKernel vector_add launch, 4 float32 (host time)",
        raw_add4,
    ),
    (
        "raw_add100M_f32",
        "RawKernel vector_add, 1e8 float32",
        raw_add100m,
    ),
    (
        "prime1M_raw",
        "seed prime-factor-sum RawKernel, n = 1e6",
        prime1m_raw,
    ),
    (
        "ew_add100M_f32",
        "ElementwiseKernel z = x + y * 2, 1e8 float32, output allocated per call",
        ew_add100m,
    ),
    (
        "ew_add100M_f32_out",
        "ElementwiseKernel z = x + y * 2, 1e8 float32, output given",
        ew_add100m_out,
    ),
    (
        "ew_add_bcast_10000x10000_f32",
        "ElementwiseKernel T z = x + y, (10000,10000) + (10000,), output given",
        ew_add_bcast,
    ),
    (
        "ew_add_transposed_10000x10000_f32",
        "ElementwiseKernel T z = x + y on A.T + A, 10000x10000, output given",
        ew_add_transposed,
    ),
    (
        "trig10M_multi_output",
        "ElementwiseKernel sin, cos, tan outputs of 1e7 float32, allocated (call_all)",
        trig10m,
    ),
    (
        "abs2_10M_kernel",
        "seed abs_squared ElementwiseKernel, complex128 -> float64, 1e7, output allocated",
        abs2_10m,
    ),
    (
        "prime1M_elementwise",
        "seed prime-factor-sum as an ElementwiseKernel over i, n = 1e6, output given",
        prime1m_elementwise,
    ),
    (
        "ew_add4_f32_out_overhead",
        "ElementwiseKernel z = x + y * 2, 4 float32, output given (host time)",
        ew_add4_out,
    ),
    (
        "ew_add4_f32_alloc_overhead",
        "ElementwiseKernel z = x + y * 2, 4 float32, output allocated (host time)",
        ew_add4_alloc,
    ),
    (
        "matmul_naive_1024x1024x512",
        "seed naive matmul RawKernel",
        matmul_naive,
    ),
    (
        "smem_reduce1M_raw",
        "seed shared-memory block reduction, 1e6 float32",
        smem_reduce,
    ),
    (
        "mse100M_f64_ReductionKernel",
        "seed MSE ReductionKernel, two float64 inputs of 1e8, output allocated",
        mse100m,
    ),
    (
        "mse100M_f64_cp_mean",
        "built-ins ops::mean((x - y) ** 2), two float64 inputs of 1e8 (CuPy: cp.mean)",
        mse100m_mean,
    ),
    (
        "mse10M_f64_ReductionKernel",
        "seed MSE ReductionKernel, two float64 inputs of 1e7, output allocated",
        mse10m,
    ),
    (
        "ssq100M_f32_ReductionKernel",
        "ReductionKernel sum of squares, 1e8 float32",
        ssq100m,
    ),
    (
        "ssq1M_f32_ReductionKernel",
        "ReductionKernel sum of squares, 1e6 float32",
        ssq1m,
    ),
    (
        "ssq_8192x8192_axis1",
        "ReductionKernel sum of squares of (8192, 8192) float32 over the contiguous axis 1",
        ssq_axis1,
    ),
    (
        "ssq_8192x8192_axis0",
        "ReductionKernel sum of squares of (8192, 8192) float32 over the strided axis 0",
        ssq_axis0,
    ),
    (
        "ssq4_ReductionKernel_overhead",
        "ReductionKernel sum of squares, 4 float32, output allocated (host time)",
        ssq4,
    ),
];

/// A small kernel of the shape generated elementwise kernels have; `nonce` defeats caches.
fn small_kernel(nonce: u64) -> String {
    format!(
        "// nonce {nonce}\n#include <cuprum/indexer.cuh>\n\
         extern \"C\" __global__ void ew_add(const float* __restrict__ x, const float* __restrict__ y,\n\
         \x20   float* __restrict__ z, unsigned int n) {{\n\
         \x20 for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n\
         \x20   z[i] = x[i] + y[i] * 2.0f;\n}}\n"
    )
}

fn nonce() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn temp_cache_dir(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "cuprum-bench-{tag}-{}-{}",
        std::process::id(),
        nonce()
    ))
}

/// Compile + load through a cache of its own (so the user's cache is untouched).
fn compile_and_load(cache: &KernelCache, src: &str) -> cuprum::Result<()> {
    let dev = Device::current()?;
    let img = cache.compile(src, &CompileOptions::default(), dev.arch())?;
    Module::load(dev, &img.image)?.function("ew_add").map(drop)
}

fn compile_cold(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let cache = KernelCache::new(None);
    compile_and_load(&cache, &small_kernel(nonce()))?; // NVRTC loaded and warm
    let base = nonce();
    let mut k = 0u64;
    let o = o.clone().n_repeat(o.n_repeat.min(20)).n_warmup(0);
    let r = benchmark(
        "compile_cold_elementwise",
        || {
            k += 1;
            compile_and_load(&cache, &small_kernel(base + k))
        },
        &o,
    )?;
    Ok((r, 0))
}

/// Runs `cuprum bench-child MODE DIR` `n` times; each prints its total seconds and the
/// seconds of the cache lookup alone (before the driver loads the module). `lookup_only`
/// keeps the second number instead of the first.
fn children(name: &str, mode: &str, dir: &std::path::Path, n: usize) -> R<PerfCaseResult> {
    children_pick(name, mode, dir, n, false)
}

fn children_pick(
    name: &str,
    mode: &str,
    dir: &std::path::Path,
    n: usize,
    lookup_only: bool,
) -> R<PerfCaseResult> {
    let exe = std::env::current_exe()?;
    let mut cpu = Vec::new();
    for _ in 0..n {
        let out = std::process::Command::new(&exe)
            .arg("bench-child")
            .arg(mode)
            .arg(dir)
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

fn compile_first(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let mut all = Vec::new();
    for _ in 0..o.n_repeat.clamp(1, 5) {
        let dir = temp_cache_dir("first");
        let r = children("compile_first_in_process", "first", &dir, 1);
        let _ = std::fs::remove_dir_all(&dir);
        all.extend(r?.cpu_times);
    }
    Ok((host_only("compile_first_in_process", all), 0))
}

fn compile_disk_hit(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let dir = temp_cache_dir("disk");
    compile_and_load(&KernelCache::new(Some(dir.clone())), &small_kernel(0))?;
    let r = children("compile_disk_hit", "disk", &dir, o.n_repeat.clamp(1, 10));
    let _ = std::fs::remove_dir_all(&dir);
    Ok((r?, 0))
}

fn compile_disk_hit_lookup(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let dir = temp_cache_dir("disklookup");
    compile_and_load(&KernelCache::new(Some(dir.clone())), &small_kernel(0))?;
    let r = children_pick(
        "compile_disk_hit_lookup",
        "disk",
        &dir,
        o.n_repeat.clamp(1, 10),
        true,
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok((r?, 0))
}

fn compile_memo_hit(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let src = "extern \"C\" __global__ void memo_hit_kernel() {}\n";
    let opts = CompileOptions::default();
    let s = Stream::current()?;
    let f = compile_with_cache(src, &opts)?.function("memo_hit_kernel")?;
    if f.num_params()? != 0 {
        return Err("memo_hit_kernel must take no parameters".into());
    }
    let r = benchmark(
        "compile_memo_hit",
        || {
            let f = compile_with_cache(src, &opts)?.function("memo_hit_kernel")?;
            // SAFETY: the kernel takes no parameters (checked above).
            unsafe { cuprum::internal::launch_no_args(&f, &s) }
        },
        o,
    )?;
    Ok((r, 0))
}

#[derive(Args)]
pub struct ChildArgs {
    /// `first` (empty cache: compile) or `disk` (the entry exists).
    mode: String,
    /// The cache folder.
    dir: PathBuf,
}

/// One timed compile + load in this fresh process; prints seconds.
pub fn child(args: &ChildArgs) -> R<ExitCode> {
    let dev = Device::get(0)?;
    dev.make_current();
    let cache = KernelCache::new(Some(args.dir.clone()));
    let src = small_kernel(if args.mode == "disk" { 0 } else { nonce() });
    let t = std::time::Instant::now();
    let img = cache.compile(&src, &CompileOptions::default(), dev.arch())?;
    let lookup = t.elapsed().as_secs_f64();
    Module::load(dev, &img.image)?.function("ew_add")?;
    let s = t.elapsed().as_secs_f64();
    let st = cache.stats();
    let expected = if args.mode == "disk" {
        st.disk_hits == 1
    } else {
        st.misses == 1
    };
    if !expected {
        return Err(format!(
            "bench-child {}: unexpected cache behaviour {st:?}",
            args.mode
        )
        .into());
    }
    out!("{s} {lookup}");
    Ok(ExitCode::SUCCESS)
}

fn copy_1gib(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let n = 1usize << 28;
    let src = Array::ones(&[n], DType::F32)?;
    let dst = Array::empty(&[n], DType::F32)?;
    let r = benchmark("copy_1GiB_f32", || dst.assign(&src), o)?;
    Ok((r, 2 * 4 * n as u64))
}

fn launch_floor(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let s = Stream::current()?;
    let r = benchmark("launch_floor", || cuprum::internal::launch_empty(&s), o)?;
    Ok((r, 0))
}

fn alloc_empty(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let r = benchmark(
        "alloc_empty_1M_f32",
        || Array::empty(&[1_000_000], DType::F32).map(drop),
        o,
    )?;
    Ok((r, 0))
}

pub fn run(args: &BenchArgs) -> R<ExitCode> {
    let dev = match Device::get(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cuprum bench needs a GPU: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let opts = BenchmarkOptions::new()
        .n_repeat(args.repeat.max(1))
        .n_warmup(3)
        .max_duration(Duration::from_secs(2));
    let selected: Vec<_> = WORKLOADS
        .iter()
        .filter(|(n, _, _)| args.filter.as_deref().is_none_or(|f| n.contains(f)))
        .collect();
    // The copy ceiling is always measured, in the same run, so percentages are comparable.
    let (copy, copy_bytes) = copy_1gib(&opts)?;
    let ceiling = copy_bytes as f64 / copy.gpu().median;
    let mut rows = Vec::new();
    for (name, what, f) in selected {
        let (r, bytes) = if *name == "copy_1GiB_f32" {
            (copy.clone(), copy_bytes)
        } else {
            f(&opts)?
        };
        let gpu = r.gpu().median;
        let bw = (bytes > 0).then(|| bytes as f64 / gpu);
        rows.push(Row {
            name,
            what,
            gpu_us: gpu * 1e6,
            cpu_us: r.cpu().median * 1e6,
            bytes,
            gb_per_s: bw.map(|b| b / 1e9),
            pct_of_copy: bw.map(|b| 100.0 * b / ceiling),
            repeats: r.cpu_times.len(),
        });
    }
    if args.json {
        let doc = serde_json::json!({
            "device": dev.name(),
            "copy_gb_per_s": ceiling / 1e9,
            "workloads": rows,
        });
        out!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        out!(
            "{} — copy ceiling {:.0} GB/s (medians of up to {} repeats)",
            dev.name(),
            ceiling / 1e9,
            args.repeat
        );
        let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(8);
        out!(
            "{:<w$} {:>12} {:>10} {:>10} {:>8}",
            "workload",
            "gpu µs",
            "cpu µs",
            "GB/s",
            "% copy"
        );
        for r in &rows {
            let opt = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |x| format!("{x:.p$}"));
            out!(
                "{:<w$} {:>12.2} {:>10.2} {:>10} {:>8}",
                r.name,
                r.gpu_us,
                r.cpu_us,
                opt(r.gb_per_s, 0),
                opt(r.pct_of_copy, 1)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

const ADD_SRC: &str = include_str!("../../../examples/kernels/vector_add_f32.cu");

fn raw_add(o: &BenchmarkOptions, name: &str, n: usize) -> R<(PerfCaseResult, u64)> {
    let k = RawKernel::new(ADD_SRC, "vector_add");
    let a = cuprum::random::random(&[n], DType::F32)?;
    let b = cuprum::random::random(&[n], DType::F32)?;
    let c = Array::empty(&[n], DType::F32)?;
    let blocks = (n as u32).div_ceil(256);
    let r = benchmark(name, || k.launch(blocks, 256, (&a, &b, &c, n as i32)), o)?;
    Ok((r, 12 * n as u64))
}

fn raw_add4(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let (r, _) = raw_add(o, "raw_add4_overhead", 4)?;
    Ok((r, 0))
}

fn raw_add100m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    raw_add(o, "raw_add100M_f32", 100_000_000)
}

const PRIME_SRC: &str = include_str!("../../../examples/kernels/prime_factor_sum.cu");

fn prime1m_raw(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let k = RawKernel::new(PRIME_SRC, "primeFactorizationSum");
    let n = 1_000_000usize;
    let a = Array::empty(&[n - 1], DType::I64)?;
    let blocks = ((n - 1) as u32).div_ceil(256);
    let r = benchmark(
        "prime1M_raw",
        || k.launch(blocks, 256, (&a, (n - 1) as i32)),
        o,
    )?;
    Ok((r, 0))
}

const MATMUL_SRC: &str = include_str!("../../../examples/kernels/matrix_multiply.cu");

fn matmul_naive(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let k = RawKernel::new(MATMUL_SRC, "matrix_multiply");
    let (m, n, kk) = (1024usize, 1024usize, 512usize);
    let a = cuprum::random::random(&[m, kk], DType::F32)?;
    let b = cuprum::random::random(&[kk, n], DType::F32)?;
    let c = Array::zeros(&[m, n], DType::F32)?;
    let grid = ((n as u32).div_ceil(16), (m as u32).div_ceil(16));
    let r = benchmark(
        "matmul_naive_1024x1024x512",
        || k.launch(grid, (16, 16), (&a, &b, &c, m as i32, n as i32, kk as i32)),
        o,
    )?;
    Ok((r, 0))
}

const SMEM_SRC: &str = include_str!("../../../examples/kernels/optimized_reduction.cu");

fn smem_reduce(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let k = RawKernel::new(SMEM_SRC, "optimized_reduction");
    let n = 1_000_000usize;
    let data = cuprum::random::random(&[n], DType::F32)?;
    let grid = (n as u32).div_ceil(256);
    let out = Array::zeros(&[grid as usize], DType::F32)?;
    let r = benchmark(
        "smem_reduce1M_raw",
        || {
            k.configure(grid, 256)
                .shared_mem(1024)
                .launch((&data, &out, n as i32))
        },
        o,
    )?;
    Ok((r, 4 * n as u64))
}

/// Inputs for the ElementwiseKernel and ReductionKernel workloads: uniform in [0.5, 1.5), so
/// never zero.
fn rand(shape: &[usize], dtype: DType) -> cuprum::Result<Array> {
    cuprum::random::uniform(0.5, 1.5, shape, dtype)
}

/// Times `call`, after one call outside the timing (which compiles the specialisation).
fn warm_bench(
    o: &BenchmarkOptions,
    name: &str,
    mut call: impl FnMut() -> cuprum::Result<()>,
) -> R<PerfCaseResult> {
    call()?;
    Ok(benchmark(name, call, o)?)
}

/// Arrays as the operands of a kernel call.
fn operands<'a>(args: &[&'a Array]) -> Vec<&'a dyn IntoOperand> {
    args.iter().map(|&a| a as &dyn IntoOperand).collect()
}

/// Times `k` on `args`: its inputs, then every output (written in place) or none (each
/// call allocates them).
fn ew_time(
    o: &BenchmarkOptions,
    name: &str,
    k: &ElementwiseKernel,
    args: &[&Array],
) -> R<PerfCaseResult> {
    let ops = operands(args);
    let ops = ops.as_slice();
    warm_bench(o, name, || {
        if k.nout() == 1 {
            k.call(ops).map(drop)
        } else {
            k.call_all(ops).map(drop)
        }
    })
}

/// The seed's `custom_add` (`z = x + y * 2`) on `n` float32, output given or allocated.
fn ew_add(o: &BenchmarkOptions, name: &str, n: usize, out: bool) -> R<PerfCaseResult> {
    let k = ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y * 2",
        "custom_add",
    )?;
    let (x, y) = (rand(&[n], DType::F32)?, rand(&[n], DType::F32)?);
    let z = Array::empty(&[n], DType::F32)?;
    let args: &[&Array] = if out { &[&x, &y, &z] } else { &[&x, &y] };
    ew_time(o, name, &k, args)
}

const EW_N: usize = 100_000_000;

fn ew_add100m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    Ok((ew_add(o, "ew_add100M_f32", EW_N, false)?, 12 * EW_N as u64))
}

fn ew_add100m_out(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    Ok((
        ew_add(o, "ew_add100M_f32_out", EW_N, true)?,
        12 * EW_N as u64,
    ))
}

fn ew_add4_out(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    Ok((ew_add(o, "ew_add4_f32_out_overhead", 4, true)?, 0))
}

fn ew_add4_alloc(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    Ok((ew_add(o, "ew_add4_f32_alloc_overhead", 4, false)?, 0))
}

const SIDE: usize = 10_000;

/// The generic `T z = x + y` into a preallocated output of `x`'s shape (`y` broadcasts).
fn generic_add_into(o: &BenchmarkOptions, name: &str, x: &Array, y: &Array) -> R<PerfCaseResult> {
    let k = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "generic_add")?;
    let z = Array::empty(x.shape(), x.dtype())?;
    ew_time(o, name, &k, &[x, y, &z])
}

fn ew_add_bcast(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let m = rand(&[SIDE, SIDE], DType::F32)?;
    let v = rand(&[SIDE], DType::F32)?;
    let r = generic_add_into(o, "ew_add_bcast_10000x10000_f32", &m, &v)?;
    Ok((r, 2 * 4 * (SIDE * SIDE) as u64))
}

fn ew_add_transposed(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let a = rand(&[SIDE, SIDE], DType::F32)?;
    let r = generic_add_into(o, "ew_add_transposed_10000x10000_f32", &a.t(), &a)?;
    Ok((r, 3 * 4 * (SIDE * SIDE) as u64))
}

const SMALL_N: usize = 10_000_000;

fn trig10m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let k = ElementwiseKernel::new(
        "T x",
        "T s, T c, T t",
        "s = sin(x); c = cos(x); t = tan(x)",
        "trig",
    )?;
    let x = rand(&[SMALL_N], DType::F32)?;
    let r = ew_time(o, "trig10M_multi_output", &k, &[&x])?;
    Ok((r, 4 * 4 * SMALL_N as u64))
}

fn abs2_10m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    // The seed's input: randn + 1j * randn.
    let (re, im) = (
        cuprum::random::normal(0.0, 1.0, &[SMALL_N], DType::F64)?,
        cuprum::random::normal(0.0, 1.0, &[SMALL_N], DType::F64)?,
    );
    let z = ElementwiseKernel::new(
        "float64 re, float64 im",
        "complex128 z",
        "z = complex<double>(re, im)",
        "make_complex",
    )?
    .call((&re, &im))?;
    drop((re, im));
    let k = ElementwiseKernel::new(
        "complex128 z",
        "float64 mag2",
        "mag2 = z.real() * z.real() + z.imag() * z.imag()",
        "abs_squared",
    )?;
    let r = ew_time(o, "abs2_10M_kernel", &k, &[&z])?;
    Ok((r, (16 + 8) * SMALL_N as u64))
}

/// The body of `primeFactorizationSum` (prime_factor_sum.cu) as an ElementwiseKernel
/// operation over the loop index `i`, writing `int64 A`.
const PRIME_OP: &str = include_str!("../../../examples/kernels/prime_factor_sum_elementwise.op");

fn prime1m_elementwise(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let k = ElementwiseKernel::new("", "int64 A", PRIME_OP, "prime_factor_sum")?;
    let a = Array::empty(&[1_000_000 - 1], DType::I64)?;
    Ok((ew_time(o, "prime1M_elementwise", &k, &[&a])?, 0))
}

/// Times the reduction `k` of `args` over `axis` (every axis when `None`); each call
/// allocates its output.
fn red_time(
    o: &BenchmarkOptions,
    name: &str,
    k: &ReductionKernel,
    axis: Option<isize>,
    args: &[&Array],
) -> R<PerfCaseResult> {
    let ops = operands(args);
    let ops = ops.as_slice();
    warm_bench(o, name, || {
        match axis {
            Some(a) => k.axis(a).call(ops),
            None => k.call(ops),
        }
        .map(drop)
    })
}

/// The seed's `mse_kernel` (`_in_ind.size()` is the number of reduced elements).
fn mse(o: &BenchmarkOptions, name: &str, n: usize) -> R<(PerfCaseResult, u64)> {
    let k = ReductionKernel::new(
        "T x, T y",
        "T z",
        "(x - y) * (x - y)",
        "a + b",
        "z = a / _in_ind.size()",
        Some("0"),
        "mse_kernel",
    )?;
    let [x, y] = mse_inputs(n)?;
    Ok((red_time(o, name, &k, None, &[&x, &y])?, 2 * 8 * n as u64))
}

/// The two float64 inputs of the MSE workloads.
fn mse_inputs(n: usize) -> cuprum::Result<[Array; 2]> {
    Ok([rand(&[n], DType::F64)?, rand(&[n], DType::F64)?])
}

fn mse100m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    mse(o, "mse100M_f64_ReductionKernel", EW_N)
}

/// The MSE with built-ins (a temporary per step), as `cp.mean((a - b) ** 2)`.
fn mse100m_mean(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let [x, y] = mse_inputs(EW_N)?;
    let r = warm_bench(o, "mse100M_f64_cp_mean", || {
        ops::mean(&ops::power(&(&x - &y)?, 2i32)?).map(drop)
    })?;
    Ok((r, 2 * 8 * EW_N as u64))
}

fn mse10m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    mse(o, "mse10M_f64_ReductionKernel", SMALL_N)
}

/// Sum of squares (the seeds' `sum_of_squares` / `l2_norm_sq`) of float32 `shape` over
/// `axis`; bytes: the input read once.
fn ssq(
    o: &BenchmarkOptions,
    name: &str,
    shape: &[usize],
    axis: Option<isize>,
) -> R<(PerfCaseResult, u64)> {
    let k = ReductionKernel::new(
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = a",
        Some("0"),
        "sum_of_squares",
    )?;
    let x = rand(shape, DType::F32)?;
    let r = red_time(o, name, &k, axis, &[&x])?;
    Ok((r, 4 * shape.iter().product::<usize>() as u64))
}

fn ssq100m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    ssq(o, "ssq100M_f32_ReductionKernel", &[EW_N], None)
}

fn ssq1m(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    ssq(o, "ssq1M_f32_ReductionKernel", &[1_000_000], None)
}

const SSQ_SIDE: usize = 8192;

fn ssq_axis1(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    ssq(o, "ssq_8192x8192_axis1", &[SSQ_SIDE, SSQ_SIDE], Some(1))
}

fn ssq_axis0(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    ssq(o, "ssq_8192x8192_axis0", &[SSQ_SIDE, SSQ_SIDE], Some(0))
}

fn ssq4(o: &BenchmarkOptions) -> R<(PerfCaseResult, u64)> {
    let (r, _) = ssq(o, "ssq4_ReductionKernel_overhead", &[4], None)?;
    Ok((r, 0))
}
