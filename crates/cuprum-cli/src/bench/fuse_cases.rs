//! The `cuprum::fuse` workloads: the seed's MSE fused (against the seed's ReductionKernel of
//! the same run), a chain of ten element-wise operations fused and unfused, the host time of
//! a repeat call, and the first call of a new fused function (in fresh processes with a
//! cache folder of their own, `cuprum bench-child fuse-cold`). scripts/cupy_bench.py times
//! `cupy.fuse` and plain CuPy under the same names.

use super::subprocess::{ChildMode, children, temp_cache_dir};
use super::timed::{R, Timed};
use cuprum::compile::{CompileOptions, KernelCache};
use cuprum::fuse::ArgSpec;
use cuprum::profiler::{BenchmarkOptions, benchmark};
use cuprum::runtime::Module;
use cuprum::{Array, DType, Device, ElementwiseKernel, Fused, fuse};
use std::time::Instant;

/// Inputs uniform in [0.5, 1.5), as the other workloads'.
fn rand(n: usize, d: DType) -> cuprum::Result<Array> {
    cuprum::random::uniform(0.5, 1.5, &[n], d)
}

const N: usize = 100_000_000;

/// The seed's MSE, `mean((a - b) ** 2)`: one ReductionKernel.
pub fn mse() -> Fused {
    fuse("mse", |[a, b]| (a - b).pow(2).mean())
}

/// `v * 1.0001 + 0.5`, five times: ten element-wise operations, one input, one output.
pub fn chain10() -> Fused {
    fuse("chain10", |[x]| {
        let mut v = x;
        for _ in 0..5 {
            v = v * 1.0001 + 0.5;
        }
        v
    })
}

/// Times `f` after one call outside the timing (which traces and compiles).
fn warm(
    o: &BenchmarkOptions,
    name: &str,
    mut f: impl FnMut() -> cuprum::Result<()>,
) -> R<cuprum::profiler::PerfCaseResult> {
    f()?;
    Ok(benchmark(name, f, o)?)
}

/// `mse100M_f64_fuse`: two float64 inputs of 1e8 (1.6 GB read), output allocated.
pub fn mse100m_fuse(o: &BenchmarkOptions) -> R<Timed> {
    let (x, y) = (rand(N, DType::F64)?, rand(N, DType::F64)?);
    let f = mse();
    let r = warm(o, "mse100M_f64_fuse", || f.call((&x, &y)).map(drop))?;
    Ok((r, 2 * 8 * N as u64))
}

/// `fuse_chain10_100M_f32`: the chain fused, 1e8 float32 in, 1e8 out (0.8 GB).
pub fn chain10_fused(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(N, DType::F32)?;
    let f = chain10();
    let r = warm(o, "fuse_chain10_100M_f32", || f.call((&x,)).map(drop))?;
    Ok((r, 2 * 4 * N as u64))
}

/// `fuse_chain10_100M_f32_unfused`: the same ten operations through `ops` (ten kernels,
/// nine temporaries); bytes counted as the fused version's (what the result needs).
pub fn chain10_unfused(o: &BenchmarkOptions) -> R<Timed> {
    let x = rand(N, DType::F32)?;
    let r = warm(o, "fuse_chain10_100M_f32_unfused", || {
        let mut v = (&x * 1.0001)?;
        v = (&v + 0.5)?;
        for _ in 0..4 {
            v = (&v * 1.0001)?;
            v = (&v + 0.5)?;
        }
        drop(v);
        Ok(())
    })?;
    Ok((r, 2 * 4 * N as u64))
}

/// `fuse_overhead`: host time of a repeat call of the fused MSE on 4 float64 pairs.
pub fn overhead(o: &BenchmarkOptions) -> R<Timed> {
    let (x, y) = (rand(4, DType::F64)?, rand(4, DType::F64)?);
    let f = mse();
    let r = warm(o, "fuse_overhead", || f.call((&x, &y)).map(drop))?;
    Ok((r, 0))
}

