//! What every test binary of the workspace shares (the integration tests through `common`,
//! the CLI's tests and unit tests through `#[path]`):
//!
//! - **The tests' kernel cache.** [`setup`] points the process-wide kernel cache at a
//!   folder of the tests before anything compiles, so `cargo test` never writes to the
//!   user's cache. [`gpu`] and [`nvrtc`] call it. Integration tests share
//!   `cuprum-test-cache` in cargo's target tmp folder and keep it between runs (like the
//!   host kernels' folder): a kernel several binaries use compiles once, and a re-run
//!   compiles only what changed. `CUPRUM_TEST_CACHE_DIR` names another shared folder (the
//!   GPU suite's, fresh for each suite run); a binary without cargo's target folder (unit
//!   tests) gets a temporary one of its own, removed at exit. Entries are written
//!   atomically, so concurrent binaries are safe; tests that count compiles use caches of
//!   their own or count cache reads too. A child process a test starts with
//!   `CUPRUM_TEST_CHILD` set keeps the cache its parent chose.
//! - **Visible skips.** Every skip goes through [`skip`] (through [`gpu`], [`nvrtc`], the
//!   `require_*` macros, or directly for other reasons): its `SKIPPED <test>: <reason>` line
//!   goes straight to the process's stderr, past the test harness's capture (the test's name
//!   is its thread's name), and at exit the binary prints how many of its tests skipped and
//!   why (`cuprum: N GPU tests skipped in <binary> (no GPU: <why>); CUPRUM_REQUIRE_GPU=1
//!   makes a skip a failure`). Run by `cargo test`, each binary also adds its counts to a
//!   small file named after that `cargo` process, so the line of the last test binary is the
//!   run's total (doc tests run after every test binary, so their own result lines come
//!   last).
//! - **GPU tests run on the host device where there is no GPU.** [`gpu`] (`require_gpu!`)
//!   passes on a GPU; without one, and with a host C++ compiler, it makes the host device
//!   the process default, says so once per binary, and compiles the host kernels at `-O0`
//!   (`-O1` in the few binaries that run long kernels: [`HOST_OPT`]) into a folder the test
//!   binaries share and keep (`cuprum-host-cache` in cargo's target tmp folder, so a kernel
//!   compiles once, not once per binary or run); `CUPRUM_DEVICE=host` runs the
//!   GPU tests there on a GPU machine too. [`cuda`] (`require_cuda!`) is for the few tests
//!   of the driver itself (device ordinals, cubin files); [`not_on_host`] (`skip_on_host!`)
//!   skips, visibly, what is too large for a CPU on CI's two cores (multi-GiB arrays, 1e8
//!   elements); [`on_host`] lets a test shrink its sizes ([`gpu_or_host`]: a size that
//!   exists for the GPU, and a smaller one taking the same path on the host device), and
//!   the GPU property tests run a quarter of their cases there. [`child_env`] makes a
//!   test's child process run where it runs. Host test builds keep `cuprum` at opt-level 2,
//!   corosensei and matrixmultiply at 3 (the workspace's `[profile.dev.package]`): the
//!   block scheduler unoptimised costs tenfold.
//!   Per-dtype sweeps take their dtypes from [`dtypes`] (or ask [`sweeps_dtype`]): every
//!   dtype on a GPU, a fixed representative subset ([`HOST_DTYPES`]) on the host device,
//!   where each new kernel is a C++ compile; the binary's report at exit says so. Sweeps of
//!   NVRTC compiles take [`nvrtc_dtypes`]: every dtype where there is a GPU, the same
//!   subset where there is none.
//!   Behaviour specific to the host device (on `Device::host()` explicitly, through
//!   [`host_device`]) has test files of its own: `host.rs`, `host_warps.rs`,
//!   `host_atomics.rs`, `host_faults.rs` and `host_cache.rs`.
//!
//! `CUPRUM_REQUIRE_GPU=1` / `CUPRUM_REQUIRE_NVRTC=1` turn a GPU / NVRTC skip into a failure;
//! with `CUPRUM_REQUIRE_GPU=1` (the GPU suite) a missing GPU fails even where the host
//! device could stand in.
//!
//! **The GPU suite** (`scripts/gpu-suite`) builds every test binary, the examples, the CLI
//! and rustdoc's merged doctest binary in release mode into `gpu-suite/`, with a `run.sh`
//! for a GPU machine that has no Rust toolchain (`CUPRUM_REQUIRE_GPU=1`, one shared kernel
//! cache) and a `sanitize.sh` that runs compute-sanitizer's memcheck, racecheck, synccheck
//! and initcheck over the examples and representative tests. That works because tests
//! read no source file at run time: kernels come in through `include_str!` (the two that
//! read files, `jit_ui` and `jit_snapshots`, stay out of the suite).
#![allow(dead_code)]

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Mutex, Once};

