//! Several GPUs: the device list, arrays on a chosen device, every kernel kind
//! (ElementwiseKernel, ReductionKernel, RawKernel, RawModule, fuse, `#[cuprum::kernel]`,
//! ops) launched on the device of its arrays and compared with a host reference,
//! `to_device` round trips (peer copies) of random data including odd sizes and
//! non-contiguous views, the typed error of arrays of two devices in one call, every NCCL
//! collective with every reduction against a host reference, the multi-process form (two
//! processes of this test binary meeting through a unique-id file), and the typed error
//! when NCCL is missing (a child process with `CUPRUM_NCCL` pointing at no file).
//!
//! With any number of GPUs: the device list, same-device `to_device`, a one-rank
//! communicator (every collective and op, the argument errors), the examples'
//! data-parallel MSE and split prime-factor sum. Without a GPU: the NVRTC compile of the
//! test kernels, the unique id's text form, and the missing-NCCL error.
//!
//! With one GPU the tests that need two print a SKIPPED line (set `CUPRUM_REQUIRE_GPUS=2`
//! to make that a failure); the rest runs with any number of GPUs. NCCL tests skip visibly
//! when NCCL cannot be loaded (`CUPRUM_REQUIRE_NCCL=1` makes that a failure). The child
//! processes run the `child_*` tests of this binary, which do nothing unless the
//! `CUPRUM_MG_CHILD` variable names them.

mod common;
// The examples' seed kernels (`mse_kernel`) and host references, defined once.
#[path = "../../../examples/seeds/mod.rs"]
mod seeds;

use common::{Need, Rng, skip};
use cuprum::gpu::*;
use cuprum::kernel::JitConfig;
use cuprum::nccl::{Communicator, ReduceOp, UniqueId};
use cuprum::{
    Array, DType, Device, ElementwiseKernel, ErrorKind, RawKernel, RawModule, ReductionKernel,
    Stream, fuse, ops, s,
};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// =========================================================================================
// Helpers
// =========================================================================================

/// Every GPU, or `None` (a visible skip) without one. On the host device (no GPU) these
/// tests skip visibly; `multi_device_calls_on_the_host_device` covers what the host does.
fn gpus() -> Option<Vec<Device>> {
    if !common::gpu()
        || common::harness::not_on_host(
            "several-device tests need CUDA GPUs (Device::all lists GPUs only)",
        )
    {
        return None;
    }
    Some(Device::all().expect("Device::all"))
}

/// On the host device (run where there is no GPU): `Device::all` says why there is no GPU,
/// `to_device` onto the host device is a host copy (odd sizes, a non-contiguous view), peer
/// access is only the device itself, and an NCCL communicator refuses it with a typed error.
#[test]
fn multi_device_calls_on_the_host_device() {
    if !common::gpu() || !common::harness::on_host() {
        skip(
            Need::Other,
            "runs only on the host device (a machine without a GPU)",
        );
        return;
    }
    let host = Device::host();
    if let Some(why) = Device::no_gpu_reason() {
        let e = Device::all().expect_err("Device::all without a GPU");
        assert_eq!(e.kind(), why.kind(), "{e}");
    }
    assert!(host.can_access_peer(host).unwrap());
    let mut rng = Rng::new(31);
    for n in [0usize, 1, 7, 1000] {
        let h = rand_vec(&mut rng, n, -5.0, 5.0);
        let a = host.with(|| Array::from_slice(&h, &[n])).unwrap();
        let b = a.to_device(host).unwrap();
        assert_eq!(b.device(), host);
        assert!(!b.shares_memory(&a) || n == 0, "to_device makes new memory");
        assert_eq!(b.to_vec::<f64>().unwrap(), h, "{n} float64");
    }
    let h: Vec<f32> = (0..35).map(|_| rng.f64(-1.0, 1.0) as f32).collect();
    let m = host.with(|| Array::from_slice(&h, &[5, 7])).unwrap();
    let t = m.t().to_device(host).unwrap();
    assert!(t.is_c_contiguous());
    let want: Vec<f32> = (0..7)
        .flat_map(|j| (0..5).map(move |i| (i, j)))
        .map(|(i, j)| h[i * 7 + j])
        .collect();
    assert_eq!(t.to_vec::<f32>().unwrap(), want);
    let e = Communicator::new(&[host]).expect_err("a communicator on the host device");
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("the host device"), "{e}");
}

/// Devices 0 and 1, or `None` with a visible skip on a machine with one GPU.
fn two_gpus() -> Option<(Device, Device)> {
    let all = gpus()?;
    if all.len() < 2 {
        let why = format!("needs 2 GPUs, this machine has {}", all.len());
        if common::harness::required("CUPRUM_REQUIRE_GPUS") || env_is("CUPRUM_REQUIRE_GPUS", "2") {
            panic!(
                "{}: {why} and CUPRUM_REQUIRE_GPUS is set",
                common::harness::test_name()
            );
        }
        skip(Need::Other, &why);
        return None;
    }
    Some((all[0], all[1]))
}

fn env_is(var: &str, v: &str) -> bool {
    std::env::var(var).is_ok_and(|x| x == v)
}

/// Whether NCCL loads (a visible skip when not; `CUPRUM_REQUIRE_NCCL=1` makes it a failure).
fn nccl() -> bool {
    match cuprum::nccl::version() {
        Ok(_) => true,
        Err(e) => {
            if common::harness::required("CUPRUM_REQUIRE_NCCL") {
                panic!("NCCL is required (CUPRUM_REQUIRE_NCCL=1) but does not load: {e}");
            }
            skip(Need::Other, &format!("NCCL does not load: {e}"));
            false
        }
    }
}

fn rand_vec(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.f64(lo, hi)).collect()
}

#[track_caller]
fn assert_close(got: &[f64], want: &[f64], rtol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rtol * w.abs().max(1.0),
            "{what}: element {i}: got {g}, expected {w} (rtol {rtol})"
        );
    }
}

#[track_caller]
fn expect_mismatch<T: std::fmt::Debug>(r: cuprum::Result<T>, a: usize, b: usize, what: &str) {
    let e = r.expect_err(what);
    let m = e.to_string();
    assert_eq!(e.kind(), ErrorKind::DeviceMismatch, "{what}: {m}");
    assert!(
        m.contains(&format!("device {a}")) && m.contains(&format!("device {b}")),
        "{what}: the message must name device {a} and device {b}: {m}"
    );
    assert!(
        m.contains("expected") && m.contains("given"),
        "{what}: the message must say expected/given: {m}"
    );
}

/// Runs this test binary's test `test` in a child process with `envs`; returns it.
fn spawn_child(test: &str, envs: &[(&str, String)]) -> std::process::Child {
    let exe = std::env::current_exe().expect("current_exe");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("CUPRUM_MG_CHILD", test)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawning the test binary")
}

