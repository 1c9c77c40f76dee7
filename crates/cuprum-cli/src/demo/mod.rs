//! `cuprum demo`: every example of the seed documents through cuprum — each checked against
//! its reference and timed, one line per example. It runs on the current device: the GPU,
//! or the host device (the CPU) with `CUPRUM_DEVICE=host` or when there is no GPU. Without
//! a GPU and without a host C++ compiler it says so and compiles every demo kernel with
//! NVRTC for sm_90 instead (registers and memory per kernel), or says that NVRTC is missing
//! too; both exit 0.

mod cases;
mod fused;
mod jit_cases;
mod masked;
mod outcome;
mod program;

use cases::{Case, Group};
use clap::Args;
use comfy_table::{CellAlignment, Table, presets};
use cuprum::compile::{CompileOptions, KernelCache, compile_for_arch, resource_usage};
use indicatif::{ProgressBar, ProgressStyle};
use outcome::fmt_time;
use program::Program;
use std::collections::HashSet;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct DemoArgs {
    /// Only the examples whose name contains this text (e.g. `prime`, `relu`).
    #[arg(long)]
    filter: Option<String>,
    /// Run from a kernel bundle (`cuprum bundle build`): every kernel comes from it, so
    /// no NVRTC is needed (nor looked for); a kernel missing from it is an error.
    #[arg(long)]
    pub bundle: Option<std::path::PathBuf>,
}

/// Width of the example-name column.
const NAME_W: usize = 28;
/// Width of the result column.
const RESULT_W: usize = 54;
/// The architecture compiled for without a GPU.
const ARCH: u32 = 90;

/// Writes `s` without a newline and flushes, so the name shows while the case runs (a cold
/// kernel cache compiles first).
fn part(s: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(s.as_bytes());
    let _ = o.flush();
}

pub fn run(args: &DemoArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if let Some(path) = &args.bundle {
        let b = cuprum::bundle::load(path)?;
        out!(
            "cuprum demo: kernels from the bundle {} ({} kernels for {}; {})",
            path.display(),
            b.kernels(),
            b.targets().join(" "),
            b.made_by()
        );
    }
    let cases: Vec<Case> = cases::all()
        .into_iter()
        .filter(|c| {
            args.filter
                .as_ref()
                .is_none_or(|f| c.name.contains(f.as_str()))
        })
        .collect();
    if cases.is_empty() {
        eprintln!(
            "error: no demo example matches --filter {:?}",
            args.filter.as_deref().unwrap_or_default()
        );
        return Ok(ExitCode::FAILURE);
    }
    if cuprum::Device::current().is_ok_and(cuprum::Device::is_host) {
        return run_on(&cases);
    }
    match cuprum::Device::no_gpu_reason() {
        None => run_on(&cases),
        Some(why) => match cuprum::compile::host_compiler() {
            Ok(_) => {
                out!("cuprum demo: no GPU on this machine ({why}): running on the CPU instead");
                cuprum::Device::host().make_default();
                run_on(&cases)
            }
            Err(e) => Ok(compile_only(&cases, &why, &e)),
        },
    }
}

