//! `cuprum stress`: the reliability cases at full size, each checked against exact values,
//! with its figures: threads with their own streams, a million back-to-back launches,
//! allocation churn, cross-stream reuse, out of memory, damaged and concurrent kernel-cache
//! entries, and (last, in a child process, because it makes the GPU context unusable) a
//! faulting kernel. Exits 1 when a case fails; without a GPU the GPU cases are skipped
//! (saying so) and the cache cases still run when NVRTC is there.

use cuprum::compile::{CompileOptions, KernelCache, compile_for_arch};
use cuprum::internal::SLOW_FILL;
use cuprum::kernel::DevicePtr;
use cuprum::{
    Array, DType, Device, ElementwiseKernel, ErrorKind, RawKernel, RawModule, Stream, ops,
};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Instant;

/// `cuprum stress` options.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct StressArgs {
    /// Run only the cases whose name contains this text (threads, launches, churn,
    /// cross-stream, transfers, oom, cache-damage, cache-threads, cache-processes, fault).
    #[arg(long)]
    pub filter: Option<String>,
    /// Back-to-back launches of the in-place increment.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub launches: u32,
    /// Allocate/free cycles of the churn case.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub cycles: u64,
    /// Threads of the threads case, each with its own stream.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: u64,
    /// Checked launches per thread.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..))]
    pub per_thread: u64,
    /// Leave out the fault case (a kernel writing through a bad pointer, in a child process).
    #[arg(long)]
    pub no_fault: bool,
}

/// `cuprum stress-child`: one case that must run in its own process.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct ChildArgs {
    /// `fault` or `compile`.
    case: String,
    /// For `compile`: makes the kernel sources unique to the parent's run.
    #[arg(long, default_value = "")]
    nonce: String,
    /// For `compile`: which child this is.
    #[arg(long, default_value_t = 0)]
    id: u32,
}

/// What a case says: its figures, or why it failed.
type Outcome = Result<String, String>;

/// Turns any error into the case's failure text.
trait Fail<T> {
    fn fail(self, what: &str) -> Result<T, String>;
}
impl<T, E: std::fmt::Display> Fail<T> for Result<T, E> {
    fn fail(self, what: &str) -> Result<T, String> {
        self.map_err(|e| format!("{what}: {e}"))
    }
}

macro_rules! ensure {
    ($cond:expr, $($t:tt)*) => {
        if !$cond {
            return Err(format!($($t)*));
        }
    };
}

const GIB: f64 = (1u64 << 30) as f64;
const MIB: usize = 1 << 20;

fn gib(b: impl TryInto<u64>) -> f64 {
    b.try_into().unwrap_or(u64::MAX) as f64 / GIB
}

/// Which resource a case needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Needs {
    Gpu,
    Nvrtc,
}

struct Case {
    name: &'static str,
    needs: Needs,
    run: fn(&StressArgs) -> Outcome,
}

const CASES: &[Case] = &[
    Case {
        name: "threads",
        needs: Needs::Gpu,
        run: threads,
    },
    Case {
        name: "launches",
        needs: Needs::Gpu,
        run: launches,
    },
    Case {
        name: "churn",
        needs: Needs::Gpu,
        run: churn,
    },
    Case {
        name: "cross-stream",
        needs: Needs::Gpu,
        run: cross_stream,
    },
    Case {
        name: "transfers",
        needs: Needs::Gpu,
        run: transfers,
    },
    Case {
        name: "oom",
        needs: Needs::Gpu,
        run: oom,
    },
    Case {
        name: "cache-damage",
        needs: Needs::Nvrtc,
        run: cache_damage,
    },
    Case {
        name: "cache-threads",
        needs: Needs::Nvrtc,
        run: cache_threads,
    },
    Case {
        name: "cache-processes",
        needs: Needs::Nvrtc,
        run: cache_processes,
    },
    Case {
        name: "fault",
        needs: Needs::Gpu,
        run: fault,
    },
];

/// The cases `args` selects, in order (the fault case is always last).
fn selected(args: &StressArgs) -> Vec<&'static Case> {
    CASES
        .iter()
        .filter(|c| args.filter.as_deref().is_none_or(|f| c.name.contains(f)))
        .filter(|c| !(args.no_fault && c.name == "fault"))
        .collect()
}

