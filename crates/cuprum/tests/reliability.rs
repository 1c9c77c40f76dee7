//! The reliability suite: work that must not lose data, leak memory or abort under load,
//! faults and bad input. Every case asserts real values and prints its figures (run with
//! `--nocapture` to see them; `cuprum stress` runs the same cases at full size):
//!
//! - 16 threads, each with its own stream, 500 checked launches each;
//! - back-to-back launches of an in-place increment (exact final value, µs per launch);
//! - memory churn: random sizes from 1 B to 64 MiB, 8 arrays alive, reserved memory at
//!   checkpoints and after `release_pool_memory`;
//! - cross-stream reuse: a buffer used by a slow kernel on another stream, dropped, and its
//!   size allocated again: the new array stays intact (both directions, first use too, a
//!   long-lived array used by many short-lived streams);
//! - out of memory (10^12 elements, total memory + 256 MiB, a real driver failure): typed
//!   errors, normal work afterwards, nothing reserved beyond what the program holds;
//! - kernel cache entries truncated, overwritten with garbage, or with a valid header and a
//!   corrupt body: detected, recompiled, right results; 8 threads and 2 processes compiling
//!   the same and different kernels at once;
//! - a kernel that faults: a `KernelFault` error naming it, the same from every later call,
//!   never an abort (in a child process: the fault makes the CUDA context unusable).
//!
//! The cases measure memory and time, so they run one at a time (a lock), whatever
//! `--test-threads` says.

mod common;

use cuprum::compile::{CompileOptions, KernelCache, compile_for_arch};
use cuprum::internal::SLOW_FILL;
use cuprum::kernel::DevicePtr;
use cuprum::{
    Array, DType, Device, ElementwiseKernel, ErrorKind, RawKernel, RawModule, Stream, ops,
};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Barrier, Mutex, MutexGuard};
use std::time::Instant;

const GIB: f64 = (1u64 << 30) as f64;
const MIB: usize = 1 << 20;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn gib(b: u64) -> f64 {
    b as f64 / GIB
}

const INC_F64: &str = r#"
extern "C" __global__ void inc(double* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0;
}"#;

const INC_U32: &str = r#"
extern "C" __global__ void inc_u32(unsigned int* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        x[i] += 1u;
}"#;

const SPIN: i64 = 100_000_000;

// -----------------------------------------------------------------------------------------
// Threads and launches
// -----------------------------------------------------------------------------------------

#[test]
fn sixteen_threads_each_with_its_own_stream() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let _g = serial();
    const THREADS: usize = 16;
    const LAUNCHES: usize = 500;
    let inc = RawKernel::new(INC_F64, "inc");
    let add = ElementwiseKernel::new("T x, T d", "T y", "y = x + d", "reliability_add").unwrap();
    let t0 = Instant::now();
    std::thread::scope(|sc| {
        for t in 0..THREADS {
            let (inc, add) = (&inc, &add);
            sc.spawn(move || {
                let s = Stream::new().unwrap();
                s.with(|| {
                    let n = 1000 + 37 * t;
                    let mut rng = common::Rng::new(100 + t as u64);
                    let host: Vec<f64> = (0..n).map(|_| rng.usize(0, 1000) as f64).collect();
                    let x = Array::from_slice(&host, &[n]).unwrap();
                    for i in 1..=LAUNCHES {
                        inc.launch((n as u32).div_ceil(256), 256, (&x, n as i32))
                            .unwrap();
                        let got = x.to_vec::<f64>().unwrap();
                        for j in 0..n {
                            assert_eq!(got[j], host[j] + i as f64, "thread {t} launch {i} [{j}]");
                        }
                        if i % 100 == 0 {
                            let y = add.call((&x, t as f64)).unwrap();
                            let yv = y.to_vec::<f64>().unwrap();
                            assert!((0..n).all(|j| yv[j] == got[j] + t as f64), "thread {t}");
                            let sum = ops::sum(&x).unwrap().to_vec::<f64>().unwrap()[0];
                            assert_eq!(sum, got.iter().sum::<f64>(), "thread {t}");
                        }
                    }
                });
            });
        }
    });
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "threads: {THREADS} threads x {LAUNCHES} checked launches in {dt:.2} s ({:.0} checked launches/s)",
        (THREADS * LAUNCHES) as f64 / dt
    );
}