/// The temporary cache folder of this binary, removed at exit.
static CACHE_DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Points the process-wide kernel cache at a temporary folder of this test binary, once.
/// A child process started by a test (`CUPRUM_TEST_CHILD` set) keeps the cache its parent
/// chose through the environment.
pub fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("CUPRUM_TEST_CHILD").is_some() {
            return;
        }
        // A suite of test binaries may share one cache (the GPU suite's run.sh: a kernel
        // several binaries use compiles once); it stays for the suite to remove.
        let shared = std::env::var_os("CUPRUM_TEST_CACHE_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(shared_test_cache_dir);
        if let Some(dir) = shared {
            let _ = std::fs::create_dir_all(&dir);
            cuprum::compile::set_cache_dir(Some(dir));
            return;
        }
        let dir = tempfile::Builder::new()
            .prefix("cuprum-test-cache-")
            .tempdir()
            .map(tempfile::TempDir::keep);
        match dir {
            Ok(dir) => {
                cuprum::compile::set_cache_dir(Some(dir.clone()));
                *CACHE_DIR.lock().unwrap_or_else(|p| p.into_inner()) = Some(dir);
                // SAFETY: `remove_cache_at_exit` is an `extern "C" fn()` that never unwinds.
                unsafe { libc::atexit(remove_cache_at_exit) };
            }
            // No temporary folder: memory only, still never the user's cache.
            Err(_) => cuprum::compile::set_cache_dir(None),
        }
    });
    // Every binary that uses the harness reports at exit (the last one of a `cargo test`
    // run prints the run's total even when it skipped nothing itself).
    register_report();
}

/// The kernel cache the integration tests of a `cargo test` run share and keep.
pub fn shared_test_cache_dir() -> Option<PathBuf> {
    option_env!("CARGO_TARGET_TMPDIR").map(|d| PathBuf::from(d).join("cuprum-test-cache"))
}

fn register_report() {
    static ONCE: Once = Once::new();
    // SAFETY: `report_at_exit` is an `extern "C" fn()` that never unwinds.
    ONCE.call_once(|| unsafe {
        libc::atexit(report_at_exit);
    });
}

extern "C" fn remove_cache_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(d) = CACHE_DIR.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = std::fs::remove_dir_all(d);
        }
    });
}

/// Whether the GPU tests can run (after [`setup`]): on a GPU, or — where there is none —
/// on the host device, which this selects for the whole process (its compiled kernels are
/// kept in a folder shared by the test binaries, so a kernel compiles once per run, not once
/// per binary). With `CUPRUM_REQUIRE_GPU=1` a missing GPU is a failure; without a GPU and
/// without a host C++ compiler the running test is skipped ([`skip`]) and this returns false.
pub fn gpu() -> bool {
    setup();
    match cuprum::Device::get(0) {
        Ok(_) => true,
        Err(e) if required("CUPRUM_REQUIRE_GPU") => {
            skip_because(Need::Gpu, &format!("no GPU ({})", e.kind()), &e.to_string());
            false
        }
        Err(e) => match cuprum::compile::host_compiler() {
            Ok(_) => {
                use_host(&e);
                true
            }
            Err(h) => {
                skip_because(
                    Need::Gpu,
                    &format!("no GPU ({}) and no host compiler", e.kind()),
                    &format!("{e}; {h}"),
                );
                false
            }
        },
    }
}

