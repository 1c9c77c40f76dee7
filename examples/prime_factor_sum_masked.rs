//! Seed 003: "Option 1: reformulate entirely" — the sum of prime factors of 2..=1,000,000
//! with boolean masks and in-place updates through them, line for line
//! (examples/masked/prime_factor_sum.rs). Prints the seed's benchmark line and
//! `Primes sum array: [  2   3   4 ... 287  77  42]` (NumPy's summarised form) and checks
//! every value against the CPU reference.
use cuprum::profiler::{BenchmarkOptions, benchmark};

#[path = "masked/prime_factor_sum.rs"]
mod masked;
use masked::prime_factorization_sum;

#[path = "reference/prime_factor_sum.rs"]
mod reference;
use reference::prime_factor_sum as host;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("prime_factor_sum_masked: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let n = 1_000_000usize;
    // print(benchmark(primeFactorizationSum, (n,), n_repeat=20))
    let opts = BenchmarkOptions::new().n_repeat(20);
    let timing = benchmark(
        "primeFactorizationSum",
        || prime_factorization_sum(n).map(drop),
        &opts,
    )?;
    println!("{timing}");
    // print(f"Primes sum array: {primeFactorizationSum(n)}")
    let totals = prime_factorization_sum(n)?;
    let printed = format!("Primes sum array: {totals}");
    println!("{printed}");

    let v = totals.to_vec::<i64>()?;
    let bad = (0..n - 1).filter(|&i| v[i] != host(i as i64 + 2)).count();
    println!("prime_factor_sum_masked: {bad} mismatches vs CPU");
    if bad > 0 || printed != "Primes sum array: [  2   3   4 ... 287  77  42]" {
        std::process::exit(1);
    }
    Ok(())
}