/// Waits for a child up to `limit`, killing it past that; its status and output.
fn wait_child(mut child: std::process::Child, limit: Duration, what: &str) -> (bool, String) {
    let start = Instant::now();
    loop {
        match child.try_wait().expect("try_wait") {
            Some(_) => break,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let out = child.wait_with_output().expect("wait_with_output");
                panic!(
                    "{what}: no exit within {limit:?}; killed. stdout:\n{}\nstderr:\n{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    let out = child.wait_with_output().expect("wait_with_output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// NCCL's rule: collectives of communicators that share GPUs must be queued in the same
/// order on every GPU. The tests that use NCCL run one at a time (the harness runs tests on
/// several threads).
fn nccl_serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn is_child(name: &str) -> bool {
    env_is("CUPRUM_MG_CHILD", name)
}

// =========================================================================================
// Host-only: the unique id's text form, NCCL missing
// =========================================================================================

#[test]
fn unique_id_text_errors() {
    let e = UniqueId::from_hex("abc").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("256 hex digits, given 3"), "{e}");
    let e = UniqueId::from_hex(&"zz".repeat(128)).unwrap_err();
    assert!(e.to_string().contains("not all hex digits"), "{e}");
    let ok = UniqueId::from_hex(&format!("  {}\n", "0f".repeat(128))).unwrap();
    assert_eq!(ok.to_hex(), "0f".repeat(128));
    let e = UniqueId::from_env("CUPRUM_MG_SURELY_UNSET").unwrap_err();
    assert!(e.to_string().contains("CUPRUM_MG_SURELY_UNSET"), "{e}");
}

/// NCCL loads (when it is installed): its version and where it came from; no GPU needed.
#[test]
fn nccl_version_when_loadable() {
    if !nccl() {
        return;
    }
    let (major, minor, patch) = cuprum::nccl::version().unwrap();
    let from = cuprum::nccl::library_path().unwrap();
    println!("NCCL {major}.{minor}.{patch} from {from}");
    assert_eq!(major, 2, "NCCL 2.x expected, got {major}.{minor}.{patch}");
    assert!(
        minor >= 10,
        "NCCL 2.10 or newer (ncclAvg) expected, got 2.{minor}"
    );
    if let Ok(p) = std::env::var("CUPRUM_NCCL") {
        assert_eq!(from, p, "CUPRUM_NCCL decides where NCCL comes from");
    }
    assert_eq!(std::env::var("NCCL_NVLS_ENABLE").as_deref(), Ok("0"));
}

/// NCCL missing: a child process with `CUPRUM_NCCL` at a file that does not exist gets
/// `ErrorKind::Nccl` naming the path, from every entry point, and never panics.
#[test]
fn nccl_missing_is_a_typed_error() {
    let child = spawn_child(
        "child_nccl_missing",
        &[(
            "CUPRUM_NCCL",
            "/nonexistent/cuprum-test/libnccl.so.2".to_string(),
        )],
    );
    let (ok, out) = wait_child(child, Duration::from_secs(120), "child_nccl_missing");
    assert!(ok, "the child failed:\n{out}");
    assert!(
        out.contains("child_nccl_missing: checked"),
        "the child did not run its checks:\n{out}"
    );
}

#[test]
fn child_nccl_missing() {
    if !is_child("child_nccl_missing") {
        return;
    }
    let path = "/nonexistent/cuprum-test/libnccl.so.2";
    for (what, r) in [
        ("version", cuprum::nccl::version().map(drop)),
        ("UniqueId::new", UniqueId::new().map(drop)),
        ("library_path", cuprum::nccl::library_path().map(drop)),
    ] {
        let e = r.expect_err(what);
        assert_eq!(e.kind(), ErrorKind::Nccl, "{what}: {e}");
        let m = e.to_string();
        assert!(m.contains(path) && m.contains("CUPRUM_NCCL"), "{what}: {m}");
    }
    // NCCL's environment was set before the (failed) load.
    assert_eq!(std::env::var("NCCL_NVLS_ENABLE").as_deref(), Ok("0"));
    assert_eq!(std::env::var("NCCL_P2P_DIRECT_DISABLE").as_deref(), Ok("1"));
    if let Ok(d) = Device::get(0) {
        let e = Communicator::new(&[d]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Nccl, "{e}");
    }
    println!("child_nccl_missing: checked");
}

// =========================================================================================
// Any number of GPUs
// =========================================================================================

#[test]
fn device_list() {
    let Some(all) = gpus() else { return };
    let n = Device::count().unwrap();
    assert!(n >= 1);
    assert_eq!(all.len(), n, "Device::all has one entry per device");
    for (i, d) in all.iter().enumerate() {
        assert_eq!(d.ordinal(), i);
        assert!(d.can_access_peer(*d).unwrap(), "a device accesses itself");
        assert_eq!(Stream::for_device(*d).unwrap().device(), *d);
    }
    let e = Device::get(n).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoDevice);
    println!("{n} device(s): {all:?}");
}

#[test]
fn same_device_copies_and_creation() {
    let Some(all) = gpus() else { return };
    let d0 = all[0];
    let mut rng = Rng::new(11);
    for n in [0usize, 1, 7, 1001, (1 << 16) + 3] {
        let h = rand_vec(&mut rng, n, -5.0, 5.0);
        let a = Array::from_slice_on_device(d0, &h, &[n]).unwrap();
        assert_eq!(a.device(), d0);
        let b = a.to_device(d0).unwrap();
        assert_eq!(b.device(), d0);
        if n > 0 {
            assert!(!b.shares_memory(&a), "to_device makes new memory");
        }
        assert_eq!(b.to_vec::<f64>().unwrap(), h, "to_device(same) of {n}");
    }
    // A transposed view, a stepped slice, a 0-d array.
    let h: Vec<f32> = (0..35).map(|i| i as f32 * 0.5 - 3.0).collect();
    let m = Array::from_slice(&h, &[5, 7]).unwrap();
    let t = m.t().to_device(d0).unwrap();
    let want: Vec<f32> = (0..7)
        .flat_map(|j| (0..5).map(move |i| (i * 7 + j) as f32 * 0.5 - 3.0))
        .collect();
    assert_eq!(t.to_vec::<f32>().unwrap(), want);
    let st = m.slice(&s![1..;2, ..;3]).unwrap().to_device(d0).unwrap();
    assert_eq!(st.shape(), &[2, 3]);
    assert_eq!(
        st.to_vec::<f32>().unwrap(),
        [7, 10, 13, 21, 24, 27].map(|k| k as f32 * 0.5 - 3.0)
    );
    let z = Array::scalar(2.5f64).unwrap().to_device(d0).unwrap();
    assert_eq!((z.ndim(), z.to_vec::<f64>().unwrap()), (0, vec![2.5]));
    let zs = Array::zeros_on_device(d0, &[3, 2], DType::I16).unwrap();
    assert_eq!(zs.to_vec::<i16>().unwrap(), vec![0; 6]);
}

/// A one-rank communicator: every collective copies (or reduces over one rank).
#[test]
fn one_rank_communicator() {
    let Some(all) = gpus() else { return };
    if !nccl() {
        return;
    }
    let _serial = nccl_serial();
    let d0 = all[0];
    let comm = Communicator::new(&[d0]).unwrap();
    assert_eq!(
        (comm.size(), comm.ranks(), comm.devices()),
        (1, vec![0], vec![d0])
    );
    let mut rng = Rng::new(5);
    let h = rand_vec(&mut rng, 1001, -3.0, 3.0);
    let x = Array::from_slice(&h, &[1001]).unwrap();
    for op in [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Avg,
    ] {
        let y = Array::zeros_like(&x).unwrap();
        comm.all_reduce(std::slice::from_ref(&x), std::slice::from_ref(&y), op)
            .unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), h, "all_reduce {op} of one rank");
        let y = Array::zeros_like(&x).unwrap();
        comm.reduce(std::slice::from_ref(&x), std::slice::from_ref(&y), op, 0)
            .unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), h, "reduce {op} of one rank");
        let y = Array::zeros_like(&x).unwrap();
        comm.reduce_scatter(std::slice::from_ref(&x), std::slice::from_ref(&y), op)
            .unwrap();
        assert_eq!(
            y.to_vec::<f64>().unwrap(),
            h,
            "reduce_scatter {op} of one rank"
        );
    }
    let y = Array::zeros_like(&x).unwrap();
    comm.broadcast(std::slice::from_ref(&x), std::slice::from_ref(&y), 0)
        .unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), h, "broadcast of one rank");
    let y = Array::zeros_like(&x).unwrap();
    comm.all_gather(std::slice::from_ref(&x), std::slice::from_ref(&y))
        .unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), h, "all_gather of one rank");
    // In place.
    comm.all_reduce(
        std::slice::from_ref(&x),
        std::slice::from_ref(&x),
        ReduceOp::Sum,
    )
    .unwrap();
    assert_eq!(x.to_vec::<f64>().unwrap(), h);
    // The argument errors.
    let e = comm.all_reduce(&[], &[], ReduceOp::Sum).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .contains("one send array per local rank (1), given 0"),
        "{e}"
    );
    let small = Array::zeros(&[3], DType::F64).unwrap();
    let e = comm
        .all_reduce(
            std::slice::from_ref(&x),
            std::slice::from_ref(&small),
            ReduceOp::Sum,
        )
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.to_string().contains("same size, given 1001 and 3"), "{e}");
    let m = Array::zeros(&[4, 4], DType::F64).unwrap();
    let e = comm
        .broadcast(&[m.t()], std::slice::from_ref(&m), 0)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("C-contiguous send array"), "{e}");
    let i = Array::zeros(&[4], DType::I32).unwrap();
    let e = comm
        .all_reduce(
            std::slice::from_ref(&i),
            std::slice::from_ref(&i),
            ReduceOp::Avg,
        )
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(
        e.to_string()
            .contains("avg reduction needs a floating dtype"),
        "{e}"
    );
    let c = Array::zeros(&[4], DType::C64).unwrap();
    let e = comm
        .broadcast(std::slice::from_ref(&c), std::slice::from_ref(&c), 0)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    let e = comm
        .broadcast(std::slice::from_ref(&x), std::slice::from_ref(&x), 1)
        .unwrap_err();
    assert!(e.to_string().contains("root rank in 0..1, given 1"), "{e}");
    let e = comm
        .all_reduce(
            std::slice::from_ref(&x),
            &[Array::zeros(&[1001], DType::F32).unwrap()],
            ReduceOp::Sum,
        )
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    // The one-process form of the multi-process constructor.
    let id = UniqueId::new().unwrap();
    let solo = Communicator::from_unique_id(&id, 0, 1, d0).unwrap();
    let y = Array::zeros_like(&x).unwrap();
    solo.all_reduce(
        std::slice::from_ref(&x),
        std::slice::from_ref(&y),
        ReduceOp::Max,
    )
    .unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), h);
    let e = Communicator::from_unique_id(&id, 1, 1, d0).unwrap_err();
    assert!(
        e.to_string()
            .contains("rank in 0..1 of a communicator of 1 ranks, given rank 1"),
        "{e}"
    );
}