/// Whether a real GPU is present (for the few tests of the CUDA driver itself: streams of
/// two devices, cuBLAS, sticky faults …); otherwise the running test is skipped.
pub fn cuda() -> bool {
    setup();
    match cuprum::Device::get(0) {
        Ok(_) => true,
        Err(e) => {
            skip_because(
                Need::Gpu,
                &format!("needs a CUDA GPU ({})", e.kind()),
                &e.to_string(),
            );
            false
        }
    }
}

/// Whether the GPU tests run on the host device (the CPU standing in for a GPU).
pub fn on_host() -> bool {
    cuprum::Device::current().is_ok_and(cuprum::Device::is_host)
}

/// The dtypes the per-dtype sweeps of the GPU tests run on the host device: bool; int8
/// (a narrow signed integer, promoted to `int` in C++ arithmetic and cast back); uint64 (64
/// bits unsigned: values past 32 bits, and with int8 the signed–unsigned mix that promotes
/// to float64); float16 (the 16-bit float shim, computed through float); float32; float64;
/// complex128 (`complex<T>`, the one 16-byte item). That is every kind a kernel specialises
/// on (bool, signed, unsigned, float, complex) and every item size (1, 2, 4, 8 and 16
/// bytes). Left out: int16, int32, int64, uint8, uint16, uint32, bfloat16 and complex64,
/// whose generated C++ is a neighbour's with another type name (int64 is uint64's width
/// with int8's signedness; bfloat16 goes through float16's shim; `complex<float>`
/// instantiates the same templates as `complex<double>`).
///
/// Sound because dtype coverage does not come from the host device: it compiles the same
/// generated C++ as a GPU (through the shim headers), so a dtype sweep there tests code
/// generation, promotion and the shim, which the representatives reach; the GPU suite
/// (`CUPRUM_REQUIRE_GPU=1`, where this cuts nothing) runs every sweep over every dtype. The
/// set is what keeps a cold `cargo test` on two cores near ten minutes: each kernel of a
/// sweep is a C++ compile there, and a dtype × dtype sweep runs the square of this list.
pub const HOST_DTYPES: &[cuprum::DType] = {
    use cuprum::DType::*;
    &[Bool, I8, U64, F16, F32, F64, C128]
};

/// Whether a dtype sweep left dtypes out (on the host device), for the report at exit.
static DTYPES_CUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The dtypes of `all` that a per-dtype sweep of a GPU test runs: on a GPU every one, in
/// `all`'s order; on the host device those of [`HOST_DTYPES`], plus any dtype of `all` of a
/// kind none of them has (so that a list keeps every kind it has). Only the dtype axis of
/// a sweep is cut: its values, shapes and layouts stay. For dtype × dtype sweeps, pair
/// `dtypes(all)` with itself.
pub fn dtypes(all: &[cuprum::DType]) -> Vec<cuprum::DType> {
    if !on_host() {
        return all.to_vec();
    }
    representatives(all)
}

/// Whether this machine has a CUDA GPU, asked of the driver (not of the current device, which
/// a GPU test may have made the host device): the NVRTC compile checks compile everything
/// where it does (the GPU suite's many cores) and a cover where it does not (CI's two).
pub fn has_gpu() -> bool {
    cuprum::Device::count().is_ok()
}

/// The dtypes of `all` that a per-dtype sweep of NVRTC compiles (no device needed) runs:
/// every one where there is a GPU (the GPU suite), those [`dtypes`] keeps on the host
/// device where there is none (CI's two cores, where each is an NVRTC compile of a second
/// or more). Asks the driver, not the current device: a binary's NVRTC tests choose the
/// same dtypes whether or not a GPU test there made the host device the default.
pub fn nvrtc_dtypes(all: &[cuprum::DType]) -> Vec<cuprum::DType> {
    if has_gpu() {
        return all.to_vec();
    }
    representatives(all)
}

