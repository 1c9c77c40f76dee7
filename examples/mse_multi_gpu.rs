//! Seed: "mse_reduc.py" (003) — the mean squared error, data-parallel over every GPU of the
//! machine (any number ≥ 1). The seed's data (1e7 float64 `y_true` uniform in [0, 100),
//! `y_pred = y_true + noise` with normal noise of scale 5) is split into one shard per GPU;
//! each GPU reduces its shard with the seed's `mse_kernel` (a ReductionKernel, the mean of
//! its shard) and scales it by its share of the samples; NCCL's all-reduce sums the partial
//! results on every GPU. Checked against a compensated host sum (relative 1e-12) and every
//! GPU must hold the same result. Without NCCL it says why and exits 1.
//!
//! The same program runs as one rank per process (on one machine or several): with `RANK`,
//! `WORLD_SIZE` and `CUPRUM_NCCL_ID_FILE` (a path all ranks can read; rank 0 writes the
//! NCCL unique id there) set, each process reduces its shard on GPU `RANK % count` and
//! the ranks meet through the file:
//!
//! ```sh
//! RANK=0 WORLD_SIZE=2 CUPRUM_NCCL_ID_FILE=/tmp/mse.id mse_multi_gpu &
//! RANK=1 WORLD_SIZE=2 CUPRUM_NCCL_ID_FILE=/tmp/mse.id mse_multi_gpu; wait
//! ```
use cuprum::nccl::{Communicator, ReduceOp};
use cuprum::{Array, DType, Device, ReductionKernel, random};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = Device::no_gpu_reason() {
        println!("mse_multi_gpu: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let mse_kernel = ReductionKernel::new(
        "T y_pred, T y_true",
        "T mse_out",
        "(y_pred - y_true) * (y_pred - y_true)",
        "a + b",
        "mse_out = a / _in_ind.size()",
        Some("0"),
        "mse_kernel",
    )?;
    let n_samples = 10_000_000usize;
    if let (Ok(rank), Ok(size)) = (std::env::var("RANK"), std::env::var("WORLD_SIZE")) {
        return one_rank(&mse_kernel, n_samples, &rank, &size);
    }
    let devices = Device::all()?;
    let k = devices.len();
    let comm = Communicator::new(&devices)?;
    let mut partial = Vec::with_capacity(k);
    let mut host = Vec::with_capacity(k);
    for (g, &dev) in devices.iter().enumerate() {
        // Shard g holds samples [lo, hi); the shards differ by at most one sample.
        let (lo, hi) = (n_samples * g / k, n_samples * (g + 1) / k);
        let n = hi - lo;
        let (y_true, y_pred) = dev.with(|| -> cuprum::Result<(Array, Array)> {
            let y_true = random::uniform(0.0, 100.0, &[n], DType::F64)?;
            let noise = random::normal(0.0, 5.0, &[n], DType::F64)?;
            let y_pred = (&y_true + &noise)?;
            Ok((y_true, y_pred))
        })?;
        // The shard's mean, weighted by the shard's share of all samples (on this GPU).
        let mean = mse_kernel.call((&y_true, &y_pred))?;
        let part = (&mean * (n as f64 / n_samples as f64))?;
        assert_eq!(part.device(), dev);
        partial.push(part);
        host.push((y_true.to_vec::<f64>()?, y_pred.to_vec::<f64>()?));
    }
    // Sum of the partial results, in place, on every GPU.
    comm.all_reduce(&partial, &partial, ReduceOp::Sum)?;
    let results: Vec<f64> = partial
        .iter()
        .map(|p| p.to_vec::<f64>().map(|v| v[0]))
        .collect::<cuprum::Result<_>>()?;

    let (mut s, mut c) = (0.0f64, 0.0f64);
    for (t, p) in &host {
        for (t, p) in t.iter().zip(p) {
            let y = (p - t) * (p - t) - c;
            let u = s + y;
            c = (u - s) - y;
            s = u;
        }
    }
    let expect = s / n_samples as f64;
    let mse = results[0];
    let same = results.iter().all(|&r| r == mse);
    let ok = same && (mse - expect).abs() <= 1e-12 * expect && (20.0..30.0).contains(&mse);
    println!(
        "mse_multi_gpu: {k} GPU(s), MSE: {mse} (host {expect}, relative difference {:.1e}; \
         every GPU holds it: {same}): {}",
        (mse - expect).abs() / expect,
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}

/// Compensated sum of the squared differences of one shard.
fn host_sum(t: &[f64], p: &[f64]) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for (t, p) in t.iter().zip(p) {
        let y = (p - t) * (p - t) - c;
        let u = s + y;
        c = (u - s) - y;
        s = u;
    }
    s
}

/// One rank of a multi-process run: this process's shard on GPU `rank % count`, the
/// partial results summed by NCCL across the processes; the host references of the shards
/// are summed the same way and compared.
fn one_rank(
    mse_kernel: &ReductionKernel,
    n_samples: usize,
    rank: &str,
    size: &str,
) -> Result<(), cuprum::Error> {
    let (Ok(rank), Ok(size)) = (rank.trim().parse::<usize>(), size.trim().parse::<usize>()) else {
        println!("mse_multi_gpu: RANK and WORLD_SIZE must be numbers, given {rank:?} and {size:?}");
        std::process::exit(1);
    };
    let Ok(path) = std::env::var("CUPRUM_NCCL_ID_FILE") else {
        println!("mse_multi_gpu: RANK and WORLD_SIZE are set but CUPRUM_NCCL_ID_FILE is not");
        std::process::exit(1);
    };
    let dev = Device::get(rank % Device::count()?)?;
    let comm = Communicator::from_unique_id_file(
        &path,
        rank,
        size,
        dev,
        std::time::Duration::from_secs(120),
    )?;
    let (lo, hi) = (n_samples * rank / size, n_samples * (rank + 1) / size);
    let n = hi - lo;
    let (y_true, y_pred) = dev.with(|| -> cuprum::Result<(Array, Array)> {
        let y_true = random::uniform(0.0, 100.0, &[n], DType::F64)?;
        let noise = random::normal(0.0, 5.0, &[n], DType::F64)?;
        let y_pred = (&y_true + &noise)?;
        Ok((y_true, y_pred))
    })?;
    let mean = mse_kernel.call((&y_true, &y_pred))?;
    let part = (&mean * (n as f64 / n_samples as f64))?;
    let host = host_sum(&y_true.to_vec::<f64>()?, &y_pred.to_vec::<f64>()?) / n_samples as f64;
    let host_part = Array::from_slice_on_device(dev, &[host], &[1])?;
    let part = part.reshape(&[1])?;
    comm.all_reduce(
        std::slice::from_ref(&part),
        std::slice::from_ref(&part),
        ReduceOp::Sum,
    )?;
    comm.all_reduce(
        std::slice::from_ref(&host_part),
        std::slice::from_ref(&host_part),
        ReduceOp::Sum,
    )?;
    let (mse, expect) = (part.to_vec::<f64>()?[0], host_part.to_vec::<f64>()?[0]);
    let ok = (mse - expect).abs() <= 1e-12 * expect && (20.0..30.0).contains(&mse);
    println!(
        "mse_multi_gpu: rank {rank} of {size} on GPU {}, MSE: {mse} (host {expect}, relative \
         difference {:.1e}): {}",
        dev.ordinal(),
        (mse - expect).abs() / expect,
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
