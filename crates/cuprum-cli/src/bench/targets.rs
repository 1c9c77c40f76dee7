//! The kinds of cuprum target as data (one per workload, in `workloads::WORKLOADS`, listed in
//! docs/perf-targets.md), and their verdicts on the measurements of one run.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// What a workload must achieve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// No target: a reference row (the copy ceiling, the launch floor) or an informational
    /// one; the text says which.
    Info(&'static str),
    /// GB/s at least this % of the copy bandwidth measured in the same run.
    PctOfCopy(f64),
    /// Host µs at most the launch floor's host µs (same run) plus this.
    HostOverFloor(f64),
    /// GPU µs at most this.
    GpuUs(f64),
    /// Host ms at most this (the compile cases).
    HostMs(f64),
    /// Host µs at most this (host-overhead rows that launch nothing, e.g. DLPack).
    HostUs(f64),
    /// GPU time at most `factor` × CuPy's GPU time of the named row (this row's name when
    /// `None`): decidable with `--vs-cupy` only.
    VsCupy(f64, Option<&'static str>),
    /// GPU time at most `factor` × PyTorch's GPU time of this row's twin: decidable with
    /// `--vs-torch` only.
    VsTorch(f64),
    /// GPU time at most `factor` × our GPU time of the named row.
    VsOurs(f64, &'static str),
    /// GB/s at least this % of our named row's GB/s in the same run; the third number is
    /// this row's bytes over the named row's (so the rows may move different amounts).
    BwOfOurs(f64, &'static str, f64),
    /// Our named row is faster (GPU time) than this one.
    BeatenBy(&'static str),
    /// Scaling efficiency t1 / (2 · t2) of a workload split over 2 GPUs at least this %
    /// (judged by the workload itself: see `multi_gpu.rs`).
    Scaling(f64),
    /// The row's speed at least this % of its Rust twin's, measured beside it in the same
    /// run (host-device rows: twin time / our time, in %).
    VsTwin(f64),
    /// Every part holds.
    All(&'static [Target]),
}

/// Whether a row met its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    #[serde(rename = "met")]
    Met,
    #[serde(rename = "missed")]
    Missed,
    /// No target, or not decidable in this run.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Met => "met",
            Status::Missed => "missed",
            Status::NotApplicable => "n/a",
        })
    }
}

/// A status and the numbers (or the reason) behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub status: Status,
    pub detail: String,
}

impl Verdict {
    pub fn na(reason: impl Into<String>) -> Self {
        Verdict {
            status: Status::NotApplicable,
            detail: reason.into(),
        }
    }

    /// Met when `value ≤ limit` (or `value ≥ limit` when `at_least`), shown with `unit`.
    fn bound(value: f64, limit: f64, at_least: bool, unit: &str) -> Self {
        let met = if at_least {
            value >= limit
        } else {
            value <= limit
        };
        let op = match (met, at_least) {
            (true, true) => "≥",
            (false, true) => "<",
            (true, false) => "≤",
            (false, false) => ">",
        };
        Verdict {
            status: if met { Status::Met } else { Status::Missed },
            detail: format!("{value:.2}{unit} {op} {limit:.2}{unit}"),
        }
    }
}

/// GPU and host medians of one row, in µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Times {
    pub gpu_us: f64,
    pub cpu_us: f64,
}

/// What the targets of one run are judged against.
#[derive(Default)]
pub struct Context {
    /// Our rows by name.
    pub ours: HashMap<String, Times>,
    /// CuPy's rows by name; `None` without `--vs-cupy` (or when CuPy is not importable).
    pub cupy: Option<HashMap<String, Times>>,
    /// PyTorch's rows by name; `None` without `--vs-torch`.
    pub torch: Option<HashMap<String, Times>>,
    /// `launch_floor`'s host µs in this run.
    pub floor_cpu_us: Option<f64>,
    /// Verdicts that workloads judged themselves (the multi-GPU rows), by row name.
    pub notes: HashMap<String, Verdict>,
    /// The Rust twins' times of the host-device rows, by row name.
    pub twins: HashMap<String, Times>,
}

/// One measured row as the targets see it.
pub struct Measured {
    pub times: Times,
    /// `None` for rows that move no counted bytes.
    pub pct_of_copy: Option<f64>,
}

