//! Launching on a cluster (`cuprum::dist`, `Communicator::from_env`, send/recv, the
//! watchdog), on real GPUs: point-to-point in one process over every GPU (a ring shift of
//! random data, several dtypes, a rank sending to itself; every argument error), one rank
//! per process joined from torchrun's variables over the TCP rendezvous on loopback (child
//! processes of this binary), a rank that never starts (the others fail naming it), an
//! unreachable root, and a rank that exits before a collective (the others get
//! `CommAborted` within the watchdog's timeout, no hang).
//!
//! The launcher tables, Slurm host lists and the TCP store between threads are host-side
//! unit tests (`src/dist/*.rs`). Here, without a GPU or without NCCL every test skips
//! visibly (`CUPRUM_REQUIRE_GPU=1` / `CUPRUM_REQUIRE_NCCL=1` make that a failure); tests
//! needing two GPUs skip with one.

mod common;

use common::{Need, Rng, skip};
use cuprum::nccl::{Communicator, P2p, ReduceOp};
use cuprum::{Array, DType, Device, ErrorKind, s};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Every GPU when NCCL loads; `None` (a visible skip) otherwise.
fn gpus_with_nccl(min: usize) -> Option<Vec<Device>> {
    if !common::gpu() || common::harness::not_on_host("NCCL ranks are CUDA GPUs") {
        return None;
    }
    if let Err(e) = cuprum::nccl::version() {
        if common::harness::required("CUPRUM_REQUIRE_NCCL") {
            panic!("NCCL is required (CUPRUM_REQUIRE_NCCL=1) but does not load: {e}");
        }
        skip(Need::Other, &format!("NCCL does not load: {e}"));
        return None;
    }
    let all = Device::all().expect("Device::all");
    if all.len() < min {
        skip(
            Need::Other,
            &format!("needs {min} GPUs, this machine has {}", all.len()),
        );
        return None;
    }
    Some(all)
}

/// NCCL's ordering rule across communicators sharing GPUs: one NCCL test at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// A port `p` below the ephemeral range (where an outgoing connection can take it) with
/// `p + 1` free too: under torchrun's variables the rendezvous listens on MASTER_PORT + 1.
fn free_port() -> u16 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let seed = (std::process::id() ^ nanos) as u16;
    (0..2000u16)
        .map(|i| 20000 + (seed.wrapping_add(i * 7)) % 9000)
        .find(|&p| {
            std::net::TcpListener::bind(("127.0.0.1", p)).is_ok()
                && std::net::TcpListener::bind(("127.0.0.1", p + 1)).is_ok()
        })
        .expect("a free pair of ports in 20000..29001")
}

