//! Seed: "Option 2: easier kernels" (003) — the sum of prime factors of 2..=1,000,000 as an
//! ElementwiseKernel instead of a RawKernel: the operation (kernels/
//! prime_factor_sum_elementwise.op, shared with `cuprum bench`) is the raw kernel's body
//! with the loop index `i` for the thread index, writing an int64 output passed in (its
//! shape sets the loop size, no grid or block to choose). The last three values are 287,
//! 77, 42; every value is checked against a CPU version.
//! The kernel, the data and the check are in `seeds/` (`prime.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("prime_factor_sum_elementwise", || {
        seeds::prime::printed(seeds::prime::elementwise_sums())
    })
}
