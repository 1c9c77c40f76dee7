//! Seed: "Option 2: easier kernels" (003) — the sum of prime factors of 2..=1,000,000 as an
//! ElementwiseKernel instead of a RawKernel: the operation (kernels/
//! prime_factor_sum_elementwise.op, shared with `cuprum bench`) is the raw kernel's body
//! with the loop index `i` for the thread index, writing an int64 output passed in (its
//! shape sets the loop size, no grid or block to choose). The last three values are 287,
//! 77, 42; every value is checked against a CPU version.
//! The kernel and the check are `seeds/prime.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/prime.rs"]
mod prime;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("prime_factor_sum_elementwise: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let a = prime::elementwise_sums()?;
    // the seed's `print(f"Primes sum array: {A}")`: NumPy's summarised form
    println!("Primes sum array: {a}");
    let (result, ok) = prime::summary(&a.to_vec::<i64>()?);
    check::report("prime_factor_sum_elementwise", &result, ok);
    Ok(())
}
