//! `--vs-cupy`: CuPy's side of the same workloads, through scripts/cupy_bench.py, which ships
//! inside the binary and is written with the seed kernels to a temp folder, then run with
//! `python3` in the same invocation. `--vs-torch`: PyTorch's twins, through the same script
//! with `--torch` (one script holds every twin, so names stay the workloads' own).

use super::kernels;
use super::targets::Times;
use super::timed::R;
use crate::seeds;
use serde::Deserialize;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const SCRIPT: &str = include_str!("../../../../scripts/cupy_bench.py");

/// The seed kernel files the script reads: the sources cuprum's workloads use.
const KERNEL_FILES: &[(&str, &str)] = &[
    ("vector_add_f32.cu", kernels::ADD_SRC),
    ("prime_factor_sum.cu", kernels::PRIME_SRC),
    ("matrix_multiply.cu", kernels::MATMUL_SRC),
    ("optimized_reduction.cu", kernels::SMEM_SRC),
    (
        "prime_factor_sum_elementwise.op",
        seeds::prime::PRIME_FACTOR_SUM_OP,
    ),
    (
        "nbody.cu",
        include_str!("../../../../examples/kernels/nbody.cu"),
    ),
];

/// CuPy's rows of one run.
pub struct Side {
    pub rows: HashMap<String, Times>,
    /// Empty when the script succeeded; else what went wrong.
    pub note: String,
}

/// Which library's twins the script times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lib {
    Cupy,
    Torch,
}

impl Lib {
    /// Its name in messages.
    fn name(self) -> &'static str {
        match self {
            Lib::Cupy => "CuPy",
            Lib::Torch => "PyTorch",
        }
    }

    /// Its Python module.
    fn module(self) -> &'static str {
        match self {
            Lib::Cupy => "cupy",
            Lib::Torch => "torch",
        }
    }
}

/// `Ok` when `python3 -c "import cupy"` works; else why not, in words.
pub fn importable() -> Result<(), String> {
    importable_lib(Lib::Cupy)
}

/// `Ok` when `python3 -c "import <lib's module>"` works; else why not, in words.
pub fn importable_lib(lib: Lib) -> Result<(), String> {
    let (name, module) = (lib.name(), lib.module());
    let out = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stdin(Stdio::null())
        .output();
    match out {
        Err(e) => Err(format!(
            "{name} is not available: python3 cannot be run ({e})"
        )),
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "{name} is not importable (`python3 -c \"import {module}\"`: {})",
            last_line(&o.stderr)
        )),
    }
}

fn last_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().rev().find(|l| !l.trim().is_empty());
    line.unwrap_or("failed").trim().to_string()
}

/// Writes the script and, in `kernels/` beside it, the seed kernels; returns the script.
fn write_script(dir: &Path) -> std::io::Result<PathBuf> {
    let kernels = dir.join("kernels");
    std::fs::create_dir_all(&kernels)?;
    for (file, text) in KERNEL_FILES {
        std::fs::write(kernels.join(file), text)?;
    }
    let script = dir.join("cupy_bench.py");
    std::fs::write(&script, SCRIPT)?;
    Ok(script)
}

/// Runs the script with `repeat` and `filters` (none: every workload). Its stderr passes
/// through; each row is echoed to stderr as it arrives (progress).
pub fn run(repeat: usize, filters: &[String]) -> R<Side> {
    run_lib(Lib::Cupy, repeat, filters)
}

/// [`run`] for `lib`'s twins (`--torch` for PyTorch's).
pub fn run_lib(lib: Lib, repeat: usize, filters: &[String]) -> R<Side> {
    let dir = tempfile::Builder::new()
        .prefix("cuprum-vs-cupy")
        .tempdir()?;
    let script = write_script(dir.path())?;
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .arg("--repeat")
        .arg(repeat.to_string())
        .arg("--kernels")
        .arg(dir.path().join("kernels"));
    for f in filters {
        cmd.arg("--filter").arg(f);
    }
    if lib == Lib::Torch {
        cmd.arg("--torch");
    }
    let name = lib.name();
    eprintln!("running the {name} side (scripts/cupy_bench.py)…");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut rows = HashMap::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            if let Some((row, t)) = parse_line(&line?) {
                eprintln!(
                    "  {} {row}: gpu {:.2} µs, cpu {:.2} µs",
                    lib.name(),
                    t.gpu_us,
                    t.cpu_us
                );
                rows.insert(row, t);
            }
        }
    }
    let status = child.wait()?;
    let note = if status.success() {
        String::new()
    } else {
        format!(
            "the {name} script failed ({status}) after {} rows (its error is above)",
            rows.len()
        )
    };
    Ok(Side { rows, note })
}

