//! The results of one `cuprum bench` run: the JSON document (`--json`, read back by
//! `--from-json`) and the table.

use super::targets::Status;
use comfy_table::{CellAlignment, Table, presets};
use serde::{Deserialize, Serialize};

/// One run: cuprum's rows and, with `--vs-cupy` / `--vs-torch`, CuPy's and PyTorch's
/// beside them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub device: String,
    /// The device-to-device copy bandwidth measured in this run (the ceiling); `None`
    /// without a GPU.
    pub copy_gb_per_s: Option<f64>,
    /// `launch_floor`'s host µs in this run, when measured (it is whenever a target needs it).
    pub launch_floor_cpu_us: Option<f64>,
    pub repeat: usize,
    /// Present with `--vs-cupy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cupy: Option<CupyInfo>,
    /// Present with `--vs-torch`: whether PyTorch's side ran, or why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<TorchInfo>,
    pub workloads: Vec<Row>,
}

/// How the PyTorch side went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TorchInfo {
    /// Whether `python3 -c "import torch"` worked.
    pub available: bool,
    /// What happened, in words (why not, or whether the script failed part-way).
    pub note: String,
}

/// How the CuPy side went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CupyInfo {
    /// Whether `python3 -c "import cupy"` worked.
    pub available: bool,
    /// What happened, in words (why not, or whether the script failed part-way).
    pub note: String,
    /// The ceiling CuPy's % of copy is relative to.
    pub copy_gb_per_s: Option<f64>,
    /// Where that ceiling comes from.
    pub ceiling: String,
}

/// One workload's row.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    pub what: String,
    /// `None` when the workload is not implemented.
    pub gpu_us: Option<f64>,
    pub cpu_us: Option<f64>,
    pub bytes: u64,
    pub gb_per_s: Option<f64>,
    pub pct_of_copy: Option<f64>,
    pub repeats: usize,
    pub target: String,
    pub status: Status,
    pub detail: String,
    /// CuPy's numbers for the same workload (with `--vs-cupy`, where CuPy has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cupy: Option<CupyCols>,
    /// The Rust twin's numbers (host-device rows: plain Rust doing the same work in the
    /// same run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub twin: Option<TwinCols>,
    /// PyTorch's twin (with `--vs-torch`, where the script names one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<TorchCols>,
}

/// PyTorch's side of one row; the ratio is PyTorch's GPU time / cuprum's (> 1: cuprum is
/// faster).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TorchCols {
    pub gpu_us: f64,
    pub cpu_us: f64,
    pub gpu_ratio: Option<f64>,
}

impl Row {
    /// A row without numbers (n/a); `detail` says why.
    pub fn unmeasured(name: &str, what: &str, target: String, detail: &str) -> Row {
        Row {
            name: name.into(),
            what: what.into(),
            gpu_us: None,
            cpu_us: None,
            bytes: 0,
            gb_per_s: None,
            pct_of_copy: None,
            repeats: 0,
            target,
            status: Status::NotApplicable,
            detail: detail.into(),
            cupy: None,
            twin: None,
            torch: None,
        }
    }
}

/// CuPy's side of one row; ratios are CuPy time / cuprum time (> 1: cuprum is faster).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CupyCols {
    pub gpu_us: f64,
    pub cpu_us: f64,
    pub gb_per_s: Option<f64>,
    pub pct_of_copy: Option<f64>,
    pub gpu_ratio: Option<f64>,
    pub cpu_ratio: Option<f64>,
}

/// The Rust twin of a host-device row: its median time and twin time / cuprum time (> 1:
/// cuprum is faster; 0.5: cuprum at half the twin's speed).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TwinCols {
    pub us: f64,
    pub ratio: Option<f64>,
}

/// `v` with `p` decimals, or "-".
fn num(v: Option<f64>, p: usize) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.p$}"))
}

/// A column: its header, whether it is left-aligned, and one cell per row.
struct Col {
    head: &'static str,
    left: bool,
    cells: Vec<String>,
}

fn col(head: &'static str, rows: &[Row], cell: impl Fn(&Row) -> String) -> Col {
    Col {
        head,
        left: false,
        cells: rows.iter().map(cell).collect(),
    }
}

fn left(mut c: Col) -> Col {
    c.left = true;
    c
}

/// The lines of a table of `cols`: comfy-table without borders, columns two spaces apart,
/// trailing spaces trimmed.
fn render(cols: &[Col]) -> Vec<String> {
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .set_header(cols.iter().map(|c| c.head));
    let n = cols.first().map_or(0, |c| c.cells.len());
    for i in 0..n {
        table.add_row(cols.iter().map(|c| c.cells[i].as_str()));
    }
    for (c, column) in cols.iter().zip(table.column_iter_mut()) {
        column.set_padding((0, 2));
        column.set_cell_alignment(if c.left {
            CellAlignment::Left
        } else {
            CellAlignment::Right
        });
    }
    table.lines().map(|l| l.trim_end().to_string()).collect()
}