/// torchrun's variables for rank `r` of `n` on one node.
fn torchrun(r: usize, n: usize, port: u16) -> Vec<(String, String)> {
    [
        ("RANK", r.to_string()),
        ("LOCAL_RANK", r.to_string()),
        ("WORLD_SIZE", n.to_string()),
        ("LOCAL_WORLD_SIZE", n.to_string()),
        ("MASTER_ADDR", "127.0.0.1".to_string()),
        ("MASTER_PORT", port.to_string()),
        ("TORCHELASTIC_USE_AGENT_STORE", "True".to_string()),
        ("TORCHELASTIC_RUN_ID", "cuprum-test".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Starts child test `test` of this binary with `env`; returns it.
fn spawn(test: &str, env: &[(String, String)]) -> std::process::Child {
    let mut cmd = common::harness::child_test(test);
    cmd.env("CUPRUM_CLUSTER_CHILD", test)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawning this test binary")
}

/// Waits for `child` up to `limit` (killing it past that: a hang is a failure); its
/// success and output.
fn finish(mut child: std::process::Child, limit: Duration, what: &str) -> (bool, String) {
    let start = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "{what}: still running after {limit:?} (a hang); killed:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success() && text.contains("1 passed"), text)
}

fn is_child(name: &str) -> bool {
    std::env::var("CUPRUM_CLUSTER_CHILD").is_ok_and(|c| c == name)
}

/// One process over every GPU: each rank sends random data to the next and receives from
/// the previous, in one `p2p` group; several dtypes; on one GPU, a rank to itself.
#[test]
fn p2p_ring_in_one_process() {
    let Some(all) = gpus_with_nccl(1) else { return };
    let _s = serial();
    let comm = Communicator::new(&all).unwrap();
    let n = all.len();
    let mut rng = Rng::new(28);
    for (dtype, k) in [
        (DType::F64, 1usize),
        (DType::F32, 1000),
        (DType::I32, 4097),
        (DType::U8, 3),
    ] {
        let host: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                (0..k)
                    .map(|_| (rng.f64(-100.0, 100.0)).round().abs())
                    .collect()
            })
            .collect();
        let xs: Vec<Array> = all
            .iter()
            .zip(&host)
            .map(|(&d, h)| {
                let a = Array::from_slice_on_device(d, h, &[k]).unwrap();
                a.astype(dtype).unwrap()
            })
            .collect();
        let ys: Vec<Array> = all
            .iter()
            .map(|&d| Array::zeros_on_device(d, &[k], dtype).unwrap())
            .collect();
        let mut ops = Vec::new();
        for r in 0..n {
            ops.push(P2p::send(r, &xs[r], (r + 1) % n));
            ops.push(P2p::recv(r, &ys[r], (r + n - 1) % n));
        }
        comm.p2p(&ops).unwrap();
        comm.synchronize().unwrap();
        for r in 0..n {
            let got = ys[r].astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
            assert_eq!(
                got,
                host[(r + n - 1) % n],
                "{dtype}: rank {r} from {}",
                (r + n - 1) % n
            );
        }
    }
    comm.p2p(&[]).unwrap();
}

/// Every bad point-to-point argument is a typed error naming what was expected and given.
#[test]
fn p2p_argument_errors() {
    let Some(all) = gpus_with_nccl(1) else { return };
    let _s = serial();
    let d = all[0];
    let comm = Communicator::new(&[d]).unwrap();
    let x = Array::zeros_on_device(d, &[8], DType::F32).unwrap();
    let e = comm.send(&x, 1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .contains("send: expected a peer rank in 0..1, given 1"),
        "{e}"
    );
    let e = comm.p2p(&[P2p::recv(2, &x, 0)]).unwrap_err();
    assert!(
        e.to_string()
            .contains("recv: expected a local rank index in 0..1, given 2"),
        "{e}"
    );
    let v = x.slice(&s![..;2]).unwrap();
    let e = comm.p2p(&[P2p::send(0, &v, 0)]).unwrap_err();
    assert!(
        e.to_string()
            .contains("send: expected a C-contiguous array for rank 0"),
        "{e}"
    );
    let c = Array::zeros_on_device(d, &[2], DType::C64).unwrap();
    let e = comm.p2p(&[P2p::send(0, &c, 0)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(
        e.to_string().contains("send: NCCL has no complex64 type"),
        "{e}"
    );
    if all.len() > 1 {
        let other = Array::zeros_on_device(all[1], &[8], DType::F32).unwrap();
        let e = comm.recv(&other, 0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DeviceMismatch);
        assert!(
            e.to_string()
                .contains("device 0, given an array on device 1"),
            "{e}"
        );
        let two = Communicator::new(&all[..2]).unwrap();
        let e = two.send(&x, 1).unwrap_err();
        assert!(e.to_string().contains("given one of 2 local ranks"), "{e}");
    }
    // a self send/recv pair in one group is fine
    let y = Array::zeros_on_device(d, &[8], DType::F32).unwrap();
    let h: Vec<f32> = (0..8).map(|i| i as f32 * 1.5 - 3.0).collect();
    let x = Array::from_slice_on_device(d, &h, &[8]).unwrap();
    comm.p2p(&[P2p::send(0, &x, 0), P2p::recv(0, &y, 0)])
        .unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), h);
}

/// Ranks in separate processes, joined from torchrun's variables over the TCP rendezvous
/// on loopback: all_reduce, a send/recv ring, on min(2, GPUs) ranks (one GPU: one rank).
#[test]
fn from_env_over_tcp_in_processes() {
    let Some(all) = gpus_with_nccl(1) else { return };
    let _s = serial();
    let n = all.len().min(2);
    let port = free_port();
    let kids: Vec<_> = (0..n)
        .map(|r| spawn("child_from_env", &torchrun(r, n, port)))
        .collect();
    for (r, k) in kids.into_iter().enumerate() {
        let (ok, out) = finish(k, Duration::from_secs(120), &format!("rank {r}"));
        assert!(ok, "rank {r} of {n}:\n{out}");
        assert!(
            out.contains(&format!("child_from_env: rank {r} of {n} ok")),
            "{out}"
        );
    }
}

#[test]
#[ignore = "a child of from_env_over_tcp_in_processes"]
fn child_from_env() {
    if !is_child("child_from_env") {
        return;
    }
    let dist = cuprum::dist::init().unwrap();
    let (r, n) = (dist.rank(), dist.world_size());
    assert_eq!(dist.launch().launcher, cuprum::dist::Launcher::Torchrun);
    assert_eq!(dist.device().ordinal(), r);
    assert_eq!(Device::current().unwrap(), dist.device());
    let comm = dist.comm();
    let k = 1001;
    let x = Array::from_slice(
        &(0..k).map(|i| (r * k + i) as f64).collect::<Vec<_>>(),
        &[k],
    )
    .unwrap();
    let y = Array::zeros(&[k], DType::F64).unwrap();
    comm.all_reduce(
        std::slice::from_ref(&x),
        std::slice::from_ref(&y),
        ReduceOp::Sum,
    )
    .unwrap();
    let want: Vec<f64> = (0..k)
        .map(|i| (0..n).map(|q| (q * k + i) as f64).sum())
        .collect();
    assert_eq!(y.to_vec::<f64>().unwrap(), want);
    let got = Array::zeros(&[k], DType::F64).unwrap();
    comm.p2p(&[
        P2p::send(0, &x, (r + 1) % n),
        P2p::recv(0, &got, (r + n - 1) % n),
    ])
    .unwrap();
    let prev = (r + n - 1) % n;
    let want: Vec<f64> = (0..k).map(|i| (prev * k + i) as f64).collect();
    assert_eq!(got.to_vec::<f64>().unwrap(), want);
    if n == 2 {
        // the pipeline form: rank 0 sends, rank 1 receives
        let z = Array::zeros(&[k], DType::F64).unwrap();
        if r == 0 {
            comm.send(&x, 1).unwrap()
        } else {
            comm.recv(&z, 0).unwrap()
        }
        comm.synchronize().unwrap();
        if r == 1 {
            assert_eq!(
                z.to_vec::<f64>().unwrap(),
                (0..k).map(|i| i as f64).collect::<Vec<_>>()
            );
        }
    }
    comm.synchronize().unwrap();
    println!("child_from_env: rank {r} of {n} ok");
}

/// Ranks 0 and 1 of 3 start, rank 2 never does: both fail within the rendezvous timeout
/// with a `Rendezvous` error naming rank 2; a lone rank 1 with nothing at the root's port
/// fails naming the address.
#[test]
fn a_missing_rank_and_an_unreachable_root_are_named() {
    let Some(_all) = gpus_with_nccl(1) else {
        return;
    };
    let _s = serial();
    let port = free_port();
    let start = Instant::now();
    let kids: Vec<_> = (0..2)
        .map(|r| {
            let mut env = torchrun(r, 3, port);
            env.push(("CUPRUM_RENDEZVOUS_TIMEOUT".into(), "3".into()));
            env.push(("LOCAL_WORLD_SIZE".into(), "1".into()));
            env.push(("LOCAL_RANK".into(), "0".into()));
            spawn("child_expect_rendezvous_error", &env)
        })
        .collect();
    for (r, k) in kids.into_iter().enumerate() {
        let (ok, out) = finish(k, Duration::from_secs(60), &format!("rank {r}"));
        assert!(ok, "rank {r}:\n{out}");
        assert!(
            out.contains("rank 2 of 3 did not arrive"),
            "rank {r}:\n{out}"
        );
    }
    assert!(
        start.elapsed() < Duration::from_secs(40),
        "{:?}",
        start.elapsed()
    );
    let mut env = torchrun(1, 2, free_port());
    env.push(("CUPRUM_RENDEZVOUS_TIMEOUT".into(), "1".into()));
    env.push(("LOCAL_WORLD_SIZE".into(), "1".into()));
    env.push(("LOCAL_RANK".into(), "0".into()));
    let (ok, out) = finish(
        spawn("child_expect_rendezvous_error", &env),
        Duration::from_secs(60),
        "lone rank",
    );
    assert!(ok, "{out}");
    assert!(
        out.contains("could not reach the rendezvous root (rank 0) at 127.0.0.1:"),
        "{out}"
    );
}

#[test]
#[ignore = "a child of a_missing_rank_and_an_unreachable_root_are_named"]
fn child_expect_rendezvous_error() {
    if !is_child("child_expect_rendezvous_error") {
        return;
    }
    let e = Communicator::from_env().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Rendezvous, "{e}");
    println!("child_expect_rendezvous_error: {e}");
}