/// The data-parallel MSE of the example `mse_multi_gpu` over every GPU.
#[test]
fn data_parallel_mse_over_all_gpus() {
    let Some(all) = gpus() else { return };
    if !nccl() {
        return;
    }
    let _serial = nccl_serial();
    let k = all.len();
    let mse = seeds::reduction::mse_kernel().unwrap();
    let n = 100_003usize;
    let mut rng = Rng::new(42);
    let t = rand_vec(&mut rng, n, 0.0, 100.0);
    let p: Vec<f64> = t.iter().map(|v| v + rng.f64(-5.0, 5.0)).collect();
    let comm = Communicator::new(&all).unwrap();
    let mut partial = Vec::new();
    for (g, &d) in all.iter().enumerate() {
        let (lo, hi) = (n * g / k, n * (g + 1) / k);
        let yt = Array::from_slice_on_device(d, &t[lo..hi], &[hi - lo]).unwrap();
        let yp = Array::from_slice_on_device(d, &p[lo..hi], &[hi - lo]).unwrap();
        let m = mse.call((&yt, &yp)).unwrap();
        assert_eq!(
            m.device(),
            d,
            "the reduction runs on the device of its arrays"
        );
        let part = (&m * ((hi - lo) as f64 / n as f64)).unwrap();
        assert_eq!(part.device(), d);
        partial.push(part);
    }
    comm.all_reduce(&partial, &partial, ReduceOp::Sum).unwrap();
    let want = t
        .iter()
        .zip(&p)
        .map(|(a, b)| (b - a) * (b - a))
        .sum::<f64>()
        / n as f64;
    for (g, part) in partial.iter().enumerate() {
        let got = part.to_vec::<f64>().unwrap()[0];
        assert!(
            (got - want).abs() <= 1e-10 * want,
            "GPU {g} of {k}: MSE {got}, host {want}"
        );
    }
}

/// The prime-factor sum of `first + i + 2` (trial division), as an ElementwiseKernel body.
const PRIME_OP: &str = "long long num = first + i + 2; long long total = 0; \
    for (long long p = 2; p * p <= num; ++p) { while (num % p == 0) { num /= p; total += p; } } \
    if (num > 1) total += num; A = total";