/// The options of the NVRTC compile sweeps (every generated kernel, every dtype): where
/// there is a GPU (the GPU suite) the default, a cubin for the architecture asked for
/// (NVRTC's front end, then ptxas); where there is none (CI's two cores) PTX for
/// `compute_90`, NVRTC's front end alone, where a generated program's errors and warnings
/// come from, at about half the time. ptxas still meets every kernel: the GPU suite compiles
/// each sweep to cubins, and the schema check (`every_generated_kernel_schema_matches_its_cubin`)
/// builds cubins everywhere.
pub fn sweep_options() -> cuprum::compile::CompileOptions {
    let opts = cuprum::compile::CompileOptions::default();
    if has_gpu() {
        opts
    } else {
        opts.option("-arch=compute_90")
    }
}

/// Whether `img` is what [`sweep_options`] asks for on this machine: a cubin (an ELF image)
/// where there is a GPU, PTX text where there is none.
pub fn sweep_image_ok(img: &cuprum::compile::CompiledImage) -> bool {
    if has_gpu() {
        img.is_cubin && img.image.starts_with(b"\x7fELF")
    } else {
        !img.is_cubin && img.image.starts_with(b"//")
    }
}

/// [`HOST_DTYPES`] of `all`, plus any dtype of `all` of a kind none of them has.
fn representatives(all: &[cuprum::DType]) -> Vec<cuprum::DType> {
    let rep = |d: &cuprum::DType| HOST_DTYPES.contains(d);
    let kept: Vec<cuprum::DType> = all
        .iter()
        .copied()
        .filter(|d| rep(d) || !all.iter().any(|r| rep(r) && r.kind() == d.kind()))
        .collect();
    if kept.len() < all.len() {
        DTYPES_CUT.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    kept
}

/// Whether a sweep over every dtype runs `d` (`dtypes(DType::ALL)` has it), for sweeps
/// written per Rust type: true on a GPU, on the host device for [`HOST_DTYPES`].
pub fn sweeps_dtype(d: cuprum::DType) -> bool {
    dtypes(cuprum::DType::ALL).contains(&d)
}

/// On the host device, a two-axis sweep whose every cell is a new kernel (dtype pairs ×
/// operators, dtypes × scalar kinds) runs one cell in [`HOST_CELL_STRIDE`]: those on the
/// diagonals where `(i + j) % HOST_CELL_STRIDE == 0`.
pub const HOST_CELL_STRIDE: usize = 3;

/// Whether a sweep cut to diagonals (on the host device), for the report at exit.
static CELLS_CUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a two-axis sweep runs its cell `(i, j)` (row `i`, column `j`): on a GPU every
/// cell; on the host device one in [`HOST_CELL_STRIDE`], along diagonals, so every row
/// and every column still runs (each with a third of its partners) and the rows' cells
/// move across the columns. For sweeps whose axes are not dtypes already cut by [`dtypes`]
/// (a list of promotion cases × every operator) or whose square is too large even so. The
/// GPU suite runs every cell; the report at exit says the sweep was cut.
pub fn sweep_cell(i: usize, j: usize) -> bool {
    if !on_host() {
        return true;
    }
    CELLS_CUT.store(true, std::sync::atomic::Ordering::Relaxed);
    (i + j).is_multiple_of(HOST_CELL_STRIDE)
}

/// Whether a sweep whose rows have only `n` columns (too few for [`sweep_cell`]'s
/// diagonals to meet every row) runs its cell `(i, j)`: on a GPU every cell; on the host
/// device one column per row, in turn (`j == i % n`), so every row runs once and the columns
/// take turns. The GPU suite runs every cell; the report at exit says the sweep was cut.
pub fn sweep_one_of(i: usize, j: usize, n: usize) -> bool {
    if !on_host() {
        return true;
    }
    CELLS_CUT.store(true, std::sync::atomic::Ordering::Relaxed);
    j == i % n.max(1)
}

/// `f` of each item, in `items`' order. On the host device the items run on every core
/// (each new kernel there is a C++ compile, and a sweep that compiles hundreds of them one
/// after another would keep one core busy while the others wait for the binary's last
/// test); on a GPU, one after another on this thread, as a plain loop would. The same
/// checks run either way; results come back in order, so failure messages list them as a
/// loop would. A panic in `f` fails the test.
pub fn each_on_every_core<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if !on_host() {
        return items.iter().map(f).collect();
    }
    on_every_core(items, f)
}

