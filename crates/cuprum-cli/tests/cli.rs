//! The `cuprum` binary, run as a user would: `info`, `compile`, `cache`, `bench`, `demo`.
//!
//! Every run gets its own `CUPRUM_CACHE_DIR` (a temp folder), so the tests never touch the
//! user's kernel cache and can run in parallel; what this process compiles itself goes to
//! the harness's temporary cache. Tests that compile skip (visibly) when NVRTC is missing,
//! unless `CUPRUM_REQUIRE_NVRTC=1`.

use cuprum::compile::{CompileOptions, KernelCache, resource_usage};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `cuprum` with its kernel cache in `cache` and none of the cache switches inherited.
fn cuprum(cache: &Path) -> Command {
    harness::setup();
    let mut c = Command::new(env!("CARGO_BIN_EXE_cuprum"));
    c.env("CUPRUM_CACHE_DIR", cache)
        .env_remove("CUPRUM_CACHE_IN_MEMORY")
        .env_remove("CUPRUM_CACHE_SAVE_SOURCE")
        .env_remove("CUPRUM_DUMP_SOURCE_ON_ERROR")
        .env("CUPRUM_NO_AUTO_SETUP", "1");
    c
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "success: {}\n--- stdout\n{}--- stderr\n{}",
            self.ok, self.stdout, self.stderr
        )
    }
}

fn to_run(o: Output) -> Run {
    let r = Run {
        ok: o.status.success(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!r.stderr.contains("panicked"), "the CLI panicked\n{r}");
    r
}

fn run(cmd: &mut Command) -> Run {
    to_run(cmd.output().expect("cannot run the cuprum binary"))
}

/// The workspace's test harness: this binary's own kernel cache (the tests compile in this
/// process too), visible skips and their summary.
#[path = "../../cuprum/tests/common/harness.rs"]
mod harness;

/// Skips the rest of the test (visibly, naming it) when NVRTC is missing.
macro_rules! require_nvrtc {
    () => {
        if !harness::nvrtc() {
            return;
        }
    };
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("cuprum-cli-test")
        .tempdir()
        .unwrap()
}

const SCALE: &str = "template<typename T, int N> __global__ void scale(T* x, int n) {\n\
                     \x20 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                     \x20 if (i < n) x[i] = x[i] * T(N) + T(1);\n\
                     }\n";

/// A kernel file `name` in `dir`; `tag` makes the source unique.
fn write_kernel(dir: &Path, name: &str, tag: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "// {tag}\nextern \"C\" __global__ void k(float* x) {{ x[threadIdx.x] *= 2.0f; }}\n"
        ),
    )
    .unwrap();
    p
}

/// The `.cubin` entries of a cache folder (files in its two-hex-digit shard folders).
fn entry_files(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(cache) else {
        return out;
    };
    for shard in rd.flatten() {
        let name = shard.file_name().to_string_lossy().into_owned();
        if !shard.path().is_dir() || name.len() != 2 {
            continue;
        }
        for f in std::fs::read_dir(shard.path()).unwrap().flatten() {
            out.push(f.path());
        }
    }
    out.sort();
    out
}

/// The numbers of the table row of `kernel` (registers, shared, local, constant bytes).
fn table_row(stdout: &str, kernel: &str) -> Vec<u64> {
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with(kernel) && !l.contains("->"))
        .unwrap_or_else(|| panic!("no table row for {kernel} in\n{stdout}"));
    let nums: Vec<u64> = line
        .trim_start()
        .strip_prefix(kernel)
        .unwrap()
        .split_whitespace()
        .map(|w| {
            w.parse()
                .unwrap_or_else(|_| panic!("bad number {w:?} in {line:?}"))
        })
        .collect();
    assert_eq!(nums.len(), 4, "{line:?}");
    nums
}

fn no_gpu() -> bool {
    cuprum::Device::get(0).is_err()
}

/// Whether the CLI's CPU-only behaviour can be tested here: no GPU, and a host C++
/// compiler; otherwise the running test is skipped, saying why.
fn cpu_only_with_a_compiler() -> bool {
    if !no_gpu() {
        harness::skip(harness::Need::Other, "a GPU is present");
        return false;
    }
    if let Err(e) = cuprum::compile::host_compiler() {
        harness::skip(harness::Need::Other, &format!("no host C++ compiler: {e}"));
        return false;
    }
    true
}

// ---------------------------------------------------------------------------------------