/// One JSON line of the script, `{name, gpu_us, cpu_us}`; anything else is `None`.
pub fn parse_line(line: &str) -> Option<(String, Times)> {
    #[derive(Deserialize)]
    struct Line {
        name: String,
        gpu_us: f64,
        cpu_us: f64,
    }
    let l: Line = serde_json::from_str(line.trim()).ok()?;
    let t = Times {
        gpu_us: l.gpu_us,
        cpu_us: l.cpu_us,
    };
    Some((l.name, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::workloads::{self, WORKLOADS};

    #[test]
    fn parses_the_json_lines_of_the_script() {
        let (name, t) =
            parse_line(r#"{"name": "prime1M_raw", "gpu_us": 581.5, "cpu_us": 6.25}"#).unwrap();
        assert_eq!(name, "prime1M_raw");
        assert_eq!((t.gpu_us, t.cpu_us), (581.5, 6.25));
        assert!(parse_line("prime1M_jit skipped: NotImplementedError").is_none());
        assert!(parse_line(r#"{"name": "x"}"#).is_none());
    }

    #[test]
    fn a_missing_cupy_is_said_plainly() {
        match importable() {
            Ok(()) => crate::harness::skip(crate::harness::Need::Other, "CuPy is importable"),
            Err(why) => assert!(why.starts_with("CuPy is not"), "{why}"),
        }
    }

    /// The script's structured dtypes (`NBODY_LAYOUT`, which it checks its dtypes against)
    /// have the Rust device types' sizes and offsets.
    #[test]
    fn the_nbody_dtypes_have_the_rust_layout() {
        use crate::device_kernels::{Body, Particle, Vec3};
        use std::mem::{offset_of, size_of};
        let lines = [
            format!(
                "\"Vec3\": ({}, {{\"x\": {}, \"y\": {}, \"z\": {}}}),",
                size_of::<Vec3>(),
                offset_of!(Vec3, x),
                offset_of!(Vec3, y),
                offset_of!(Vec3, z)
            ),
            format!(
                "\"Particle\": ({}, {{\"pos\": {}, \"vel\": {}, \"mass\": {}}}),",
                size_of::<Particle>(),
                offset_of!(Particle, pos),
                offset_of!(Particle, vel),
                offset_of!(Particle, mass)
            ),
            format!(
                "\"Body\": ({}, {{\"pos\": {}, \"mass\": {}}}),",
                size_of::<Body>(),
                offset_of!(Body, pos),
                offset_of!(Body, mass)
            ),
        ];
        for l in lines {
            assert!(SCRIPT.contains(&l), "the script's NBODY_LAYOUT lacks {l}");
        }
    }

    /// The script's names (`--list`, no CuPy needed) are cuprum's, and it has every CuPy
    /// row a target reads.
    #[test]
    fn the_script_names_match_the_workloads() {
        let dir = tempfile::tempdir().unwrap();
        let script = write_script(dir.path()).unwrap();
        let out = match Command::new("python3").arg(&script).arg("--list").output() {
            Ok(o) => o,
            Err(e) => {
                crate::harness::skip(crate::harness::Need::Other, &format!("no python3 ({e})"));
                return;
            }
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let names: Vec<&str> = text.lines().collect();
        for n in &names {
            assert!(
                workloads::find(n).is_some(),
                "the script's {n} is no workload"
            );
        }
        for w in WORKLOADS {
            for needed in w.target.cupy_rows(w.name) {
                assert!(names.contains(&needed), "{}: CuPy has no {needed}", w.name);
            }
        }
        for (file, _) in KERNEL_FILES {
            assert!(SCRIPT.contains(file), "the script does not read {file}");
        }
        // PyTorch's twins are workloads too, and the issue's rows that name one have it.
        let out = Command::new("python3")
            .arg(&script)
            .args(["--list", "--torch"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        let torch: Vec<&str> = text.lines().collect();
        for n in &torch {
            assert!(
                workloads::find(n).is_some(),
                "the torch twin {n} is no workload"
            );
        }
        for needed in [
            "cumsum100M_f32",
            "sort100M_f32",
            "argsort100M_f32",
            "sort_rows_10000x10000_f32",
            "sort_rows_1Mx32_f32",
            "nonzero100M_half",
            "compress100M_f32_half",
        ] {
            assert!(torch.contains(&needed), "no PyTorch twin of {needed}");
        }
    }
}
