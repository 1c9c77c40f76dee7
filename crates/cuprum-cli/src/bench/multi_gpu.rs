//! The workloads over several GPUs: NCCL's all-reduce, all-gather, reduce-scatter and
//! broadcast of 1 GiB of float32 (their bus bandwidth, nccl-tests' factors) and the data-parallel MSE of 4e8 float64 with its scaling from 1 to N GPUs.
//! Both are n/a on a machine with one GPU (or without NCCL). Their verdicts carry numbers
//! the common columns do not have (bus bandwidth, per-count times, efficiency): each run
//! leaves a note ([`take_notes`]) that the report shows in the row's detail.
//!
//! Times are wall-clock times around each call with every GPU synchronised before and after
//! (the work spans several devices, so one device's events would not cover it); the row's
//! GPU and host columns both show that time.

use super::targets::{Status, Verdict};
use super::timed::{R, Timed};
use cuprum::nccl::{Communicator, ReduceOp};
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult};
use cuprum::{Array, DType, Device, ReductionKernel, random};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// The row names.
pub const ALLREDUCE: &str = "allreduce_1GiB_f32";
pub const ALLGATHER: &str = "allgather_1GiB_f32";
pub const REDUCE_SCATTER: &str = "reduce_scatter_1GiB_f32";
pub const BROADCAST: &str = "broadcast_1GiB_f32";
pub const MSE_MULTI: &str = "mse_multi_gpu_400M_f64";

/// A workload that does not apply on this machine; the text says why.
#[derive(Debug)]
pub struct NotApplicable(pub String);

impl std::fmt::Display for NotApplicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for NotApplicable {}

fn notes() -> &'static Mutex<HashMap<String, Verdict>> {
    static NOTES: std::sync::OnceLock<Mutex<HashMap<String, Verdict>>> = std::sync::OnceLock::new();
    NOTES.get_or_init(|| Mutex::new(HashMap::new()))
}

fn note(name: &str, v: Verdict) {
    notes()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(name.to_string(), v);
}

/// The verdicts the multi-GPU workloads left in this run, by row name.
pub fn take_notes() -> HashMap<String, Verdict> {
    std::mem::take(&mut *notes().lock().unwrap_or_else(|p| p.into_inner()))
}

/// Records why `name` does not apply and returns the error that says so.
fn not_applicable(name: &str, why: String) -> Box<dyn std::error::Error> {
    note(name, Verdict::na(why.clone()));
    Box::new(NotApplicable(why))
}

/// Every GPU when there are at least two and NCCL loads; else the n/a error.
fn devices(name: &str) -> R<Vec<Device>> {
    let all = Device::all()?;
    if all.len() < 2 {
        return Err(not_applicable(
            name,
            format!("needs ≥ 2 GPUs, this machine has {}", all.len()),
        ));
    }
    if let Err(e) = cuprum::nccl::version() {
        return Err(not_applicable(name, format!("needs NCCL: {e}")));
    }
    Ok(all)
}

fn sync_all(devs: &[Device]) -> cuprum::Result<()> {
    devs.iter().try_for_each(|d| d.synchronize())
}

