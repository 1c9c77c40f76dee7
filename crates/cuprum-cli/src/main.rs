//! `cuprum`: the command line of the cuprum library (info, bench).

mod bench;
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
    /// Driver, GPUs, NVRTC and cache directory of this machine.
    Info,
    /// Run the benchmark workloads (GPU time, host time, % of the copy bandwidth).
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Info => info::run(),
        Command::Bench(args) => bench::run(&args),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