#[test]
fn back_to_back_launches_of_an_in_place_increment() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let _g = serial();
    // `cuprum stress` does 1,000,000.
    const N: u32 = 200_000;
    let k = RawKernel::new(INC_U32, "inc_u32");
    let n = 1000usize;
    let x = Array::zeros(&[n], DType::U32).unwrap();
    k.launch(4, 256, (&x, n as i32)).unwrap();
    let s = Stream::current().unwrap();
    s.synchronize().unwrap();
    let t0 = Instant::now();
    for _ in 0..N {
        k.launch(4, 256, (&x, n as i32)).unwrap();
    }
    let host = t0.elapsed().as_secs_f64();
    s.synchronize().unwrap();
    let total = t0.elapsed().as_secs_f64();
    let got = x.to_vec::<u32>().unwrap();
    assert!(got.iter().all(|&v| v == N + 1), "first {:?}", &got[..4]);
    println!(
        "launches: {N} back-to-back launches, exact; host {:.2} µs per launch, {:.0} launches/s (to completion)",
        host * 1e6 / N as f64,
        N as f64 / total
    );
}

// -----------------------------------------------------------------------------------------
// Memory
// -----------------------------------------------------------------------------------------

/// Random allocate/free cycles (1 B to 64 MiB, 8 slots); returns the report lines.
fn churn(cycles: usize, checkpoint: usize) -> Vec<String> {
    let dev = Device::get(0).unwrap();
    dev.release_pool_memory().unwrap();
    let cap = 1u64 << 30;
    let mut rng = common::Rng::new(2024);
    let mut slots: Vec<Option<Array>> = (0..8).map(|_| None).collect();
    let (mut live, mut peak) = (0usize, 0usize);
    let mut reserved = Vec::new();
    let mut lines = Vec::new();
    let t0 = Instant::now();
    for c in 1..=cycles {
        let i = rng.usize(0, 8);
        if let Some(a) = slots[i].take() {
            live -= a.nbytes();
        }
        let bytes = rng.usize(1, 64 * MIB + 1);
        slots[i] = Some(Array::empty(&[bytes], DType::U8).unwrap());
        live += bytes;
        peak = peak.max(live);
        if c % checkpoint == 0 {
            let r = dev.pool_reserved_bytes().unwrap();
            let line = format!(
                "churn {c:>7} cycles {:6.2} s: reserved {:.2} GiB, used {:.2} GiB, cached {:.2} GiB, peak live {:.2} GiB",
                t0.elapsed().as_secs_f64(),
                gib(r),
                gib(dev.pool_used_bytes().unwrap()),
                gib(dev.cached_bytes() as u64),
                gib(peak as u64)
            );
            println!("{line}");
            lines.push(line);
            reserved.push(r);
            // The target: at most twice the peak of live bytes plus the cache's cap.
            assert!(
                r <= 2 * peak as u64 + cap,
                "reserved {:.2} GiB > 2 x peak live {:.2} GiB + 1 GiB",
                gib(r),
                gib(peak as u64)
            );
        }
    }
    let per_cycle = t0.elapsed().as_secs_f64() * 1e6 / cycles as f64;
    // Flat: the last checkpoint holds no more than the first plus 256 MiB.
    let (first, last) = (reserved[0], *reserved.last().unwrap());
    assert!(
        last <= first + (256 << 20),
        "reserved grew from {:.2} to {:.2} GiB",
        gib(first),
        gib(last)
    );
    dev.release_pool_memory().unwrap();
    let held: usize = slots.iter().flatten().map(Array::nbytes).sum();
    let with_live = dev.pool_reserved_bytes().unwrap();
    assert_eq!(dev.cached_bytes(), 0);
    // Live arrays keep the driver's pool chunks they sit in: up to about twice what they
    // hold with random sizes of up to 64 MiB (measured on an H200: 0.62 GiB reserved for
    // 0.33 GiB live), so near zero here means near what is live.
    assert!(
        with_live <= (2 * held + 64 * MIB) as u64,
        "after release_pool_memory with {:.2} GiB live: {:.2} GiB reserved",
        gib(held as u64),
        gib(with_live)
    );
    drop(slots);
    dev.release_pool_memory().unwrap();
    let after = dev.pool_reserved_bytes().unwrap();
    assert!(
        after <= 64 * MIB as u64,
        "{:.3} GiB reserved with nothing alive",
        gib(after)
    );
    let line = format!(
        "churn: {cycles} cycles, {per_cycle:.2} µs per cycle; release_pool_memory: {:.2} GiB reserved with {:.2} GiB live, {:.3} GiB with nothing alive",
        gib(with_live),
        gib(held as u64),
        gib(after)
    );
    println!("{line}");
    lines.push(line);
    lines
}