pub fn run(args: &StressArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let cases = selected(args);
    if cases.is_empty() {
        return Err(format!(
            "no stress case matches {:?}",
            args.filter.as_deref().unwrap_or("")
        )
        .into());
    }
    let gpu = Device::get(0);
    match &gpu {
        Ok(d) => out!(
            "cuprum stress on {} (device 0, {:.0} GiB)",
            d.name(),
            gib(d.total_memory())
        ),
        Err(e) => out!("cuprum stress without a GPU ({e}): GPU cases are skipped"),
    }
    let nvrtc = cuprum::compile::nvrtc().map(|_| ());
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for c in cases {
        let missing = match c.needs {
            Needs::Gpu => gpu.as_ref().err().map(|_| "no GPU".to_string()),
            Needs::Nvrtc => nvrtc.as_ref().err().map(|e| format!("no NVRTC: {e}")),
        };
        if let Some(why) = missing {
            skipped += 1;
            out!("{:<16} skipped ({why})", c.name);
            continue;
        }
        let t0 = Instant::now();
        match (c.run)(args) {
            Ok(figures) => {
                passed += 1;
                out!(
                    "{:<16} ok      {figures} [{:.1} s]",
                    c.name,
                    t0.elapsed().as_secs_f64()
                );
            }
            Err(why) => {
                failed += 1;
                out!("{:<16} FAILED  {why}", c.name);
            }
        }
    }
    out!("stress: {passed} passed, {failed} failed, {skipped} skipped");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

// ------------------------------------------------------------------------------------------
// Kernels
// ------------------------------------------------------------------------------------------

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

const POKE: &str = r#"
extern "C" __global__ void poke(int* p) { p[threadIdx.x] = 1; }"#;

/// A deterministic generator for inputs (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

// ------------------------------------------------------------------------------------------
// GPU cases
// ------------------------------------------------------------------------------------------

fn threads(a: &StressArgs) -> Outcome {
    let (nt, per) = (a.threads as usize, a.per_thread as usize);
    let inc = RawKernel::new(INC_F64, "inc");
    let add =
        ElementwiseKernel::new("T x, T d", "T y", "y = x + d", "stress_add").fail("kernel")?;
    let t0 = Instant::now();
    let results: Vec<Result<(), String>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..nt)
            .map(|t| {
                let (inc, add) = (&inc, &add);
                sc.spawn(move || -> Result<(), String> {
                    let s = Stream::new().fail("stream")?;
                    s.with(|| {
                        let n = 1000 + 37 * t;
                        let mut rng = Rng(0x9E37_79B9 + t as u64);
                        let host: Vec<f64> = (0..n).map(|_| rng.below(1000) as f64).collect();
                        let x = Array::from_slice(&host, &[n]).fail("upload")?;
                        for i in 1..=per {
                            inc.launch((n as u32).div_ceil(256), 256, (&x, n as i32))
                                .fail("launch")?;
                            let got = x.to_vec::<f64>().fail("download")?;
                            if let Some(j) = (0..n).find(|&j| got[j] != host[j] + i as f64) {
                                return Err(format!(
                                    "thread {t}, launch {i}: element {j} is {}, expected {}",
                                    got[j],
                                    host[j] + i as f64
                                ));
                            }
                            if i % 100 == 0 {
                                let y = add.call((&x, t as f64)).fail("elementwise")?;
                                let yv = y.to_vec::<f64>().fail("download")?;
                                ensure!(
                                    (0..n).all(|j| yv[j] == got[j] + t as f64),
                                    "thread {t}: elementwise result wrong"
                                );
                                let sum =
                                    ops::sum(&x).fail("sum")?.to_vec::<f64>().fail("download")?[0];
                                ensure!(
                                    sum == got.iter().sum::<f64>(),
                                    "thread {t}: sum {sum} wrong"
                                );
                            }
                        }
                        Ok(())
                    })
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    for r in results {
        r?;
    }
    let dt = t0.elapsed().as_secs_f64();
    Ok(format!(
        "{nt} threads x {per} checked launches, each on its own stream: {:.0} checked launches/s",
        (nt * per) as f64 / dt
    ))
}

fn launches(a: &StressArgs) -> Outcome {
    let count = a.launches;
    let k = RawKernel::new(INC_U32, "inc_u32");
    let n = 1000usize;
    let x = Array::zeros(&[n], DType::U32).fail("zeros")?;
    k.launch(4, 256, (&x, n as i32)).fail("launch")?;
    let s = Stream::current().fail("stream")?;
    s.synchronize().fail("sync")?;
    let t0 = Instant::now();
    for i in 0..count {
        k.launch(4, 256, (&x, n as i32))
            .fail(&format!("launch {i}"))?;
    }
    let host = t0.elapsed().as_secs_f64();
    s.synchronize().fail("sync")?;
    let total = t0.elapsed().as_secs_f64();
    let got = x.to_vec::<u32>().fail("download")?;
    let want = count + 1;
    ensure!(
        got.iter().all(|&v| v == want),
        "after {count} launches an element is {:?}, expected {want}",
        got.iter().find(|&&v| v != want)
    );
    Ok(format!(
        "{count} back-to-back launches, every element exactly {want}: host {:.2} µs per launch, {:.0} launches/s to completion",
        host * 1e6 / count as f64,
        count as f64 / total
    ))
}

fn churn(a: &StressArgs) -> Outcome {
    let cycles = a.cycles as usize;
    let dev = Device::get(0).fail("device")?;
    dev.release_pool_memory().fail("release")?;
    let checkpoints: Vec<usize> = [1_000, 5_000, 20_000, 50_000, 100_000, 150_000, 200_000]
        .into_iter()
        .filter(|&c| c < cycles)
        .chain([cycles])
        .collect();
    let mut rng = Rng(2024);
    let mut slots: Vec<Option<Array>> = (0..8).map(|_| None).collect();
    let (mut live, mut peak) = (0usize, 0usize);
    let mut seen: Vec<(usize, u64)> = Vec::new();
    let t0 = Instant::now();
    for c in 1..=cycles {
        let i = rng.below(8);
        if let Some(x) = slots[i].take() {
            live -= x.nbytes();
        }
        let bytes = rng.below(64 * MIB) + 1;
        slots[i] = Some(Array::empty(&[bytes], DType::U8).fail(&format!("cycle {c}"))?);
        live += bytes;
        peak = peak.max(live);
        if checkpoints.contains(&c) {
            let r = dev.pool_reserved_bytes().fail("reserved")?;
            out!(
                "  churn {c:>8} cycles {:7.2} s: reserved {:.2} GiB, used {:.2} GiB, cached {:.2} GiB, peak live {:.2} GiB",
                t0.elapsed().as_secs_f64(),
                gib(r),
                gib(dev.pool_used_bytes().fail("used")?),
                gib(dev.cached_bytes()),
                gib(peak)
            );
            ensure!(
                r <= 2 * peak as u64 + (1 << 30),
                "{c} cycles: reserved {:.2} GiB > 2 x peak live {:.2} GiB + 1 GiB",
                gib(r),
                gib(peak)
            );
            seen.push((c, r));
        }
    }
    let per_cycle = t0.elapsed().as_secs_f64() * 1e6 / cycles as f64;
    // Flat: from the first checkpoint past warm-up (5,000 cycles) to the last.
    let first = seen.iter().find(|s| s.0 >= 5_000).unwrap_or(&seen[0]).1;
    let last = seen.last().map_or(0, |s| s.1);
    ensure!(
        last <= first + (256 << 20),
        "reserved grew from {:.2} GiB to {:.2} GiB",
        gib(first),
        gib(last)
    );
    dev.release_pool_memory().fail("release")?;
    let held: usize = slots.iter().flatten().map(Array::nbytes).sum();
    let with_live = dev.pool_reserved_bytes().fail("reserved")?;
    drop(slots);
    dev.release_pool_memory().fail("release")?;
    let after = dev.pool_reserved_bytes().fail("reserved")?;
    ensure!(
        after <= 64 * MIB as u64,
        "{:.3} GiB still reserved after release_pool_memory with nothing alive",
        gib(after)
    );
    Ok(format!(
        "{cycles} cycles of 1 B..64 MiB, 8 alive: {per_cycle:.2} µs per cycle, peak live {:.2} GiB, reserved {:.2} -> {:.2} GiB; release_pool_memory: {:.2} GiB with {:.2} GiB live, {:.3} GiB with nothing alive",
        gib(peak),
        gib(first),
        gib(last),
        gib(with_live),
        gib(held),
        gib(after)
    ))
}

fn all_equal(v: &[f32], want: f32, what: &str) -> Result<(), String> {
    let bad = v.iter().filter(|&&x| x != want).count();
    ensure!(
        bad == 0,
        "{what}: {bad} of {} elements are not {want}",
        v.len()
    );
    Ok(())
}

fn cross_stream(_: &StressArgs) -> Outcome {
    let slow = RawKernel::new(SLOW_FILL, "slow_fill");
    let s2 = Stream::new().fail("stream")?;
    let n = 1usize << 20;
    let launch = |x: &Array, v: f32, s: &Stream| {
        slow.configure(264, 256)
            .stream(s)
            .launch((x, v, n as i64, SPIN))
            .fail("slow kernel")
    };
    let mut reused = 0;
    let trials = 5;
    for t in 0..trials {
        let x = Array::zeros(&[n], DType::F32).fail("zeros")?;
        let px = x.data_ptr();
        launch(&x, 7.0, &s2)?;
        drop(x);
        let y = Array::full(&[n], 3.0f32, DType::F32).fail("full")?;
        reused += usize::from(y.data_ptr() == px);
        all_equal(
            &y.to_vec().fail("download")?,
            3.0,
            &format!("trial {t}, default stream"),
        )?;
        s2.synchronize().fail("sync")?;
        all_equal(
            &y.to_vec().fail("download")?,
            3.0,
            &format!("trial {t}, default stream after sync"),
        )?;

        let x = s2.with(|| Array::zeros(&[n], DType::F32)).fail("zeros")?;
        launch(&x, 7.0, &Stream::current().fail("stream")?)?;
        drop(x);
        let y = s2
            .with(|| Array::full(&[n], 3.0f32, DType::F32))
            .fail("full")?;
        all_equal(
            &s2.with(|| y.to_vec()).fail("download")?,
            3.0,
            &format!("trial {t}, stream 2"),
        )?;
        Device::get(0).fail("device")?.synchronize().fail("sync")?;
        all_equal(
            &y.to_vec().fail("download")?,
            3.0,
            &format!("trial {t}, stream 2 after sync"),
        )?;
    }
    // First use on another stream sees the work of the array's own stream.
    let x = Array::zeros(&[n], DType::F32).fail("zeros")?;
    launch(&x, 5.0, &Stream::current().fail("stream")?)?;
    let c = s2.with(|| x.copy()).fail("copy")?;
    all_equal(
        &s2.with(|| c.to_vec()).fail("download")?,
        5.0,
        "first use on stream 2",
    )?;
    Ok(format!(
        "{trials} of {trials} trials intact in both directions (the block was reused in {reused}); a first use on another stream saw the slow write"
    ))
}

/// Host transfers under load: 1 GiB each way through the staging lanes, checked exactly;
/// eight threads moving 64 MiB each at once (the lanes are shared); asynchronous copies
/// whose array and guard are dropped while a slow kernel still holds the stream, after
/// which the freed block is reused and must stay intact.
fn transfers(_: &StressArgs) -> Outcome {
    let n = 1usize << 28;
    let host: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) | 1)
        .collect();
    let t = Instant::now();
    let a = Array::from_slice(&host, &[n]).fail("from_slice 1 GiB")?;
    let up = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let back = a.to_vec::<u32>().fail("to_vec 1 GiB")?;
    let down = t.elapsed().as_secs_f64();
    ensure!(back == host, "1 GiB round trip differs");
    drop((a, back));
    let m = 16usize << 20;
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..8u32)
            .map(|k| {
                let host = &host;
                sc.spawn(move || -> Result<(), String> {
                    let part = &host[k as usize * m..(k as usize + 1) * m];
                    let s = Stream::new().fail("stream")?;
                    for _ in 0..4 {
                        let x = s.with(|| Array::from_slice(part, &[m])).fail("upload")?;
                        let mut out = vec![0u32; m];
                        s.with(|| x.copy_to_slice(&mut out)).fail("download")?;
                        ensure!(out == part, "thread {k}: 64 MiB round trip differs");
                    }
                    Ok(())
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .map_err(|_| "a transfer thread panicked".to_string())?
        })
    })?;
    let slow = RawKernel::new(SLOW_FILL, "slow_fill");
    let s2 = Stream::new().fail("stream")?;
    let k = 1usize << 22;
    for trial in 0..5 {
        let x = s2.with(|| Array::zeros(&[k], DType::F32)).fail("zeros")?;
        slow.configure(264, 256)
            .stream(&s2)
            .launch((&x, 7.0f32, k as i64, SPIN))
            .fail("slow kernel")?;
        let copy = x
            .copy_to_host_async(cuprum::PinnedBuffer::<f32>::zeroed(k).fail("pinned")?, &s2)
            .fail("async copy")?;
        drop(x); // freed only after the copy, in stream order
        let y = s2
            .with(|| Array::full(&[k], 3.0f32, DType::F32))
            .fail("full")?;
        let got = copy.wait().fail("wait")?;
        all_equal(&got, 7.0, &format!("trial {trial}: the copied slow write"))?;
        all_equal(
            &s2.with(|| y.to_vec()).fail("download")?,
            3.0,
            &format!("trial {trial}: the reused block"),
        )?;
        // a guard dropped without wait waits before freeing its buffer
        let z = s2.with(|| Array::ones(&[k], DType::F32)).fail("ones")?;
        drop(z.copy_to_host_async(cuprum::PinnedBuffer::<f32>::zeroed(k).fail("pinned")?, &s2));
    }
    Ok(format!(
        "1 GiB up {:.1} GB/s, down {:.1} GB/s (exact); 8 threads × 4 × 64 MiB round trips exact; \
         5 asynchronous copies with their array dropped mid-copy: data and reused blocks intact",
        gib(n * 4) * 1.073741824 / up,
        gib(n * 4) * 1.073741824 / down
    ))
}

fn oom(_: &StressArgs) -> Outcome {
    let dev = Device::get(0).fail("device")?;
    dev.release_pool_memory().fail("release")?;
    let keep = Array::full(&[1000], 1.5f32, DType::F32).fail("full")?;
    let expect_oom = |r: cuprum::Result<Array>, what: &str| -> Result<String, String> {
        match r {
            Ok(_) => Err(format!(
                "{what}: allocated, expected an out-of-memory error"
            )),
            Err(e) if e.kind() == ErrorKind::OutOfMemory => Ok(e.to_string()),
            Err(e) => Err(format!(
                "{what}: {e} ({:?}), expected OutOfMemory",
                e.kind()
            )),
        }
    };
    let m = expect_oom(
        Array::empty(&[1_000_000_000_000], DType::F32),
        "10^12 float32",
    )?;
    ensure!(m.contains("requested 4000000000000 bytes"), "message: {m}");
    expect_oom(
        Array::empty(&[(dev.total_memory() + 256 * MIB) / 4], DType::F32),
        "total memory + 256 MiB",
    )?;
    let free = dev.memory_info().fail("memory info")?.0;
    let big = free / 10 * 6;
    let a = Array::empty(&[big], DType::U8).fail("60 % of free memory")?;
    expect_oom(
        Array::empty(&[big], DType::U8),
        "60 % of free memory, twice",
    )?;
    let reserved = dev.pool_reserved_bytes().fail("reserved")?;
    ensure!(
        reserved <= (big + 64 * MIB) as u64,
        "after the failure {:.2} GiB reserved, the program holds {:.2} GiB",
        gib(reserved),
        gib(big)
    );
    drop(a);
    let x = Array::arange(0.0, 1e6, 1.0, DType::F64).fail("arange")?;
    let doubled = (&x * 2.0).fail("multiply")?;
    let s = ops::sum(&doubled)
        .fail("sum")?
        .to_vec::<f64>()
        .fail("download")?[0];
    ensure!(s == 999_999.0 * 1e6, "sum after the errors is {s}");
    ensure!(
        keep.to_vec::<f32>().fail("download")? == vec![1.5; 1000],
        "a live array changed"
    );
    drop((x, doubled));
    dev.release_pool_memory().fail("release")?;
    let after = dev.pool_reserved_bytes().fail("reserved")?;
    ensure!(
        after <= 64 * MIB as u64,
        "{:.3} GiB reserved after release",
        gib(after)
    );
    Ok(format!(
        "3 OutOfMemory errors (10^12 elements, total + 256 MiB, {:.0} GiB twice), then normal work; reserved after the failure {:.2} GiB with {:.2} GiB held, {:.3} GiB after release",
        gib(big),
        gib(reserved),
        gib(big),
        gib(after)
    ))
}

// ------------------------------------------------------------------------------------------
// Kernel cache
// ------------------------------------------------------------------------------------------

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

fn nonce() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{} {t}", std::process::id())
}