#[test]
fn info_reports_driver_nvrtc_and_cache() {
    let t = tmp();
    let cache = t.path().join("kernels");
    let r = run(cuprum(&cache).arg("info"));
    assert!(r.ok, "{r}");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("cuprum {}", env!("CARGO_PKG_VERSION")),
        "{r}"
    );
    for prefix in ["driver:", "nccl:", "nvrtc:", "cache:"] {
        assert!(
            lines.iter().any(|l| l.starts_with(prefix)),
            "no line starting with {prefix}\n{r}"
        );
    }
    match cuprum::runtime::driver_info() {
        Err(_) => {
            // no driver here: the CLI says so and still exits 0
            assert!(lines.iter().any(|l| l.starts_with("driver:  none")), "{r}");
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("gpu:") && l.contains("no GPU")),
                "{r}"
            );
        }
        Ok(d) => {
            assert!(lines.iter().any(|l| l.starts_with("driver:  CUDA")), "{r}");
            for i in 0..d.device_count {
                let gpu = format!("gpu {i}:");
                // each device with its UUID as nvidia-smi -L prints it (GPU-… or MIG-…)
                assert!(
                    lines.iter().any(|l| l.starts_with(&gpu)
                        && (l.contains(" GPU-")
                            || l.contains(" MIG-")
                            || l.contains("unavailable"))),
                    "{r}"
                );
            }
        }
    }
    match cuprum::compile::nvrtc() {
        Ok(n) => {
            let (a, b) = n.version();
            assert!(
                r.stdout
                    .contains(&format!("nvrtc:   {a}.{b} from {}", n.path())),
                "{r}"
            );
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("targets:") && l.contains("sm_90")),
                "{r}"
            );
        }
        Err(_) => assert!(r.stdout.contains("nvrtc:   not found"), "{r}"),
    }
    assert!(
        lines.contains(&format!("cache:   {}", cache.display()).as_str()),
        "{r}"
    );
}

#[test]
fn compile_reports_cubin_lowered_names_and_registers_then_hits_the_disk() {
    require_nvrtc!();
    let t = tmp();
    let cache = t.path().join("kernels");
    let file = t.path().join("scale.cu");
    std::fs::write(&file, SCALE).unwrap();
    let compile = || {
        run(cuprum(&cache)
            .arg("compile")
            .arg(&file)
            .args(["--name-expr", "scale<float, 4>"])
            .args(["-O", "--use_fast_math"])
            .args(["--arch", "sm_90"]))
    };

    // What the CLI should find, computed with the library and the same options.
    let opts = CompileOptions::new()
        .program_name("scale.cu")
        .option("-Xptxas=-v")
        .include_path(t.path())
        .option("--use_fast_math")
        .name_expression("scale<float, 4>");
    let lib = KernelCache::new(None).compile(SCALE, &opts, 90).unwrap();
    let lowered = &lib.lowered_names[0].1;
    assert!(lowered.starts_with("_Z"), "{lowered}");
    let res = resource_usage(&lib.log);
    let expected = res.iter().find(|r| r.name == *lowered).unwrap();
    assert!(expected.registers > 0);

    let r = compile();
    assert!(r.ok, "{r}");
    let first = r.stdout.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("{}: cubin for sm_90 (compiled, ", file.display())),
        "{r}"
    );
    assert!(
        first.ends_with(&format!(", {} bytes)", lib.image.len())),
        "{r}"
    );
    assert!(
        r.stdout
            .lines()
            .any(|l| l.trim() == format!("scale<float, 4> -> {lowered}")),
        "{r}"
    );
    let row = table_row(&r.stdout, "scale<float, 4>");
    assert_eq!(
        row[..3],
        [
            expected.registers as u64,
            expected.shared_bytes,
            expected.stack_bytes
        ],
        "{r}"
    );
    assert!(row[0] > 0, "{r}");
    assert_eq!(entry_files(&cache).len(), 1);

    // a second process finds it on disk, with the same report
    let again = compile();
    assert!(again.ok, "{again}");
    assert!(
        again
            .stdout
            .lines()
            .next()
            .unwrap()
            .contains("cubin for sm_90 (from the disk cache, "),
        "{again}"
    );
    assert_eq!(table_row(&again.stdout, "scale<float, 4>"), row);
    assert!(
        again
            .stdout
            .contains(&format!("scale<float, 4> -> {lowered}")),
        "{again}"
    );
    assert_eq!(entry_files(&cache).len(), 1);
}

#[test]
fn compile_error_names_file_line_and_marks_it() {
    require_nvrtc!();
    let t = tmp();
    let cache = t.path().join("kernels");
    let file = t.path().join("broken.cu");
    std::fs::write(
        &file,
        "extern \"C\" __global__ void k(float* x) {\n\
         \x20 float y = x[0];\n\
         \x20 x[0] = y + foo;\n\
         }\n",
    )
    .unwrap();
    let r = run(cuprum(&cache)
        .arg("compile")
        .arg(&file)
        .args(["--arch", "sm_90"]));
    assert!(!r.ok, "{r}");
    assert!(
        r.stderr
            .contains("broken.cu:3: error: identifier \"foo\" is undefined"),
        "{r}"
    );
    assert!(r.stderr.contains(">     3 |   x[0] = y + foo;"), "{r}");
    assert!(r.stderr.contains("      2 |   float y = x[0];"), "{r}");
    assert!(r.stdout.is_empty(), "{r}");
    assert!(entry_files(&cache).is_empty(), "a failure is not cached");
}

#[test]
fn compile_of_a_missing_file_says_so() {
    let t = tmp();
    let missing = t.path().join("no_such_kernel.cu");
    let r = run(cuprum(&t.path().join("kernels"))
        .arg("compile")
        .arg(&missing)
        .args(["--arch", "sm_90"]));
    assert!(!r.ok, "{r}");
    assert!(
        r.stderr
            .contains(&format!("error: cannot read {}: ", missing.display())),
        "{r}"
    );
    assert!(r.stderr.contains("No such file"), "{r}");
    assert!(r.stdout.is_empty(), "{r}");
}