#[test]
fn churn_keeps_reserved_memory_bounded_and_flat() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let _g = serial();
    churn(40_000, 5_000);
}

#[test]
fn a_buffer_used_on_another_stream_is_not_reused_before_that_work_ends() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let _g = serial();
    let slow = RawKernel::new(SLOW_FILL, "slow_fill");
    let s2 = Stream::new().unwrap();
    let n = 1usize << 20;
    let launch = |a: &Array, value: f32, stream: &Stream| {
        slow.configure(264, 256)
            .stream(stream)
            .launch((a, value, n as i64, SPIN))
            .unwrap();
    };
    let check = |what: &str, v: Vec<f32>, want: f32| {
        let bad = v.iter().filter(|&&x| x != want).count();
        assert_eq!(bad, 0, "{what}: {bad} of {n} elements are not {want}");
    };
    let mut reused = 0;
    for trial in 0..5 {
        // Made on the default stream, used by a slow kernel on s2, dropped; the same size
        // again on the default stream.
        let a = Array::zeros(&[n], DType::F32).unwrap();
        let pa = a.data_ptr();
        launch(&a, 7.0, &s2);
        drop(a);
        let b = Array::full(&[n], 3.0f32, DType::F32).unwrap();
        reused += (b.data_ptr() == pa) as usize;
        check(
            &format!("trial {trial}, default stream, at once"),
            b.to_vec().unwrap(),
            3.0,
        );
        s2.synchronize().unwrap();
        check(
            &format!("trial {trial}, default stream, after sync"),
            b.to_vec().unwrap(),
            3.0,
        );

        // The other direction: made on s2, used by a slow kernel on the default stream.
        let a = s2.with(|| Array::zeros(&[n], DType::F32)).unwrap();
        launch(&a, 7.0, &Stream::current().unwrap());
        drop(a);
        let b = s2.with(|| Array::full(&[n], 3.0f32, DType::F32)).unwrap();
        check(
            &format!("trial {trial}, stream 2"),
            s2.with(|| b.to_vec()).unwrap(),
            3.0,
        );
        Device::get(0).unwrap().synchronize().unwrap();
        check(
            &format!("trial {trial}, stream 2, after sync"),
            b.to_vec().unwrap(),
            3.0,
        );
    }
    println!(
        "cross-stream: 5 of 5 trials intact in both directions (block reused in {reused} of 5)"
    );
}

#[test]
fn a_first_use_on_another_stream_sees_the_work_of_the_arrays_own_stream() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let _g = serial();
    let slow = RawKernel::new(SLOW_FILL, "slow_fill");
    let n = 1usize << 20;
    let s2 = Stream::new().unwrap();
    // Written slowly on its own (default) stream, then copied on s2 without any
    // synchronisation by the caller.
    let a = Array::zeros(&[n], DType::F32).unwrap();
    slow.launch(264, 256, (&a, 5.0f32, n as i64, SPIN)).unwrap();
    let c = s2.with(|| a.copy()).unwrap();
    let v = s2.with(|| c.to_vec::<f32>()).unwrap();
    assert!(
        v.iter().all(|&x| x == 5.0),
        "{} wrong",
        v.iter().filter(|&&x| x != 5.0).count()
    );
    // An array of a stream whose handle is gone, read on the default stream.
    let b = {
        let s3 = Stream::new().unwrap();
        let b = s3
            .with(|| {
                let b = Array::zeros(&[n], DType::F32)?;
                slow.launch(264, 256, (&b, 2.5f32, n as i64, SPIN))?;
                Ok::<_, cuprum::Error>(b)
            })
            .unwrap();
        drop(s3);
        b
    };
    let v = b.to_vec::<f32>().unwrap();
    assert!(v.iter().all(|&x| x == 2.5));
    drop(b);
    Device::get(0).unwrap().synchronize().unwrap();
}