/// The prime-factor sums of the example `prime_factor_sum_multi_gpu`, split over every GPU.
#[test]
fn prime_factor_sum_split_over_all_gpus() {
    let Some(all) = gpus() else { return };
    let k = all.len();
    let kernel = ElementwiseKernel::new(
        "int64 first",
        "int64 A",
        PRIME_OP,
        "prime_factor_sum_from_t",
    )
    .unwrap();
    let count = 100_000usize - 1;
    let mut parts = Vec::new();
    for (g, &d) in all.iter().enumerate() {
        let (lo, hi) = (count * g / k, count * (g + 1) / k);
        let a = Array::zeros_on_device(d, &[hi - lo], DType::I64).unwrap();
        kernel.run((lo as i64, &a)).unwrap();
        parts.push(a.to_device(all[0]).unwrap());
    }
    let refs: Vec<&Array> = parts.iter().collect();
    let v = ops::concatenate(&refs, Some(0))
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    let host = seeds::prime::prime_factor_sum;
    assert_eq!(v.len(), count);
    for (i, &x) in v.iter().enumerate() {
        assert_eq!(
            x,
            host(i as i64 + 2),
            "the sum of the prime factors of {}",
            i + 2
        );
    }
    assert_eq!(
        &v[v.len() - 3..],
        &[50001, 318, 35],
        "99998 = 2·49999, 99999 = 3·3·41·271, 100000 = 2^5·5^5"
    );
}

// =========================================================================================
// Two GPUs
// =========================================================================================

#[test]
fn arrays_on_device_1() {
    let Some((d0, d1)) = two_gpus() else { return };
    let z = Array::zeros_on_device(d1, &[5], DType::F32).unwrap();
    assert_eq!(z.device(), d1);
    assert_eq!(z.to_vec::<f32>().unwrap(), vec![0.0; 5]);
    let a = Array::from_slice_on_device(d1, &[1i64, -2, 3], &[3]).unwrap();
    assert_eq!(
        (a.device(), a.to_vec::<i64>().unwrap()),
        (d1, vec![1, -2, 3])
    );
    let r = d1
        .with(|| Array::arange(0.0, 6.0, 1.0, DType::F64))
        .unwrap();
    assert_eq!(r.device(), d1);
    assert_eq!(
        r.to_vec::<f64>().unwrap(),
        vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
    // The *_like functions and copies follow their model's device, also from device 0.
    assert_eq!(Device::current().unwrap(), d0);
    for (what, x) in [
        ("zeros_like", Array::zeros_like(&r).unwrap()),
        ("full_like", Array::full_like(&r, 2.0).unwrap()),
        ("copy", r.copy().unwrap()),
        (
            "transposed copy",
            r.reshape(&[2, 3]).unwrap().t().copy().unwrap(),
        ),
    ] {
        assert_eq!(x.device(), d1, "{what}");
    }
    assert_eq!(
        Array::full_like(&r, 2.0).unwrap().to_vec::<f64>().unwrap(),
        vec![2.0; 6]
    );
    r.fill(4.0).unwrap();
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![4.0; 6]);
    let v = r.slice(&s![1..;2]).unwrap();
    v.copy_from_slice(&[7.0, 8.0, 9.0]).unwrap();
    assert_eq!(
        r.to_vec::<f64>().unwrap(),
        vec![4.0, 7.0, 4.0, 8.0, 4.0, 9.0]
    );
    // Each device keeps its own pool and default stream.
    assert_ne!(d0.default_stream(), d1.default_stream());
    assert!(d1.pool_used_bytes().unwrap() > 0);
    let (free, total) = d1.memory_info().unwrap();
    assert!(free <= total, "free {free} > total {total}");
}

#[cuprum::kernel]
fn mg_axpy(a: f32, x: &[f32], y: &mut [f32], n: i32) {
    let i = (block_dim().x * block_idx().x + thread_idx().x) as i32;
    if i < n {
        y[i] = a * x[i] + y[i];
    }
}

const RAW_SRC: &str = r#"
extern "C" __global__ void mg_scale(const double* x, double* y, double a, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
extern "C" __global__ void mg_shift(double* y, double b, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] += b;
}
"#;

/// The sources of this file's kernels compile with NVRTC (host only): the raw kernels, the
/// Rust kernel, and the generated ElementwiseKernel / ReductionKernel sources.
#[test]
fn kernel_sources_compile() {
    if !common::nvrtc() {
        return;
    }
    use cuprum::compile::{CompileOptions, compile_for_arch};
    for arch in [80, 90] {
        compile_for_arch(RAW_SRC, &CompileOptions::default(), arch).expect("RAW_SRC");
        for checked in [false, true] {
            let def = &mg_axpy::__CUPRUM_KERNEL;
            compile_for_arch(def.program(), &def.compile_options(None, checked), arch)
                .expect("mg_axpy");
        }
    }
    let ew = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + 1", "mg_fma").unwrap();
    let prime = ElementwiseKernel::new(
        "int64 first",
        "int64 A",
        PRIME_OP,
        "prime_factor_sum_from_t",
    )
    .unwrap();
    let red =
        ReductionKernel::new("T x", "T s", "x * x", "a + b", "s = a", Some("0"), "mg_ss").unwrap();
    let mse = seeds::reduction::mse_kernel().unwrap();
    // The example prime_factor_sum_multi_gpu's operation (the seed's, from `first` in steps
    // of `stride`).
    let op = include_str!("../../../examples/kernels/prime_factor_sum_elementwise.op").replace(
        "long long num = i + 2;",
        "long long num = first + i * stride + 2;",
    );
    assert!(
        op.contains("first + i * stride + 2"),
        "the example's rewrite no longer applies"
    );
    let example = ElementwiseKernel::new(
        "int64 first, int64 stride",
        "int64 A",
        &op,
        "prime_factor_sum_from",
    )
    .unwrap();
    for (what, src) in [
        (
            "example prime",
            example.generated_source(&[DType::I64; 3], &[true, true, false]),
        ),
        (
            "mg_fma f64",
            ew.generated_source(&[DType::F64; 3], &[false; 3]),
        ),
        (
            "prime",
            prime.generated_source(&[DType::I64; 2], &[true, false]),
        ),
        (
            "mg_ss f64",
            red.generated_source(&[DType::F64; 2], &[false; 2]),
        ),
        (
            "mse f64",
            mse.generated_source(&[DType::F64; 3], &[false; 3]),
        ),
    ] {
        let src = src.unwrap_or_else(|e| panic!("{what}: {e}"));
        compile_for_arch(&src, &CompileOptions::default(), 90)
            .unwrap_or_else(|e| panic!("{what} does not compile: {e}\n{src}"));
    }
}