#[test]
fn compile_rejects_a_malformed_arch() {
    let t = tmp();
    let file = write_kernel(t.path(), "k.cu", "bad arch");
    let r = run(cuprum(&t.path().join("kernels"))
        .arg("compile")
        .arg(&file)
        .args(["--arch", "hopper"]));
    assert!(!r.ok, "{r}");
    assert!(r.stderr.contains("--arch \"hopper\""), "{r}");
}

#[test]
fn compile_profile_breaks_a_cold_compile_down_and_leaves_the_cache_alone() {
    require_nvrtc!();
    let t = tmp();
    let cache = t.path().join("kernels");
    let file = t.path().join("p.cu");
    std::fs::write(
        &file,
        "#include <cuprum/all.cuh>\nextern \"C\" __global__ void k(float* x) { x[0] = 2.0f; }\n",
    )
    .unwrap();
    let r = run(cuprum(&cache)
        .arg("compile")
        .arg(&file)
        .args(["--profile", "--arch", "sm_90"]));
    assert!(r.ok, "{r}");
    for want in [
        "cubin",
        "--minimal",
        "cache key (blake3)",
        "nvrtcCompileProgram",
        "CUDA C++ Frontend",
        "PTX Translation",
        // a float kernel: the lean-header macros keep all but the indexer out
        "-DCUPRUM_OMIT_COMPLEX",
        "cuprum headers parsed: 2",
        "cuprum/indexer.cuh",
        "disk hit",
    ] {
        assert!(r.stdout.contains(want), "missing {want:?}: {r}");
    }
    assert!(
        entry_files(&cache).is_empty(),
        "--profile wrote to the cache: {r}"
    );
}