#[test]
fn a_long_lived_array_used_by_many_short_lived_streams() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let _g = serial();
    // Each stream writes its own element and is dropped at once; the array forgets the
    // streams no handle can reach (after its own stream waits for them), so they can go.
    let k = RawKernel::new(
        r#"extern "C" __global__ void bump(double* x, int i) { x[i] += i + 1.0; }"#,
        "bump",
    );
    let n = 40;
    let x = Array::zeros(&[n], DType::F64).unwrap();
    for i in 0..n {
        let s = Stream::new().unwrap();
        k.configure(1, 1).stream(&s).launch((&x, i as i32)).unwrap();
    }
    Device::get(0).unwrap().synchronize().unwrap();
    let v = x.to_vec::<f64>().unwrap();
    for (i, got) in v.iter().enumerate() {
        assert_eq!(*got, i as f64 + 1.0, "element {i}");
    }
    drop(x);
    Device::get(0).unwrap().synchronize().unwrap();
}

#[test]
fn out_of_memory_is_typed_and_leaves_nothing_reserved() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let _g = serial();
    let dev = Device::get(0).unwrap();
    dev.release_pool_memory().unwrap();
    let keep = Array::full(&[1000], 1.5f32, DType::F32).unwrap();
    let total = dev.total_memory();
    let t0 = Instant::now();
    let e = common::expect_err(
        Array::empty(&[1_000_000_000_000], DType::F32),
        ErrorKind::OutOfMemory,
    );
    let m = e.to_string();
    assert!(
        m.contains("requested 4000000000000 bytes") && m.contains("free of"),
        "{m}"
    );
    let over = (total + 256 * MIB) / 4;
    let e = common::expect_err(Array::empty(&[over], DType::F32), ErrorKind::OutOfMemory);
    assert!(
        e.to_string()
            .contains(&format!("requested {} bytes", over * 4)),
        "{e}"
    );
    // A real driver failure: most of the free memory is taken, then as much again.
    let free = dev.memory_info().unwrap().0;
    let big = free / 10 * 6;
    let a = Array::empty(&[big], DType::U8).unwrap();
    let e = common::expect_err(Array::empty(&[big], DType::U8), ErrorKind::OutOfMemory);
    assert!(e.to_string().contains("out of memory on device 0"), "{e}");
    let reserved = dev.pool_reserved_bytes().unwrap();
    assert!(
        reserved <= (big + 64 * MIB) as u64,
        "after the failure {:.2} GiB reserved, the program holds {:.2} GiB",
        gib(reserved),
        gib(big as u64)
    );
    drop(a);
    // Normal work continues.
    let x = Array::arange(0.0, 1e6, 1.0, DType::F64).unwrap();
    let s = ops::sum(&(&x * 2.0).unwrap())
        .unwrap()
        .to_vec::<f64>()
        .unwrap()[0];
    assert_eq!(s, 999_999.0 * 1e6);
    assert_eq!(keep.to_vec::<f32>().unwrap(), vec![1.5; 1000]);
    dev.release_pool_memory().unwrap();
    let after = dev.pool_reserved_bytes().unwrap();
    assert!(after <= 64 * MIB as u64, "{:.3} GiB reserved", gib(after));
    println!(
        "out of memory: 3 typed errors in {:.2} s (10^12 elements, total + 256 MiB, {:.0} GiB twice); {:.2} GiB reserved after the failure with {:.0} GiB held; {:.3} GiB after release",
        t0.elapsed().as_secs_f64(),
        gib(big as u64),
        gib(reserved),
        gib(big as u64),
        gib(after)
    );
}