impl Report {
    /// The table, with the header lines and a count of the verdicts.
    pub fn table(&self) -> Vec<String> {
        let mut out = vec![format!(
            "{} — copy ceiling {} GB/s, launch floor {} µs host (medians of up to {} repeats)",
            self.device,
            num(self.copy_gb_per_s, 0),
            num(self.launch_floor_cpu_us, 2),
            self.repeat
        )];
        let rows = &self.workloads;
        let mut cols = vec![
            left(col("workload", rows, |r| r.name.clone())),
            col("gpu µs", rows, |r| num(r.gpu_us, 2)),
            col("cpu µs", rows, |r| num(r.cpu_us, 2)),
            col("GB/s", rows, |r| num(r.gb_per_s, 0)),
            col("% copy", rows, |r| num(r.pct_of_copy, 1)),
        ];
        if rows.iter().any(|r| r.twin.is_some()) {
            out.push(
                "Rust twin: plain Rust doing the same work on every core of this machine in \
                 the same run; × twin = twin time / cuprum time (> 1: cuprum faster)"
                    .into(),
            );
            let twin = |f: fn(&TwinCols) -> Option<f64>, p: usize| {
                move |r: &Row| num(r.twin.as_ref().and_then(f), p)
            };
            cols.extend([
                col("Rust twin µs", rows, twin(|t| Some(t.us), 2)),
                col("× twin", rows, twin(|t| t.ratio, 2)),
            ]);
        }
        if let Some(c) = &self.cupy {
            out.push(cupy_header(c));
            if c.available {
                cols.extend(cupy_cols(rows));
            }
        }
        if let Some(t) = &self.torch {
            out.push(torch_header(t));
            if t.available {
                let torch = |f: fn(&TorchCols) -> Option<f64>, p: usize| {
                    move |r: &Row| num(r.torch.as_ref().and_then(f), p)
                };
                cols.extend([
                    col("PyTorch gpu", rows, torch(|t| Some(t.gpu_us), 2)),
                    col("× torch", rows, torch(|t| t.gpu_ratio, 2)),
                ]);
            }
        }
        cols.extend([
            left(col("target", rows, |r| r.target.clone())),
            left(col("status", rows, |r| r.status.to_string())),
            left(col("detail", rows, |r| r.detail.clone())),
        ]);
        out.extend(render(&cols));
        let count = |s| rows.iter().filter(|r| r.status == s).count();
        out.push(format!(
            "targets: {} met, {} missed, {} n/a",
            count(Status::Met),
            count(Status::Missed),
            count(Status::NotApplicable)
        ));
        out
    }
}

fn cupy_header(c: &CupyInfo) -> String {
    if !c.available {
        return format!("CuPy: {}; showing cuprum's rows only", c.note);
    }
    let mut s = format!(
        "CuPy: side by side; ratio = CuPy time / cuprum time (> 1: cuprum faster); CuPy % copy \
         relative to {} ({} GB/s)",
        c.ceiling,
        num(c.copy_gb_per_s, 0)
    );
    if !c.note.is_empty() {
        s += &format!("; {}", c.note);
    }
    s
}

fn torch_header(t: &TorchInfo) -> String {
    if !t.available {
        return format!("PyTorch: {}; no PyTorch columns", t.note);
    }
    let mut s = "PyTorch: its twins where the script names one; × torch = PyTorch gpu time / \
                 cuprum gpu time (> 1: cuprum faster)"
        .to_string();
    if !t.note.is_empty() {
        s += &format!("; {}", t.note);
    }
    s
}

fn cupy_cols(rows: &[Row]) -> Vec<Col> {
    let cupy = |f: fn(&CupyCols) -> Option<f64>, p: usize| {
        move |r: &Row| num(r.cupy.as_ref().and_then(f), p)
    };
    vec![
        col("CuPy gpu", rows, cupy(|c| Some(c.gpu_us), 2)),
        col("CuPy cpu", rows, cupy(|c| Some(c.cpu_us), 2)),
        col("× gpu", rows, cupy(|c| c.gpu_ratio, 2)),
        col("× cpu", rows, cupy(|c| c.cpu_ratio, 2)),
        col("CuPy % copy", rows, cupy(|c| c.pct_of_copy, 1)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_and_missing_values_show_a_dash() {
        let rows = vec![
            Row {
                gpu_us: Some(12.345),
                cpu_us: Some(3.0),
                repeats: 3,
                status: Status::Missed,
                ..Row::unmeasured("a_long_name", "", "gpu ≤ 8 µs".into(), "12.35 µs > 8.00 µs")
            },
            Row::unmeasured("jit", "", "x".into(), "not implemented (no JIT yet)"),
        ];
        let report = Report {
            device: "dev".into(),
            copy_gb_per_s: Some(4000.0),
            launch_floor_cpu_us: Some(3.0),
            repeat: 3,
            cupy: Some(CupyInfo {
                available: false,
                note: "CuPy is not importable".into(),
                copy_gb_per_s: None,
                ceiling: String::new(),
            }),
            torch: None,
            workloads: rows,
        };
        let t = report.table();
        assert!(t[1].starts_with("CuPy: CuPy is not importable"), "{t:?}");
        assert!(!t[2].contains("CuPy gpu"), "{t:?}");
        let col_of = |l: &str, pat: &str| l[..l.find(pat).unwrap()].chars().count();
        assert_eq!(col_of(&t[3], "missed"), col_of(&t[2], "status"), "{t:#?}");
        assert_eq!(col_of(&t[4], "n/a"), col_of(&t[2], "status"), "{t:#?}");
        assert!(t[4].contains(" -  ") && t[4].ends_with("not implemented (no JIT yet)"));
        assert_eq!(t.last().unwrap(), "targets: 0 met, 1 missed, 1 n/a");
    }
}