#[test]
fn racing_processes_write_one_entry() {
    require_nvrtc!();
    let t = tmp();
    let cache = t.path().join("kernels");
    let file = write_kernel(t.path(), "race.cu", "racing processes");
    let children: Vec<_> = (0..4)
        .map(|_| {
            cuprum(&cache)
                .arg("compile")
                .arg(&file)
                .args(["--arch", "sm_90"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let r = to_run(c.wait_with_output().unwrap());
        assert!(r.ok, "{r}");
        assert!(r.stdout.contains("cubin for sm_90"), "{r}");
    }
    // one entry, and no temp file left behind in the shard
    assert_eq!(entry_files(&cache).len(), 1, "{:?}", entry_files(&cache));
    let entry = &entry_files(&cache)[0];
    assert_eq!(entry.extension().unwrap(), "cubin");

    let list = run(cuprum(&cache).args(["cache", "list"]));
    assert!(list.ok, "{list}");
    let listed: Vec<&str> = list.stdout.lines().collect();
    assert_eq!(listed.len(), 1, "{list}");
    assert!(listed[0].ends_with(&entry.display().to_string()), "{list}");
    let size = std::fs::metadata(entry).unwrap().len();
    assert_eq!(
        listed[0].split_whitespace().next(),
        Some(size.to_string().as_str())
    );

    let stats = run(cuprum(&cache).args(["cache", "stats"]));
    assert!(stats.ok, "{stats}");
    assert!(stats.stdout.lines().any(|l| l == "entries:  1"), "{stats}");
    assert!(
        stats
            .stdout
            .lines()
            .any(|l| l == format!("bytes:    {size}")),
        "{stats}"
    );

    let again = run(cuprum(&cache)
        .arg("compile")
        .arg(&file)
        .args(["--arch", "sm_90"]));
    assert!(again.ok, "{again}");
    assert!(again.stdout.contains("from the disk cache"), "{again}");
}

#[test]
fn cache_clear_removes_every_entry() {
    require_nvrtc!();
    let t = tmp();
    let cache = t.path().join("kernels");
    for (name, tag) in [("a.cu", "clear a"), ("b.cu", "clear b")] {
        let f = write_kernel(t.path(), name, tag);
        let r = run(cuprum(&cache)
            .arg("compile")
            .arg(&f)
            .args(["--arch", "sm_90"]));
        assert!(r.ok, "{r}");
    }
    let stats = run(cuprum(&cache).args(["cache", "stats"]));
    assert!(stats.stdout.lines().any(|l| l == "entries:  2"), "{stats}");
    assert!(
        stats
            .stdout
            .contains(&format!("folder:   {} (format ", cache.display())),
        "{stats}"
    );

    let clear = run(cuprum(&cache).args(["cache", "clear"]));
    assert!(clear.ok, "{clear}");
    assert_eq!(
        clear.stdout.trim_end(),
        format!("removed 2 entries from {}", cache.display())
    );
    assert!(entry_files(&cache).is_empty());

    let stats = run(cuprum(&cache).args(["cache", "stats"]));
    assert!(stats.ok, "{stats}");
    assert!(stats.stdout.lines().any(|l| l == "entries:  0"), "{stats}");
    let list = run(cuprum(&cache).args(["cache", "list"]));
    assert!(list.ok && list.stdout.is_empty(), "{list}");
    let clear = run(cuprum(&cache).args(["cache", "clear"]));
    assert!(clear.stdout.starts_with("removed 0 entries"), "{clear}");
}

#[test]
fn cache_in_memory_accepts_strict_booleans_only() {
    let t = tmp();
    let cache = t.path().join("kernels");

    let bad = run(cuprum(&cache)
        .env("CUPRUM_CACHE_IN_MEMORY", "yes")
        .args(["cache", "stats"]));
    assert!(!bad.ok, "{bad}");
    assert!(
        bad.stderr
            .contains("CUPRUM_CACHE_IN_MEMORY=\"yes\" is not valid: expected 1, 0, true or false"),
        "{bad}"
    );

    let on = run(cuprum(&cache)
        .env("CUPRUM_CACHE_IN_MEMORY", "1")
        .args(["cache", "stats"]));
    assert!(on.ok, "{on}");
    assert!(on.stdout.contains("memory only"), "{on}");
    assert!(!on.stdout.contains("folder:"), "{on}");

    let off = run(cuprum(&cache)
        .env("CUPRUM_CACHE_IN_MEMORY", "0")
        .args(["cache", "stats"]));
    assert!(off.ok, "{off}");
    assert!(
        off.stdout
            .contains(&format!("folder:   {} (format ", cache.display())),
        "{off}"
    );
    assert!(off.stdout.lines().any(|l| l == "entries:  0"), "{off}");
    assert!(!off.stdout.contains("memory only"), "{off}");
}

#[test]
fn in_memory_compile_writes_nothing() {
    require_nvrtc!();
    let t = tmp();
    let cache = t.path().join("kernels");
    let file = write_kernel(t.path(), "mem.cu", "in memory");
    let r = run(cuprum(&cache)
        .env("CUPRUM_CACHE_IN_MEMORY", "true")
        .arg("compile")
        .arg(&file)
        .args(["--arch", "sm_90"]));
    assert!(r.ok, "{r}");
    assert!(r.stdout.contains("(compiled, "), "{r}");
    assert!(entry_files(&cache).is_empty());
}

/// Without a GPU `cuprum bench` runs the host-device rows only: the GPU rows are n/a and
/// say why, and the run succeeds.
#[test]
fn bench_without_a_gpu_marks_the_gpu_rows_na() {
    if !no_gpu() {
        harness::skip(harness::Need::Other, "a GPU is present");
        return;
    }
    let t = tmp();
    let r = run(cuprum(&t.path().join("kernels")).args([
        "bench",
        "--repeat",
        "1",
        "--filter",
        "alloc_empty",
    ]));
    assert!(r.ok, "{r}");
    assert!(r.stdout.starts_with("no GPU ("), "{r}");
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with("alloc_empty_1M_f32"));
    assert!(
        row.is_some_and(|l| l.contains("n/a") && l.contains("needs a GPU")),
        "{r}"
    );
    assert!(r.stdout.contains("targets: 0 met, 0 missed, 1 n/a"), "{r}");
}

/// A `cuprum bench --vs-cupy --json` document with made-up numbers (no GPU needed).
fn synthetic_bench_report() -> serde_json::Value {
    let row = |name: &str, gpu: Option<f64>, pct: Option<f64>, status: &str, cupy_pct: f64| {
        let mut row = serde_json::json!({
            "name": name, "what": "synthetic", "gpu_us": gpu, "cpu_us": gpu.map(|_| 4.0),
            "bytes": if pct.is_some() { 1_200_000_000u64 } else { 0 },
            "gb_per_s": pct.map(|p| p * 40.0), "pct_of_copy": pct, "repeats": 5,
            "target": "≥ 90 % of copy", "status": status, "detail": "synthetic detail",
            "cupy": gpu.map(|g| serde_json::json!({
                "gpu_us": g * 1.5, "cpu_us": 6.0, "gb_per_s": null,
                "pct_of_copy": pct.map(|_| cupy_pct), "gpu_ratio": 1.5, "cpu_ratio": 1.5,
            })),
        });
        if gpu.is_none() {
            row.as_object_mut().unwrap().remove("cupy"); // CuPy has no such row
        }
        row
    };
    serde_json::json!({
        "device": "Synthetic GPU", "copy_gb_per_s": 4000.0, "launch_floor_cpu_us": 3.0,
        "repeat": 5,
        "cupy": {"available": true, "note": "", "copy_gb_per_s": 4100.0,
                 "ceiling": "CuPy's own copy_1GiB_f32 row"},
        "workloads": [
            row("ew_add100M_f32", Some(310.0), Some(93.0), "met", 60.0),
            row("abs2_10M_kernel", Some(70.0), Some(84.0), "missed", 89.0),
            row("launch_floor", Some(2.0), None, "n/a", 0.0),
            row("prime1M_jit", None, None, "n/a", 0.0),
        ],
    })
}

#[test]
fn bench_from_json_prints_the_table_and_plots_without_a_gpu() {
    let t = tmp();
    let (json, svg) = (t.path().join("run.json"), t.path().join("bw.svg"));
    std::fs::write(&json, synthetic_bench_report().to_string()).unwrap();
    let r = run(cuprum(&t.path().join("kernels"))
        .args(["bench", "--from-json"])
        .arg(&json)
        .arg("--plot")
        .arg(&svg));
    assert!(r.ok, "{r}");
    let out = &r.stdout;
    assert!(
        out.starts_with("Synthetic GPU — copy ceiling 4000 GB/s"),
        "{r}"
    );
    assert!(
        out.contains("relative to CuPy's own copy_1GiB_f32 row"),
        "{r}"
    );
    let line = |name: &str| r.stdout.lines().find(|l| l.starts_with(name)).unwrap_or("");
    assert!(line("ew_add100M_f32").contains("465.00"), "{r}"); // CuPy gpu µs
    assert!(line("abs2_10M_kernel").contains("missed"), "{r}");
    assert!(line("prime1M_jit").contains(" - "), "{r}");
    assert!(r.stdout.contains("targets: 1 met, 1 missed, 2 n/a"), "{r}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    let expected = [
        "ew_add100M_f32",
        "abs2_10M_kernel",
        "cuprum",
        "CuPy",
        "target",
    ];
    for name in expected {
        assert!(plot.contains(name), "no {name} in the plot:\n{plot}");
    }
    // Not bandwidth-bound: no bar.
    assert!(!plot.contains("launch_floor") && !plot.contains("prime1M_jit"));
    // --json of a saved run is the same document.
    let r = run(cuprum(&t.path().join("kernels"))
        .args(["bench", "--json", "--from-json"])
        .arg(&json));
    assert!(r.ok, "{r}");
    let again: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(again, synthetic_bench_report());
}

#[test]
fn bench_from_json_rejects_other_json() {
    let t = tmp();
    let json = t.path().join("other.json");
    std::fs::write(&json, "{\"rows\": []}").unwrap();
    let r = run(cuprum(&t.path().join("kernels"))
        .args(["bench", "--from-json"])
        .arg(&json));
    assert!(!r.ok, "{r}");
    let why = "not a `cuprum bench --json` output";
    assert!(r.stderr.contains(why), "{r}");
}

#[test]
fn in_memory_mode_creates_no_cache_folder() {
    require_nvrtc!();
    let t = tmp();
    let cache = t.path().join("kernels");
    let file = write_kernel(t.path(), "mem.cu", "no folder");
    let r = run(cuprum(&cache)
        .env("CUPRUM_CACHE_IN_MEMORY", "1")
        .arg("compile")
        .arg(&file)
        .args(["--arch", "sm_90"]));
    assert!(r.ok, "{r}");
    let found: Vec<PathBuf> = std::fs::read_dir(&cache)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(!cache.exists(), "memory-only run wrote {found:?}");
}

// ---- cuprum demo -----------------------------------------------------------------------

/// The registers of `kernel` in `cuprum demo`'s compile table (the number after the name).
fn demo_registers(stdout: &str, kernel: &str) -> Option<u32> {
    stdout.lines().find_map(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words
            .windows(2)
            .find_map(|w| (w[0] == kernel).then(|| w[1].parse().ok()).flatten())
    })
}

/// Whether `cuprum demo`'s output has the custom_add row that matched its reference.
fn custom_add_matched(stdout: &str) -> bool {
    stdout
        .lines()
        .any(|l| l.contains("[11, 14, 17, 20]") && l.contains("✓ matches"))
}

/// A host compiler that does not exist: the demo cannot use the host device.
const NO_CXX: &str = "/nonexistent/cuprum-test-c++";

#[test]
fn demo_without_a_gpu_runs_on_the_cpu() {
    if !cpu_only_with_a_compiler() {
        return;
    }
    let t = tmp();
    let r = run(cuprum(&t.path().join("kernels")).args(["demo", "--filter", "custom_add"]));
    assert!(r.ok, "{r}");
    let mut lines = r.stdout.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with("cuprum demo: no GPU on this machine")
            && first.ends_with("running on the CPU instead"),
        "{r}"
    );
    assert!(r.stdout.contains("on the host device, the CPU"), "{r}");
    assert!(custom_add_matched(&r.stdout), "{r}");
}

