//! Seed 002 ("matrix_multiply_kernel") written in Rust: the naive product (M, N, K = 1024,
//! 1024, 512, 16×16 blocks), checked against a CPU reference. `--source` prints the C++.
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
        "jit_matrix_multiply",
        rust_kernels::matrix_multiply::program(),
        || seeds_jit::matrix_multiply(seeds::raw::host_reference),
    )
}
