//! Seed: "Option 2: easier kernels" (003) — the sum of prime factors of 2..=1,000,000 split
//! across every GPU of the machine (any number ≥ 1): GPU g computes a contiguous range of
//! the numbers with the ElementwiseKernel of `prime_factor_sum_elementwise` (its operation,
//! with the range's first index as a scalar argument), the ranges are copied to device 0
//! (`to_device`: peer-to-peer when the GPUs allow it) and joined. The last three values are
//! 287, 77, 42; every value is checked against a CPU version, and NCCL's all-reduce of the
//! per-GPU sums is checked against the host total.
//!
//! Under a launcher (torchrun, Slurm, mpirun, cuprum's variables: see `mse_multi_gpu`) the
//! same program runs one rank per process through `cuprum::dist::init()`: each rank
//! computes every size-th block of `BLOCK` numbers from its rank on its GPU (block-cyclic:
//! balanced work) and checks them against the CPU, NCCL sums the ranks'
//! totals, and rank 0 prints `gpu_ms` (the median of 11 timed runs of its range + the
//! all-reduce). `CUPRUM_PFS_N` sets the last number (default 1e6; the scaling row uses more).
use cuprum::dist::{Launch, Launcher};
use cuprum::nccl::{Communicator, ReduceOp};
use cuprum::{Array, DType, Device, ElementwiseKernel, ops};
use std::time::Instant;

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
    let op = include_str!("kernels/prime_factor_sum_elementwise.op").replace(
        "long long num = i + 2;",
        "long long j = last + dir * i; long long num = first + (j / blk) * stride + j % blk + 2;",
    );
    if !op.contains("first + (j / blk) * stride + j % blk + 2") {
        println!("prime_factor_sum_multi_gpu: the operation no longer starts at `i + 2`");
        std::process::exit(1);
    }
    let kernel = ElementwiseKernel::new(
        "int64 first, int64 stride, int64 blk, int64 last, int64 dir",
        "int64 A",
        &op,
        "prime_factor_sum_from",
    )?;
    let n = match std::env::var("CUPRUM_PFS_N") {
        Ok(t) => match t.trim().parse::<f64>() {
            Ok(v) if (4.0..1e10).contains(&v) => v as usize,
            _ => {
                println!("prime_factor_sum_multi_gpu: CUPRUM_PFS_N must be ≥ 4, given {t:?}");
                std::process::exit(1);
            }
        },
        Err(_) => 1_000_000,
    };
    if Launch::from_env()?.launcher != Launcher::None {
        return one_rank(&kernel, n);
    }
    let count = n - 1; // the numbers 2..=n
    let mut parts = Vec::with_capacity(k);
    let mut sums = Vec::with_capacity(k);
    for (g, &dev) in devices.iter().enumerate() {
        let (lo, hi) = (count * g / k, count * (g + 1) / k);
        let a = Array::zeros_on_device(dev, &[hi - lo], DType::I64)?;
        // contiguous: blocks of BLOCK numbers, one after another
        let blk = BLOCK as i64;
        kernel.run((lo as i64, blk, blk, 0i64, 1i64, &a))?; // runs on `dev`, the device of `a`
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
    let ok = bad == 0 && (n != 1_000_000 || tail == [287, 77, 42]) && total == host_total;
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

/// The numbers a rank takes together (block-cyclic split; see `one_rank`).
const BLOCK: usize = 4096;

/// One rank of a launched run: the numbers of its range on its GPU, checked against the CPU;
/// the ranks' totals summed by NCCL and compared with the ranks' host totals, summed alike.
fn one_rank(kernel: &ElementwiseKernel, n: usize) -> Result<(), cuprum::Error> {
    let dist = cuprum::dist::init()?;
    let (rank, size) = (dist.rank(), dist.world_size());
    let comm = dist.comm();
    let count = n - 1;
    // Rank r takes every size-th block of BLOCK numbers from block r (block-cyclic), so the
    // ranks' work is balanced: larger numbers cost more trial divisions, and a plain
    // cyclic split (every size-th number) would give each rank one residue class modulo
    // the size — rank 0 only even numbers, the cheapest to factor (80 % efficiency at 4).
    let (full, rest) = (count / BLOCK, count % BLOCK);
    let mine =
        BLOCK * ((full + size - 1 - rank) / size) + if full % size == rank { rest } else { 0 };
    // Element i holds the rank's (mine - 1 - i)-th number: the largest numbers, the most
    // trial divisions, come first, so the last blocks the GPU schedules are the cheapest
    // and the kernel's tail is short (in index order the tail was the dearest blocks: the
    // kernel on a quarter of the numbers took 5.8 % more than a quarter of the time).
    let index = |i: usize| {
        let j = mine - 1 - i;
        rank * BLOCK + (j / BLOCK) * size * BLOCK + j % BLOCK
    };
    let run_mine = |a: &Array| -> cuprum::Result<()> {
        kernel.run((
            (rank * BLOCK) as i64,
            (size * BLOCK) as i64,
            BLOCK as i64,
            mine as i64 - 1,
            -1i64,
            a,
        ))
    };
    let a = Array::zeros(&[mine], DType::I64)?;
    let step = || -> cuprum::Result<Array> {
        run_mine(&a)?;
        let sum = ops::sum(&a)?.reshape(&[1])?;
        comm.all_reduce(
            std::slice::from_ref(&sum),
            std::slice::from_ref(&sum),
            ReduceOp::Sum,
        )?;
        comm.synchronize()?;
        Ok(sum)
    };
    step()?;
    // Every rank starts each timed step together (`barrier`), so a step's time is its own
    // work and the all-reduce, not a wait for a late peer.
    let mut times = Vec::new();
    let mut sum = None;
    for _ in 0..11 {
        comm.barrier()?;
        let t = Instant::now();
        sum = Some(step()?);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    // This rank's kernel alone (events on its stream, median of 5): with `gpu_ms`, tells
    // a rank's own work from the wait for the slowest rank.
    let (stream, e0, e1) = (
        cuprum::Stream::current()?,
        cuprum::Event::new()?,
        cuprum::Event::new()?,
    );
    let mut kernel_ms = Vec::new();
    for _ in 0..5 {
        e0.record(&stream)?;
        run_mine(&a)?;
        e1.record(&stream)?;
        e1.synchronize()?;
        kernel_ms.push(f64::from(e0.elapsed_ms(&e1)?));
    }
    kernel_ms.sort_by(f64::total_cmp);
    let total = sum
        .map(|s| s.to_vec::<i64>())
        .transpose()?
        .map_or(-1, |v| v[0]);
    let v = a.to_vec::<i64>()?;
    let expect: Vec<i64> = (0..mine).map(|j| host(index(j) as i64 + 2)).collect();
    let bad = v.iter().zip(&expect).filter(|(g, h)| g != h).count();
    // The host totals of every rank's range, summed the same way.
    let host_sum = Array::from_slice(&[expect.iter().sum::<i64>()], &[1])?;
    comm.all_reduce(
        std::slice::from_ref(&host_sum),
        std::slice::from_ref(&host_sum),
        ReduceOp::Sum,
    )?;
    comm.synchronize()?;
    let host_total = host_sum.to_vec::<i64>()?[0];
    let ok = bad == 0 && total == host_total;
    println!(
        "prime_factor_sum_multi_gpu: rank {rank} of {size} on GPU {} ({}), numbers 2..={n}, \
         {bad} mismatches vs CPU in its {mine} numbers, total {total} (host {host_total}), gpu_ms: {:.3} \
         (its kernel alone {:.3}): {}",
        dist.device().ordinal(),
        dist.launch().launcher,
        times[times.len() / 2],
        kernel_ms[kernel_ms.len() / 2],
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