/// `CUPRUM_DEPENDENT_LAUNCH` takes the strict booleans on every device: a generated
/// kernel's compile refuses another value, naming the variable, also where no GPU would
/// launch dependent.
#[test]
fn dependent_launch_accepts_strict_booleans_only() {
    if !cpu_only_with_a_compiler() {
        return;
    }
    let t = tmp();
    let cache = t.path().join("kernels");
    let bad = run(cuprum(&cache)
        .env("CUPRUM_DEPENDENT_LAUNCH", "sometimes")
        .args(["demo", "--filter", "custom_add"]));
    let said = format!("{}{}", bad.stdout, bad.stderr);
    assert!(
        said.contains(
            "CUPRUM_DEPENDENT_LAUNCH=\"sometimes\" is not valid: expected 1, 0, true or false"
        ),
        "{bad}"
    );
    let off = run(cuprum(&cache).env("CUPRUM_DEPENDENT_LAUNCH", "0").args([
        "demo",
        "--filter",
        "custom_add",
    ]));
    assert!(off.ok, "{off}");
    assert!(custom_add_matched(&off.stdout), "{off}");
}

/// On the CPU the matrix seeds' reference is the host device's GEMM, and the row says so
/// (not cuBLAS, which is not there).
#[test]
fn demo_on_the_cpu_names_its_matrix_reference() {
    if !cpu_only_with_a_compiler() {
        return;
    }
    let t = tmp();
    let r = run(cuprum(&t.path().join("kernels")).args(["demo", "--filter", "matrix_multiply"]));
    assert!(r.ok, "{r}");
    let rows: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("matrix_multiply"))
        .collect();
    assert!(!rows.is_empty(), "{r}");
    assert!(!r.stdout.contains("cuBLAS"), "{r}");
    assert!(rows.iter().any(|l| l.contains("host GEMM")), "{r}");
}

