//! Seed 003 ("Option 2: easier kernels", the `cupyx.jit.rawkernel` version) written in
//! Rust: `#[cuprum::kernel] prime_factor_sum` in kernels/rust_kernels.rs, line for line
//! with Rust types; the sums of 2..=1e6 end 287, 77, 42 and are checked against a CPU
//! version. `--source` prints the CUDA C++ it was translated to.
//! The data and the check are `seeds/jit.rs`, shared with `cuprum demo`.

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod rust_kernels;
#[path = "seeds/mod.rs"]
mod seeds;
#[path = "seeds/jit.rs"]
mod seeds_jit;

fn main() -> Result<(), cuprum::Error> {
    seeds_jit::example(
        "jit_prime_factor_sum",
        rust_kernels::prime_factor_sum::program(),
        seeds_jit::prime_factor_sum,
    )
}