impl Target {
    /// Judges `m`, the row `name` of this run.
    pub fn judge(&self, name: &str, m: &Measured, cx: &Context) -> Verdict {
        let gpu = m.times.gpu_us;
        match *self {
            Target::Info(note) => Verdict::na(note),
            Target::PctOfCopy(p) => match m.pct_of_copy {
                Some(v) => Verdict::bound(v, p, true, " %"),
                None => Verdict::na("no byte count"),
            },
            Target::HostOverFloor(d) => match cx.floor_cpu_us {
                Some(floor) => Verdict::bound(m.times.cpu_us, floor + d, false, " µs"),
                None => Verdict::na("launch floor not measured"),
            },
            Target::GpuUs(limit) => Verdict::bound(gpu, limit, false, " µs"),
            Target::HostMs(limit) => Verdict::bound(m.times.cpu_us / 1e3, limit, false, " ms"),
            Target::HostUs(limit) => Verdict::bound(m.times.cpu_us, limit, false, " µs"),
            Target::VsCupy(factor, of) => {
                let of = of.unwrap_or(name);
                match &cx.cupy {
                    None => Verdict::na("needs --vs-cupy"),
                    Some(rows) => ratio_to(gpu, factor, rows.get(of), &format!("CuPy {of}")),
                }
            }
            Target::VsTorch(factor) => match &cx.torch {
                None => Verdict::na("needs --vs-torch"),
                Some(rows) => ratio_to(gpu, factor, rows.get(name), &format!("PyTorch {name}")),
            },
            Target::VsOurs(factor, of) => ratio_to(gpu, factor, cx.ours.get(of), of),
            Target::BwOfOurs(p, of, bytes) => match cx.ours.get(of) {
                Some(t) if gpu > 0.0 => {
                    let mut v = Verdict::bound(100.0 * bytes * t.gpu_us / gpu, p, true, " %");
                    v.detail = format!("{} of {of}'s GB/s", v.detail);
                    v
                }
                _ => Verdict::na(format!("{of} not in this run")),
            },
            Target::BeatenBy(of) => match cx.ours.get(of) {
                Some(t) => Verdict::bound(gpu, t.gpu_us, true, " µs"),
                None => Verdict::na(format!("{of} not in this run")),
            },
            Target::VsTwin(p) => match cx.twins.get(name) {
                Some(t) if gpu > 0.0 => {
                    let mut v = Verdict::bound(100.0 * t.gpu_us / gpu, p, true, " %");
                    v.detail = format!("{} of the Rust twin's speed", v.detail);
                    v
                }
                _ => Verdict::na("no Rust twin in this run"),
            },
            Target::Scaling(_) => match cx.notes.get(name) {
                Some(v) => v.clone(),
                None => Verdict::na("needs ≥ 2 GPUs"),
            },
            Target::All(parts) => combine(parts.iter().map(|t| t.judge(name, m, cx))),
        }
    }

    /// The % of copy bandwidth this target asks for, if it asks for one.
    pub fn pct_of_copy(&self) -> Option<f64> {
        match *self {
            Target::PctOfCopy(p) => Some(p),
            Target::All(parts) => parts.iter().find_map(Target::pct_of_copy),
            _ => None,
        }
    }

    /// Whether judging needs the launch floor of the same run.
    pub fn needs_floor(&self) -> bool {
        match *self {
            Target::HostOverFloor(_) => true,
            Target::All(parts) => parts.iter().any(Target::needs_floor),
            _ => false,
        }
    }

    /// Our rows that judging a row reads (beside the copy and the floor).
    pub fn ours_rows(&self) -> Vec<&'static str> {
        match *self {
            Target::VsOurs(_, of) | Target::BeatenBy(of) | Target::BwOfOurs(_, of, _) => vec![of],
            Target::All(parts) => parts.iter().flat_map(Target::ours_rows).collect(),
            _ => Vec::new(),
        }
    }

    /// The CuPy rows that judging the row `name` reads.
    pub fn cupy_rows(&self, name: &'static str) -> Vec<&'static str> {
        match *self {
            Target::VsCupy(_, of) => vec![of.unwrap_or(name)],
            Target::All(parts) => parts.iter().flat_map(|t| t.cupy_rows(name)).collect(),
            _ => Vec::new(),
        }
    }
}

