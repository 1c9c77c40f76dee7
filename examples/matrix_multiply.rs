//! Seed: "RawKernel — matrix multiply" (M, N, K = 1024, 1024, 512, 16×16 blocks), checked
//! against a CPU reference.
//! The kernel, the data and the check are in `seeds/` (`raw.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("matrix_multiply", || {
        seeds::raw::matrix_multiply(seeds::raw::host_reference)
    })
}