/// Seed 000's printing kernels on the CPU: every line of the kernels' printf reaches stdout
/// (through a pipe: fully buffered by the C library) before the case's row.
#[test]
fn demo_indexing_kernels_print_before_their_rows_on_the_cpu() {
    if !cpu_only_with_a_compiler() {
        return;
    }
    let t = tmp();
    let demo =
        |filter: &str| run(cuprum(&t.path().join("kernels")).args(["demo", "--filter", filter]));
    // The index of the first line `pred` accepts, and of the case's matching row.
    fn find(r: &Run, pred: &dyn Fn(&str) -> bool) -> Option<usize> {
        r.stdout.lines().position(pred)
    }
    let row = |r: &Run, name: &str| {
        let name = format!("  {name} ");
        find(r, &|l: &str| {
            l.starts_with(&name) && l.contains("✓ matches")
        })
    };
    let (ri, rs) = (demo("thread_indexing"), demo("grid_stride"));
    let (Some(indexing), Some(stride)) = (row(&ri, "thread_indexing"), row(&rs, "grid_stride"))
    else {
        panic!("no matching rows: {ri}\n{rs}");
    };
    for g in 0..10 {
        let (b, th) = (g / 4, g % 4);
        let line = format!("  Block {b}, Thread {th} -> Global ID {g} -> data[{g}]");
        let printed = find(&ri, &|l: &str| l == line);
        assert!(printed.is_some_and(|i| i < indexing), "{line}: {ri}");
        let (tid, v) = (g % 4, g + 1);
        let line = format!("  Thread {tid}: data[{g}] = {v} -> {}", v * v);
        let printed = find(&rs, &|l: &str| l == line);
        assert!(printed.is_some_and(|i| i < stride), "{line}: {rs}");
    }
    let squared = find(&rs, &|l: &str| {
        l == "Squared: [1, 4, 9, 16, 25, 36, 49, 64, 81, 100]"
    });
    assert!(squared.is_some_and(|i| i < stride), "{rs}");
}

#[test]
fn demo_without_a_gpu_says_so_and_compiles_every_kernel() {
    let t = tmp();
    let cache = t.path().join("kernels");
    if !no_gpu() {
        // With a GPU the demo runs for real: one quick example must match.
        let r = run(cuprum(&cache).args(["demo", "--filter", "custom_add"]));
        assert!(r.ok, "{r}");
        assert!(custom_add_matched(&r.stdout), "{r}");
        return;
    }
    // without a host C++ compiler either (with one, the demo runs on the CPU: below)
    let r = run(cuprum(&cache).env("CUPRUM_HOST_CXX", NO_CXX).arg("demo"));
    assert!(r.ok, "{r}");
    let first = r.stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("cuprum demo: no GPU on this machine")
            && first.contains("CUDA driver")
            && first.contains("CUPRUM_HOST_CXX"),
        "{r}"
    );
    if !harness::nvrtc() {
        assert!(r.stdout.contains("NVRTC is not available either"), "{r}");
        return;
    }
    assert!(r.stdout.contains("for sm_90"), "{r}");
    // One row per kernel, elementwise, reduction and raw, each with its registers.
    for kernel in [
        "custom_add",
        "add_kernel",
        "thread_indexing",
        "grid_stride_square",
        "relu_transform",
        "clipped_relu",
        "inplace_transform",
        "trig_functions",
        "abs_squared",
        "sum_of_squares",
        "weighted_sums",
        "l2_norm_sq",
        "mse_kernel",
        "vector_add",
        "matrix_multiply",
        "apply_activation",
        "optimized_reduction",
        "primeFactorizationSum",
        "prime_factor_sum",
        "cuprum_fuse_mse_0",
        "cuprum_fuse_softmax_rows_2",
        "cuprum_masked_add",
        "cuprum_masked_floor_divide",
        "nbody_step",
        "nbody_step_raw",
        "apply_activation_enum",
    ] {
        let regs = demo_registers(&r.stdout, kernel);
        assert!(
            regs.is_some_and(|n| n > 0 && n <= 255),
            "{kernel}: registers {regs:?}\n{r}"
        );
    }
    // Reductions stage partial results in shared memory.
    let mse_row = r.stdout.lines().find(|l| l.contains("mse_kernel")).unwrap();
    let shared: u64 = mse_row.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(shared > 0, "{mse_row}");
    // 23 kernels of the 19 seed examples in CUDA C++, 6 of the 5 written in Rust (the
    // generic vector add twice), 6 element-wise kernels of the masked prime-factor sum, 3 of
    // the 2 over device types (the n-body step in Rust and its raw twin, the enum activation).
    assert!(
        r.stdout.contains("45 kernels of 31 examples compiled"),
        "{r}"
    );
    for example in [
        "jit_vector_add",
        "jit_prime_factor_sum",
        "jit_shared_memory_reduction",
    ] {
        assert!(r.stdout.contains(example), "{example} missing\n{r}");
    }

    // A second run takes every program from the disk cache and reports the same table.
    let again = run(cuprum(&cache).env("CUPRUM_HOST_CXX", NO_CXX).arg("demo"));
    assert!(again.ok, "{again}");
    assert!(again.stdout.contains("from the disk cache"), "{again}");
    for kernel in ["custom_add", "mse_kernel", "primeFactorizationSum"] {
        assert_eq!(
            demo_registers(&again.stdout, kernel),
            demo_registers(&r.stdout, kernel),
            "{again}"
        );
    }
}