fn temp_dir() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix("cuprum-stress")
        .tempdir()
        .fail("temporary folder")
}

/// Runs `add_k` of `image` on 1000 values and checks `x + amount` (nothing without a GPU).
fn run_image(image: &[u8], dir: &Path, amount: f32) -> Result<(), String> {
    if Device::get(0).is_err() {
        return Ok(());
    }
    let file = dir.join(format!("image-{}-{amount}.cubin", image.len()));
    std::fs::write(&file, image).fail("writing the image")?;
    let k = RawModule::from_file(&file)
        .get_function("add_k")
        .fail("loading the image")?;
    let host: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 100.0).collect();
    let x = Array::from_slice(&host, &[1000]).fail("upload")?;
    k.launch(4, 256, (&x, 1000i32)).fail("launch")?;
    let got = x.to_vec::<f32>().fail("download")?;
    ensure!(
        got.iter().zip(&host).all(|(g, h)| *g == h + amount),
        "the recompiled kernel computed wrong values"
    );
    Ok(())
}

fn cache_damage(_: &StressArgs) -> Outcome {
    let t = temp_dir()?;
    let dir = t.path().join("cache");
    let src = add_source(&format!("stress damaged {}", nonce()), 3.0);
    let opts = CompileOptions::default();
    let first = KernelCache::new(Some(dir.clone()));
    let good = first.compile(&src, &opts, arch()).fail("compile")?;
    let entries = first.entries().fail("entries")?;
    ensure!(entries.len() == 1, "{} entries, expected 1", entries.len());
    let path = entries[0].path.clone();
    let bytes = std::fs::read(&path).fail("reading the entry")?;
    let mut rng = Rng(77);
    let garbage: Vec<u8> = (0..bytes.len()).map(|_| rng.next() as u8).collect();
    let mut corrupt = bytes.clone();
    for k in 0..16 {
        let i = 44 + (bytes.len() - 44) * k / 16;
        corrupt[i] ^= 0x5a;
    }
    let damages = [
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("garbage", garbage),
        ("valid header + corrupt body", corrupt),
    ];
    for (what, damaged) in &damages {
        std::fs::write(&path, damaged).fail("damaging the entry")?;
        let c = KernelCache::new(Some(dir.clone()));
        let img = c.compile(&src, &opts, arch()).fail(what)?;
        let s = c.stats();
        ensure!(
            (s.corrupt_entries, s.misses, s.disk_writes) == (1, 1, 1),
            "{what}: {s:?}"
        );
        ensure!(
            img.image == good.image,
            "{what}: a different image after recompiling"
        );
        ensure!(
            std::fs::read(&path).fail("reading")? == bytes,
            "{what}: entry not rewritten"
        );
        run_image(&img.image, t.path(), 3.0)?;
    }
    Ok(format!(
        "{} damaged entries (truncated, empty, garbage, corrupt body) detected, recompiled, rewritten{}",
        damages.len(),
        if Device::get(0).is_ok() {
            ", right results"
        } else {
            ""
        }
    ))
}

