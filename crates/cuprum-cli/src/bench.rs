//! `cuprum bench`: the benchmark workloads of shared/reference/perf-targets.md that exist so
//! far, each timed with `cuprum::profiler::benchmark` (median of the repeats), with GB/s and
//! the fraction of the device-to-device copy bandwidth measured in the same run.

use clap::Args;
use cuprum::profiler::{BenchmarkOptions, PerfCaseResult, benchmark};
use cuprum::{Array, DType, Device, Stream};
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

type Workload = fn(&BenchmarkOptions) -> cuprum::Result<(PerfCaseResult, u64)>;

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
];

fn copy_1gib(o: &BenchmarkOptions) -> cuprum::Result<(PerfCaseResult, u64)> {
    let n = 1usize << 28;
    let src = Array::ones(&[n], DType::F32)?;
    let dst = Array::empty(&[n], DType::F32)?;
    let r = benchmark("copy_1GiB_f32", || dst.assign(&src), o)?;
    Ok((r, 2 * 4 * n as u64))
}

fn launch_floor(o: &BenchmarkOptions) -> cuprum::Result<(PerfCaseResult, u64)> {
    let s = Stream::current()?;
    let r = benchmark("launch_floor", || cuprum::internal::launch_empty(&s), o)?;
    Ok((r, 0))
}

fn alloc_empty(o: &BenchmarkOptions) -> cuprum::Result<(PerfCaseResult, u64)> {
    let r = benchmark(
        "alloc_empty_1M_f32",
        || Array::empty(&[1_000_000], DType::F32).map(drop),
        o,
    )?;
    Ok((r, 0))
}

pub fn run(args: &BenchArgs) -> cuprum::Result<ExitCode> {
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
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        println!(
            "{} — copy ceiling {:.0} GB/s (medians of up to {} repeats)",
            dev.name(),
            ceiling / 1e9,
            args.repeat
        );
        println!(
            "{:<24} {:>12} {:>10} {:>10} {:>8}",
            "workload", "gpu µs", "cpu µs", "GB/s", "% copy"
        );
        for r in &rows {
            let opt = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |x| format!("{x:.p$}"));
            println!(
                "{:<24} {:>12.2} {:>10.2} {:>10} {:>8}",
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