/// Every kernel kind on device 1 (device 0 current), against the host; the same kernel
/// objects also run on device 0 (per-device compiled modules).
#[test]
fn every_kernel_kind_on_device_1() {
    let Some((d0, d1)) = two_gpus() else { return };
    let mut rng = Rng::new(7);
    let n = 1001usize;
    let hx = rand_vec(&mut rng, n, -4.0, 4.0);
    let hy = rand_vec(&mut rng, n, -4.0, 4.0);
    let ew = ElementwiseKernel::new("T x, T y", "T z", "z = x * y + 1", "mg_fma").unwrap();
    let red =
        ReductionKernel::new("T x", "T s", "x * x", "a + b", "s = a", Some("0"), "mg_ss").unwrap();
    for d in [d1, d0, d1] {
        let x = Array::from_slice_on_device(d, &hx, &[n]).unwrap();
        let y = Array::from_slice_on_device(d, &hy, &[n]).unwrap();
        // ElementwiseKernel
        let z = ew.call((&x, &y)).unwrap();
        assert_eq!(z.device(), d, "ElementwiseKernel output device");
        let want: Vec<f64> = hx.iter().zip(&hy).map(|(a, b)| a * b + 1.0).collect();
        assert_close(
            &z.to_vec::<f64>().unwrap(),
            &want,
            1e-14, // the GPU may contract x * y + 1 into one fma
            "ElementwiseKernel",
        );
        // ElementwiseKernel on a non-contiguous view
        let xt = x.slice(&s![..;3]).unwrap();
        let yt = y.slice(&s![..;3]).unwrap();
        let zt = ew.call((&xt, &yt)).unwrap();
        let want_t: Vec<f64> = (0..n).step_by(3).map(|i| hx[i] * hy[i] + 1.0).collect();
        assert_close(
            &zt.to_vec::<f64>().unwrap(),
            &want_t,
            1e-14,
            "ElementwiseKernel view",
        );
        // ReductionKernel
        let ss = red.call((&x,)).unwrap();
        assert_eq!(ss.device(), d, "ReductionKernel output device");
        let want_ss: f64 = hx.iter().map(|v| v * v).sum();
        assert_close(
            &ss.to_vec::<f64>().unwrap(),
            &[want_ss],
            1e-12,
            "ReductionKernel",
        );
        // ops: ufuncs, reductions, matmul, sort, cumsum, concatenate
        let sum = (&x + &y).unwrap();
        assert_eq!(sum.device(), d);
        let want_sum: Vec<f64> = hx.iter().zip(&hy).map(|(a, b)| a + b).collect();
        assert_eq!(sum.to_vec::<f64>().unwrap(), want_sum, "x + y");
        let mx = ops::max(&x).unwrap();
        assert_eq!(mx.device(), d);
        let want_mx = hx.iter().cloned().fold(f64::MIN, f64::max);
        assert_eq!(mx.to_vec::<f64>().unwrap(), vec![want_mx], "ops::max");
        let sorted = ops::sort(&x, Some(0)).unwrap();
        assert_eq!(sorted.device(), d);
        let mut want_sorted = hx.clone();
        want_sorted.sort_by(f64::total_cmp);
        assert_eq!(sorted.to_vec::<f64>().unwrap(), want_sorted, "ops::sort");
        let cs = ops::cumsum(&x, None).unwrap();
        assert_eq!(cs.device(), d);
        let want_cs: Vec<f64> = hx
            .iter()
            .scan(0.0, |s, v| {
                *s += v;
                Some(*s)
            })
            .collect();
        assert_close(&cs.to_vec::<f64>().unwrap(), &want_cs, 1e-9, "ops::cumsum");
        let a = x.slice(&s![..12]).unwrap().reshape(&[3, 4]).unwrap();
        let b = y.slice(&s![..8]).unwrap().reshape(&[4, 2]).unwrap();
        let c = ops::matmul(&a, &b).unwrap();
        assert_eq!(c.device(), d);
        let mut want_c = vec![0.0; 6];
        for i in 0..3 {
            for j in 0..2 {
                want_c[i * 2 + j] = (0..4).map(|k| hx[i * 4 + k] * hy[k * 2 + j]).sum();
            }
        }
        assert_close(&c.to_vec::<f64>().unwrap(), &want_c, 1e-12, "ops::matmul");
        let cat = ops::concatenate(&[&x, &y], Some(0)).unwrap();
        assert_eq!(cat.device(), d);
        assert_eq!(
            cat.to_vec::<f64>().unwrap(),
            [hx.clone(), hy.clone()].concat()
        );
        // fuse
        let f = fuse("mg_fused", |[x, y]| (x - y) * (x - y));
        let fz = f.call((&x, &y)).unwrap();
        assert_eq!(fz.device(), d, "fuse output device");
        let want_f: Vec<f64> = hx.iter().zip(&hy).map(|(a, b)| (a - b) * (a - b)).collect();
        assert_close(&fz.to_vec::<f64>().unwrap(), &want_f, 1e-15, "fuse");
        let fm = fuse("mg_fused_mean", |[x, y]| ((x - y) * (x - y)).mean());
        let m = fm.call((&x, &y)).unwrap();
        assert_eq!(m.device(), d);
        let want_m = want_f.iter().sum::<f64>() / n as f64;
        assert_close(&m.to_vec::<f64>().unwrap(), &[want_m], 1e-12, "fused mean");
        // RawKernel and RawModule: launched on the device's stream, or with it current.
        let raw = RawKernel::new(RAW_SRC, "mg_scale");
        let out = Array::zeros_on_device(d, &[n], DType::F64).unwrap();
        let blocks = (n as u32).div_ceil(128);
        raw.configure(blocks, 128)
            .stream(&d.default_stream())
            .launch((&x, &out, 2.5f64, n as i32))
            .unwrap();
        let want_r: Vec<f64> = hx.iter().map(|v| 2.5 * v).collect();
        assert_eq!(
            out.to_vec::<f64>().unwrap(),
            want_r,
            "RawKernel with the device's stream"
        );
        let module = RawModule::new(RAW_SRC);
        let shift = module.get_function("mg_shift").unwrap();
        d.with(|| shift.launch(blocks, 128, (&out, 0.5f64, n as i32)))
            .unwrap();
        let want_r2: Vec<f64> = want_r.iter().map(|v| v + 0.5).collect();
        assert_eq!(
            out.to_vec::<f64>().unwrap(),
            want_r2,
            "RawModule function with Device::with"
        );
        // No stream, no Device::with: the launch goes to the arrays' device.
        raw.launch(blocks, 128, (&x, &out, -1.5f64, n as i32))
            .unwrap();
        let want_r3: Vec<f64> = hx.iter().map(|v| -1.5 * v).collect();
        assert_eq!(
            out.to_vec::<f64>().unwrap(),
            want_r3,
            "RawKernel on the device of its arrays"
        );
        // #[cuprum::kernel]
        let hx32: Vec<f32> = hx.iter().map(|&v| v as f32).collect();
        let hy32: Vec<f32> = hy.iter().map(|&v| v as f32).collect();
        let x32 = Array::from_slice_on_device(d, &hx32, &[n]).unwrap();
        let mut y32 = Array::from_slice_on_device(d, &hy32, &[n]).unwrap();
        let stream = d.default_stream();
        let cfg = JitConfig::for_len(n, 256).stream(&stream);
        mg_axpy::launch(cfg, 3.0f32, &x32, &mut y32, n as i32).unwrap();
        // (a * x + y may be one fma on the GPU)
        let want_j: Vec<f64> = hx32
            .iter()
            .zip(&hy32)
            .map(|(a, b)| 3.0 * f64::from(*a) + f64::from(*b))
            .collect();
        let got_j: Vec<f64> = y32
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect();
        let what = format!("#[cuprum::kernel] on device {}", d.ordinal());
        assert_close(&got_j, &want_j, 1e-6, &what);
        // Without a stream: on the device of the arrays.
        mg_axpy::launch(
            JitConfig::for_len(n, 128),
            -1.0f32,
            &x32,
            &mut y32,
            n as i32,
        )
        .unwrap();
        let want_j2: Vec<f64> = want_j
            .iter()
            .zip(&hx32)
            .map(|(y, x)| y - f64::from(*x))
            .collect();
        let got_j2: Vec<f64> = y32
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect();
        let what = format!(
            "#[cuprum::kernel] without a stream, arrays on device {}",
            d.ordinal()
        );
        assert_close(&got_j2, &want_j2, 1e-5, &what);
    }
    assert_eq!(
        Device::current().unwrap(),
        d0,
        "the current device is unchanged"
    );
}

