//! `cuprum bundle record|build|info` and `cuprum precompile`: kernel bundles for
//! deployment (see `cuprum::bundle`) and warming the disk cache from a recorded list.

use clap::{Args, Subcommand};
use cuprum::bundle::{self, Bundle, RECORD_VAR};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type R = Result<ExitCode, Box<dyn std::error::Error>>;

#[derive(Subcommand)]
pub enum BundleCommand {
    /// Run a program with CUPRUM_BUNDLE_RECORD set, appending every kernel it compiles to
    /// the list (`cuprum bundle record -o kernels.list -- ./my_program args`).
    Record {
        /// The list file to append to (created when missing).
        #[arg(short, long)]
        output: PathBuf,
        /// The program and its arguments.
        #[arg(last = true, required = true)]
        program: Vec<String>,
    },
    /// Compile every kernel of a recorded list for each architecture (cubins) plus PTX of
    /// the newest, on all cores, without a GPU.
    Build {
        /// The recorded list (JSON lines).
        list: PathBuf,
        /// Architectures, e.g. sm_80,sm_90,sm_100.
        #[arg(long, default_value = "sm_80,sm_90,sm_100")]
        arch: String,
        /// The bundle file to write.
        #[arg(short, long)]
        output: PathBuf,
        /// A tuning file whose choices the bundle carries (the `tune-v1.json` in the kernel
        /// cache folder of a machine where `cuprum tune` ran on each GPU model to serve).
        #[arg(long, value_name = "tune-v1.json")]
        tuning: Option<PathBuf>,
    },
    /// Check a bundle (magic, version, checksum) and list what it holds; with `--list`,
    /// check that it gives every kernel of a recorded list to a GPU of `--arch`.
    Info {
        /// The bundle file.
        bundle: PathBuf,
        /// A recorded list whose kernels must all be in the bundle.
        #[arg(long)]
        list: Option<PathBuf>,
        /// The GPU architecture the list is checked for.
        #[arg(long, default_value = "sm_90")]
        arch: String,
    },
}

pub fn run(cmd: &BundleCommand) -> R {
    match cmd {
        BundleCommand::Record { output, program } => record(output, program),
        BundleCommand::Build {
            list,
            arch,
            output,
            tuning,
        } => build(list, arch, output, tuning.as_deref()),
        BundleCommand::Info { bundle, list, arch } => info(bundle, list.as_deref(), arch),
    }
}

fn count_lines(path: &Path) -> usize {
    bundle::read_list(path).map_or(0, |l| l.len())
}

