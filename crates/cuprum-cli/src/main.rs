//! `cuprum`: the command line of the cuprum library (demo, info, bench, compile, grid, setup,
//! stress, cache, bundle, precompile, tune).

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
mod bundle;
mod cache;
mod compile;
mod demo;
mod grid;
mod info;
mod jit_source;
/// Seed 003's masked prime-factor sum, the example's function (demo, bench).
#[path = "../../../examples/masked/prime_factor_sum.rs"]
mod masked_seed;
/// The examples' kernels written in Rust (demo, bench, `jit-source`).
#[path = "../../../examples/kernels/rust_kernels.rs"]
pub mod rust_kernels;
// The seeds' kernels, data and checks, shared with the examples (demo, bench); `seeds_jit`
// beside `seeds`, with the kernels written in Rust as `rust_kernels`, as the examples
// include them.
/// The examples' kernels over device types (`#[derive(cuprum::DeviceType)]`), and their
/// seeds (n-body step, enum activations), as the examples include them.
#[path = "../../../examples/kernels/device_types.rs"]
pub mod device_kernels;
#[path = "../../../examples/seeds/mod.rs"]
mod seeds;
#[path = "../../../examples/seeds/jit.rs"]
mod seeds_jit;
#[path = "../../../examples/seeds/device_types.rs"]
mod seeds_types;
mod setup;
mod stress;
mod tune;

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
    /// Launch geometry for N elements (seed 000): blocks for a block size, the block-size
    /// analysis for 128, 256 and 512 threads, and with `--kernel FILE --name NAME` the
    /// driver's occupancy of that kernel and its grid-stride grid (needs a GPU).
    Grid(grid::GridArgs),
    /// Install NVRTC and the CUDA headers (NVIDIA's pip wheels, matched to the driver) into
    /// cuprum's data folder; `--check` reports what is where without downloading.
    Setup(setup::SetupArgs),
    /// Print the CUDA C++ generated from a kernel written in Rust (#[cuprum::kernel]) that
    /// this binary links (the seed examples'); without a name, list them.
    JitSource(jit_source::JitSourceArgs),
    /// Kernel bundles for deployment: record the kernels a program compiles, build them
    /// for a list of architectures without a GPU, inspect a bundle.
    Bundle {
        #[command(subcommand)]
        command: bundle::BundleCommand,
    },
    /// Compile every kernel of a recorded list into the disk cache, on all cores.
    Precompile(bundle::PrecompileArgs),
    /// Inspect, clear, export or import the persistent kernel cache.
    Cache {
        #[command(subcommand)]
        command: cache::CacheCommand,
    },
    /// Reliability cases at full size, checked and measured: 16 threads with their own
    /// streams, 1,000,000 launches, allocation churn, cross-stream reuse, out of memory,
    /// damaged and concurrent kernel-cache entries, and a faulting kernel (last, in a child
    /// process).
    Stress(stress::StressArgs),
    /// Measure the tuned kernel families (scan tiles, …) on a GPU and keep each winner in
    /// the cache folder; `--report` shows every choice, its margin and the candidates'
    /// times without measuring. `CUPRUM_TUNE=off|cached|full` says when cuprum measures
    /// by itself.
    Tune(tune::TuneArgs),
    /// Internal: a stress case that runs in its own process (used by `cuprum stress`).
    #[command(hide = true)]
    StressChild(stress::ChildArgs),
    /// Internal: one timed compile in a fresh process (used by `cuprum bench`).
    #[command(hide = true)]
    BenchChild(bench::ChildArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        // From a bundle, the demo needs no NVRTC: nothing may look for it.
        Command::Demo(args) if args.bundle.is_some() => demo::run(&args),
        Command::Demo(args) => setup::on_first_need("demo", false).and_then(|()| demo::run(&args)),
        Command::Info => info::run(),
        Command::Bench(args) if cuprum::Device::no_gpu_reason().is_none() => {
            setup::on_first_need("bench", false).and_then(|()| bench::run(&args))
        }
        Command::Bench(args) => bench::run(&args),
        Command::Setup(args) => setup::run(&args),
        Command::Compile(args) => compile::run(&args),
        Command::Grid(args) => grid::run(&args),
        Command::JitSource(args) => jit_source::run(&args),
        Command::Cache { command } => cache::run(&command),
        Command::Bundle { command } => bundle::run(&command),
        Command::Precompile(args) => bundle::precompile(&args),
        Command::BenchChild(args) => bench::child(&args),
        Command::Stress(args) => stress::run(&args),
        Command::Tune(args) => tune::run(&args),
        Command::StressChild(args) => stress::child(&args),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
