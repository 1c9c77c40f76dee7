//! `cuprum setup`: install NVRTC and the CUDA headers into cuprum's data folder with pip
//! (`--check`: report what is where, download nothing); and the setup that `demo`,
//! `compile` and `bench` run on first need (unless `CUPRUM_NO_AUTO_SETUP=1`).

use clap::Args;
use cuprum::compile::{Component, Found, Setup, locate};
use std::process::ExitCode;

#[derive(Args)]
pub struct SetupArgs {
    /// Report where each component is found and what is missing; download nothing (exit
    /// status 1 when something is missing).
    #[arg(long)]
    check: bool,
    /// Install again even when cuprum's data folder has everything.
    #[arg(long, conflicts_with = "check")]
    force: bool,
}

pub fn run(args: &SetupArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if args.check {
        return Ok(check());
    }
    let r = Setup::new().force(args.force).run()?;
    let versions: Vec<String> = r
        .versions
        .iter()
        .map(|(c, v)| format!("{} {}", c.pip_package(), v.as_deref().unwrap_or("?")))
        .collect();
    if r.installed {
        out!(
            "installed into {}: {}",
            r.dir.display(),
            versions.join(", ")
        );
    } else {
        out!(
            "already installed in {}: {} (--force installs again)",
            r.dir.display(),
            versions.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per component: where it is, or that it is missing.
pub fn component_line(c: Component, found: Option<&Found>) -> String {
    match found {
        Some(f) => format!(
            "{} ({}{})",
            f.path.display(),
            f.origin,
            f.version().map_or(String::new(), |v| format!("; {v}"))
        ),
        None => format!("MISSING (pip package {})", c.pip_package()),
    }
}

fn check() -> ExitCode {
    let r = locate();
    for c in Component::ALL {
        let found = match c {
            Component::Nvrtc => r.nvrtc.as_ref(),
            _ => r.headers.iter().find(|f| f.component == c),
        };
        out!("{:<16} {}", c.name(), component_line(c, found));
    }
    let s = Setup::new();
    match s.target() {
        Some(dir) => {
            let lacking = s.missing();
            if lacking.is_empty() {
                out!("cuprum's data folder {} has every component", dir.display());
            } else {
                out!(
                    "cuprum's data folder {} lacks: {}",
                    dir.display(),
                    lacking
                        .iter()
                        .map(|c| c.pip_package())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                out!(
                    "`cuprum setup` would run: {} -m pip install --target {} {}",
                    s.python_name(),
                    dir.display(),
                    s.requirements().join(" ")
                );
            }
        }
        None => out!("cuprum has no data folder (no home folder; set CUPRUM_DATA_DIR)"),
    }
    let missing = r.missing();
    if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        if r.nvrtc.is_none() {
            out!("(NVRTC may still load from the system library path: `cuprum info` says)");
        }
        out!("looked in: {}", r.tried.join("; "));
        ExitCode::FAILURE
    }
}

/// Runs the setup when `command` needs NVRTC (or, with `headers`, the CUDA headers) and
/// it is missing, saying what it downloads and where; `CUPRUM_NO_AUTO_SETUP=1` turns this
/// off (the command then reports what is missing itself).
pub fn on_first_need(command: &str, headers: bool) -> Result<(), Box<dyn std::error::Error>> {
    let nvrtc_ok = cuprum::compile::nvrtc().is_ok();
    let headers_ok = !headers || cuprum::compile::cuda_headers().len() == Component::HEADERS.len();
    if nvrtc_ok && headers_ok {
        return Ok(());
    }
    if !cuprum::compile::auto_setup_allowed()? {
        return Ok(());
    }
    let s = Setup::new();
    let what = if nvrtc_ok {
        "the CUDA headers"
    } else {
        "NVRTC"
    };
    eprintln!(
        "cuprum {command} needs {what}, which this machine lacks: running `cuprum setup` once \
         (set CUPRUM_NO_AUTO_SETUP=1 to skip; `cuprum setup --check` shows what is where)"
    );
    s.run()?;
    Ok(())
}