#[test]
fn demo_without_a_gpu_or_nvrtc_says_so_and_exits_0() {
    if !no_gpu() {
        harness::skip(harness::Need::Other, "a GPU is present");
        return;
    }
    let t = tmp();
    let r = run(cuprum(&t.path().join("kernels"))
        .env("CUPRUM_NVRTC", t.path().join("no-such-libnvrtc.so"))
        .env("CUPRUM_HOST_CXX", NO_CXX)
        .arg("demo"));
    assert!(r.ok, "{r}");
    assert!(
        r.stdout.starts_with("cuprum demo: no GPU on this machine"),
        "{r}"
    );
    assert!(r.stdout.contains("NVRTC is not available either"), "{r}");
    assert_eq!(r.stdout.lines().count(), 2, "{r}");
}

#[test]
fn demo_filter_that_matches_nothing_fails() {
    let t = tmp();
    let r = run(cuprum(&t.path().join("kernels")).args(["demo", "--filter", "no-such-example"]));
    assert!(!r.ok, "{r}");
    assert!(r.stderr.contains("no demo example matches"), "{r}");
}

// ---------------------------------------------------------------------------------------
// cuprum grid (seed 000's launch geometry)

#[test]
fn grid_prints_seed_000s_geometry_and_block_size_analysis() {
    let t = tmp();
    let r = run(cuprum(t.path()).args(["grid", "1000000"]));
    assert!(r.ok, "{r}");
    assert_eq!(
        r.stdout,
        "Elements: 1,000,000\nThreads per block: 256\nBlocks: 3,907\nTotal threads: 1,000,192\n\n\
         Block size analysis for N=1000000:\n  TPB=128: 7813 blocks, 100.0% occupancy\n  \
         TPB=256: 3907 blocks, 100.0% occupancy\n  TPB=512: 1954 blocks, 100.0% occupancy\n"
    );
    // the seed's analysis for N=10000, another block size, separators in N
    let r = run(cuprum(t.path()).args(["grid", "10_000", "--block", "128"]));
    assert!(r.ok, "{r}");
    assert!(
        r.stdout.starts_with(
            "Elements: 10,000\nThreads per block: 128\nBlocks: 79\nTotal threads: 10,112\n"
        ),
        "{r}"
    );
    assert!(
        r.stdout.contains("  TPB=128: 79 blocks, 98.9% occupancy\n"),
        "{r}"
    );
    assert!(
        r.stdout.contains("  TPB=256: 40 blocks, 97.7% occupancy\n"),
        "{r}"
    );
    // no elements: no blocks, no division by zero
    let r = run(cuprum(t.path()).args(["grid", "0"]));
    assert!(r.ok && r.stdout.contains("Blocks: 0\n"), "{r}");
    // bad values are errors
    let r = run(cuprum(t.path()).args(["grid", "100", "--block", "0"]));
    assert!(!r.ok && r.stderr.contains("between 1 and 1024"), "{r}");
    let r = run(cuprum(t.path()).args(["grid", "1e6"]));
    assert!(
        !r.ok && r.stderr.contains("expected a number of elements"),
        "{r}"
    );
    let r = run(cuprum(t.path()).args(["grid", "10", "--kernel", "k.cu"]));
    assert!(!r.ok && r.stderr.contains("--name"), "{r}");
}

