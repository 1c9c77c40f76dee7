//! Seed: "Option 3: raw kernel" — the sum of prime factors of 2..n for n = 1,000,000 as a
//! RawKernel; the last three values are 287, 77, 42; checked against a CPU version.
//! The kernel and the check are `seeds/prime.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/prime.rs"]
mod prime;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("prime_factor_sum: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let a = prime::raw_sums()?;
    // the seed's `print(f"Primes sum array: {A}")`: NumPy's summarised form
    println!("Primes sum array: {a}");
    let (result, ok) = prime::summary(&a.to_vec::<i64>()?);
    check::report("prime_factor_sum", &result, ok);
    Ok(())
}