/// Wall-clock seconds of each repeat of `f` (every GPU synchronised around each), after
/// `o.n_warmup` untimed calls, within `o.max_duration`.
fn wall_times(
    o: &BenchmarkOptions,
    devs: &[Device],
    mut f: impl FnMut() -> cuprum::Result<()>,
) -> cuprum::Result<Vec<f64>> {
    for _ in 0..o.n_warmup.max(1) {
        f()?;
    }
    sync_all(devs)?;
    let start = Instant::now();
    let mut times = Vec::new();
    for _ in 0..o.n_repeat.max(1) {
        let t = Instant::now();
        f()?;
        sync_all(devs)?;
        times.push(t.elapsed().as_secs_f64());
        if o.max_duration.is_some_and(|m| start.elapsed() > m) {
            break;
        }
    }
    Ok(times)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn result(name: &str, times: Vec<f64>) -> PerfCaseResult {
    PerfCaseResult {
        name: name.to_string(),
        cpu_times: times.clone(),
        gpu_times: times,
        device: 0,
    }
}

/// In-place NCCL all-reduce (sum) of 2^28 float32 on every GPU. The row's bytes are the
/// bus bytes (1 GiB × 2(n−1)/n), so its GB/s column is the bus bandwidth.
pub fn allreduce_1gib(o: &BenchmarkOptions) -> R<Timed> {
    collective_1gib(o, ALLREDUCE)
}

/// NCCL all-gather of 1 GiB of float32 in all (each GPU sends 1/n); bus bytes 1 GiB × (n−1)/n.
pub fn allgather_1gib(o: &BenchmarkOptions) -> R<Timed> {
    collective_1gib(o, ALLGATHER)
}

/// NCCL reduce-scatter (sum) of 1 GiB of float32 per GPU (each receives 1/n); bus bytes
/// 1 GiB × (n−1)/n.
pub fn reduce_scatter_1gib(o: &BenchmarkOptions) -> R<Timed> {
    collective_1gib(o, REDUCE_SCATTER)
}

/// NCCL broadcast of 1 GiB of float32 from GPU 0 to every GPU; bus bytes 1 GiB.
pub fn broadcast_1gib(o: &BenchmarkOptions) -> R<Timed> {
    collective_1gib(o, BROADCAST)
}

/// One collective on 2^28 float32 over every GPU of this process, nccl-tests' bus
/// bandwidth: the row's bytes are the bus bytes, so its GB/s column is the bus bandwidth.
fn collective_1gib(o: &BenchmarkOptions, name: &str) -> R<Timed> {
    let devs = devices(name)?;
    let n = devs.len();
    let count = 1usize << 28;
    let alloc = |len: usize| -> cuprum::Result<Vec<Array>> {
        devs.iter()
            .map(|&d| d.with(|| random::uniform(0.0, 1.0, &[len], DType::F32)))
            .collect()
    };
    let (full, part) = (alloc(count)?, alloc(count / n)?);
    let comm = Communicator::new(&devs)?;
    let nf = n as f64;
    let (factor, times) = match name {
        ALLGATHER => (
            (nf - 1.0) / nf,
            wall_times(o, &devs, || comm.all_gather(&part, &full))?,
        ),
        REDUCE_SCATTER => (
            (nf - 1.0) / nf,
            wall_times(o, &devs, || {
                comm.reduce_scatter(&full, &part, ReduceOp::Sum)
            })?,
        ),
        BROADCAST => (
            1.0,
            wall_times(o, &devs, || comm.broadcast(&full, &full, 0))?,
        ),
        _ => (
            2.0 * (nf - 1.0) / nf,
            wall_times(o, &devs, || comm.all_reduce(&full, &full, ReduceOp::Sum))?,
        ),
    };
    let t = median(&times);
    let bytes = (count * 4) as f64;
    let algbw = bytes / t / 1e9;
    let busbw = algbw * factor;
    note(
        name,
        Verdict {
            status: Status::NotApplicable,
            detail: format!(
                "{n} GPUs: bus bandwidth {busbw:.1} GB/s (algbw {algbw:.1} GB/s × {factor:.3}), \
                 {:.3} ms per call",
                t * 1e3
            ),
        },
    );
    Ok((result(name, times), (bytes * factor) as u64))
}

/// The MSE of 4e8 float64 pairs split over k GPUs: each reduces its shard with a
/// ReductionKernel (the seed's MSE with the shard's share folded in: `a * scale`,
/// `scale` = 1 / 4e8), NCCL's all-reduce sums the partial results. Timed for k = 1..N;
/// the row's times are N GPUs'; the target is the efficiency t1 / (2 · t2) at 2 GPUs.
pub fn mse_multi_gpu(o: &BenchmarkOptions) -> R<Timed> {
    let devs = devices(MSE_MULTI)?;
    let total = 400_000_000usize;
    let k = ReductionKernel::new(
        "T x, T y, T scale",
        "T z",
        "(x - y) * (x - y)",
        "a + b",
        "z = a * scale",
        Some("0"),
        "mse_multi_kernel",
    )?;
    let scale = 1.0 / total as f64;
    let mut per_count = Vec::new();
    let mut last = Vec::new();
    for g in 1..=devs.len() {
        let used = &devs[..g];
        // Shards of the same data layout for every count (fresh random data per shard).
        let mut shards = Vec::with_capacity(g);
        for (i, &d) in used.iter().enumerate() {
            let len = total * (i + 1) / g - total * i / g;
            let xy = d.with(|| -> cuprum::Result<[Array; 2]> {
                Ok([
                    random::uniform(0.0, 1.0, &[len], DType::F64)?,
                    random::uniform(0.0, 1.0, &[len], DType::F64)?,
                ])
            })?;
            shards.push(xy);
        }
        let parts: Vec<Array> = used
            .iter()
            .map(|&d| Array::zeros_on_device(d, &[], DType::F64))
            .collect::<cuprum::Result<_>>()?;
        let comm = Communicator::new(used)?;
        let times = wall_times(o, used, || {
            for ([x, y], p) in shards.iter().zip(&parts) {
                k.call((x, y, scale, p))?;
            }
            comm.all_reduce(&parts, &parts, ReduceOp::Sum)
        })?;
        per_count.push(median(&times));
        last = times;
        drop(shards);
        for &d in used {
            d.release_pool_memory()?;
        }
    }
    let t1 = per_count[0];
    let eff = |g: usize| t1 / (g as f64 * per_count[g - 1]);
    let table: Vec<String> = per_count
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                "{} GPU{}: {:.3} ms ({:.0} %)",
                i + 1,
                if i == 0 { "" } else { "s" },
                t * 1e3,
                100.0 * eff(i + 1)
            )
        })
        .collect();
    let e2 = 100.0 * eff(2);
    let met = e2 >= 90.0;
    note(
        MSE_MULTI,
        Verdict {
            status: if met { Status::Met } else { Status::Missed },
            detail: format!(
                "efficiency t1/(2·t2) {e2:.1} % {} 90 % at 2 GPUs; {}",
                if met { "≥" } else { "<" },
                table.join(", ")
            ),
        },
    );
    Ok((result(MSE_MULTI, last), 2 * 8 * total as u64))
}
