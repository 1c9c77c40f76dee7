//! Collectives and point-to-point under a launcher (torchrun, Slurm, mpirun, cuprum's
//! variables; one rank per process through `cuprum::dist::init()`), in three modes:
//!
//! - `collectives [check]` (the default; one rank without a launcher): all_reduce,
//!   all_gather, reduce_scatter, broadcast and a ring of send/recv on random integers held
//!   in float64, each rank comparing with the values every rank can compute on the host;
//! - `collectives bench [MiB]`: bus bandwidth of each collective on `MiB` (default 1024)
//!   of float32, nccl-tests' way (all_reduce 2(n-1)/n × bytes / time, all_gather and
//!   reduce_scatter (n-1)/n, broadcast 1; all_reduce and broadcast in place, as PyTorch's
//!   twin; 2 warm-ups, then 9 trials of 10 calls queued back to back and one
//!   `synchronize`, each trial started together by a barrier; the median trial counts);
//!   rank 0 prints one `busbw` line per collective;
//! - `collectives drill exit|loop`: a fault drill. `exit`: the rank `CUPRUM_DRILL_RANK`
//!   (default the last) exits after a first all-reduce together, the others start a second
//!   one it never joins; `loop`: every rank runs all-reduces until killed (the script kills one). The
//!   survivors print `drill: … kind=CommAborted …` with the seconds it took and exit 3.
//!
//! Every failure prints `collectives: rank R: error kind=KIND after S s: MESSAGE` and exits 2.
use cuprum::nccl::{Communicator, P2p, ReduceOp};
use cuprum::{Array, DType, Device};
use std::time::{Duration, Instant};

fn main() {
    if let Some(why) = Device::no_gpu_reason() {
        println!("collectives: no GPU here ({why}); nothing to run");
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let start = Instant::now();
    let dist = match cuprum::dist::init() {
        Ok(d) => d,
        Err(e) => fail("?", start, &e),
    };
    let rank = dist.rank().to_string();
    let done = match args.first().map(String::as_str).unwrap_or("check") {
        "check" => check(&dist),
        "bench" => {
            let mib = args
                .get(1)
                .and_then(|m| m.parse::<usize>().ok())
                .unwrap_or(1024);
            bench(&dist, mib)
        }
        "drill" => drill(
            &dist,
            args.get(1).map(String::as_str).unwrap_or("exit"),
            start,
        ),
        other => {
            println!(
                "collectives: expected check, bench [MiB] or drill exit|loop, given {other:?}"
            );
            std::process::exit(2);
        }
    };
    if let Err(e) = done {
        fail(&rank, start, &e);
    }
}

fn fail(rank: &str, start: Instant, e: &cuprum::Error) -> ! {
    println!(
        "collectives: rank {rank}: error kind={:?} after {:.1} s: {e}",
        e.kind(),
        start.elapsed().as_secs_f64()
    );
    std::process::exit(2);
}

/// Rank r's values: integers (exact in float64 sums) from a generator seeded by r.
fn values(r: usize, n: usize) -> Vec<f64> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ (r as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 2001) as f64 - 1000.0
        })
        .collect()
}