fn cache_threads(_: &StressArgs) -> Outcome {
    let t = temp_dir()?;
    let cache = Arc::new(KernelCache::new(Some(t.path().join("cache"))));
    let n = nonce();
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let (cache, barrier) = (cache.clone(), barrier.clone());
            let (src, amount) = if i < 4 {
                (add_source(&format!("stress shared {n}"), 1.0), 1.0)
            } else {
                (
                    add_source(&format!("stress own {i} {n}"), i as f32),
                    i as f32,
                )
            };
            std::thread::spawn(move || {
                barrier.wait();
                (
                    cache.compile(&src, &CompileOptions::default(), arch()),
                    amount,
                )
            })
        })
        .collect();
    let mut images = Vec::new();
    for h in handles {
        let (img, amount) = h.join().map_err(|_| "a thread panicked".to_string())?;
        images.push((img.fail("compile")?, amount));
    }
    let s = cache.stats();
    ensure!(
        s.misses == 5 && s.memo_hits == 3,
        "{s:?}, expected 5 compiles and 3 shared"
    );
    ensure!(
        images[..4]
            .windows(2)
            .all(|w| Arc::ptr_eq(&w[0].0, &w[1].0)),
        "the shared source was compiled more than once"
    );
    for (img, amount) in &images {
        run_image(&img.image, t.path(), *amount)?;
    }
    Ok(format!(
        "8 threads at once, 1 shared + 4 own sources: 5 compiles, 5 entries{}",
        if Device::get(0).is_ok() {
            ", right results"
        } else {
            ""
        }
    ))
}

