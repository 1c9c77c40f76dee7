//! `cuprum grid N [--block 256] [--kernel FILE --name NAME]`: the launch geometry of seed
//! 000 — elements, threads per block, blocks, total threads, and its block-size analysis
//! for 128, 256 and 512 threads per block — plus, for a compiled kernel, the driver's
//! occupancy and the grid a grid-stride loop would use (on a GPU; without one it says so).

use clap::Args;
use cuprum::compile::{CompileOptions, compile_for_arch, resource_usage};
use cuprum::runtime::LaunchConfig;
use cuprum::{Device, RawModule};
use std::path::PathBuf;
use std::process::ExitCode;

/// The block sizes of seed 000's analysis.
const SEED_BLOCKS: [u32; 3] = [128, 256, 512];

#[derive(Args)]
pub struct GridArgs {
    /// Number of elements (`1000000`, `1_000_000` and `1,000,000` all work).
    #[arg(value_parser = parse_count)]
    n: u64,
    /// Threads per block (1 to 1024).
    #[arg(long, default_value_t = 256)]
    block: u32,
    /// A CUDA C++ file holding the kernel to ask the driver about (with `--name`).
    #[arg(long, value_name = "FILE", requires = "name")]
    kernel: Option<PathBuf>,
    /// The kernel's name in `--kernel`'s file.
    #[arg(long, value_name = "NAME", requires = "kernel")]
    name: Option<String>,
    /// Dynamic shared memory per block for the occupancy, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    shared_mem: u32,
    /// An NVRTC option for `--kernel`, e.g. `-O -DN=4` (repeatable).
    #[arg(
        short = 'O',
        long = "option",
        value_name = "OPT",
        allow_hyphen_values = true
    )]
    options: Vec<String>,
}

fn parse_count(s: &str) -> Result<u64, String> {
    let digits: String = s.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    digits
        .parse()
        .map_err(|_| format!("expected a number of elements such as 1000000, got {s:?}"))
}

