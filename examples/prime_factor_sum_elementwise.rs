//! Seed: "Option 2: easier kernels" (003) — the sum of prime factors of 2..=1,000,000 as an
//! ElementwiseKernel instead of a RawKernel: the operation (kernels/
//! prime_factor_sum_elementwise.op, shared with `cuprum bench`) is the raw kernel's body
//! with the loop index `i` for the thread index, writing an int64 output passed in (its
//! shape sets the loop size, no grid or block to choose). The last three values are 287,
//! 77, 42; every value is checked against a CPU version.
use cuprum::{Array, DType, ElementwiseKernel};

#[path = "reference/prime_factor_sum.rs"]
mod reference;
use reference::prime_factor_sum as host;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("prime_factor_sum_elementwise: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let kernel = ElementwiseKernel::new(
        "",
        "int64 A",
        include_str!("kernels/prime_factor_sum_elementwise.op"),
        "prime_factor_sum",
    )?;
    let n = 1_000_000usize;
    let a = Array::empty(&[n - 1], DType::I64)?;
    kernel.run((&a,))?;
    let v = a.to_vec::<i64>()?;
    let bad = (0..n - 1).filter(|&i| v[i] != host(i as i64 + 2)).count();
    let tail = &v[v.len() - 3..];
    let ok = bad == 0 && tail == [287, 77, 42];
    println!("Primes sum array: {a}");
    println!(
        "prime_factor_sum_elementwise: {bad} mismatches vs CPU: {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
