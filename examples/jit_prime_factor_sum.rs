//! Seed 003 ("Option 2: easier kernels", the `cupyx.jit.rawkernel` version) written in
//! Rust: `#[cuprum::kernel] prime_factor_sum` in kernels/rust_kernels.rs, line for line
//! with Rust types; the sums of 2..=1e6 end 287, 77, 42 and are checked against a CPU
//! version. `--source` prints the CUDA C++ it was translated to.
use cuprum::{Array, DType};

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod kernels;
#[path = "reference/prime_factor_sum.rs"]
mod reference;
use kernels::prime_factor_sum;

fn main() -> Result<(), cuprum::Error> {
    if std::env::args().any(|a| a == "--source") {
        print!("{}", prime_factor_sum::program());
        return Ok(());
    }
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!(
            "jit_prime_factor_sum: no GPU here ({why}); nothing to run (--source prints the kernel)"
        );
        return Ok(());
    }
    let n = 1_000_000usize;
    let mut a = Array::empty(&[n - 1], DType::I64)?;
    let threads = 256u32;
    let blocks = ((n - 1) as u32).div_ceil(threads);
    prime_factor_sum::launch((blocks, threads), &mut a, (n - 1) as i32)?;
    let v = a.to_vec::<i64>()?;
    let bad = (0..n - 1)
        .filter(|&i| v[i] != reference::prime_factor_sum(i as i64 + 2))
        .count();
    let tail = &v[v.len() - 3..];
    println!(
        "jit_prime_factor_sum: [{} {} {} ... {} {} {}], {bad} mismatches vs CPU",
        v[0], v[1], v[2], tail[0], tail[1], tail[2]
    );
    if bad > 0 || tail != [287, 77, 42] {
        std::process::exit(1);
    }
    Ok(())
}