#[test]
fn grid_reports_a_kernels_occupancy_or_says_there_is_no_gpu() {
    if !harness::nvrtc() {
        return;
    }
    let t = tmp();
    let file = t.path().join("gs.cu");
    std::fs::write(
        &file,
        "extern \"C\" __global__ void add_one_gs(float* x, long long n) {\n\
         \x20 for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n\
         \x20      i += (long long)gridDim.x * blockDim.x) x[i] += 1.0f;\n}\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let cache = t.path().join("cache");
    let r = run(cuprum(&cache).args([
        "grid",
        "100000000",
        "--block",
        "384",
        "--kernel",
        f,
        "--name",
        "add_one_gs",
    ]));
    assert!(r.ok, "{r}");
    assert!(
        r.stdout
            .starts_with("Elements: 100,000,000\nThreads per block: 384\n"),
        "{r}"
    );
    if no_gpu() {
        assert!(r.stdout.contains("no GPU here"), "{r}");
        assert!(r.stdout.contains("registers/thread"), "{r}");
    } else {
        for tpb in [128, 256, 384, 512] {
            assert!(r.stdout.contains(&format!("  TPB={tpb}: ")), "{r}");
        }
        assert!(r.stdout.contains("blocks/SM"), "{r}");
        assert!(
            r.stdout.contains("grid-stride launch for N=100000000"),
            "{r}"
        );
    }
    // a name the file does not define
    let r = run(cuprum(&cache).args(["grid", "10", "--kernel", f, "--name", "nope"]));
    assert!(!r.ok && r.stderr.contains("nope"), "{r}");
}

#[test]
fn jit_source_lists_prints_and_the_output_compiles() {
    let dir = tmp();
    let cache = dir.path().join("cache");
    let list = run(cuprum(&cache).arg("jit-source"));
    assert!(list.ok, "{list}");
    for k in [
        "prime_factor_sum",
        "vector_add",
        "matrix_multiply",
        "optimized_reduction",
        "apply_activation",
        "apply_activation_match",
    ] {
        assert!(list.stdout.contains(k), "{k} missing: {list}");
    }
    let src = run(cuprum(&cache).args(["jit-source", "apply_activation"]));
    assert!(src.ok, "{src}");
    assert!(src.stdout.contains("#include <cuprum/jit.cuh>"), "{src}");
    assert!(
        src.stdout
            .contains("__device__ inline float activation_sigmoid(float x)"),
        "{src}"
    );
    let only = run(cuprum(&cache).args(["jit-source", "prime_factor_sum", "--kernel-only"]));
    assert!(
        only.stdout
            .starts_with("extern \"C\" __global__ void prime_factor_sum("),
        "{only}"
    );
    let bad = run(cuprum(&cache).args(["jit-source", "nope"]));
    assert!(
        !bad.ok
            && bad
                .stderr
                .contains("no kernel written in Rust named \"nope\""),
        "{bad}"
    );
    if !harness::nvrtc() {
        return;
    }
    let file = dir.path().join("vector_add.cu");
    let text = run(cuprum(&cache).args(["jit-source", "vector_add"]));
    std::fs::write(&file, &text.stdout).unwrap();
    let c = run(cuprum(&cache).arg("compile").arg(&file).args([
        "--name-expr",
        "vector_add<double>",
        "--arch",
        "sm_90",
    ]));
    assert!(c.ok, "{c}");
    assert!(c.stdout.contains("vector_add<double>"), "{c}");
}

/// `bundle build --tuning` carries a tuning file's choices (an empty list of kernels needs
/// no NVRTC); `bundle info` counts them; a tuning file that is missing or not one fails
/// before anything is written.
#[test]
fn bundle_build_carries_tuning_choices() {
    let dir = tmp();
    let cache = dir.path().join("cache");
    let list = dir.path().join("kernels.list");
    std::fs::write(&list, "").unwrap();
    let tune = dir.path().join("tune-v1.json");
    std::fs::write(
        &tune,
        r#"{"devices": {"NVIDIA H200 | CUDA 13.0 | cuprum 0.1.0": {
            "scan.tile.4": {"params": [24, 4, 64], "margin": 0.02, "times_us": []},
            "scan.tile.8": {"params": [16, 3, 64], "margin": null, "times_us": []}}}}"#,
    )
    .unwrap();
    let out = dir.path().join("app.cuprum-bundle");
    let (l, t, o) = (
        list.to_str().unwrap(),
        tune.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let r = run(cuprum(&cache).args([
        "bundle", "build", l, "--arch", "sm_90", "--tuning", t, "-o", o,
    ]));
    assert!(r.ok, "{r}");
    assert!(
        r.stdout.contains("0 kernels") && r.stdout.contains("2 tuning choices"),
        "{r}"
    );
    let r = run(cuprum(&cache).args(["bundle", "info", o]));
    assert!(r.ok && r.stdout.contains("tuning:   2 choices"), "{r}");
    std::fs::remove_file(&out).unwrap();
    std::fs::write(&tune, "{not json").unwrap();
    let r = run(cuprum(&cache).args([
        "bundle", "build", l, "--arch", "sm_90", "--tuning", t, "-o", o,
    ]));
    assert!(
        !r.ok
            && r.stderr
                .contains("the tuning choices to bundle: not a tuning file"),
        "{r}"
    );
    let missing = dir.path().join("none.json");
    let m = missing.to_str().unwrap();
    let r = run(cuprum(&cache).args([
        "bundle", "build", l, "--arch", "sm_90", "--tuning", m, "-o", o,
    ]));
    assert!(
        !r.ok && r.stderr.contains("cannot read the tuning file"),
        "{r}"
    );
    assert!(!out.exists());
}
