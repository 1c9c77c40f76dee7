//! The host-device workloads (`host_*`): kernels on the CPU through cuprum's host device,
//! each beside a *twin*, plain Rust doing the same work on the same machine in the same run
//! (alternating calls, so both see the same load): the seed's element-wise add of 1e7
//! float32 against a loop over every core (`std::thread::scope`), seed 003's prime-factor
//! sum RawKernel against the same algorithm through rayon, and the compile cases of a
//! generated kernel (a cold g++ compile; a disk hit in a fresh process). They run on
//! `Device::host()` whatever the current device is, so a GPU machine measures them too.
//!
//! A twin's times reach the report through [`take_twins`] (like the multi-GPU notes): its
//! row shows them beside ours, and `VsTwin` targets compare the two.

use super::subprocess::{ChildMode, children, nonce, temp_cache_dir};
use super::targets::Times;
use super::timed::{R, Timed};
use crate::seeds;
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::{Array, DType, Device, ElementwiseKernel};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A twin's times by row name.
fn twins() -> &'static Mutex<HashMap<String, Times>> {
    static M: std::sync::OnceLock<Mutex<HashMap<String, Times>>> = std::sync::OnceLock::new();
    M.get_or_init(Default::default)
}

/// The twins' times the host workloads left in this run, by row name.
pub fn take_twins() -> HashMap<String, Times> {
    std::mem::take(&mut *twins().lock().unwrap_or_else(|p| p.into_inner()))
}

/// Times `ours` (on the host device) and `twin` alternately after a call of each outside
/// the timing: up to `o.n_repeat` pairs, stopping after `o.max_duration` of both. Records
/// the twin's medians under `name`; returns ours (its "GPU" times are the wall times of
/// the synchronous work, as for any host-device benchmark).
fn paired(
    o: &BenchmarkOptions,
    name: &str,
    mut ours: impl FnMut() -> cuprum::Result<()>,
    mut twin: impl FnMut(),
) -> R<PerfCaseResult> {
    let dev = Device::host();
    ours()?;
    dev.synchronize()?;
    twin();
    let (mut us, mut them) = (Vec::new(), Vec::new());
    let mut total = Duration::ZERO;
    for _ in 0..o.n_repeat.max(1) {
        let t = Instant::now();
        ours()?;
        dev.synchronize()?;
        let a = t.elapsed();
        let t = Instant::now();
        twin();
        let b = t.elapsed();
        us.push(a.as_secs_f64());
        them.push(b.as_secs_f64());
        total += a + b;
        if o.max_duration.is_some_and(|m| total > m) {
            break;
        }
    }
    let result = |times: Vec<f64>| PerfCaseResult {
        name: name.into(),
        gpu_times: times.clone(),
        cpu_times: times,
        device: dev.ordinal(),
    };
    let twin_median = result(them).cpu().median * 1e6;
    twins().lock().unwrap_or_else(|p| p.into_inner()).insert(
        name.to_string(),
        Times {
            gpu_us: twin_median,
            cpu_us: twin_median,
        },
    );
    Ok(result(us))
}

/// How many elements the element-wise add takes.
const ADD_N: usize = 10_000_000;

/// `z = x + y * 2` over `x`, `y`, `z` split into one contiguous share per core.
fn add_twin(x: &[f32], y: &[f32], z: &mut [f32]) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = z.len().div_ceil(cores).max(1);
    std::thread::scope(|s| {
        for ((z, x), y) in z
            .chunks_mut(share)
            .zip(x.chunks(share))
            .zip(y.chunks(share))
        {
            s.spawn(move || {
                for ((z, x), y) in z.iter_mut().zip(x).zip(y) {
                    *z = x + y * 2.0;
                }
            });
        }
    });
}

/// The seed's `custom_add` ElementwiseKernel (`z = x + y * 2`) over 1e7 float32 on the host
/// device, output given, beside [`add_twin`]; both results checked equal first.
pub fn ew_add10m(o: &BenchmarkOptions) -> R<Timed> {
    Device::host().with(|| {
        let name = "host_ew_add10M_f32";
        let k = seeds::elementwise::custom_add_kernel()?;
        let x = cuprum::random::uniform(0.5, 1.5, &[ADD_N], DType::F32)?;
        let y = cuprum::random::uniform(0.5, 1.5, &[ADD_N], DType::F32)?;
        let z = Array::empty(&[ADD_N], DType::F32)?;
        let (hx, hy) = (x.to_vec::<f32>()?, y.to_vec::<f32>()?);
        let mut hz = vec![0.0f32; ADD_N];
        k.call((&x, &y, &z))?;
        add_twin(&hx, &hy, &mut hz);
        if z.to_vec::<f32>()? != hz {
            return Err(format!("{name}: the kernel and its Rust twin disagree").into());
        }
        let r = paired(
            o,
            name,
            || k.call((&x, &y, &z)).map(drop),
            || add_twin(&hx, &hy, &mut hz),
        )?;
        Ok((r, 12 * ADD_N as u64))
    })
}

/// Seed 003's prime-factor sums of 2..=1e6 through rayon (the host reference's trial
/// division, one value per item).
fn prime_twin(out: &mut [i64]) {
    out.par_iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v = seeds::prime::prime_factor_sum(i as i64 + 2));
}

