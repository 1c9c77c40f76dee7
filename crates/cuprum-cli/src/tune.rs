//! `cuprum tune`: measure every tuned kernel family on a GPU ahead of time and keep the
//! winners in the cache folder (`--report`: show the choices without measuring).

use comfy_table::{CellAlignment, Table, presets};
use cuprum::Device;
use cuprum::tuning::{self, Choice, Family, Source};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct TuneArgs {
    /// Show each family's choice (stored, built in, or first candidate) and, where measured,
    /// its margin and every candidate's time; measure nothing.
    #[arg(long)]
    report: bool,
    /// Only the families whose name contains this (e.g. `scan.tile`).
    #[arg(long)]
    family: Option<String>,
    /// The GPU to tune (default: the current device).
    #[arg(long)]
    device: Option<usize>,
    /// Write the choices as JSON to this file as well.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

pub fn run(args: &TuneArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let device = match args.device {
        Some(i) => Device::get(i)?,
        None => Device::current()?,
    };
    let mut choices = if args.report {
        tuning::report(device)?
    } else {
        tuning::forget();
        tuning::tune(device, args.family.as_deref())?
    };
    if let Some(f) = &args.family {
        choices.retain(|c| c.family.contains(f.as_str()));
    }
    out!(
        "{} ({}): {} families, CUPRUM_TUNE={:?}",
        device.name(),
        device.label(),
        choices.len(),
        tuning::mode()?
    );
    for line in table(&choices) {
        out!("{line}");
    }
    for c in &choices {
        for (p, why) in &c.failed {
            out!("{} {}: failed: {why}", c.family, show(family(c.family), *p));
        }
    }
    if let Some(path) = &args.json {
        std::fs::write(path, json(device, &choices).to_string())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn family(name: &str) -> Option<&'static Family> {
    tuning::families().iter().copied().find(|f| f.name == name)
}

/// A candidate as `name=value` pairs of its family's named values.
fn show(f: Option<&Family>, p: tuning::Params) -> String {
    let Some(f) = f else {
        return format!("{p:?}");
    };
    f.params
        .iter()
        .zip(p)
        .filter(|(n, _)| !n.is_empty())
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn source(s: Source) -> &'static str {
    match s {
        Source::Pinned => "pinned",
        Source::Measured => "measured",
        Source::Stored => "stored",
        Source::Bundled => "bundled",
        Source::BuiltIn => "built in",
        Source::First => "first candidate",
    }
}

/// The choices as a table: family, choice, where from, margin, the candidates' times.
fn table(choices: &[Choice]) -> Vec<String> {
    let mut t = Table::new();
    t.load_preset(presets::NOTHING).set_header([
        "family",
        "choice",
        "from",
        "margin",
        "µs (best)",
        "µs (first candidate)",
    ]);
    for c in choices {
        let f = family(c.family);
        let best = c.times_us.iter().find(|x| x.0 == c.params).map(|x| x.1);
        let first = f
            .and_then(|f| c.times_us.iter().find(|x| x.0 == f.candidates[0]))
            .map(|x| x.1);
        let us = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
        t.add_row([
            c.family.to_string(),
            show(f, c.params),
            source(c.source).to_string(),
            c.margin
                .map_or("-".to_string(), |m| format!("{:.1} %", 100.0 * m)),
            us(best),
            us(first),
        ]);
    }
    for (i, column) in t.column_iter_mut().enumerate() {
        column.set_padding((0, 2));
        column.set_cell_alignment(if i < 3 {
            CellAlignment::Left
        } else {
            CellAlignment::Right
        });
    }
    t.lines().map(|l| l.trim_end().to_string()).collect()
}

fn json(device: Device, choices: &[Choice]) -> serde_json::Value {
    serde_json::json!({
        "device": device.name(),
        "choices": choices.iter().map(|c| serde_json::json!({
            "family": c.family,
            "params": c.params,
            "source": source(c.source),
            "margin": c.margin,
            "times_us": c.times_us,
            "failed": c.failed,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_report_names_every_family_and_its_first_candidate() {
        let r = tuning::report(Device::host()).unwrap();
        assert_eq!(r.len(), tuning::families().len());
        let lines = table(&r);
        assert!(lines[0].starts_with("family"), "{lines:?}");
        let tile = lines.iter().find(|l| l.starts_with("scan.tile.4")).unwrap();
        assert!(
            tile.contains("items=32 blocks/SM=4 prefetch|stages=64")
                && tile.contains("first candidate"),
            "{tile}"
        );
    }
}
