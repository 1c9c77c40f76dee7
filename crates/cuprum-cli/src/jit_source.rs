//! `cuprum jit-source`: the CUDA C++ that `#[cuprum::kernel]` generated for the kernels
//! written in Rust that this binary links (the seed examples' kernels). A user's own
//! kernels print theirs with `my_kernel::program()` (or `SOURCE`); the output compiles with
//! `cuprum compile FILE` (generic kernels: `--name-expr 'name<float>'`).

use crate::rust_kernels as rk;
use clap::Args;
use cuprum::kernel::jit::KernelDef;
use std::process::ExitCode;

#[derive(Args)]
pub struct JitSourceArgs {
    /// The kernel (`prime_factor_sum`, `vector_add`, …); without one, list them.
    name: Option<String>,
    /// Only the kernel's `__global__` function (its `SOURCE`), not the whole program.
    #[arg(long)]
    kernel_only: bool,
}

/// The kernels written in Rust this binary links, with what they are.
fn kernels() -> [(&'static KernelDef, &'static str); 7] {
    [
        (
            &rk::prime_factor_sum::__CUPRUM_KERNEL,
            "seed 003's cupyx.jit prime-factor sum, line for line",
        ),
        (
            &rk::vector_add::__CUPRUM_KERNEL,
            "seeds 000/001 vector add, generic over T: Num",
        ),
        (
            &rk::vector_add_wide::__CUPRUM_KERNEL,
            "vector add with 16-byte loads (load4/store4) in a grid-stride loop",
        ),
        (
            &rk::matrix_multiply::__CUPRUM_KERNEL,
            "seed 002 naive matrix multiply",
        ),
        (
            &rk::optimized_reduction::__CUPRUM_KERNEL,
            "seed 002 shared-memory block reduction",
        ),
        (
            &rk::apply_activation::__CUPRUM_KERNEL,
            "seed 002 ReLU / sigmoid with #[cuprum::device] functions",
        ),
        (
            &rk::apply_activation_match::__CUPRUM_KERNEL,
            "seed 002 activations selected by `match` on an integer",
        ),
    ]
}

pub fn run(args: &JitSourceArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let all = kernels();
    let Some(name) = &args.name else {
        out!(
            "kernels written in Rust (#[cuprum::kernel]) in this binary; `cuprum jit-source NAME` prints one:"
        );
        for (k, what) in &all {
            let generic = if k.is_generic() {
                " (generic: compile with --name-expr)"
            } else {
                ""
            };
            out!("  {:<22} {what}{generic}", k.name());
        }
        out!(
            "your own kernels: print `my_kernel::program()` (or `my_kernel::SOURCE`); `cuprum compile FILE` compiles it"
        );
        return Ok(ExitCode::SUCCESS);
    };
    match all.iter().find(|(k, _)| k.name() == name) {
        Some((k, _)) => {
            let text = if args.kernel_only {
                k.source()
            } else {
                k.program()
            };
            out!("{}", text.trim_end());
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let names: Vec<&str> = all.iter().map(|(k, _)| k.name()).collect();
            eprintln!(
                "error: no kernel written in Rust named {name:?} here (known: {})",
                names.join(", ")
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