/// Seed 003's prime-factor-sum RawKernel (as `prime1M_raw`: 256 threads a block) on the
/// host device, beside [`prime_twin`]; both checked against the host sums first.
pub fn prime1m(o: &BenchmarkOptions) -> R<Timed> {
    Device::host().with(|| {
        let name = "host_prime1M_raw";
        let k = seeds::prime::raw_kernel();
        let n = seeds::prime::LEN;
        let a = Array::empty(&[n], DType::I64)?;
        let blocks = (n as u32).div_ceil(256);
        let launch = || k.launch(blocks, 256, (&a, n as i32));
        let mut twin = vec![0i64; n];
        launch()?;
        prime_twin(&mut twin);
        let want = seeds::prime::host_sums();
        if a.to_vec::<i64>()? != want || twin != want {
            return Err(format!("{name}: the kernel or its Rust twin is off the host sums").into());
        }
        let r = paired(o, name, launch, || prime_twin(&mut twin))?;
        Ok((r, 0))
    })
}

/// The generated kernel of the host compile cases: an ElementwiseKernel whose name holds
/// `nonce` (so its generated source, hence its cache key, is new for a new nonce).
fn nonce_kernel(nonce: u64) -> cuprum::Result<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y * 2",
        format!("host_add_{nonce}"),
    )
}

/// The three small float32 operands of the compile cases.
fn small_operands() -> cuprum::Result<[Array; 3]> {
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
    let y = Array::from_slice(&[10.0f32, 20.0, 30.0, 40.0], &[4])?;
    Ok([x, y, Array::empty(&[4], DType::F32)?])
}

/// The first call of a fresh `nonce_kernel(nonce)` on `x, y, z` (code generation, compile
/// or cache lookup, load, launch), checked.
fn first_call(nonce: u64, [x, y, z]: &[Array; 3]) -> R<()> {
    nonce_kernel(nonce)?.call((x, y, z))?;
    let v = z.to_vec::<f32>()?;
    if v != [21.0, 42.0, 63.0, 84.0] {
        return Err(format!("host compile case: wrong result {v:?}").into());
    }
    Ok(())
}

/// Runs `f` with the host device's compiled kernels in `dir` (a folder of the bench's
/// own: the user's cache is untouched), then back to the default.
fn in_host_cache<T>(dir: &Path, f: impl FnOnce() -> T) -> T {
    cuprum::compile::set_host_cache_dir(Some(dir.to_path_buf()));
    let r = f();
    cuprum::compile::set_host_cache_dir(None);
    r
}

/// Cold compiles on the host device: first calls of new generated kernels (g++ runs each
/// time, at the default `-O` level), after one untimed compile that builds the
/// precompiled shim of the folder (as a user's first compile does once).
pub fn compile_cold(o: &BenchmarkOptions) -> R<Timed> {
    let dir = temp_cache_dir("host-cold");
    let r = Device::host().with(|| {
        in_host_cache(&dir, || -> R<PerfCaseResult> {
            let ops = small_operands()?;
            let base = nonce();
            first_call(base, &ops)?;
            let mut k = 0u64;
            let o = o.clone().n_repeat(o.n_repeat.clamp(1, 10)).n_warmup(0);
            let mut failure = None;
            let r = benchmark(
                "host_compile_cold_elementwise",
                || {
                    k += 1;
                    if let Err(e) = first_call(base + k, &ops) {
                        failure.get_or_insert(e.to_string());
                    }
                    Ok(())
                },
                &o,
            )?;
            match failure {
                Some(e) => Err(e.into()),
                None => Ok(r),
            }
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
    Ok((r?, 0))
}

/// Disk hits on the host device: fresh processes (`cuprum bench-child host-disk DIR`) each
/// making a new kernel object whose compiled module is in DIR, written here first.
pub fn disk_hit(o: &BenchmarkOptions) -> R<Timed> {
    let name = "host_compile_disk_hit";
    let dir = temp_cache_dir("host-disk");
    let prime = Device::host()
        .with(|| in_host_cache(&dir.join("host"), || first_call(0, &small_operands()?)));
    let r = prime.and_then(|()| {
        children(
            name,
            ChildMode::HostDisk,
            &dir,
            o.n_repeat.clamp(1, 10),
            false,
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    Ok((r?, 0))
}

/// One `bench-child host-disk DIR`: seconds of the first call of a fresh kernel object whose
/// module is on disk in `DIR/host` (the operands made before the clock starts), checked to
/// be a disk hit.
pub fn disk_hit_child(dir: &Path) -> R<f64> {
    let dev = Device::host();
    dev.make_default();
    cuprum::compile::set_host_cache_dir(Some(dir.join("host")));
    let ops = small_operands()?;
    let cache = cuprum::compile::KernelCache::global()?;
    let before = cache.stats();
    let t = Instant::now();
    first_call(0, &ops)?;
    let s = t.elapsed().as_secs_f64();
    let after = cache.stats();
    if after.disk_hits != before.disk_hits + 1 || after.misses != before.misses {
        return Err(format!("bench-child host-disk: not a disk hit {after:?}").into());
    }
    Ok(s)
}