// -----------------------------------------------------------------------------------------
// Kernel cache
// -----------------------------------------------------------------------------------------

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("cuprum-reliability")
        .tempdir()
        .unwrap()
}

/// The architecture to compile for: the GPU's, or sm_90 without one.
fn arch() -> u32 {
    Device::get(0).map(Device::arch).unwrap_or(90)
}

fn add_source(tag: &str, amount: f32) -> String {
    format!(
        "// {tag}\nextern \"C\" __global__ void add_k(float* x, int n) {{\n\
         \x20 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20 if (i < n) x[i] += {amount:.1}f;\n}}\n"
    )
}

/// Runs `add_k` from `image` (written to a file and loaded as a module) on 1000 random
/// floats and checks `x + amount`. Does nothing without a GPU.
fn run_image(image: &[u8], dir: &Path, amount: f32) {
    if Device::get(0).is_err() {
        return;
    }
    let file = dir.join(format!("image-{}.cubin", image.len()));
    std::fs::write(&file, image).unwrap();
    let k = RawModule::from_file(&file).get_function("add_k").unwrap();
    let mut rng = common::Rng::new(amount as u64 + 5);
    let host: Vec<f32> = (0..1000).map(|_| rng.f64(-100.0, 100.0) as f32).collect();
    let x = Array::from_slice(&host, &[1000]).unwrap();
    k.launch(4, 256, (&x, 1000i32)).unwrap();
    let got = x.to_vec::<f32>().unwrap();
    for (g, h) in got.iter().zip(&host) {
        assert_eq!(*g, h + amount);
    }
}

#[test]
fn damaged_cache_entries_are_detected_and_recompiled() {
    require_nvrtc!();
    let _g = serial();
    let t = tmp();
    let dir = t.path().join("cache");
    let src = add_source(&format!("damaged entries {}", std::process::id()), 3.0);
    let opts = CompileOptions::default();
    let first = KernelCache::new(Some(dir.clone()));
    let good = first.compile(&src, &opts, arch()).unwrap();
    let entries = first.entries().unwrap();
    assert_eq!(entries.len(), 1);
    let path = entries[0].path.clone();
    let bytes = std::fs::read(&path).unwrap();
    let mut rng = common::Rng::new(77);
    let garbage: Vec<u8> = (0..bytes.len()).map(|_| rng.next_u64() as u8).collect();
    let mut corrupt_body = bytes.clone();
    // Header (magic, version, checksum: 44 bytes) intact, payload bytes changed.
    for k in 0..16 {
        let i = 44 + (bytes.len() - 44) * k / 16;
        corrupt_body[i] ^= 0x5a;
    }
    let damages: [(&str, Vec<u8>); 4] = [
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("garbage", garbage),
        ("valid header, corrupt body", corrupt_body),
    ];
    for (what, damaged) in damages {
        std::fs::write(&path, &damaged).unwrap();
        let c = KernelCache::new(Some(dir.clone()));
        let img = c.compile(&src, &opts, arch()).unwrap();
        let s = c.stats();
        assert_eq!(
            (s.corrupt_entries, s.misses, s.disk_writes),
            (1, 1, 1),
            "{what}: {s:?}"
        );
        assert_eq!(
            img.image, good.image,
            "{what}: recompiled to the same image"
        );
        // The entry was rewritten: a fresh cache reads it.
        let again = KernelCache::new(Some(dir.clone()));
        again.compile(&src, &opts, arch()).unwrap();
        assert_eq!(again.stats().disk_hits, 1, "{what}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{what}");
        run_image(&img.image, t.path(), 3.0);
        println!("cache: {what} entry detected, recompiled, rewritten");
    }
}

