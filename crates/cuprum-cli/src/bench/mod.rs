//! `cuprum bench`: every workload of the project's performance targets (workloads.rs, the
//! one source of the targets; `cuprum bench --list` prints them as the table of
//! docs/perf-targets.md, and a unit test here checks that file against them), each timed
//! with `cuprum::profiler::benchmark` (median of the repeats), with GB/s, the fraction of
//! the device-to-device copy bandwidth measured in the same run, and its target met or missed
//! (targets.rs). `--vs-cupy` runs the same workloads through CuPy in the same invocation
//! (cupy.rs), `--vs-torch` PyTorch's twins of the rows that have one (the same script,
//! shown beside, never judged: the targets name CuPy or cuprum's own rows); `--plot` draws the bandwidth fractions (plot.rs); `--from-json` reprints and
//! replots a saved `--json` run without a GPU.
//!
//! The host-device rows (`host_*`, host_cases.rs) run on `Device::host()` on any machine,
//! each timed alternately with its Rust twin (`VsTwin` targets compare the two); without a
//! GPU, or with `CUPRUM_DEVICE=host`, only they run and the GPU rows are n/a.

mod bundle_cases;
mod child;
mod compile_cases;
mod cupy;
mod fuse_cases;
mod graph_cases;
mod host_cases;
mod jit_workloads;
mod kernels;
mod multi_gpu;
mod plot;
mod report;
mod shape_workloads;
mod subprocess;
mod targets;
mod timed;
mod transfer_cases;
mod type_workloads;
mod workloads;

pub use child::{ChildArgs, child};

use clap::Args;
use cuprum::Device;
use cuprum::profiler::BenchmarkOptions;
use indicatif::{ProgressBar, ProgressStyle};
use report::{CupyCols, CupyInfo, Report, Row, TorchCols, TorchInfo, TwinCols};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use targets::{Context, Measured, Times, Verdict};
use timed::{R, Timed};
use workloads::{COPY, FLOOR, Impl, WORKLOADS, Workload};

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
    /// Also run the workloads through CuPy (the script ships with cuprum) where
    /// `python3 -c "import cupy"` works, and show both side by side with the ratio.
    #[arg(long)]
    vs_cupy: bool,
    /// Also run PyTorch's twins (the rows scripts/cupy_bench.py names one for) where
    /// `python3 -c "import torch"` works, and show their GPU time and the ratio.
    #[arg(long)]
    vs_torch: bool,
    /// Draw the % of the copy bandwidth of each bandwidth-bound workload (and its target)
    /// to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Read the results from a saved `--json` output instead of running (no GPU needed):
    /// print them again, and draw them with --plot.
    #[arg(long, value_name = "FILE.json", conflicts_with_all = ["vs_cupy", "vs_torch", "filter"])]
    from_json: Option<PathBuf>,
    /// Print every workload and its target as a Markdown table (docs/perf-targets.md) and
    /// exit; needs no GPU.
    #[arg(long, conflicts_with_all = ["vs_cupy", "vs_torch", "from_json", "json", "plot"])]
    list: bool,
}