fn stress_opts() -> CompileOptions {
    CompileOptions::default().program_name("stress.cu")
}

fn compile_sources(nonce: &str, id: u32) -> [(String, f32); 2] {
    [
        (
            add_source(&format!("stress processes shared {nonce}"), 1.0),
            1.0,
        ),
        (
            add_source(
                &format!("stress processes own {id} {nonce}"),
                10.0 + id as f32,
            ),
            10.0 + id as f32,
        ),
    ]
}

fn cache_processes(_: &StressArgs) -> Outcome {
    let t = temp_dir()?;
    let dir = t.path().join("cache");
    let n = nonce();
    let exe = std::env::current_exe().fail("this program's path")?;
    let kids: Vec<_> = (0..2u32)
        .map(|id| {
            Command::new(&exe)
                .args([
                    "stress-child",
                    "compile",
                    "--nonce",
                    &n,
                    "--id",
                    &id.to_string(),
                ])
                .env("CUPRUM_CACHE_DIR", &dir)
                .env_remove("CUPRUM_CACHE_IN_MEMORY")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .fail("starting a child")
        })
        .collect::<Result<_, _>>()?;
    for (id, k) in kids.into_iter().enumerate() {
        let o = k.wait_with_output().fail("waiting for a child")?;
        let text =
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
        ensure!(
            o.status.success() && text.contains(&format!("CHILD-OK {id}")),
            "child {id}: {}",
            text.trim()
        );
    }
    let c = KernelCache::new(Some(dir));
    for id in 0..2 {
        for (src, _) in compile_sources(&n, id) {
            c.compile(&src, &stress_opts(), arch())
                .fail("reading back")?;
        }
    }
    let s = c.stats();
    // The shared source is looked up twice (memory hit the second time).
    ensure!(
        (s.disk_hits, s.misses, s.corrupt_entries) == (3, 0, 0),
        "entries after the children: {s:?}"
    );
    Ok(format!(
        "2 processes at once, 1 shared + 1 own kernel each: 3 complete entries{}",
        if Device::get(0).is_ok() {
            ", right results"
        } else {
            ""
        }
    ))
}