/// Runs and checks every case on the current device (a GPU, or the host device).
fn run_on(cases: &[Case]) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let dev = cuprum::Device::current()?;
    let on_host = dev.code_target() == cuprum::runtime::CodeTarget::Host;
    if on_host {
        out!(
            "cuprum demo: {} examples of the seed documents on the host device, the CPU ({}): \
             the same kernels, compiled by the system C++ compiler",
            cases.len(),
            dev.name()
        );
        if !cuprum::bundle::registered().is_empty() {
            out!(
                "(the host device builds its kernels with the C++ compiler: kernel bundles \
                 apply to GPUs only, so the bundle is not used here)"
            );
        }
    } else {
        out!(
            "cuprum demo: {} examples of the seed documents on {} (sm_{})",
            cases.len(),
            dev.name(),
            dev.arch()
        );
    }
    let clock = if on_host { "host" } else { "GPU" };
    out!("each checked against its reference, then timed ({clock} time: median of up to 20 calls)");
    let start = Instant::now();
    let mut failed: Vec<&str> = Vec::new();
    let mut group: Option<Group> = None;
    for case in cases {
        if group != Some(case.group) {
            out!();
            out!("{}", case.group.title());
            group = Some(case.group);
        }
        // A case that prints (its kernel's printf) gets its row after its lines.
        let name = format!("  {:<NAME_W$} ", case.name);
        if !case.prints {
            part(&name);
        }
        let outcome = (case.run)();
        if case.prints {
            part(&name);
        }
        match outcome {
            Ok(o) => {
                out!(
                    "{:<RESULT_W$} {} {:>10}",
                    o.result,
                    if o.ok { "✓ matches " } else { "✗ MISMATCH" },
                    fmt_time(o.gpu_seconds)
                );
                if !o.ok {
                    failed.push(case.name);
                }
            }
            Err(e) => {
                out!("✗ error: {e}");
                failed.push(case.name);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let kernels = KernelCache::global()
        .map(|c| c.stats())
        .map_or(String::new(), |s| {
            format!(
                "; kernels: {} compiled, {} from the disk cache; NVRTC compiles: {}",
                s.misses,
                s.disk_hits,
                cuprum::internal::nvrtc_compiles()
            )
        });
    out!();
    if failed.is_empty() {
        out!(
            "all {} examples match their reference ({secs:.1} s{kernels})",
            cases.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        out!(
            "{} of {} examples FAILED: {} ({secs:.1} s{kernels})",
            failed.len(),
            cases.len(),
            failed.join(", ")
        );
        Ok(ExitCode::FAILURE)
    }
}

/// The compile-only table: no borders (columns split by spaces, one kernel a row), numbers
/// right-aligned.
fn resource_table() -> Table {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING).set_header(vec![
        "example",
        "kernel",
        "registers",
        "shared B",
        "local B",
        "compile",
    ]);
    for i in 2..5 {
        if let Some(c) = table.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

/// Compiles one program for sm_ARCH: a row per kernel (name, registers, shared, local bytes,
/// compile time or `disk cache` on the first, spills), and how many kernels.
fn compile_program(p: &Program) -> cuprum::Result<(Vec<Vec<String>>, usize)> {
    let hits = KernelCache::global().map_or(0, |c| c.stats().disk_hits);
    let t = Instant::now();
    let mut opts = CompileOptions::new()
        .program_name(p.name.clone())
        .option("-Xptxas=-v");
    for e in &p.name_expressions {
        opts = opts.name_expression(e.clone());
    }
    let img = compile_for_arch(&p.source, &opts, ARCH)?;
    let when = if KernelCache::global().map_or(0, |c| c.stats().disk_hits) > hits {
        "disk cache".to_string()
    } else {
        format!("{:.0} ms", t.elapsed().as_secs_f64() * 1e3)
    };
    let res = resource_usage(&img.log);
    if res.is_empty() {
        let row = vec![
            p.name.clone(),
            "(no ptxas report)".into(),
            String::new(),
            String::new(),
            when,
        ];
        return Ok((vec![row], 0));
    }
    let rows = res
        .iter()
        .enumerate()
        .map(|(j, r)| {
            let spill = if r.spill_store_bytes + r.spill_load_bytes > 0 {
                format!(" (spills {}/{})", r.spill_store_bytes, r.spill_load_bytes)
            } else {
                String::new()
            };
            vec![
                r.name.clone(),
                r.registers.to_string(),
                r.shared_bytes.to_string(),
                r.stack_bytes.to_string(),
                format!("{}{spill}", if j == 0 { when.as_str() } else { "" }),
            ]
        })
        .collect();
    Ok((rows, res.len()))
}

/// No GPU and no host compiler (`no_cxx`): compile every program of `cases` for sm_90 and
/// print each kernel's resources. Exits 0 unless a kernel fails to compile.
fn compile_only(cases: &[Case], why: &cuprum::Error, no_cxx: &cuprum::Error) -> ExitCode {
    out!(
        "cuprum demo: no GPU on this machine, so the examples cannot run ({why}); nor on the \
         CPU: {no_cxx}"
    );
    let nv = match cuprum::compile::nvrtc() {
        Ok(nv) => nv,
        Err(e) => {
            out!("NVRTC is not available either, so there is nothing to compile ({e})");
            return ExitCode::SUCCESS;
        }
    };
    let (major, minor) = nv.version();
    out!(
        "compiling every demo kernel with NVRTC {major}.{minor} for sm_{ARCH} instead \
         (resources per kernel from ptxas):"
    );
    let start = Instant::now();
    let mut seen: HashSet<String> = HashSet::new();
    let (mut kernels, mut failed) = (0usize, 0usize);
    let hits_before = KernelCache::global().map_or(0, |c| c.stats().disk_hits);
    let mut table = resource_table();
    // A cold cache compiles for seconds: a progress bar on a terminal (hidden in logs).
    let progress = ProgressBar::new(cases.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} compiling {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    for case in cases {
        progress.set_message(case.name);
        let mut name = case.name;
        let programs = match (case.programs)() {
            Ok(p) => p,
            Err(e) => {
                table.add_row(vec![name.to_owned(), format!("✗ {e}")]);
                failed += 1;
                progress.inc(1);
                continue;
            }
        };
        let programs: Vec<_> = programs
            .into_iter()
            .filter(|p| seen.insert(format!("{}{:?}", p.source, p.name_expressions)))
            .collect();
        if programs.is_empty() {
            table.add_row(vec![name, "(the kernel above)"]);
        }
        for p in &programs {
            match compile_program(p) {
                Ok((rows, n)) => {
                    for mut row in rows {
                        row.insert(0, std::mem::take(&mut name).to_owned());
                        table.add_row(row);
                    }
                    kernels += n;
                }
                Err(e) => {
                    table.add_row(vec![
                        std::mem::take(&mut name).to_owned(),
                        format!("✗ {} does not compile: {e}", p.name),
                    ]);
                    failed += 1;
                }
            }
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    out!();
    out!("{table}");
    out!();
    let secs = start.elapsed().as_secs_f64();
    let cached = KernelCache::global().map_or(0, |c| c.stats().disk_hits) - hits_before;
    let cached = if cached > 0 {
        format!(", {cached} programs from the disk cache")
    } else {
        String::new()
    };
    if failed == 0 {
        out!(
            "{kernels} kernels of {} examples compiled for sm_{ARCH} ({secs:.1} s{cached}); \
             run `cuprum demo` on a machine with a GPU to run and check them",
            cases.len()
        );
        ExitCode::SUCCESS
    } else {
        out!("{failed} demo kernels FAILED to compile ({kernels} compiled)");
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use crate::seeds::check::kahan;
    use crate::seeds::{prime, raw};

    #[test]
    fn prime_factor_sums_match_the_seed() {
        let v = prime::host_sums();
        assert_eq!(&v[..4], &[2, 3, 4, 5]);
        assert_eq!(&v[v.len() - 3..], &[287, 77, 42]);
    }

    #[test]
    fn kahan_and_matmul() {
        assert_eq!(kahan([0.1; 10]), 1.0);
        let c = raw::host_matmul(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0], 2, 2, 2);
        assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
    }
}