/// `1234567` → `1,234,567` (Python's `{:,}`).
fn thousands(n: u128) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Blocks of `tpb` threads for `n` elements (seed 000's `(n + tpb - 1) // tpb`).
fn blocks(n: u64, tpb: u32) -> u128 {
    u128::from(n).div_ceil(u128::from(tpb.max(1)))
}

/// Seed 000's `CUDAGrid(n, tpb).info()`.
pub fn grid_info(n: u64, tpb: u32) -> String {
    let b = blocks(n, tpb);
    format!(
        "Elements: {}\nThreads per block: {tpb}\nBlocks: {}\nTotal threads: {}",
        thousands(n.into()),
        thousands(b),
        thousands(b * u128::from(tpb))
    )
}

/// Seed 000's `optimal_block_size(n)`: blocks and the share of launched threads that
/// have an element, for 128, 256 and 512 threads per block.
pub fn block_size_analysis(n: u64) -> String {
    let mut s = format!("Block size analysis for N={n}:");
    for tpb in SEED_BLOCKS {
        let b = blocks(n, tpb);
        if b == 0 {
            s.push_str(&format!("\n  TPB={tpb}: 0 blocks (no elements)"));
        } else {
            let occupancy = n as f64 / (b * u128::from(tpb)) as f64 * 100.0;
            s.push_str(&format!(
                "\n  TPB={tpb}: {b} blocks, {occupancy:.1}% occupancy"
            ));
        }
    }
    s
}

pub fn run(args: &GridArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if !(1..=1024).contains(&args.block) {
        eprintln!(
            "error: --block {}: threads per block must be between 1 and 1024",
            args.block
        );
        return Ok(ExitCode::FAILURE);
    }
    out!("{}", grid_info(args.n, args.block));
    out!();
    out!("{}", block_size_analysis(args.n));
    let (Some(file), Some(name)) = (&args.kernel, &args.name) else {
        return Ok(ExitCode::SUCCESS);
    };
    out!();
    kernel_occupancy(args, file, name)
}

/// The driver's occupancy of `name` in `file` for seed 000's block sizes and `--block`, and
/// the grid-stride grid for `n` elements; without a GPU, NVRTC's register count instead.
fn kernel_occupancy(
    args: &GridArgs,
    file: &PathBuf,
    name: &str,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", file.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    let program = file
        .file_name()
        .map_or("kernel.cu".into(), |n| n.to_string_lossy().into_owned());
    let mut opts = CompileOptions::new().program_name(program);
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        opts = opts.include_path(dir);
    }
    for o in &args.options {
        opts = opts.option(o.clone());
    }
    let mut sizes: Vec<u32> = SEED_BLOCKS.to_vec();
    if !sizes.contains(&args.block) {
        sizes.push(args.block);
        sizes.sort_unstable();
    }
    if let Some(why) = Device::no_gpu_reason() {
        out!(
            "Occupancy of {name} ({}): no GPU here ({why}); the driver's occupancy needs one, \
             the table above is the theoretical one.",
            file.display()
        );
        return compile_report(&source, &opts, name);
    }
    let module = RawModule::new(source).options(opts);
    let kernel = match module.get_function(name) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("error: {name} in {}: {e}", file.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    let device = Device::current()?;
    let attrs = kernel.attributes()?;
    out!(
        "Occupancy of {name} ({}) on GPU {} ({}, {} SMs): {} registers/thread, {} B static shared memory, {} B dynamic",
        file.display(),
        device.ordinal(),
        device.name(),
        device.sm_count(),
        attrs.num_regs,
        attrs.shared_size_bytes,
        args.shared_mem
    );
    for tpb in sizes {
        match kernel.occupancy(tpb, args.shared_mem) {
            Ok(o) => {
                let grid = kernel.grid_stride(args.n as usize, tpb, args.shared_mem)?;
                out!(
                    "  TPB={tpb}: {} blocks/SM, {:.1}% occupancy, {} blocks at once; grid-stride launch for N={}: {} blocks",
                    o.blocks_per_sm,
                    100.0 * o.fraction(),
                    o.resident_blocks(),
                    args.n,
                    grid.grid.0
                );
            }
            Err(e) => out!("  TPB={tpb}: {e}"),
        }
    }
    out!(
        "  (one thread per element would need {} blocks of {}: LaunchConfig::linear)",
        LaunchConfig::blocks_for(args.n as usize, args.block),
        args.block
    );
    Ok(ExitCode::SUCCESS)
}

/// Without a GPU: compiles with NVRTC for sm_90 and reports the kernel's registers.
fn compile_report(
    source: &str,
    opts: &CompileOptions,
    name: &str,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let img = match compile_for_arch(source, &opts.clone().option("-Xptxas=-v"), 90) {
        Ok(img) => img,
        Err(e) if e.kind() == cuprum::ErrorKind::NvrtcNotFound => {
            out!("  (NVRTC not found either: {e})");
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    match resource_usage(&img.log)
        .into_iter()
        .find(|r| r.name == name)
    {
        Some(r) => out!(
            "  compiled for sm_90 by NVRTC: {} registers/thread, {} B shared memory",
            r.registers,
            r.shared_bytes
        ),
        None => {
            eprintln!("error: no kernel named {name} in the compiled program");
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_output() {
        assert_eq!(
            grid_info(1_000_000, 256),
            "Elements: 1,000,000\nThreads per block: 256\nBlocks: 3,907\nTotal threads: 1,000,192"
        );
        assert_eq!(
            block_size_analysis(10_000),
            "Block size analysis for N=10000:\n  TPB=128: 79 blocks, 98.9% occupancy\n  \
             TPB=256: 40 blocks, 97.7% occupancy\n  TPB=512: 20 blocks, 97.7% occupancy"
        );
        assert_eq!(
            grid_info(0, 256),
            "Elements: 0\nThreads per block: 256\nBlocks: 0\nTotal threads: 0"
        );
        assert!(block_size_analysis(0).contains("TPB=128: 0 blocks (no elements)"));
        assert_eq!(
            grid_info(u64::MAX, 1024),
            "Elements: 18,446,744,073,709,551,615\nThreads per block: 1024\n\
             Blocks: 18,014,398,509,481,984\nTotal threads: 18,446,744,073,709,551,616"
        );
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(parse_count("1_000,000"), Ok(1_000_000));
        assert!(parse_count("1e6").is_err());
    }
}