/// 0 → 1 → 0 round trips of random data: odd sizes, dtypes, non-contiguous views, 0-d.
#[test]
fn to_device_round_trips() {
    let Some((d0, d1)) = two_gpus() else { return };
    println!(
        "peer access 0→1: {}, 1→0: {}",
        d0.can_access_peer(d1).unwrap(),
        d1.can_access_peer(d0).unwrap()
    );
    let mut rng = Rng::new(99);
    for n in [0usize, 1, 7, 1001, 65_537, (1 << 20) + 3] {
        let h = rand_vec(&mut rng, n, -1e3, 1e3);
        let a = Array::from_slice_on_device(d0, &h, &[n]).unwrap();
        let b = a.to_device(d1).unwrap();
        assert_eq!(b.device(), d1);
        let c = b.to_device(d0).unwrap();
        assert_eq!(c.device(), d0);
        assert_eq!(b.to_vec::<f64>().unwrap(), h, "on device 1, {n} float64");
        assert_eq!(
            c.to_vec::<f64>().unwrap(),
            h,
            "back on device 0, {n} float64"
        );
    }
    // Other dtypes.
    let hi: Vec<i64> = (0..333).map(|_| rng.next_u64() as i64).collect();
    let back = Array::from_slice(&hi, &[333])
        .unwrap()
        .to_device(d1)
        .unwrap()
        .to_device(d0)
        .unwrap();
    assert_eq!(back.to_vec::<i64>().unwrap(), hi);
    let hu: Vec<u8> = (0..17).map(|_| rng.next_u64() as u8).collect();
    let on1 = Array::from_slice(&hu, &[17])
        .unwrap()
        .to_device(d1)
        .unwrap();
    assert_eq!(on1.to_vec::<u8>().unwrap(), hu);
    let hh: Vec<half::f16> = (0..99)
        .map(|i| half::f16::from_f32(i as f32 * 0.25))
        .collect();
    let on1 = Array::from_slice(&hh, &[99])
        .unwrap()
        .to_device(d1)
        .unwrap();
    assert_eq!(on1.to_vec::<half::f16>().unwrap(), hh);
    // Non-contiguous views on either side.
    let h: Vec<f32> = (0..6 * 9).map(|_| rng.f64(-1.0, 1.0) as f32).collect();
    let m0 = Array::from_slice(&h, &[6, 9]).unwrap();
    let t1 = m0.t().to_device(d1).unwrap();
    let want_t: Vec<f32> = (0..9)
        .flat_map(|j| (0..6).map(move |i| (i, j)))
        .map(|(i, j)| h[i * 9 + j])
        .collect();
    assert_eq!(t1.shape(), &[9, 6]);
    assert_eq!(t1.to_vec::<f32>().unwrap(), want_t, "transposed view 0 → 1");
    let m1 = m0.to_device(d1).unwrap();
    let v0 = m1.slice(&s![1..;2, ..;-2]).unwrap().to_device(d0).unwrap();
    let want_v: Vec<f32> = [1usize, 3, 5]
        .iter()
        .flat_map(|&i| [8usize, 6, 4, 2, 0].map(|j| h[i * 9 + j]))
        .collect();
    assert_eq!(v0.shape(), &[3, 5]);
    assert_eq!(
        v0.to_vec::<f32>().unwrap(),
        want_v,
        "stepped reversed view 1 → 0"
    );
    let z = Array::scalar(-3i32).unwrap().to_device(d1).unwrap();
    assert_eq!((z.ndim(), z.to_vec::<i32>().unwrap()), (0, vec![-3]));
    // The source may be dropped right after the copy is queued.
    let big: Vec<f64> = rand_vec(&mut rng, 1 << 22, -1.0, 1.0);
    let moved = {
        let a = Array::from_slice(&big, &[1 << 22]).unwrap();
        a.to_device(d1).unwrap()
    };
    assert_eq!(moved.to_vec::<f64>().unwrap(), big);
}

