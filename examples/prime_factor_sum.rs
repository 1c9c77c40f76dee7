//! Seed: "Option 3: raw kernel" — the sum of prime factors of 2..n for n = 1,000,000 as a
//! RawKernel; the last three values are 287, 77, 42; checked against a CPU version.
use cuprum::{Array, DType, RawKernel};

#[path = "reference/prime_factor_sum.rs"]
mod reference;
use reference::prime_factor_sum as host;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("prime_factor_sum: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let kernel = RawKernel::new(
        include_str!("kernels/prime_factor_sum.cu"),
        "primeFactorizationSum",
    );
    let n = 1_000_000usize;
    let a = Array::empty(&[n - 1], DType::I64)?;
    let threads = 256u32;
    let blocks = ((n - 1) as u32).div_ceil(threads);
    kernel.launch(blocks, threads, (&a, (n - 1) as i32))?;
    let v = a.to_vec::<i64>()?;
    let bad = (0..n - 1).filter(|&i| v[i] != host(i as i64 + 2)).count();
    let tail = &v[v.len() - 3..];
    // the seed's `print(f"Primes sum array: {A}")`: NumPy's summarised form
    println!("Primes sum array: {a}");
    println!("prime_factor_sum: {bad} mismatches vs CPU");
    if bad > 0 || tail != [287, 77, 42] {
        std::process::exit(1);
    }
    Ok(())
}