/// `f` of each item on every core, results in `items`' order, on any machine: for work that
/// never touches a device (NVRTC compiles, each independent of the others). A panic in `f`
/// fails the test.
pub fn on_every_core<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (f, next) = (&f, &next);
    let mut done: Vec<(usize, R)> = std::thread::scope(|sc| {
        let jobs: Vec<_> = (0..workers.min(items.len()))
            .map(|_| {
                // The test's name, for a skip's line and a panic's message.
                let name = std::thread::current().name().map(str::to_owned);
                let mut b = std::thread::Builder::new();
                if let Some(n) = name {
                    b = b.name(n);
                }
                b.spawn_scoped(sc, move || {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return out;
                        };
                        out.push((i, f(item)));
                    }
                })
                .unwrap_or_else(|e| panic!("a test thread could not start: {e}"))
            })
            .collect();
        jobs.into_iter()
            .flat_map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

/// A size (or count) for the device the test runs on: `gpu` on a GPU, `host` on the host
/// device. For tests whose size exists for the GPU (enough blocks to fill 132 SMs, tiles past
/// what the GPU holds at once, sums over 2^24 elements): the host device has as many "SMs" as
/// worker threads (two in CI), so a much smaller input takes the same kernel and the same
/// path through it (several tiles per block, a look-back over many tiles, a multi-block
/// reduction); it runs that one. The GPU suite (`CUPRUM_REQUIRE_GPU=1`) runs `gpu`: every
/// size stays checked where it matters.
pub fn gpu_or_host<T>(gpu: T, host: T) -> T {
    if on_host() { host } else { gpu }
}

/// On the host device: skips the rest of the test, saying `why` (too large or too slow for
/// a CPU standing in for a GPU — CI has two cores —, or it needs what only a GPU has), and
/// returns true. On a GPU: false.
pub fn not_on_host(why: &str) -> bool {
    if on_host() {
        skip(Need::Other, &format!("not on the host device: {why}"));
        return true;
    }
    false
}

/// The folder the test binaries share for the host device's compiled kernels.
fn host_cache_dir() -> Option<PathBuf> {
    option_env!("CARGO_TARGET_TMPDIR").map(|d| PathBuf::from(d).join("cuprum-host-cache"))
}

/// Makes a child process of a test run where this one runs: on the host device (and its
/// shared kernel folder) when this process does.
pub fn child_env(cmd: &mut std::process::Command) -> &mut std::process::Command {
    if cuprum::Device::current().is_ok_and(cuprum::Device::is_host) {
        cmd.env("CUPRUM_DEVICE", "host");
        if let Some(d) = host_cache_dir() {
            cmd.env("CUPRUM_HOST_CACHE_DIR", d);
        }
        if std::env::var_os("CUPRUM_HOST_OPT").is_none() {
            cmd.env("CUPRUM_HOST_OPT", HOST_OPT.to_string());
        }
    }
    cmd
}