/// Arrays of two devices in one call: a typed error naming both devices.
#[test]
fn mixed_devices_are_a_typed_error() {
    let Some((d0, d1)) = two_gpus() else { return };
    let a = Array::from_slice_on_device(d0, &[1.0f32, 2.0], &[2]).unwrap();
    let b = Array::from_slice_on_device(d1, &[3.0f32, 4.0], &[2]).unwrap();
    let ew = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "mg_add").unwrap();
    expect_mismatch(ew.call((&a, &b)), 0, 1, "ElementwiseKernel");
    expect_mismatch(ew.call((&b, &a)), 1, 0, "ElementwiseKernel, reversed");
    let out0 = Array::zeros_on_device(d0, &[2], DType::F32).unwrap();
    expect_mismatch(ew.run((&b, &b, &out0)), 1, 0, "ElementwiseKernel output");
    let red = ReductionKernel::new(
        "T x, T y",
        "T s",
        "x * y",
        "a + b",
        "s = a",
        Some("0"),
        "mg_dot",
    )
    .unwrap();
    expect_mismatch(red.call((&a, &b)), 0, 1, "ReductionKernel");
    expect_mismatch(&a + &b, 0, 1, "a + b");
    expect_mismatch(
        ops::matmul(&a.reshape(&[1, 2]).unwrap(), &b.reshape(&[2, 1]).unwrap()),
        0,
        1,
        "matmul",
    );
    expect_mismatch(a.assign(&b), 0, 1, "assign");
    expect_mismatch(ops::concatenate(&[&a, &b], Some(0)), 0, 1, "concatenate");
    let f = fuse("mg_fadd", |[x, y]| x + y);
    expect_mismatch(f.call((&a, &b)), 0, 1, "fuse");
    let x = Array::from_slice_on_device(d1, &[1.0f32; 4], &[4]).unwrap();
    let mut y = Array::zeros_on_device(d0, &[4], DType::F32).unwrap();
    let s0 = d0.default_stream();
    expect_mismatch(
        mg_axpy::launch(JitConfig::for_len(4, 32).stream(&s0), 1.0f32, &x, &mut y, 4),
        0,
        1,
        "#[cuprum::kernel]",
    );
    let raw = RawKernel::new(RAW_SRC, "mg_scale");
    expect_mismatch(raw.launch(1, 32, (&a, &b, 1.0f64, 2i32)), 0, 1, "RawKernel");
    // A kernel given a stream of another device.
    let s1 = d1.default_stream();
    expect_mismatch(
        ew.stream(&s1).call((&a, &a)),
        1,
        0,
        "ElementwiseKernel on another device's stream",
    );
    if nccl() {
        let _serial = nccl_serial();
        let comm = Communicator::new(&[d0, d1]).unwrap();
        let bb = Array::zeros_on_device(d1, &[2], DType::F32).unwrap();
        // Rank 0 is device 0: given b (device 1) for it.
        expect_mismatch(
            comm.all_reduce(
                &[b.clone(), bb.clone()],
                &[a.clone(), bb.clone()],
                ReduceOp::Sum,
            ),
            0,
            1,
            "all_reduce",
        );
    }
}

fn ops_for(dtype: DType) -> Vec<ReduceOp> {
    let mut v = vec![ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min];
    if dtype.is_float() {
        v.push(ReduceOp::Avg);
    }
    v
}

fn host_reduce(op: ReduceOp, xs: &[&[f64]]) -> Vec<f64> {
    (0..xs[0].len())
        .map(|i| {
            let it = xs.iter().map(|x| x[i]);
            match op {
                ReduceOp::Sum => it.sum(),
                ReduceOp::Prod => it.product(),
                ReduceOp::Max => it.fold(f64::MIN, f64::max),
                ReduceOp::Min => it.fold(f64::MAX, f64::min),
                ReduceOp::Avg => it.sum::<f64>() / xs.len() as f64,
            }
        })
        .collect()
}

/// Random values of `dtype` (small integers so products stay exact), as f64.
fn rand_of(rng: &mut Rng, dtype: DType, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match dtype {
            DType::F32 => rng.f64(-2.0, 2.0) as f32 as f64,
            DType::F64 => rng.f64(-2.0, 2.0),
            DType::U8 => rng.usize(0, 15) as f64,
            _ => rng.usize(0, 40) as f64 - 20.0,
        })
        .collect()
}

fn upload(d: Device, dtype: DType, h: &[f64]) -> Array {
    let n = h.len();
    match dtype {
        DType::F32 => {
            Array::from_slice_on_device(d, &h.iter().map(|&v| v as f32).collect::<Vec<_>>(), &[n])
        }
        DType::F64 => Array::from_slice_on_device(d, h, &[n]),
        DType::I32 => {
            Array::from_slice_on_device(d, &h.iter().map(|&v| v as i32).collect::<Vec<_>>(), &[n])
        }
        DType::I64 => {
            Array::from_slice_on_device(d, &h.iter().map(|&v| v as i64).collect::<Vec<_>>(), &[n])
        }
        DType::U8 => {
            Array::from_slice_on_device(d, &h.iter().map(|&v| v as u8).collect::<Vec<_>>(), &[n])
        }
        _ => unreachable!(),
    }
    .unwrap()
}

fn download(a: &Array) -> Vec<f64> {
    match a.dtype() {
        DType::F32 => a
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::F64 => a.to_vec::<f64>().unwrap(),
        DType::I32 => a
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::I64 => a
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(|v| v as f64)
            .collect(),
        DType::U8 => a
            .to_vec::<u8>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => unreachable!(),
    }
}

#[track_caller]
fn check(got: &[f64], want: &[f64], dtype: DType, what: &str) {
    let rtol = match dtype {
        DType::F32 => 1e-6,
        DType::F64 => 1e-14,
        _ => 0.0,
    };
    assert_close(got, want, rtol, what);
}