/// Opens the list first (a read-only place fails here, before the program runs), then
/// runs the program with the variable set and passes its exit status on.
fn record(output: &Path, program: &[String]) -> R {
    bundle::open_list(output)?;
    let before = count_lines(output);
    let output = std::path::absolute(output)?;
    let status = std::process::Command::new(&program[0])
        .args(&program[1..])
        .env(RECORD_VAR, &output)
        .status()
        .map_err(|e| format!("cannot run {:?}: {e}", program[0]))?;
    let after = count_lines(&output);
    eprintln!(
        "cuprum bundle record: {} kernels in {} ({} new)",
        after,
        output.display(),
        after.saturating_sub(before)
    );
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(c) => ExitCode::from(u8::try_from(c).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

fn bar(len: u64, what: &str) -> ProgressBar {
    ProgressBar::new(len).with_style(
        ProgressStyle::with_template(&format!("{{bar:30}} {{pos}}/{{len}} {what} {{msg}}"))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    )
}

fn build(list: &Path, arch: &str, output: &Path, tuning: Option<&Path>) -> R {
    // The tuning file is read first: a wrong path fails before minutes of compiling.
    let choices = match tuning {
        Some(p) => Some(
            std::fs::read(p)
                .map_err(|e| format!("cannot read the tuning file {}: {e}", p.display()))?,
        ),
        None => None,
    };
    let records = bundle::read_list(list)?;
    let archs = bundle::parse_targets(arch)?;
    let progress = bar((records.len() * (archs.len() + 1)) as u64, "compiling");
    let start = std::time::Instant::now();
    let bytes = bundle::build(&records, &archs, &|name| {
        progress.set_message(name.to_owned());
        progress.inc(1);
    })?;
    progress.finish_and_clear();
    let bytes = match &choices {
        Some(c) => bundle::with_tuning(&bytes, c)?,
        None => bytes,
    };
    let b = Bundle::from_bytes(&bytes, &output.display().to_string())?;
    write_file(output, &bytes)?;
    out!(
        "{}: {} kernels × {} = {} images, {} tuning choices, {} bytes, in {:.1} s ({})",
        output.display(),
        b.kernels(),
        b.targets().join(" "),
        b.images(),
        b.tuning_choices(),
        bytes.len(),
        start.elapsed().as_secs_f64(),
        b.made_by()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes through a temp file beside `path` and a rename.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    let file = tmp
        .persist(path)
        .map_err(|e| format!("cannot write {}: {}", path.display(), e.error))?;
    // A bundle is an artifact to ship, not a secret: readable by all, like a binary.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    Ok(())
}

fn info(path: &Path, list: Option<&Path>, arch: &str) -> R {
    let b = Bundle::read(path)?;
    out!("bundle:   {}", b.origin());
    out!("made by:  {}", b.made_by());
    out!("format:   {}", bundle::BUNDLE_FORMAT_VERSION);
    out!("targets:  {}", b.targets().join(" "));
    out!("kernels:  {} ({} images)", b.kernels(), b.images());
    out!("tuning:   {} choices", b.tuning_choices());
    let Some(list) = list else {
        for n in b.kernel_names() {
            out!("  {n}");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let archs = bundle::parse_targets(arch)?;
    let records = bundle::read_list(list)?;
    let mut missing = 0;
    for a in &archs {
        for r in &records {
            if b.image_for(r.source(), &r.options(), *a).is_none() {
                out!("missing for sm_{a}: {}", r.name());
                missing += 1;
            }
        }
    }
    out!(
        "{} of {} kernels of {} for {}: {}",
        records.len() * archs.len() - missing,
        records.len() * archs.len(),
        list.display(),
        arch,
        if missing == 0 {
            "all in the bundle"
        } else {
            "some MISSING"
        }
    );
    Ok(if missing == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[derive(Args)]
pub struct PrecompileArgs {
    /// The recorded list (JSON lines, from `cuprum bundle record`).
    list: PathBuf,
    /// Compile for these architectures instead of the current device (no GPU needed),
    /// e.g. sm_90.
    #[arg(long)]
    arch: Option<String>,
}

/// Warms the disk cache with every kernel of a list: for the current device, or for the
/// architectures given.
pub fn precompile(args: &PrecompileArgs) -> R {
    let records = bundle::read_list(&args.list)?;
    let start = std::time::Instant::now();
    let n = match &args.arch {
        None => {
            let progress = bar(records.len() as u64, "compiling");
            let items: Vec<&dyn cuprum::compile::Precompile> = records
                .iter()
                .map(|r| r as &dyn cuprum::compile::Precompile)
                .collect();
            let n = cuprum::compile::precompile_with_progress(&items, &|_, _, name| {
                progress.set_message(name.to_owned());
                progress.inc(1);
            })?;
            progress.finish_and_clear();
            n
        }
        Some(list) => {
            let archs = bundle::parse_targets(list)?;
            let jobs: Vec<_> = records
                .iter()
                .flat_map(|r| archs.iter().map(move |a| (r, *a)))
                .collect();
            let progress = bar(jobs.len() as u64, "compiling");
            jobs.par_iter().try_for_each(|(r, a)| {
                let done = cuprum::compile::compile_for_arch(r.source(), &r.options(), *a);
                progress.set_message(r.name().to_owned());
                progress.inc(1);
                done.map(drop)
            })?;
            progress.finish_and_clear();
            jobs.len()
        }
    };
    let dir = cuprum::compile::KernelCache::global()?
        .dir()
        .map_or_else(|| "memory only".to_string(), |d| d.display().to_string());
    out!(
        "precompiled {n} kernels in {:.1} s (cache: {dir})",
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