/// `gpu ≤ factor × reference`, n/a when the reference row is missing.
fn ratio_to(gpu: f64, factor: f64, reference: Option<&Times>, what: &str) -> Verdict {
    match reference {
        Some(t) if t.gpu_us > 0.0 => {
            let mut v = Verdict::bound(gpu / t.gpu_us, factor, false, "×");
            v.detail = format!("{} {what}", v.detail);
            v
        }
        _ => Verdict::na(format!("{what} not in this run")),
    }
}

/// Missed if any part missed; met if the others are met or undecided and one is met;
/// otherwise n/a. The details of every part are kept.
fn combine(parts: impl Iterator<Item = Verdict>) -> Verdict {
    let parts: Vec<Verdict> = parts.collect();
    let any = |s| parts.iter().any(|v| v.status == s);
    let status = if any(Status::Missed) {
        Status::Missed
    } else if any(Status::Met) {
        Status::Met
    } else {
        Status::NotApplicable
    };
    let detail = parts
        .iter()
        .map(|v| match v.status {
            Status::NotApplicable => format!("n/a: {}", v.detail),
            _ => v.detail.clone(),
        })
        .collect::<Vec<_>>()
        .join("; ");
    Verdict { status, detail }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Info(note) => write!(f, "({note})"),
            Target::PctOfCopy(p) => write!(f, "≥ {p} % of copy"),
            Target::HostOverFloor(d) => write!(f, "cpu ≤ floor + {d} µs"),
            Target::GpuUs(l) => write!(f, "gpu ≤ {l} µs"),
            Target::HostMs(l) => write!(f, "cpu ≤ {l} ms"),
            Target::HostUs(l) => write!(f, "cpu ≤ {l} µs"),
            Target::VsCupy(x, None) => write!(f, "gpu ≤ {x} × CuPy"),
            Target::VsCupy(x, Some(of)) => write!(f, "gpu ≤ {x} × CuPy {of}"),
            Target::VsTorch(x) => write!(f, "gpu ≤ {x} × PyTorch"),
            Target::VsOurs(x, of) => write!(f, "gpu ≤ {x} × our {of}"),
            Target::BwOfOurs(p, of, _) => write!(f, "≥ {p} % of our {of}'s GB/s"),
            Target::BeatenBy(of) => write!(f, "beaten by {of}"),
            Target::Scaling(p) => write!(f, "efficiency t1/(2·t2) ≥ {p} % at 2 GPUs"),
            Target::VsTwin(p) => write!(f, "≥ {p} % of the Rust twin's speed"),
            Target::All(parts) => {
                let texts: Vec<String> = parts.iter().map(Target::to_string).collect();
                f.write_str(&texts.join(" and "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(gpu_us: f64, cpu_us: f64, pct: Option<f64>) -> Measured {
        Measured {
            times: Times { gpu_us, cpu_us },
            pct_of_copy: pct,
        }
    }

    fn times(gpu_us: f64) -> Times {
        Times {
            gpu_us,
            cpu_us: 0.0,
        }
    }

    #[test]
    fn comparisons_name_the_rows_they_read() {
        assert_eq!(
            Target::VsOurs(1.03, "prime1M_raw").ours_rows(),
            ["prime1M_raw"]
        );
        assert_eq!(Target::BeatenBy("x").ours_rows(), ["x"]);
        assert!(Target::PctOfCopy(90.0).ours_rows().is_empty());
        let jit = super::super::workloads::find("jit_smem_reduce1M").unwrap();
        assert_eq!(jit.target.ours_rows(), ["smem_reduce1M_raw"]);
    }

    #[test]
    fn bandwidth_targets_compare_the_percentage() {
        let cx = Context::default();
        let t = Target::PctOfCopy(90.0);
        assert_eq!(
            t.judge("x", &measured(1.0, 1.0, Some(93.0)), &cx).status,
            Status::Met
        );
        let v = t.judge("x", &measured(1.0, 1.0, Some(61.0)), &cx);
        assert_eq!(v.status, Status::Missed);
        assert_eq!(v.detail, "61.00 % < 90.00 %");
        assert_eq!(t.to_string(), "≥ 90 % of copy");
        assert_eq!(t.pct_of_copy(), Some(90.0));
    }

    #[test]
    fn host_targets_add_the_floor_of_the_run() {
        let t = Target::HostOverFloor(0.3);
        let m = measured(2.0, 3.2, None);
        let mut cx = Context::default();
        assert_eq!(t.judge("x", &m, &cx).status, Status::NotApplicable);
        cx.floor_cpu_us = Some(3.0);
        assert_eq!(t.judge("x", &m, &cx).status, Status::Met);
        cx.floor_cpu_us = Some(2.8);
        assert_eq!(t.judge("x", &m, &cx).status, Status::Missed);
        assert!(t.needs_floor());
        assert_eq!(Target::HostMs(45.0).judge("x", &m, &cx).status, Status::Met);
        assert_eq!(
            Target::HostUs(1.0).judge("x", &m, &cx).status,
            Status::Missed
        );
    }

    #[test]
    fn cupy_targets_need_cupy_and_its_row() {
        let t = Target::VsCupy(1.02, None);
        let m = measured(100.0, 1.0, None);
        let mut cx = Context::default();
        assert_eq!(t.judge("p", &m, &cx).detail, "needs --vs-cupy");
        cx.cupy = Some(HashMap::from([("p".to_string(), times(99.0))]));
        assert_eq!(t.judge("p", &m, &cx).status, Status::Met);
        assert_eq!(t.judge("q", &m, &cx).status, Status::NotApplicable);
        let raw = Target::VsCupy(1.02, Some("p"));
        assert_eq!(raw.judge("q", &m, &cx).status, Status::Met);
        assert_eq!(raw.cupy_rows("q"), ["p"]);
        cx.cupy = Some(HashMap::from([("p".to_string(), times(90.0))]));
        assert_eq!(t.judge("p", &m, &cx).status, Status::Missed);
    }

    #[test]
    fn twin_targets_compare_speeds_of_the_same_run() {
        let t = Target::VsTwin(50.0);
        let mut cx = Context::default();
        let m = measured(30.0, 30.0, None);
        assert_eq!(t.judge("h", &m, &cx).status, Status::NotApplicable);
        cx.twins.insert("h".into(), times(20.0));
        let v = t.judge("h", &m, &cx);
        assert_eq!(v.status, Status::Met);
        assert_eq!(v.detail, "66.67 % ≥ 50.00 % of the Rust twin's speed");
        cx.twins.insert("h".into(), times(10.0));
        assert_eq!(t.judge("h", &m, &cx).status, Status::Missed);
        assert_eq!(t.to_string(), "≥ 50 % of the Rust twin's speed");
    }

    #[test]
    fn beaten_by_compares_our_rows() {
        let t = Target::BeatenBy("fast");
        let mut cx = Context::default();
        let m = measured(1200.0, 1.0, Some(30.0));
        assert_eq!(t.judge("slow", &m, &cx).status, Status::NotApplicable);
        cx.ours.insert("fast".into(), times(400.0));
        assert_eq!(t.judge("slow", &m, &cx).status, Status::Met);
        cx.ours.insert("fast".into(), times(1300.0));
        assert_eq!(t.judge("slow", &m, &cx).status, Status::Missed);
    }

    #[test]
    fn all_is_missed_if_a_part_is_and_keeps_undecided_parts_visible() {
        static PARTS: [Target; 2] = [Target::PctOfCopy(90.0), Target::VsCupy(1.0, None)];
        let t = Target::All(&PARTS);
        let cx = Context::default();
        let v = t.judge("r", &measured(300.0, 1.0, Some(95.0)), &cx);
        assert_eq!(v.status, Status::Met);
        assert!(v.detail.contains("n/a: needs --vs-cupy"), "{}", v.detail);
        let v = t.judge("r", &measured(300.0, 1.0, Some(85.0)), &cx);
        assert_eq!(v.status, Status::Missed);
        assert_eq!(t.to_string(), "≥ 90 % of copy and gpu ≤ 1 × CuPy");
        assert_eq!(t.pct_of_copy(), Some(90.0));
        assert_eq!(t.cupy_rows("r"), ["r"]);
    }
}