// ------------------------------------------------------------------------------------------
// Fault (in a child process)
// ------------------------------------------------------------------------------------------

fn fault(_: &StressArgs) -> Outcome {
    let exe = std::env::current_exe().fail("this program's path")?;
    let o = Command::new(exe)
        .args(["stress-child", "fault"])
        .output()
        .fail("starting the child")?;
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    ensure!(
        o.status.success() && text.contains("FAULT-CHILD-OK"),
        "the child failed or aborted ({}): {}",
        o.status,
        text.trim()
    );
    let first = text
        .lines()
        .find_map(|l| l.strip_prefix("first: "))
        .unwrap_or("?");
    let later = text.lines().filter(|l| l.starts_with("later ")).count();
    Ok(format!(
        "the faulting call and {later} later calls returned KernelFault, no abort; first: {first}"
    ))
}

/// `cuprum stress-child`: the fault case, or one of the compiling processes.
pub fn child(args: &ChildArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match args.case.as_str() {
        "fault" => child_fault().map_err(Into::into),
        "compile" => {
            for (src, amount) in compile_sources(&args.nonce, args.id) {
                if Device::get(0).is_ok() {
                    let k = RawKernel::new(src, "add_k").options(stress_opts());
                    let x = Array::full(&[1000], 0.25f32, DType::F32)?;
                    k.launch(4, 256, (&x, 1000i32))?;
                    if !x.to_vec::<f32>()?.iter().all(|&v| v == 0.25 + amount) {
                        return Err("wrong results".into());
                    }
                } else {
                    compile_for_arch(&src, &stress_opts(), arch())?;
                }
            }
            out!("CHILD-OK {}", args.id);
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown stress child case {other:?}").into()),
    }
}

fn child_fault() -> Result<ExitCode, String> {
    let k = RawKernel::new(POKE, "poke");
    let x = Array::ones(&[1000], DType::F32).fail("ones")?;
    let s = Stream::current().fail("stream")?;
    s.synchronize().fail("sync")?;
    let first = match k.launch(1, 32, (DevicePtr(0x10),)).and(s.synchronize()) {
        Ok(()) => return Err("writing through a bad pointer did not fault".into()),
        Err(e) => e,
    };
    out!("first: {first}");
    let named = |e: &cuprum::Error| {
        let m = e.to_string();
        e.kind() == ErrorKind::KernelFault
            && m.contains("CUDA_ERROR_ILLEGAL_ADDRESS")
            && m.contains("unusable")
    };
    ensure!(named(&first), "the fault: {first} ({:?})", first.kind());
    let check = |what: &str, e: Option<cuprum::Error>| -> Result<(), String> {
        let e = e.ok_or_else(|| format!("{what} succeeded after the fault"))?;
        ensure!(named(&e), "{what}: {e} ({:?})", e.kind());
        out!("later {what}: {e}");
        Ok(())
    };
    check("zeros", Array::zeros(&[10], DType::F32).err())?;
    check("to_vec", x.to_vec::<f32>().err())?;
    check("launch", k.launch(1, 1, (DevicePtr(0),)).err())?;
    check("sum", ops::sum(&x).err())?;
    check("synchronize", s.synchronize().err())?;
    check(
        "release_pool_memory",
        Device::get(0).fail("device")?.release_pool_memory().err(),
    )?;
    check("new stream", Stream::new().err())?;
    drop(x);
    out!("FAULT-CHILD-OK");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: StressArgs,
    }

    fn parse(argv: &[&str]) -> Result<StressArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("stress").chain(argv.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn defaults_are_the_full_sizes() {
        let a = parse(&[]).unwrap();
        assert_eq!(
            a,
            StressArgs {
                filter: None,
                launches: 1_000_000,
                cycles: 200_000,
                threads: 16,
                per_thread: 500,
                no_fault: false,
            }
        );
        assert_eq!(selected(&a).last().map(|c| c.name), Some("fault"));
        assert_eq!(selected(&a).len(), CASES.len());
    }

    #[test]
    fn options_parse_and_select() {
        let a = parse(&[
            "--launches",
            "10",
            "--cycles",
            "500",
            "--threads",
            "2",
            "--per-thread",
            "3",
            "--no-fault",
        ])
        .unwrap();
        assert_eq!(
            (a.launches, a.cycles, a.threads, a.per_thread),
            (10, 500, 2, 3)
        );
        assert!(selected(&a).iter().all(|c| c.name != "fault"));
        let a = parse(&["--filter", "cache"]).unwrap();
        let names: Vec<_> = selected(&a).iter().map(|c| c.name).collect();
        assert_eq!(names, ["cache-damage", "cache-threads", "cache-processes"]);
        assert!(selected(&parse(&["--filter", "nothing"]).unwrap()).is_empty());
    }

    #[test]
    fn bad_values_are_rejected() {
        for argv in [
            &["--launches", "0"][..],
            &["--launches", "-1"],
            &["--cycles", "x"],
            &["--threads", "0"],
            &["--threads", "5000"],
            &["--per-thread", "0"],
            &["--bogus"],
        ] {
            assert!(parse(argv).is_err(), "{argv:?}");
        }
    }

    #[test]
    fn without_a_gpu_the_gpu_cases_skip_and_the_run_succeeds() {
        if Device::get(0).is_ok() {
            return;
        }
        let a = parse(&["--filter", "churn"]).unwrap();
        assert_eq!(run(&a).unwrap(), ExitCode::SUCCESS);
        let none = parse(&["--filter", "nothing"]).unwrap();
        assert!(run(&none).is_err());
    }
}
