//! `cuprum`: the command line of the cuprum library (info, bench).

/// `println!` that ignores a closed stdout (e.g. `cuprum cache list | head`) instead of
/// panicking.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// The workspace's test harness (a temporary kernel cache, visible skips).
#[cfg(test)]
#[path = "../../cuprum/tests/common/harness.rs"]
mod harness;

mod bench;
mod cache;
mod compile;
mod demo;
mod info;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cuprum",
    version,
    about = "CuPy-style CUDA kernels for Rust: tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every example of the seed documents, each checked against its reference and
    /// timed (without a GPU: compile every demo kernel with NVRTC and show its registers).
    Demo(demo::DemoArgs),
    /// Driver, GPUs, NVRTC and cache directory of this machine.
    Info,
    /// Run the benchmark workloads (GPU time, host time, % of the copy bandwidth).
    Bench(bench::BenchArgs),
    /// Compile a CUDA C++ file (through the kernel cache; no GPU needed) and print each
    /// kernel's registers and memory use, or the compile error.
    Compile(compile::CompileArgs),
    /// Inspect or clear the persistent kernel cache.
    Cache {
        #[command(subcommand)]
        command: cache::CacheCommand,
    },
    /// Internal: one timed compile in a fresh process (used by `cuprum bench`).
    #[command(hide = true)]
    BenchChild(bench::ChildArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Demo(args) => demo::run(&args),
        Command::Info => info::run(),
        Command::Bench(args) => bench::run(&args),
        Command::Compile(args) => compile::run(&args),
        Command::Cache { command } => cache::run(&command),
        Command::BenchChild(args) => bench::child(&args),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