pub fn run(args: &BenchArgs) -> R<ExitCode> {
    if args.list {
        out!("{}", workloads::targets_markdown());
        return Ok(ExitCode::SUCCESS);
    }
    let report = match &args.from_json {
        Some(path) => serde_json::from_str(&std::fs::read_to_string(path)?).map_err(|e| {
            format!(
                "{}: not a `cuprum bench --json` output: {e}",
                path.display()
            )
        })?,
        None => measure(args, gpu_device())?,
    };
    show(args, &report)?;
    if FAILED_WORKLOADS.load(Ordering::Relaxed) > 0 {
        eprintln!(
            "{} workload(s) failed (their rows show no numbers; each error is printed above)",
            FAILED_WORKLOADS.load(Ordering::Relaxed)
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Workloads of this run that failed: reported and left out, and the exit status says so.
static FAILED_WORKLOADS: AtomicUsize = AtomicUsize::new(0);

/// Prints `report` (table or JSON) and draws it with `--plot`.
fn show(args: &BenchArgs, report: &Report) -> R<()> {
    if args.json {
        out!("{}", serde_json::to_string_pretty(report)?);
    } else {
        for line in report.table() {
            out!("{line}");
        }
    }
    if let Some(path) = &args.plot {
        let title = format!("% of copy bandwidth, {}", report.device);
        plot::draw(path, &title, &plot::bars(report))?;
        eprintln!("plot written to {}", path.display());
    }
    Ok(())
}

/// The GPU the GPU rows run on, or why there is none: without a GPU, or with the host
/// device current (`CUPRUM_DEVICE=host`), only the host-device rows run; the others are n/a.
fn gpu_device() -> Result<Device, String> {
    if Device::current().is_ok_and(Device::is_host) {
        return Err("the current device is the host device (CUPRUM_DEVICE=host)".into());
    }
    Device::get(0).map_err(|e| e.to_string())
}

/// Runs the selected workloads (and CuPy's with `--vs-cupy`) and judges every target: on
/// `gpu` the GPU rows, on the host device the host rows.
fn measure(args: &BenchArgs, gpu: Result<Device, String>) -> R<Report> {
    let mut selected: Vec<&Workload> = WORKLOADS
        .iter()
        .filter(|w| args.filter.as_deref().is_none_or(|f| w.name.contains(f)))
        .collect();
    // A filtered run also measures the rows its targets compare with (`prime1M_jit` needs
    // `prime1M_raw` of the same run).
    let referenced: Vec<&'static str> =
        selected.iter().flat_map(|w| w.target.ours_rows()).collect();
    for name in referenced {
        if let Some(w) = workloads::find(name)
            && !selected.iter().any(|s| s.name == name)
        {
            selected.push(w);
        }
    }
    let ours = run_ours(args, &selected, gpu.as_ref().ok().copied())?;
    let mut notes = multi_gpu::take_notes();
    if gpu.is_err() {
        for w in selected.iter().filter(|w| !w.on_host) {
            notes.insert(w.name.to_string(), Verdict::na("needs a GPU (see above)"));
        }
    }
    let mut cx = Context {
        ours: ours
            .rows
            .iter()
            .filter_map(|(w, n)| Some((w.name.to_string(), n.as_ref()?.times)))
            .collect(),
        cupy: None,
        torch: None,
        floor_cpu_us: ours.floor_cpu_us,
        notes,
        twins: host_cases::take_twins(),
    };
    let cupy = if let (true, Ok(dev)) = (args.vs_cupy, &gpu) {
        if let Err(e) = dev.release_pool_memory() {
            eprintln!("warning: cuprum's memory pool could not be released for CuPy: {e}");
        }
        let side = run_cupy(args, &selected);
        if let (Err(why), true) = (&side, args.json) {
            eprintln!("{why}; showing cuprum's rows only");
        }
        let info = cupy_info(&side, ours.ceiling.unwrap_or(0.0));
        cx.cupy = side.ok().map(|s| s.rows);
        Some(info)
    } else if args.vs_cupy {
        Some(CupyInfo {
            available: false,
            note: "CuPy needs a GPU".into(),
            copy_gb_per_s: None,
            ceiling: String::new(),
        })
    } else {
        None
    };
    let (torch, torch_rows) = torch_side(args, &gpu);
    if torch.as_ref().is_some_and(|t| t.available) {
        cx.torch = Some(torch_rows.clone());
    }
    let cupy_ceiling = cupy.as_ref().and_then(|c| c.copy_gb_per_s).map(|g| g * 1e9);
    let workloads = ours
        .rows
        .into_iter()
        .map(|(w, n)| {
            let mut r = row(w, n, &cx, cupy_ceiling);
            r.torch = torch_rows.get(w.name).map(|t| TorchCols {
                gpu_us: t.gpu_us,
                cpu_us: t.cpu_us,
                gpu_ratio: r.gpu_us.filter(|&o| o > 0.0).map(|o| t.gpu_us / o),
            });
            r
        })
        .collect();
    let device = match &gpu {
        Ok(dev) => dev.name().to_string(),
        Err(why) => format!(
            "no GPU ({why}): the host rows only, on the host device ({})",
            Device::host().name()
        ),
    };
    Ok(Report {
        device,
        copy_gb_per_s: ours.ceiling.map(|c| c / 1e9),
        launch_floor_cpu_us: cx.floor_cpu_us,
        repeat: args.repeat,
        cupy,
        torch,
        workloads,
    })
}

/// PyTorch's side with `--vs-torch` (after cuprum's pool is released): what the report says
/// about it and its rows; nothing without the flag.
fn torch_side(
    args: &BenchArgs,
    gpu: &Result<Device, String>,
) -> (Option<TorchInfo>, HashMap<String, Times>) {
    if !args.vs_torch {
        return (None, HashMap::new());
    }
    let dev = match gpu {
        Ok(dev) => dev,
        Err(_) => {
            let note = "PyTorch needs a GPU".to_string();
            return (
                Some(TorchInfo {
                    available: false,
                    note,
                }),
                HashMap::new(),
            );
        }
    };
    if let Err(e) = dev.release_pool_memory() {
        eprintln!("warning: cuprum's memory pool could not be released for PyTorch: {e}");
    }
    let side = cupy::importable_lib(cupy::Lib::Torch).and_then(|()| {
        let filters: Vec<String> = args.filter.iter().cloned().collect();
        cupy::run_lib(cupy::Lib::Torch, args.repeat.max(1), &filters)
            .map_err(|e| format!("the PyTorch script could not be run: {e}"))
    });
    match side {
        Ok(s) => (
            Some(TorchInfo {
                available: true,
                note: s.note,
            }),
            s.rows,
        ),
        Err(note) => (
            Some(TorchInfo {
                available: false,
                note,
            }),
            HashMap::new(),
        ),
    }
}

/// cuprum's side of one run.
struct Ours {
    /// Each selected workload and its numbers (`None`: not implemented).
    rows: Vec<(&'static Workload, Option<Numbers>)>,
    /// The copy bandwidth in B/s (`None` without a GPU).
    ceiling: Option<f64>,
    floor_cpu_us: Option<f64>,
}

/// Runs `selected`, after the copy ceiling (always measured on a GPU) and the launch floor
/// (whenever a target needs it), so that percentages and floors come from the same run.
/// Without `gpu` only the host-device rows run.
fn run_ours(args: &BenchArgs, selected: &[&'static Workload], gpu: Option<Device>) -> R<Ours> {
    let opts = BenchmarkOptions::new()
        .n_repeat(args.repeat.max(1))
        .n_warmup(3)
        .max_duration(Duration::from_secs(2));
    // A bar over the workloads on a terminal (hidden in logs); each workload's line is
    // printed above it either way.
    let progress = ProgressBar::new(selected.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let timed = |w: &Workload| -> R<Option<Timed>> {
        let Impl::Run(f) = w.imp else {
            return Ok(None);
        };
        if !w.on_host && gpu.is_none() {
            return Ok(None);
        }
        progress.set_message(w.name);
        let t = match f(&opts) {
            Ok(t) => t,
            Err(e) if e.is::<multi_gpu::NotApplicable>() => {
                progress.suspend(|| eprintln!("  cuprum {}: n/a ({e})", w.name));
                return Ok(None);
            }
            // One workload that fails (a wrong result, a kernel that would not load) is
            // reported and left out; the rest of the run still measures, and the exit
            // status is a failure.
            Err(e) => {
                progress.suspend(|| eprintln!("  cuprum {}: FAILED: {e}", w.name));
                FAILED_WORKLOADS.fetch_add(1, Ordering::Relaxed);
                return Ok(None);
            }
        };
        let (gpu, cpu) = (t.0.gpu().median * 1e6, t.0.cpu().median * 1e6);
        progress.suspend(|| eprintln!("  cuprum {}: gpu {gpu:.2} µs, cpu {cpu:.2} µs", w.name));
        Ok(Some(t))
    };
    let needs_floor = selected.iter().any(|w| w.target.needs_floor());
    let mut done: HashMap<&str, Timed> = HashMap::new();
    if gpu.is_some() {
        for name in [COPY].into_iter().chain(needs_floor.then_some(FLOOR)) {
            if let Some(t) = workloads::find(name).map(timed).transpose()?.flatten() {
                done.insert(name, t);
            }
        }
    }
    let ceiling = match done.get(COPY) {
        Some((copy, copy_bytes)) => Some(*copy_bytes as f64 / copy.gpu().median),
        None if gpu.is_some() => return Err("the copy workload did not run".into()),
        None => None,
    };
    let host_us = |(r, _): &Timed| r.cpu().median * 1e6;
    let mut floor_cpu_us = done.get(FLOOR).map(host_us);
    let mut rows = Vec::new();
    for &w in selected {
        let t = match done.remove(w.name) {
            Some(t) => Some(t),
            None => timed(w)?,
        };
        if w.name == FLOOR {
            floor_cpu_us = t.as_ref().map(host_us);
        }
        // Host rows show GB/s but no % of the GPU's copy.
        let ceiling = if w.on_host { None } else { ceiling };
        rows.push((w, t.map(|t| row_numbers(&t, ceiling))));
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(Ours {
        rows,
        ceiling,
        floor_cpu_us,
    })
}

/// The numbers of one measured row, with `ceiling` the copy bandwidth in B/s.
struct Numbers {
    times: Times,
    bytes: u64,
    repeats: usize,
    ceiling: Option<f64>,
}

fn row_numbers((r, bytes): &Timed, ceiling: Option<f64>) -> Numbers {
    Numbers {
        times: Times {
            gpu_us: r.gpu().median * 1e6,
            cpu_us: r.cpu().median * 1e6,
        },
        bytes: *bytes,
        repeats: r.cpu_times.len(),
        ceiling,
    }
}

/// GB/s and % of `ceiling` (B/s) of moving `bytes` in `gpu_us`; `None` when no bytes count
/// (and no % without a ceiling).
fn bandwidth(bytes: u64, gpu_us: f64, ceiling: Option<f64>) -> (Option<f64>, Option<f64>) {
    let bw = (bytes > 0 && gpu_us > 0.0).then(|| bytes as f64 / (gpu_us * 1e-6));
    let pct = bw.zip(ceiling.filter(|&c| c > 0.0));
    (bw.map(|b| b / 1e9), pct.map(|(b, c)| 100.0 * b / c))
}

/// The row of `w`: its numbers (`None`: not implemented), verdict and CuPy columns.
fn row(w: &Workload, n: Option<Numbers>, cx: &Context, cupy_ceiling: Option<f64>) -> Row {
    let cupy_times = cx.cupy.as_ref().and_then(|rows| rows.get(w.name));
    let why = match w.imp {
        Impl::Missing(why) => why,
        Impl::Run(_) => "not run",
    };
    let why = cx.notes.get(w.name).map_or(why, |v| v.detail.as_str());
    let base = Row::unmeasured(w.name, w.what, w.target.to_string(), why);
    let Some(n) = n else {
        let cupy = cupy_times.map(|&c| cupy_cols(c, None, 0, cupy_ceiling));
        return Row { cupy, ..base };
    };
    let (gb_per_s, pct_of_copy) = bandwidth(n.bytes, n.times.gpu_us, n.ceiling);
    let m = Measured {
        times: n.times,
        pct_of_copy,
    };
    // The multi-GPU rows judge themselves (bus bandwidth, scaling): their note wins.
    let verdict = match cx.notes.get(w.name) {
        Some(v) => v.clone(),
        None => w.target.judge(w.name, &m, cx),
    };
    let ceiling = cupy_ceiling.or(n.ceiling);
    let twin = cx.twins.get(w.name).map(|t| TwinCols {
        us: t.gpu_us,
        ratio: (n.times.gpu_us > 0.0).then(|| t.gpu_us / n.times.gpu_us),
    });
    Row {
        gpu_us: Some(n.times.gpu_us),
        cpu_us: Some(n.times.cpu_us),
        bytes: n.bytes,
        gb_per_s,
        pct_of_copy,
        repeats: n.repeats,
        status: verdict.status,
        detail: verdict.detail,
        cupy: cupy_times.map(|&c| cupy_cols(c, Some(n.times), n.bytes, ceiling)),
        twin,
        ..base
    }
}

/// CuPy's columns: its times, bandwidth against `ceiling` (B/s) and the ratios to `ours`.
fn cupy_cols(c: Times, ours: Option<Times>, bytes: u64, ceiling: Option<f64>) -> CupyCols {
    let (gb_per_s, pct_of_copy) = bandwidth(bytes, c.gpu_us, ceiling);
    let ratio = |theirs: f64, ours: f64| (ours > 0.0).then(|| theirs / ours);
    CupyCols {
        gpu_us: c.gpu_us,
        cpu_us: c.cpu_us,
        gb_per_s,
        pct_of_copy,
        gpu_ratio: ours.and_then(|o| ratio(c.gpu_us, o.gpu_us)),
        cpu_ratio: ours.and_then(|o| ratio(c.cpu_us, o.cpu_us)),
    }
}

/// CuPy's side, or why there is none.
fn run_cupy(args: &BenchArgs, selected: &[&Workload]) -> Result<cupy::Side, String> {
    cupy::importable()?;
    cupy::run(
        args.repeat.max(1),
        &script_filters(args.filter.as_deref(), selected),
    )
    .map_err(|e| format!("the CuPy script could not be run: {e}"))
}

/// The script's `--filter`s: the user's, plus every CuPy row a selected target reads that the
/// user's filter leaves out; none without a filter (every workload runs).
fn script_filters(filter: Option<&str>, selected: &[&Workload]) -> Vec<String> {
    let Some(f) = filter else {
        return Vec::new();
    };
    let mut filters = vec![f.to_string()];
    for w in selected {
        for name in w.target.cupy_rows(w.name) {
            if !name.contains(f) && !filters.iter().any(|x| x == name) {
                filters.push(name.to_string());
            }
        }
    }
    filters
}

/// What the report says about the CuPy side, with the ceiling its % of copy uses: its own
/// copy row when the script ran it, else cuprum's of this run.
fn cupy_info(side: &Result<cupy::Side, String>, ours: f64) -> CupyInfo {
    let side = match side {
        Ok(s) => s,
        Err(why) => {
            return CupyInfo {
                available: false,
                note: why.clone(),
                copy_gb_per_s: None,
                ceiling: String::new(),
            };
        }
    };
    let copy_bytes = workloads::COPY_BYTES as f64;
    let (ceiling, source) = match side.rows.get(COPY) {
        Some(t) if t.gpu_us > 0.0 => (
            copy_bytes / (t.gpu_us * 1e-6),
            format!("CuPy's own {COPY} row"),
        ),
        _ => (ours, format!("cuprum's {COPY} in this run")),
    };
    CupyInfo {
        available: true,
        note: side.note.clone(),
        copy_gb_per_s: Some(ceiling / 1e9),
        ceiling: source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selected(filter: &str) -> Vec<&'static Workload> {
        WORKLOADS
            .iter()
            .filter(|w| w.name.contains(filter))
            .collect()
    }

    #[test]
    fn the_script_also_runs_the_cupy_rows_the_targets_read() {
        assert!(script_filters(None, &selected("")).is_empty());
        assert_eq!(
            script_filters(Some("prime1M_e"), &selected("prime1M_e")),
            ["prime1M_e", "prime1M_raw"]
        );
        assert_eq!(script_filters(Some("prime"), &selected("prime")), ["prime"]);
    }

    /// The repository's table (docs/perf-targets.md) is `cuprum bench --list`: the workloads
    /// and their targets, written once in workloads.rs.
    #[test]
    fn the_repository_targets_table_is_the_workloads() {
        let doc = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/perf-targets.md"
        ));
        let want = format!("{}\n", workloads::targets_markdown());
        assert!(
            doc == want,
            "docs/perf-targets.md differs from the workloads; rewrite it with\n  \
             cargo run -q -p cuprum-cli -- bench --list > docs/perf-targets.md\n\
             expected:\n{want}"
        );
        let names = table_names(doc);
        assert_eq!(names.len(), WORKLOADS.len());
        for n in names {
            assert!(workloads::find(n).is_some(), "{n} has no workload");
        }
    }

    /// The bench names of a Markdown table: the first cell of each row, in backquotes.
    fn table_names(doc: &str) -> Vec<&str> {
        doc.lines()
            .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
            .collect()
    }

    /// The project's shared reference page (outside the repository, present on the
    /// development machine only) may name workloads that are not built yet: they are
    /// reported on stderr, not failed.
    #[test]
    fn shared_targets_not_yet_in_the_repository_are_reported() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/reference/perf-targets.md"
        );
        let Ok(doc) = std::fs::read_to_string(path) else {
            crate::harness::skip(
                crate::harness::Need::Other,
                "no shared reference page (../shared/reference/perf-targets.md) beside the \
                 repository",
            );
            return;
        };
        let mut seen = std::collections::HashSet::new();
        let missing: Vec<&str> = table_names(&doc)
            .into_iter()
            .filter(|n| workloads::find(n).is_none() && seen.insert(*n))
            .collect();
        if !missing.is_empty() {
            use std::io::Write as _;
            // Straight to the process's stderr, past the test harness's capture.
            let _ = writeln!(
                std::io::stderr(),
                "note: {} workload(s) of shared/reference/perf-targets.md are not in \
                 docs/perf-targets.md yet: {}",
                missing.len(),
                missing.join(", ")
            );
        }
    }

    #[test]
    fn cupy_percentages_use_its_own_copy_row_when_present() {
        let t = |gpu_us| Times {
            gpu_us,
            cpu_us: 1.0,
        };
        let mut side = cupy::Side {
            rows: HashMap::from([("x".to_string(), t(5.0))]),
            note: String::new(),
        };
        let info = cupy_info(&Ok(side), 4e12);
        assert_eq!(info.copy_gb_per_s, Some(4000.0));
        assert!(info.ceiling.starts_with("cuprum's"));
        side = cupy::Side {
            rows: HashMap::from([(COPY.to_string(), t(workloads::COPY_BYTES as f64 / 2e6))]),
            note: String::new(),
        };
        let info = cupy_info(&Ok(side), 4e12);
        assert!((info.copy_gb_per_s.unwrap() - 2000.0).abs() < 1e-6);
        assert!(info.ceiling.starts_with("CuPy's own"));
        let info = cupy_info(&Err("CuPy is not importable".into()), 4e12);
        assert!(!info.available && info.note == "CuPy is not importable");
    }
}