/// A command running test `test` of this test binary alone in a child process, ignored
/// tests included (a test that only makes sense as another test's child is `#[ignore]`d so
/// that a plain run passes it by), its output not captured.
pub fn child_test(test: &str) -> std::process::Command {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("this test binary's path: {e}"));
    let mut cmd = std::process::Command::new(exe);
    cmd.args([
        test,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd
}

/// Runs `cmd` (made by [`child_test`] for `test`) and returns its standard output; the
/// test must have run and passed there.
pub fn child_output(mut cmd: std::process::Command, test: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("child {test} did not start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {test} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

/// Runs `test` of this binary alone in a child process with `env` set and `remove`
/// unset, and returns its standard output (the test must pass there).
pub fn run_child(test: &str, env: &[(&str, &std::path::Path)], remove: &[&str]) -> String {
    let mut cmd = child_test(test);
    for (k, v) in env {
        cmd.env(k, v);
    }
    for k in remove {
        cmd.env_remove(k);
    }
    child_output(cmd, test)
}

/// The host device for the host-specific tests (`tests/host*.rs`), whatever else this
/// machine has: its kernels compile as when the GPU tests run on the host device.
pub fn host_device() -> cuprum::Device {
    setup();
    host_compile_settings();
    cuprum::Device::host()
}

/// The `-O` level of this binary's host kernels: `-O0` for most, where test inputs are
/// small and -O0 halves the compile time of the thousands of kernels a test run builds;
/// `-O1` for the binaries whose time goes to running a few kernels over many elements or
/// through many barriers (sorts, scans, arrays over 2^31 elements), which it makes up to
/// twice as fast. `CUPRUM_HOST_OPT` picks another level for every binary.
const HOST_OPT: u8 = match env!("CARGO_CRATE_NAME").as_bytes() {
    b"routines" | b"array" | b"order_stats" => 1,
    _ => 0,
};

/// Host kernels of tests compile into the folder the test binaries share, at [`HOST_OPT`].
/// Once per process.
fn host_compile_settings() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Some(dir) = host_cache_dir() {
            cuprum::compile::set_host_cache_dir(Some(dir));
        }
        if std::env::var_os("CUPRUM_HOST_OPT").is_none() {
            cuprum::compile::set_host_opt_level(Some(HOST_OPT));
        }
    });
}

/// Runs the rest of the process on the host device (once).
fn use_host(why: &cuprum::Error) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        host_compile_settings();
        cuprum::Device::host().make_default();
        let _ = writeln!(
            std::io::stderr(),
            "cuprum: no GPU ({}): the GPU tests of {} run on the host device",
            why.kind(),
            binary_name()
        );
    });
}

/// The same for tests that need only NVRTC.
pub fn nvrtc() -> bool {
    setup();
    match cuprum::compile::nvrtc() {
        Ok(_) => true,
        Err(e) => {
            skip_because(
                Need::Nvrtc,
                &format!("no NVRTC ({})", e.kind()),
                &e.to_string(),
            );
            false
        }
    }
}

/// What a skipped test lacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A CUDA device (`CUPRUM_REQUIRE_GPU=1` makes the skip a failure).
    Gpu,
    /// NVRTC (`CUPRUM_REQUIRE_NVRTC=1` makes the skip a failure).
    Nvrtc,
    /// Something else the message names (a header, root, Python…).
    Other,
}

struct Tally {
    counts: [usize; 3],
    /// The first reason of each kind.
    why: [Option<String>; 3],
}

static TALLY: Mutex<Tally> = Mutex::new(Tally {
    counts: [0; 3],
    why: [None, None, None],
});

fn index(need: Need) -> usize {
    match need {
        Need::Gpu => 0,
        Need::Nvrtc => 1,
        Need::Other => 2,
    }
}

/// Whether the environment variable `var` is `1` or `true`.
pub fn required(var: &str) -> bool {
    matches!(std::env::var(var).as_deref(), Ok("1") | Ok("true"))
}

/// The running test's name: the test harness names each test's thread after its test.
pub fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_string()
}

/// Skips the running test: prints `SKIPPED <test>: <reason>` to the process's stderr and
/// counts it for the summary at exit. Panics instead when the matching `CUPRUM_REQUIRE_*`
/// variable is set.
pub fn skip(need: Need, reason: &str) {
    skip_because(need, reason, reason);
}

/// [`skip`] with a short reason for the test's line and the full one (`detail`, e.g. the
/// driver's message) for the summary.
pub fn skip_because(need: Need, reason: &str, detail: &str) {
    let test = test_name();
    let var = match need {
        Need::Gpu => Some("CUPRUM_REQUIRE_GPU"),
        Need::Nvrtc => Some("CUPRUM_REQUIRE_NVRTC"),
        Need::Other => None,
    };
    if let Some(var) = var.filter(|v| required(v)) {
        panic!("{test}: {var}=1 but the test would skip: {detail}");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
    {
        let mut t = TALLY.lock().unwrap_or_else(|p| p.into_inner());
        let i = index(need);
        t.counts[i] += 1;
        t.why[i].get_or_insert_with(|| detail.to_string());
    }
    register_report();
}

extern "C" fn report_at_exit() {
    // Never unwind out of an atexit handler.
    let _ = std::panic::catch_unwind(report);
}

/// This binary's name without cargo's hash suffix (`array-0123456789abcdef` → `array`).
fn binary_name() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "this test binary".into());
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name.to_string()
        }
        _ => stem,
    }
}

