//! Seed: "Option 3: raw kernel" — the sum of prime factors of 2..n for n = 1,000,000 as a
//! RawKernel; the last three values are 287, 77, 42; checked against a CPU version.
//! The kernel, the data and the check are in `seeds/` (`prime.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("prime_factor_sum", || {
        seeds::prime::printed(seeds::prime::raw_sums())
    })
}