/// Rank 1 of 2 exits right after joining; rank 0's all-reduce never completes on its own:
/// the watchdog (timeout 5 s) or NCCL's async error aborts it and `synchronize` returns
/// `CommAborted` naming the collective and the rank, well before the test's limit.
#[test]
fn a_rank_that_exits_makes_the_other_fail_typed() {
    let Some(_all) = gpus_with_nccl(2) else {
        return;
    };
    let _s = serial();
    let port = free_port();
    let kids: Vec<_> = (0..2)
        .map(|r| {
            let mut env = torchrun(r, 2, port);
            env.push(("CUPRUM_NCCL_TIMEOUT".into(), "5".into()));
            spawn("child_drill", &env)
        })
        .collect();
    let mut outs = Vec::new();
    for (r, k) in kids.into_iter().enumerate() {
        outs.push(finish(k, Duration::from_secs(90), &format!("rank {r}")));
    }
    let (ok0, out0) = &outs[0];
    assert!(*ok0, "rank 0:\n{out0}");
    assert!(
        out0.contains("child_drill: rank 0 got CommAborted"),
        "{out0}"
    );
    assert!(
        out0.contains("all_reduce on rank 0 of 2 (device 0)"),
        "{out0}"
    );
}

#[test]
#[ignore = "a child of a_rank_that_exits_makes_the_other_fail_typed"]
fn child_drill() {
    if !is_child("child_drill") {
        return;
    }
    let dist = cuprum::dist::init().unwrap();
    let comm = dist.comm();
    let x = Array::ones(&[16 << 20], DType::F32).unwrap();
    comm.all_reduce(
        std::slice::from_ref(&x),
        std::slice::from_ref(&x),
        ReduceOp::Sum,
    )
    .unwrap();
    comm.synchronize().unwrap();
    if dist.rank() == 1 {
        println!("child_drill: rank 1 leaves");
        std::process::exit(0);
    }
    let start = Instant::now();
    let e = comm
        .all_reduce(
            std::slice::from_ref(&x),
            std::slice::from_ref(&x),
            ReduceOp::Sum,
        )
        .and_then(|()| comm.synchronize())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CommAborted, "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(40),
        "{:?}",
        start.elapsed()
    );
    // every later call says the same
    let again = comm
        .all_reduce(
            std::slice::from_ref(&x),
            std::slice::from_ref(&x),
            ReduceOp::Sum,
        )
        .unwrap_err();
    assert_eq!(again.kind(), ErrorKind::CommAborted);
    println!(
        "child_drill: rank 0 got CommAborted after {:?}: {e}",
        start.elapsed()
    );
}

/// Without a launcher's variables, `dist::init` is rank 0 of 1 on GPU 0, and the host
/// device is refused before NCCL loads.
#[test]
fn single_process_and_host_refusal() {
    if common::gpu() && common::harness::on_host() {
        let l = cuprum::dist::Launch::from_vars(|_| None).unwrap();
        let e = Communicator::from_launch(&l, Device::host()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains("NCCL communicators"), "{e}");
        return;
    }
    let Some(_all) = gpus_with_nccl(1) else {
        return;
    };
    let _s = serial();
    let l = cuprum::dist::Launch::from_vars(|_| None).unwrap();
    let comm = Communicator::from_launch(&l, Device::get(0).unwrap()).unwrap();
    assert_eq!((comm.size(), comm.ranks()), (1, vec![0]));
}