fn report() {
    let (counts, why) = {
        let t = TALLY.lock().unwrap_or_else(|p| p.into_inner());
        (t.counts, t.why.clone())
    };
    let bin = binary_name();
    let mut err = std::io::stderr().lock();
    let plural = |n: usize| if n == 1 { "test" } else { "tests" };
    let lines = [
        (
            "GPU",
            "no GPU: ",
            "; CUPRUM_REQUIRE_GPU=1 makes a skip a failure",
        ),
        (
            "NVRTC",
            "no NVRTC: ",
            "; CUPRUM_REQUIRE_NVRTC=1 makes a skip a failure",
        ),
        ("other", "", "; each SKIPPED line above says why"),
    ];
    for (i, (kind, lack, hint)) in lines.iter().enumerate() {
        if counts[i] == 0 {
            continue;
        }
        let why = match i {
            2 => String::new(),
            _ => format!(" ({lack}{})", why[i].as_deref().unwrap_or("")),
        };
        let _ = writeln!(
            err,
            "cuprum: {} {kind} {} skipped in {bin}{why}{hint}",
            counts[i],
            plural(counts[i])
        );
    }
    if DTYPES_CUT.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(
            err,
            "cuprum: host device: the dtype sweeps of {bin} ran on {} representative dtypes \
             of {} (the GPU suite runs all)",
            HOST_DTYPES.len(),
            cuprum::DType::ALL.len()
        );
    }
    if CELLS_CUT.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(
            err,
            "cuprum: host device: the two-axis sweeps of {bin} ran one cell in \
             {HOST_CELL_STRIDE}, every row and column (the GPU suite runs all)"
        );
    }
    if let Some((total, binaries)) = add_to_run_total(&bin, counts) {
        let sum = total.iter().sum::<usize>();
        if sum > 0 {
            let _ = writeln!(
                err,
                "cuprum: {sum} {} skipped so far in this cargo test run ({} GPU, {} NVRTC, {} \
                 other, in {binaries} test binaries)",
                plural(sum),
                total[0],
                total[1],
                total[2]
            );
        }
    }
}

/// Under `cargo test` (which sets `CARGO` for the binaries it runs), appends this binary's
/// counts to a file named after the `cargo` process (its pid and start time) and returns
/// the sums over the run so far and the number of binaries in it.
fn add_to_run_total(bin: &str, counts: [usize; 3]) -> Option<([usize; 3], usize)> {
    std::env::var_os("CARGO")?;
    let ppid = std::os::unix::process::parent_id();
    // The start time (field 22 of /proc/<pid>/stat) tells a reused pid apart.
    let started = std::fs::read_to_string(format!("/proc/{ppid}/stat"))
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1;
            after.split_whitespace().nth(19).map(str::to_string)
        })
        .unwrap_or_default();
    let dir = std::env::temp_dir().join("cuprum-test-skips");
    std::fs::create_dir_all(&dir).ok()?;
    forget_old_runs(&dir);
    let path = dir.join(format!("{ppid}-{started}"));
    if counts.iter().any(|&n| n > 0) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .ok()?;
        writeln!(f, "{bin} {} {} {}", counts[0], counts[1], counts[2]).ok()?;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut total = [0usize; 3];
    let mut binaries = 0;
    for line in text.lines() {
        let nums: Vec<usize> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|w| w.parse().ok())
            .collect();
        if let [g, n, o] = nums[..] {
            total[0] += g;
            total[1] += n;
            total[2] += o;
            binaries += 1;
        }
    }
    Some((total, binaries))
}

/// Removes the files of runs older than a day.
fn forget_old_runs(dir: &std::path::Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 86_400);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