fn check(dist: &cuprum::dist::Dist) -> cuprum::Result<()> {
    let (r, n, comm) = (dist.rank(), dist.world_size(), dist.comm());
    let k = 1000 + 7;
    let mine = Array::from_slice(&values(r, k), &[k])?;
    let all: Vec<Vec<f64>> = (0..n).map(|q| values(q, k)).collect();
    let mut bad = Vec::new();
    // all_reduce (sum, max)
    for (op, f) in [(ReduceOp::Sum, 0), (ReduceOp::Max, 1)] {
        let y = Array::zeros(&[k], DType::F64)?;
        comm.all_reduce(std::slice::from_ref(&mine), std::slice::from_ref(&y), op)?;
        let want: Vec<f64> = (0..k)
            .map(|i| {
                let it = all.iter().map(|v| v[i]);
                if f == 0 {
                    it.sum()
                } else {
                    it.fold(f64::MIN, f64::max)
                }
            })
            .collect();
        if y.to_vec::<f64>()? != want {
            bad.push(format!("all_reduce {op}"));
        }
    }
    // all_gather
    let g = Array::zeros(&[k * n], DType::F64)?;
    comm.all_gather(std::slice::from_ref(&mine), std::slice::from_ref(&g))?;
    if g.to_vec::<f64>()? != all.concat() {
        bad.push("all_gather".into());
    }
    // reduce_scatter: everyone sends rank-seeded k·n values, rank r gets block r's sum
    let big: Vec<Vec<f64>> = (0..n).map(|q| values(q + 100, k * n)).collect();
    let send = Array::from_slice(&big[r], &[k * n])?;
    let part = Array::zeros(&[k], DType::F64)?;
    comm.reduce_scatter(
        std::slice::from_ref(&send),
        std::slice::from_ref(&part),
        ReduceOp::Sum,
    )?;
    let want: Vec<f64> = (0..k)
        .map(|i| big.iter().map(|v| v[r * k + i]).sum())
        .collect();
    if part.to_vec::<f64>()? != want {
        bad.push("reduce_scatter".into());
    }
    // broadcast from the last rank
    let b = Array::zeros(&[k], DType::F64)?;
    comm.broadcast(std::slice::from_ref(&mine), std::slice::from_ref(&b), n - 1)?;
    if b.to_vec::<f64>()? != all[n - 1] {
        bad.push("broadcast".into());
    }
    // a ring: send to r+1, receive from r-1 (one group, so no rank waits for itself)
    let got = Array::zeros(&[k], DType::F64)?;
    comm.p2p(&[
        P2p::send(0, &mine, (r + 1) % n),
        P2p::recv(0, &got, (r + n - 1) % n),
    ])?;
    if got.to_vec::<f64>()? != all[(r + n - 1) % n] {
        bad.push("send/recv ring".into());
    }
    comm.synchronize()?;
    let ok = bad.is_empty();
    println!(
        "collectives: rank {r} of {n} on GPU {} ({}): check {}",
        dist.device().ordinal(),
        dist.launch().launcher,
        if ok {
            "OK".to_string()
        } else {
            format!("MISMATCH in {}", bad.join(", "))
        }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}

/// Timed trials per collective in `bench` (the median counts; the PyTorch twin's too).
const TRIALS: usize = 9;

fn bench(dist: &cuprum::dist::Dist, mib: usize) -> cuprum::Result<()> {
    let (r, n, comm) = (dist.rank(), dist.world_size(), dist.comm());
    if r == 0 {
        let (a, b, c) = cuprum::nccl::version()?;
        println!(
            "nccl cuprum {a}.{b}.{c} from {}",
            cuprum::nccl::library_path()?
        );
    }
    let bytes = mib << 20;
    let count = bytes / 4;
    let big = Array::ones(&[count], DType::F32)?;
    let out = Array::zeros(&[count], DType::F32)?;
    let chunk = count / n; // all_gather sends and reduce_scatter receives count / n
    let small_in = Array::ones(&[chunk], DType::F32)?;
    let small_out = Array::zeros(&[chunk], DType::F32)?;
    let nf = n as f64;
    type Run<'a> = Box<dyn Fn(&Communicator) -> cuprum::Result<()> + 'a>;
    let cases: Vec<(&str, f64, Run)> = vec![
        (
            "all_reduce",
            2.0 * (nf - 1.0) / nf,
            Box::new(|c: &Communicator| {
                // in place, as PyTorch's `all_reduce(t)` (the twin)
                c.all_reduce(
                    std::slice::from_ref(&big),
                    std::slice::from_ref(&big),
                    ReduceOp::Sum,
                )
            }),
        ),
        (
            "all_gather",
            (nf - 1.0) / nf,
            Box::new(|c: &Communicator| {
                c.all_gather(std::slice::from_ref(&small_in), std::slice::from_ref(&out))
            }),
        ),
        (
            "reduce_scatter",
            (nf - 1.0) / nf,
            Box::new(|c: &Communicator| {
                c.reduce_scatter(
                    std::slice::from_ref(&big),
                    std::slice::from_ref(&small_out),
                    ReduceOp::Sum,
                )
            }),
        ),
        (
            "broadcast",
            1.0,
            Box::new(|c: &Communicator| {
                // in place, as PyTorch's `broadcast(t, 0)`
                c.broadcast(std::slice::from_ref(&big), std::slice::from_ref(&big), 0)
            }),
        ),
    ];
    for (name, factor, run) in &cases {
        for _ in 0..2 {
            run(comm)?;
        }
        comm.synchronize()?;
        // TRIALS trials, each started together by a barrier; one trial of 10 calls is a few
        // tens of ms, whose spread between runs is a few %: the median trial counts.
        let iters = 10;
        let mut trials = Vec::new();
        for _ in 0..TRIALS {
            comm.barrier()?;
            let t = Instant::now();
            for _ in 0..iters {
                run(comm)?;
            }
            comm.synchronize()?;
            trials.push(t.elapsed().as_secs_f64() / iters as f64);
        }
        trials.sort_by(f64::total_cmp);
        let secs = trials[trials.len() / 2];
        let busbw = bytes as f64 / secs * factor / 1e9;
        if r == 0 {
            println!(
                "busbw cuprum {name} ranks={n} bytes={bytes} time_us={:.1} busbw_GBps={busbw:.1}",
                secs * 1e6
            );
        }
    }
    Ok(())
}

fn drill(dist: &cuprum::dist::Dist, how: &str, start: Instant) -> cuprum::Result<()> {
    let (r, n, comm) = (dist.rank(), dist.world_size(), dist.comm());
    let die: usize = std::env::var("CUPRUM_DRILL_RANK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n - 1);
    let x = Array::ones(&[64 << 20], DType::F32)?;
    // a first all-reduce together: NCCL's connections are made (a peer missing while they
    // are made fails inside NCCL's own bootstrap, with its own retries)
    comm.all_reduce(
        std::slice::from_ref(&x),
        std::slice::from_ref(&x),
        ReduceOp::Max,
    )?;
    comm.synchronize()?;
    println!(
        "drill: rank {r} of {n} joined after {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if how == "exit" && r == die {
        println!("drill: rank {r} exits without joining the next all-reduce");
        std::process::exit(0);
    }
    let t = Instant::now();
    let limit = Duration::from_secs(120);
    let outcome = loop {
        let step = comm
            .all_reduce(
                std::slice::from_ref(&x),
                std::slice::from_ref(&x),
                ReduceOp::Max,
            )
            .and_then(|()| comm.synchronize());
        if let Err(e) = step {
            break Err(e);
        }
        if how == "exit" || t.elapsed() > limit {
            break Ok(());
        }
    };
    match outcome {
        Err(e) => {
            println!(
                "drill: rank {r}: kind={:?} after {:.1} s in the collective: {e}",
                e.kind(),
                t.elapsed().as_secs_f64()
            );
            std::process::exit(if e.kind() == cuprum::ErrorKind::CommAborted {
                3
            } else {
                2
            });
        }
        Ok(()) => {
            println!("drill: rank {r}: no error (the peer did not fail?)");
            std::process::exit(1);
        }
    }
}