/// Every collective × every reduction × dtypes over two GPUs, against the host.
#[test]
fn collectives_on_two_gpus() {
    let Some((d0, d1)) = two_gpus() else { return };
    if !nccl() {
        return;
    }
    let _serial = nccl_serial();
    println!(
        "NCCL {:?} from {}; NCCL_NVLS_ENABLE={:?}",
        cuprum::nccl::version().unwrap(),
        cuprum::nccl::library_path().unwrap(),
        std::env::var("NCCL_NVLS_ENABLE")
    );
    assert_eq!(std::env::var("NCCL_NVLS_ENABLE").as_deref(), Ok("0"));
    let devs = [d0, d1];
    let comm = Communicator::new(&devs).unwrap();
    assert_eq!(
        (comm.size(), comm.ranks(), comm.devices()),
        (2, vec![0, 1], devs.to_vec())
    );
    // a barrier of both local ranks returns (one all-reduce per device, waited for)
    comm.barrier().unwrap();
    let mut rng = Rng::new(2024);
    let n = 1001usize;
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8] {
        let h: Vec<Vec<f64>> = (0..2).map(|_| rand_of(&mut rng, dtype, n)).collect();
        let hs: Vec<&[f64]> = h.iter().map(Vec::as_slice).collect();
        let send: Vec<Array> = devs
            .iter()
            .zip(&h)
            .map(|(&d, v)| upload(d, dtype, v))
            .collect();
        let fresh = |len: usize| -> Vec<Array> {
            devs.iter()
                .map(|&d| Array::zeros_on_device(d, &[len], dtype).unwrap())
                .collect()
        };
        for op in ops_for(dtype) {
            let want = host_reduce(op, &hs);
            // all_reduce
            let recv = fresh(n);
            comm.all_reduce(&send, &recv, op).unwrap();
            for (r, a) in recv.iter().enumerate() {
                check(
                    &download(a),
                    &want,
                    dtype,
                    &format!("all_reduce {op} {dtype} rank {r}"),
                );
            }
            // reduce to each root
            for root in 0..2 {
                let recv = fresh(n);
                comm.reduce(&send, &recv, op, root).unwrap();
                check(
                    &download(&recv[root]),
                    &want,
                    dtype,
                    &format!("reduce {op} {dtype} root {root}"),
                );
            }
            // reduce_scatter: send of 2k elements, rank r gets block r
            let k = n / 2;
            let sends: Vec<Array> = send
                .iter()
                .map(|a| a.slice(&s![..(2 * k) as isize]).unwrap())
                .collect();
            let recv = fresh(k);
            comm.reduce_scatter(&sends, &recv, op).unwrap();
            for (r, a) in recv.iter().enumerate() {
                check(
                    &download(a),
                    &want[r * k..(r + 1) * k],
                    dtype,
                    &format!("reduce_scatter {op} {dtype} rank {r}"),
                );
            }
        }
        // broadcast from each root
        for (root, from) in h.iter().enumerate() {
            let recv = fresh(n);
            comm.broadcast(&send, &recv, root).unwrap();
            for (r, a) in recv.iter().enumerate() {
                check(
                    &download(a),
                    from,
                    dtype,
                    &format!("broadcast {dtype} root {root} → rank {r}"),
                );
            }
        }
        // all_gather
        let recv = fresh(2 * n);
        comm.all_gather(&send, &recv).unwrap();
        let want = [h[0].clone(), h[1].clone()].concat();
        for (r, a) in recv.iter().enumerate() {
            check(
                &download(a),
                &want,
                dtype,
                &format!("all_gather {dtype} rank {r}"),
            );
        }
        // all_reduce in place
        let inplace: Vec<Array> = send.iter().map(|a| a.copy().unwrap()).collect();
        comm.all_reduce(&inplace, &inplace, ReduceOp::Sum).unwrap();
        check(
            &download(&inplace[1]),
            &host_reduce(ReduceOp::Sum, &hs),
            dtype,
            &format!("in-place all_reduce {dtype}"),
        );
    }
    // Size errors with two ranks.
    let a: Vec<Array> = devs
        .iter()
        .map(|&d| Array::zeros_on_device(d, &[3], DType::F32).unwrap())
        .collect();
    let b: Vec<Array> = devs
        .iter()
        .map(|&d| Array::zeros_on_device(d, &[5], DType::F32).unwrap())
        .collect();
    let e = comm.all_gather(&a, &b).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.to_string().contains("(2 × 3 = 6), given 5"), "{e}");
    let e = comm.reduce_scatter(&b, &a, ReduceOp::Sum).unwrap_err();
    assert!(e.to_string().contains("(2 × 3 = 6), given 5"), "{e}");
    let e = comm
        .all_reduce(&a[..1], &a[..1], ReduceOp::Sum)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("one send array per local rank (2), given 1"),
        "{e}"
    );
    let e = Communicator::new(&[d0, d0]).unwrap_err();
    assert!(e.to_string().contains("given device 0 twice"), "{e}");
}

/// The multi-process form: two processes of this test binary (one rank each, on devices 0
/// and 1 — or, with one GPU, a single process of one rank) meet through a unique-id file.
#[test]
fn multi_process_communicator() {
    let Some(all) = gpus() else { return };
    if !nccl() {
        return;
    }
    let _serial = nccl_serial();
    let size = all.len().min(2);
    let file = std::env::temp_dir().join(format!(
        "cuprum-mg-{}-{}.ncclid",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    let _ = std::fs::remove_file(&file);
    let children: Vec<_> = (0..size)
        .map(|rank| {
            spawn_child(
                "child_rank",
                &[
                    ("CUPRUM_MG_RANK", rank.to_string()),
                    ("CUPRUM_MG_SIZE", size.to_string()),
                    ("CUPRUM_MG_ID_FILE", file.display().to_string()),
                ],
            )
        })
        .collect();
    for (rank, c) in children.into_iter().enumerate() {
        let (ok, out) = wait_child(c, Duration::from_secs(180), &format!("rank {rank}"));
        assert!(ok, "rank {rank} of {size} failed:\n{out}");
        assert!(
            out.contains(&format!("child_rank: rank {rank} of {size} ok")),
            "rank {rank} did not report:\n{out}"
        );
    }
    let _ = std::fs::remove_file(&file);
}

#[test]
fn child_rank() {
    if !is_child("child_rank") {
        return;
    }
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is not set"));
    let rank: usize = var("CUPRUM_MG_RANK").parse().unwrap();
    let size: usize = var("CUPRUM_MG_SIZE").parse().unwrap();
    let dev = Device::get(rank % Device::count().unwrap()).unwrap();
    let comm = Communicator::from_unique_id_file(
        var("CUPRUM_MG_ID_FILE"),
        rank,
        size,
        dev,
        Duration::from_secs(120),
    )
    .unwrap();
    assert_eq!(
        (comm.size(), comm.ranks(), comm.devices()),
        (size, vec![rank], vec![dev])
    );
    // Rank r holds r + 1 + i / 1000 at i.
    let n = 777usize;
    let h: Vec<f64> = (0..n)
        .map(|i| (rank + 1) as f64 + i as f64 / 1000.0)
        .collect();
    let x = Array::from_slice_on_device(dev, &h, &[n]).unwrap();
    let y = Array::zeros_on_device(dev, &[n], DType::F64).unwrap();
    comm.all_reduce(
        std::slice::from_ref(&x),
        std::slice::from_ref(&y),
        ReduceOp::Sum,
    )
    .unwrap();
    let base: f64 = (1..=size).map(|r| r as f64).sum();
    let want: Vec<f64> = (0..n)
        .map(|i| base + size as f64 * i as f64 / 1000.0)
        .collect();
    assert_close(
        &y.to_vec::<f64>().unwrap(),
        &want,
        1e-14,
        "multi-process all_reduce",
    );
    let g = Array::zeros_on_device(dev, &[n * size], DType::F64).unwrap();
    comm.all_gather(std::slice::from_ref(&x), std::slice::from_ref(&g))
        .unwrap();
    let want_g: Vec<f64> = (0..size)
        .flat_map(|r| (0..n).map(move |i| (r + 1) as f64 + i as f64 / 1000.0))
        .collect();
    assert_eq!(
        g.to_vec::<f64>().unwrap(),
        want_g,
        "multi-process all_gather"
    );
    let b = Array::zeros_on_device(dev, &[n], DType::F64).unwrap();
    comm.broadcast(std::slice::from_ref(&x), std::slice::from_ref(&b), size - 1)
        .unwrap();
    let want_b: Vec<f64> = (0..n).map(|i| size as f64 + i as f64 / 1000.0).collect();
    assert_eq!(
        b.to_vec::<f64>().unwrap(),
        want_b,
        "multi-process broadcast from the last rank"
    );
    println!("child_rank: rank {rank} of {size} ok");
}
