//! `cuprum bench-child MODE DIR`: the entry point of the bench's child processes (one timed
//! case in a fresh process), handing each mode to the file of its case.

use super::subprocess::{ChildMode, nonce};
use super::timed::R;
use super::{bundle_cases, compile_cases, fuse_cases, host_cases};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ChildArgs {
    mode: ChildMode,
    /// The cache folder.
    dir: PathBuf,
}

/// Runs the case of `args.mode` in this fresh process and prints its seconds: in total, then
/// up to the end of the cache lookup (the total twice for the cases timed as a whole).
pub fn child(args: &ChildArgs) -> R<ExitCode> {
    if let ChildMode::FuseCold = args.mode {
        let s = fuse_cases::cold_first_call(nonce())?;
        out!("{s} {s}");
        return Ok(ExitCode::SUCCESS);
    }
    if let ChildMode::FuseColdParts = args.mode {
        out!("{}", fuse_cases::cold_parts(nonce(), &args.dir)?);
        return Ok(ExitCode::SUCCESS);
    }
    if let ChildMode::CompileColdParts = args.mode {
        out!("{}", compile_cases::compile_parts(&args.dir)?);
        return Ok(ExitCode::SUCCESS);
    }
    if let ChildMode::HostDisk = args.mode {
        let s = host_cases::disk_hit_child(&args.dir)?;
        out!("{s} {s}");
        return Ok(ExitCode::SUCCESS);
    }
    if let ChildMode::BundleLoad = args.mode {
        let s = bundle_cases::load_child(&args.dir)?;
        out!("{s} {s}");
        return Ok(ExitCode::SUCCESS);
    }
    let (s, lookup) = compile_cases::compile_child(args.mode, &args.dir)?;
    out!("{s} {lookup}");
    Ok(ExitCode::SUCCESS)
}
