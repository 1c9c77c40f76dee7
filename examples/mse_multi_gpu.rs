//! Seed: "mse_reduc.py" (003) — the mean squared error, data-parallel over every GPU of the
//! machine (any number ≥ 1). The seed's data (1e7 float64 `y_true` uniform in [0, 100),
//! `y_pred = y_true + noise` with normal noise of scale 5) is split into one shard per GPU;
//! each GPU reduces its shard with the seed's `mse_kernel` (a ReductionKernel, the mean of
//! its shard) and scales it by its share of the samples; NCCL's all-reduce sums the partial
//! results on every GPU. Checked against a compensated host sum (relative 1e-12) and every
//! GPU must hold the same result. Without NCCL it says why and exits 1.
//!
//! The same program runs as one rank per process, on one machine or several, under any
//! launcher: `cuprum::dist::init()` reads torchrun's, Slurm's, Open MPI's or cuprum's
//! variables, picks the GPU of the local rank and meets the other ranks over TCP at rank
//! 0's host (or a shared file, `CUPRUM_RENDEZVOUS_FILE`). Each rank reduces its shard, the
//! partial results and the host references are summed by NCCL, and every rank checks; rank
//! 0 prints `gpu_ms` (the median of 11 timed reductions + all-reduce, after a warm-up):
//!
//! ```sh
//! torchrun --standalone --nproc-per-node=4 --no-python target/release/examples/mse_multi_gpu
//! srun --ntasks-per-node=4 --gpus-per-node=4 target/release/examples/mse_multi_gpu
//! mpirun -n 4 target/release/examples/mse_multi_gpu
//! ```
//!
//! `CUPRUM_MSE_SAMPLES` sets the number of samples (default 1e7; the scaling row uses 4e8).
#[path = "seeds/mod.rs"]
mod seeds;
use seeds::{check, reduction};

use cuprum::dist::{Launch, Launcher};
use cuprum::nccl::{Communicator, ReduceOp};
use cuprum::{Array, Device, ReductionKernel};
use std::time::Instant;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = Device::no_gpu_reason() {
        println!("mse_multi_gpu: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let mse_kernel = reduction::mse_kernel()?;
    let n_samples = match std::env::var("CUPRUM_MSE_SAMPLES") {
        Ok(t) => match t.trim().parse::<f64>() {
            Ok(n) if (1.0..1e12).contains(&n) => n as usize,
            _ => {
                println!("mse_multi_gpu: CUPRUM_MSE_SAMPLES must be a count ≥ 1, given {t:?}");
                std::process::exit(1);
            }
        },
        Err(_) => 10_000_000,
    };
    if Launch::from_env()?.launcher != Launcher::None {
        return one_rank(&mse_kernel, n_samples);
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
        let (y_true, y_pred) = dev.with(|| reduction::mse_data(n))?;
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

    let squares = host
        .iter()
        .flat_map(|(t, p)| t.iter().zip(p).map(|(t, p)| (p - t) * (p - t)));
    let expect = check::kahan(squares) / n_samples as f64;
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
    check::kahan(t.iter().zip(p).map(|(t, p)| (p - t) * (p - t)))
}

/// One rank of a launched run: this process's shard on its GPU, the partial results
/// summed by NCCL across the processes; the host references of the shards are summed the
/// same way and compared.
fn one_rank(mse_kernel: &ReductionKernel, n_samples: usize) -> Result<(), cuprum::Error> {
    let dist = cuprum::dist::init()?;
    let (rank, size, dev) = (dist.rank(), dist.world_size(), dist.device());
    let comm = dist.comm();
    let (lo, hi) = (n_samples * rank / size, n_samples * (rank + 1) / size);
    let n = hi - lo;
    let (y_true, y_pred) = reduction::mse_data(n)?;
    let host = host_sum(&y_true.to_vec::<f64>()?, &y_pred.to_vec::<f64>()?) / n_samples as f64;
    let host_part = Array::from_slice(&[host], &[1])?;
    let share = n as f64 / n_samples as f64;
    let step = || -> cuprum::Result<Array> {
        let part = (&mse_kernel.call((&y_true, &y_pred))? * share)?.reshape(&[1])?;
        comm.all_reduce(
            std::slice::from_ref(&part),
            std::slice::from_ref(&part),
            ReduceOp::Sum,
        )?;
        comm.synchronize()?;
        Ok(part)
    };
    step()?; // warm-up: compile, NCCL's connections
    // Every rank starts each timed step together (`barrier`), so a step's time is its own
    // work and the all-reduce, not a wait for a late peer.
    let mut times = Vec::new();
    let mut part = None;
    for _ in 0..11 {
        comm.barrier()?;
        let t = Instant::now();
        part = Some(step()?);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    comm.all_reduce(
        std::slice::from_ref(&host_part),
        std::slice::from_ref(&host_part),
        ReduceOp::Sum,
    )?;
    comm.synchronize()?;
    let mse = part
        .map(|p| p.to_vec::<f64>())
        .transpose()?
        .map_or(f64::NAN, |v| v[0]);
    let expect = host_part.to_vec::<f64>()?[0];
    let ok = (mse - expect).abs() <= 1e-12 * expect && (20.0..30.0).contains(&mse);
    println!(
        "mse_multi_gpu: rank {rank} of {size} on GPU {} ({}), {n_samples} samples, MSE: {mse} \
         (host {expect}, relative difference {:.1e}), gpu_ms: {:.3}: {}",
        dev.ordinal(),
        dist.launch().launcher,
        (mse - expect).abs() / expect,
        times[times.len() / 2],
        if ok { "OK" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
