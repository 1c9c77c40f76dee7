//! Seed: "Option 2: easier kernels" (003) — the sum of prime factors of 2..=1,000,000 split
//! across every GPU of the machine (any number ≥ 1): GPU g computes a contiguous range of
//! the numbers with the ElementwiseKernel of `prime_factor_sum_elementwise` (its operation,
//! with the range's first index as a scalar argument), the ranges are copied to device 0
//! (`to_device`: peer-to-peer when the GPUs allow it) and joined. The last three values are
//! 287, 77, 42; every value is checked against a CPU version, and NCCL's all-reduce of the
//! per-GPU sums is checked against the host total.
use cuprum::nccl::{Communicator, ReduceOp};
use cuprum::{Array, DType, Device, ElementwiseKernel, ops};

#[path = "reference/prime_factor_sum.rs"]
mod reference;
use reference::prime_factor_sum as host;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = Device::no_gpu_reason() {
        println!("prime_factor_sum_multi_gpu: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let devices = Device::all()?;
    let k = devices.len();
    let op = include_str!("kernels/prime_factor_sum_elementwise.op")
        .replace("long long num = i + 2;", "long long num = first + i + 2;");
    if !op.contains("first + i + 2") {
        println!("prime_factor_sum_multi_gpu: the operation no longer starts at `i + 2`");
        std::process::exit(1);
    }
    let kernel = ElementwiseKernel::new("int64 first", "int64 A", &op, "prime_factor_sum_from")?;
    let n = 1_000_000usize;
    let count = n - 1; // the numbers 2..=n
    let mut parts = Vec::with_capacity(k);
    let mut sums = Vec::with_capacity(k);
    for (g, &dev) in devices.iter().enumerate() {
        let (lo, hi) = (count * g / k, count * (g + 1) / k);
        let a = Array::zeros_on_device(dev, &[hi - lo], DType::I64)?;
        kernel.run((lo as i64, &a))?; // runs on `dev`, the device of `a`
        sums.push(ops::sum(&a)?.reshape(&[1])?);
        parts.push(a.to_device(devices[0])?);
    }
    let refs: Vec<&Array> = parts.iter().collect();
    let all = ops::concatenate(&refs, Some(0))?;
    let comm = Communicator::new(&devices)?;
    comm.all_reduce(&sums, &sums, ReduceOp::Sum)?;
    let total = sums[k - 1].to_vec::<i64>()?[0];

    let v = all.to_vec::<i64>()?;
    let expect: Vec<i64> = (0..count).map(|i| host(i as i64 + 2)).collect();
    let bad = (0..count).filter(|&i| v[i] != expect[i]).count();
    let host_total: i64 = expect.iter().sum();
    let tail = &v[v.len() - 3..];
    let ok = bad == 0 && tail == [287, 77, 42] && total == host_total;
    println!("Primes sum array: {all}");
    println!(
        "prime_factor_sum_multi_gpu: {k} GPU(s), {bad} mismatches vs CPU, total {total} (host \
         {host_total}): {}",
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