/// `fuse_compile_cold`: the first call of a new fused function (trace, plan, generate,
/// NVRTC compile, load, launch), NVRTC loaded, in fresh processes whose kernel cache is an
/// empty temporary folder (`bench-child fuse-cold`: each warms NVRTC with one fused
/// function, then gives the median of [`COLD_CALLS`] first calls of new ones; see
/// [`cold_first_call`]).
pub fn compile_cold(o: &BenchmarkOptions) -> R<Timed> {
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

/// How many new fused functions one `bench-child fuse-cold` process first-calls (the
/// median counts), as the other cold-compile rows time a median of new compiles in one
/// process after one that warms NVRTC (`compile_first_in_process` is the row for a
/// process's first compile). Each is a new kernel name, so no cache serves it (NVRTC's
/// own included: see `compile/program.rs` on `--no-cache`).
pub const COLD_CALLS: u64 = 7;

/// The timed part of one `bench-child fuse-cold` process: warms NVRTC with one fused
/// function, then returns the median seconds of the first calls of [`COLD_CALLS`] new
/// ones (`nonce` and their number make their names, hence their kernels, new), each
/// checked.
pub fn cold_first_call(nonce: u64) -> R<f64> {
    let dev = Device::get(0)?;
    dev.make_current();
    let x = rand(1 << 20, DType::F32)?;
    fuse(&format!("warm_{nonce}"), |[x]| x + 1.0).call((&x,))?;
    let hx = x.to_vec::<f32>()?;
    let mut times = Vec::new();
    for k in 0..COLD_CALLS {
        let f = fuse(&format!("cold_{nonce}_{k}"), |[x]| {
            (x * 2.0 + 1.0).maximum(0.0)
        });
        let t = std::time::Instant::now();
        let y = f.call((&x,))?;
        times.push(t.elapsed().as_secs_f64());
        // The result is right (also a check that the call did run).
        let v = y.to_vec::<f32>()?;
        if v.iter()
            .zip(&hx)
            .any(|(g, x)| *g != (x * 2.0 + 1.0).max(0.0))
        {
            return Err("fuse-cold: wrong result".into());
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// `bench-child fuse-cold-parts DIR` (a diagnostic; `DIR` the kernel cache's folder): the
/// pieces of a first call of a new fused function in a fresh process, in ms, as `name=ms`
/// pairs: `warm` (the first fused call: NVRTC load and first compile), `explain` (trace,
/// plan, lowering and the source of a new function, nothing compiled), `nvrtc` (that source
/// through NVRTC alone, memory-only cache), `load` (its module load), `call` (the whole
/// first call of another new fused function), `call_nvrtc` (how many NVRTC compiles that
/// call ran), `repeat` (its second call), `again` (the first call of a new `Fused` of the
/// same name: trace, plan and lowering again, the module from the process's memo,
/// allocation, launch — all but NVRTC and the load), `disk` (the same after `clear_memo`:
/// the disk cache's entry and the load besides), `again_nvrtc` (their NVRTC compiles: 0
/// when the split is clean), `alloc` (a new 4 MiB array), `ew` (the first call of a new
/// ElementwiseKernel doing the same), `synced` (a further new fused call, then a device
/// synchronisation).
pub fn cold_parts(nonce: u64, dir: &std::path::Path) -> R<String> {
    cuprum::compile::set_cache_dir(Some(dir.to_path_buf()));
    let dev = Device::get(0)?;
    dev.make_current();
    let x = rand(1 << 20, DType::F32)?;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    fuse(&format!("warm_{nonce}"), |[x]| x + 1.0).call((&x,))?;
    let warm = ms(t);
    let body = |[x]: [cuprum::fuse::Var; 1]| (x * 2.0 + 1.0).maximum(0.0);
    let t = Instant::now();
    let e = fuse(&format!("cold_a_{nonce}"), body)
        .explain_for(&[ArgSpec::array(DType::F32, &[1 << 20])])?;
    let explain = ms(t);
    let src = e
        .kernels()
        .first()
        .map(|k| k.source.clone())
        .ok_or("fuse-cold-parts: no kernel")?;
    let t = Instant::now();
    let img = KernelCache::new(None).compile(&src, &CompileOptions::default(), dev.arch())?;
    let nvrtc = ms(t);
    let t = Instant::now();
    Module::load(dev, &img.image)?;
    let load = ms(t);
    let f = fuse(&format!("cold_b_{nonce}"), body);
    let before = cuprum::internal::nvrtc_compiles();
    let t = Instant::now();
    f.call((&x,))?;
    let call = ms(t);
    let call_nvrtc = cuprum::internal::nvrtc_compiles() - before;
    let t = Instant::now();
    f.call((&x,))?;
    let repeat = ms(t);
    // New `Fused` objects of the same name: their first calls trace, plan and lower again,
    // then find the module in the process's memo (`again`), or, after `clear_memo`, the
    // image in the disk cache (`disk`).
    let before = cuprum::internal::nvrtc_compiles();
    let t = Instant::now();
    fuse(&format!("cold_b_{nonce}"), body).call((&x,))?;
    let again = ms(t);
    cuprum::clear_memo();
    let t = Instant::now();
    fuse(&format!("cold_b_{nonce}"), body).call((&x,))?;
    let disk = ms(t);
    let again_nvrtc = cuprum::internal::nvrtc_compiles() - before;
    let t = Instant::now();
    let a = cuprum::Array::empty(&[1 << 20], DType::F32)?;
    let alloc = ms(t);
    drop(a);
    let k = ElementwiseKernel::new(
        "float32 x",
        "float32 y",
        "y = max(x * 2.0f + 1.0f, 0.0f)",
        format!("cold_ew_{nonce}"),
    )?;
    let t = Instant::now();
    k.call((&x,))?;
    let ew = ms(t);
    let g = fuse(&format!("cold_c_{nonce}"), body);
    let t = Instant::now();
    g.call((&x,))?;
    dev.synchronize()?;
    let synced = ms(t);
    Ok(format!(
        "warm={warm:.2} explain={explain:.2} nvrtc={nvrtc:.2} load={load:.2} call={call:.2} \
         call_nvrtc={call_nvrtc} repeat={repeat:.3} again={again:.2} disk={disk:.2} \
         again_nvrtc={again_nvrtc} alloc={alloc:.3} ew={ew:.2} synced={synced:.2}"
    ))
}