#[test]
fn eight_threads_compile_the_same_and_different_kernels_at_once() {
    require_nvrtc!();
    let _g = serial();
    let t = tmp();
    let cache = Arc::new(KernelCache::new(Some(t.path().join("cache"))));
    let nonce = format!("{} {:?}", std::process::id(), Instant::now());
    let barrier = Arc::new(Barrier::new(8));
    let images: Vec<_> = (0..8)
        .map(|i| {
            let (cache, barrier) = (cache.clone(), barrier.clone());
            // Threads 0-3 share one source; 4-7 each have their own.
            let (src, amount) = if i < 4 {
                (add_source(&format!("shared {nonce}"), 1.0), 1.0)
            } else {
                (add_source(&format!("own {i} {nonce}"), i as f32), i as f32)
            };
            std::thread::spawn(move || {
                barrier.wait();
                let img = cache
                    .compile(&src, &CompileOptions::default(), arch())
                    .unwrap();
                (img, amount)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    let s = cache.stats();
    assert_eq!(s.misses, 5, "{s:?}");
    assert_eq!(s.memo_hits, 3, "{s:?}");
    assert_eq!(cache.entries().unwrap().len(), 5);
    for w in images[..4].windows(2) {
        assert!(
            Arc::ptr_eq(&w[0].0, &w[1].0),
            "one compile for the shared source"
        );
    }
    for (img, amount) in &images {
        run_image(&img.image, t.path(), *amount);
    }
    // The same through RawKernel and the process-wide cache (sources unique to this run).
    if Device::get(0).is_ok() {
        let kernels: Vec<(RawKernel, f32)> = (0..8)
            .map(|i| {
                let amount = if i < 4 { 1.0 } else { i as f32 };
                let tag = if i < 4 {
                    format!("global shared {nonce}")
                } else {
                    format!("global own {i} {nonce}")
                };
                (RawKernel::new(add_source(&tag, amount), "add_k"), amount)
            })
            .collect();
        let barrier = Barrier::new(8);
        std::thread::scope(|sc| {
            for (k, amount) in &kernels {
                let barrier = &barrier;
                sc.spawn(move || {
                    barrier.wait();
                    let x = Array::full(&[1000], 0.5f32, DType::F32).unwrap();
                    k.launch(4, 256, (&x, 1000i32)).unwrap();
                    assert!(
                        x.to_vec::<f32>()
                            .unwrap()
                            .iter()
                            .all(|&v| v == 0.5 + amount)
                    );
                });
            }
        });
    }
    println!("cache: 8 threads, 5 distinct kernels: 5 compiles, 3 shared, all results right");
}

/// Runs one test of this binary in a child process with extra environment variables.
fn child(test: &str, env: &[(&str, &str)]) -> Command {
    let mut cmd = common::harness::child_test(test);
    cmd.env("CUPRUM_RELIABILITY_CHILD", "1")
        .env_remove("CUPRUM_CACHE_IN_MEMORY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

fn child_mode(test: &str) -> bool {
    let on = std::env::var_os("CUPRUM_RELIABILITY_CHILD").is_some();
    if !on {
        eprintln!("{test}: a helper run in a child process by another test; nothing to do");
    }
    on
}

fn reliability_opts() -> CompileOptions {
    CompileOptions::default().program_name("reliability.cu")
}

#[test]
#[ignore = "helper: run by two_processes_compile_the_same_and_different_kernels in child processes"]
fn child_compile_and_run() {
    if !child_mode("child_compile_and_run") {
        return;
    }
    let nonce = std::env::var("CUPRUM_RELIABILITY_NONCE").unwrap();
    let id: u32 = std::env::var("CUPRUM_RELIABILITY_ID")
        .unwrap()
        .parse()
        .unwrap();
    let sources = [
        (
            add_source(&format!("two processes shared {nonce}"), 1.0),
            1.0f32,
        ),
        (
            add_source(&format!("two processes own {id} {nonce}"), 10.0 + id as f32),
            10.0 + id as f32,
        ),
    ];
    for (src, amount) in &sources {
        if Device::get(0).is_ok() {
            let k = RawKernel::new(src.clone(), "add_k").options(reliability_opts());
            let x = Array::full(&[1000], 0.25f32, DType::F32).unwrap();
            k.launch(4, 256, (&x, 1000i32)).unwrap();
            assert!(
                x.to_vec::<f32>()
                    .unwrap()
                    .iter()
                    .all(|&v| v == 0.25 + amount)
            );
        } else {
            compile_for_arch(src, &reliability_opts(), arch()).unwrap();
        }
    }
    println!("CHILD-OK {id}");
}

#[test]
fn two_processes_compile_the_same_and_different_kernels() {
    require_nvrtc!();
    let _g = serial();
    let t = tmp();
    let dir = t.path().join("cache");
    let nonce = format!("{} {:?}", std::process::id(), Instant::now());
    let dir_s = dir.display().to_string();
    let kids: Vec<_> = (0..2)
        .map(|id| {
            child(
                "child_compile_and_run",
                &[
                    ("CUPRUM_CACHE_DIR", &dir_s),
                    ("CUPRUM_RELIABILITY_NONCE", &nonce),
                    ("CUPRUM_RELIABILITY_ID", &id.to_string()),
                ],
            )
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for (id, k) in kids.into_iter().enumerate() {
        let out = k.wait_with_output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && text.contains(&format!("CHILD-OK {id}")),
            "{text}"
        );
    }
    // Every entry the children wrote is complete: a fresh cache reads all three.
    let c = KernelCache::new(Some(dir));
    for src in [
        add_source(&format!("two processes shared {nonce}"), 1.0),
        add_source(&format!("two processes own 0 {nonce}"), 10.0),
        add_source(&format!("two processes own 1 {nonce}"), 11.0),
    ] {
        c.compile(&src, &reliability_opts(), arch()).unwrap();
    }
    let s = c.stats();
    assert_eq!(
        (s.disk_hits, s.misses, s.corrupt_entries),
        (3, 0, 0),
        "{s:?}"
    );
    println!("cache: 2 processes, one shared and two own kernels each: all entries complete");
}

// -----------------------------------------------------------------------------------------
// Faults
// -----------------------------------------------------------------------------------------

/// Writes through a pointer no allocation covers.
const POKE: &str = r#"
extern "C" __global__ void poke(int* p) { p[threadIdx.x] = 1; }"#;

#[test]
#[ignore = "helper: run by a_kernel_fault_is_reported_by_every_later_call in a child process"]
fn child_fault() {
    if !child_mode("child_fault") {
        return;
    }
    let k = RawKernel::new(POKE, "poke");
    let x = Array::ones(&[1000], DType::F32).unwrap();
    let s = Stream::current().unwrap();
    s.synchronize().unwrap();
    let launched = k.launch(1, 32, (DevicePtr(0x10),));
    let first = launched.and(s.synchronize()).unwrap_err();
    println!("first: {first}");
    let named = |e: &cuprum::Error| {
        assert_eq!(e.kind(), ErrorKind::KernelFault, "{e}");
        let m = e.to_string();
        assert!(m.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{m}");
        assert!(m.contains("unusable"), "{m}");
    };
    named(&first);
    let later: Vec<(&str, cuprum::Error)> = vec![
        ("zeros", Array::zeros(&[10], DType::F32).unwrap_err()),
        ("empty", Array::empty(&[10], DType::F32).unwrap_err()),
        ("to_vec", x.to_vec::<f32>().unwrap_err()),
        ("raw launch", k.launch(1, 1, (DevicePtr(0),)).unwrap_err()),
        ("sum", ops::sum(&x).unwrap_err()),
        ("stream sync", s.synchronize().unwrap_err()),
        (
            "device sync",
            Device::get(0).unwrap().synchronize().unwrap_err(),
        ),
        (
            "release",
            Device::get(0).unwrap().release_pool_memory().unwrap_err(),
        ),
        ("new stream", Stream::new().unwrap_err()),
    ];
    for (what, e) in &later {
        println!("{what}: {e}");
        named(e);
    }
    drop(x);
    println!("FAULT-CHILD-OK");
}

#[test]
fn a_kernel_fault_is_reported_by_every_later_call() {
    require_gpu!();
    skip_on_host!(
        "a stress test of GPU streams, the memory pool and sticky faults (spin kernels, \
         GiB churn): too slow on a CPU, and the host device has its own fault tests"
    );
    let out = child("child_fault", &[]).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the child failed or aborted:\n{text}");
    assert!(text.contains("FAULT-CHILD-OK"), "{text}");
    println!(
        "fault: illegal address reported as KernelFault by the failing call and 9 later calls, no abort"
    );
}
