//! Where a cold compile's time goes: [`profile_compile`] compiles a source once, uncached,
//! exactly as the kernel cache would (same flags, headers and `--minimal` decision), and
//! reports the cache key's hashing, NVRTC's calls (program creation, compile, fetching the
//! image), NVRTC's own phases (its `--time` report: the C++ front end, the NVVM optimizer,
//! PTX → cubin), and which of cuprum's bundled headers the source parses (bytes and lines).
//! `cuprum compile FILE --profile` prints it, with the module load and a disk hit besides.
//!
//! ## Where the time went (NVRTC 13.0, `sm_90` cubins)
//!
//! Measured on this project's 2-core build machine (no GPU; thread CPU time, medians of
//! 8–12 compiles interleaved); the H100 machine's CPU is about 1.4× faster (its bench
//! rows: elementwise 17.6 ms, here ≈ 25 ms).
//!
//! | compile                                   | total  | front end | NVVM | PTX → cubin |
//! |-------------------------------------------|--------|-----------|------|-------------|
//! | empty `__global__ void k() {}`            | 21–24  | 9–13      | 6–7  | 6–9         |
//! | the bench's elementwise (`indexer.cuh`)   | 24–26  | 9         | 7–8  | 7           |
//! | the same with `all.cuh` + constants       | 28–32  | 13–16     | 8    | 7–11        |
//! | the same to PTX only                      | 17–22  | 8–13      | 8    | —           |
//!
//! So the floor is NVRTC itself: an empty kernel costs ~22 ms here (≈ 15 ms on the H100),
//! of which the front end's implicit CUDA headers are most of the first column, NVVM's
//! fixed cost (libdevice) most of the second, ptxas the third. cuprum's headers add
//! 4–5 ms (`all.cuh` + `math_constants.cuh`: `half.cuh` ~1.3 ms, `complex.cuh` ~1.1 ms,
//! `ufunc.cuh` + `cast.cuh` ~1.7 ms) and `jit.cuh` (Rust kernels) ~5.8 ms; the NVRTC calls
//! around the compile (creation with nine in-memory headers, fetching the cubin) take
//! under 0.2 ms, the key's hashing a few microseconds.
//!
//! What each change saved (same machine, same method):
//! - `--minimal` for programs that use none of what it omits ([`program`](super::program)):
//!   −3.5 ms elementwise (24.7 → 21.1), −4.4 ms with `all.cuh` (28.8 → 24.4), −4 ms empty.
//! - The bundled headers' digest is computed at build time (`build.rs`) instead of hashing
//!   their ~80 KB on every key. In a fresh process (release build, this machine) the
//!   first key took 145–200 µs before and 50–90 µs after: hashing the headers was ~40 µs
//!   of it; what remains is the NVRTC identity (discovery's `stat`, `canonicalize` and
//!   folder read: ~16 system calls, ~40–50 µs) and blake3's first use (~20 µs). A later
//!   key costs ~1 µs; reading and checking the entry 20–35 µs. The next cut would be a
//!   cheaper NVRTC identity (one `stat` of the library) in `discovery.rs`.
//!
//! ## New kernels on the H100 machine: 40–90 ms (2026-11-27, 17:20 UTC)
//!
//! NVRTC 12.9+ keeps what it compiles in the CUDA ComputeCache by content, across
//! processes, and sees through a changed comment: the rows' sources differed only in a
//! `// nonce` line, so the "H100 row" figures below (and 7–26 ms rows of earlier runs)
//! timed cache hits for all but a process's first two compiles. With each compile a new
//! kernel name and `--no-cache` (program.rs), one run, medians: `compile_cold_elementwise`
//! 43 ms, `compile_cold_reduction` 66–71, `compile_cold_jit` 80–86, `fuse_compile_cold`
//! 48–65, `compile_first_in_process` 41–45; `cuprum compile --profile` of the fused 4-wide
//! kernel: front end 12, NVVM 24, PTX → cubin 22 ms (60 ms), the reduction 10 / 19 / 16,
//! the Rust kernel 17 / 17 / 24. The same sources take 25–35 ms on the 2-core build
//! machine: NVRTC runs about 2× slower on the H100 machine's CPU, and NVVM and ptxas, not
//! the headers, are most of a compile. **NVRTC's floor there**: a one-line kernel with no
//! include (`extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }`), each
//! compile new content, took 37.3–37.9 ms in 6 compiles (front end 10, NVVM 13, PTX →
//! cubin 13 ms; `cuprum compile --profile --repeat 5`, 2026-11-27 19:07 UTC); the same on
//! the idle build machine 19.7–20.7 ms, with `--Ofast-compile=max` 17.0–18.2, `=mid` 19.0,
//! `=min` 18.9. So the issue's targets (elementwise 8, reduction and Rust kernel 12, fused
//! 20, first in a process 25 ms) lie below what NVRTC takes for *any* kernel on that
//! machine, and no change on cuprum's side can meet them with NVRTC. The levers left are
//! fewer, smaller kernels per call (one specialisation instead of several), compiling a
//! call's kernels on all cores, ptxas's optimisation level (a runtime cost), and bundles,
//! which take NVRTC out of a deployed program altogether.
//!
//! ## The issue-27 rows that miss, piece by piece (2026-11-27, morning: partly cache hits)
//!
//! Thread CPU time of one uncached compile (median of 9, `sm_90`, `--minimal`, NVRTC
//! loaded) on the 2-core build machine, which ran about 3.4× slower than the H100 machine's
//! CPU that day (the bench's elementwise source: 24.5 ms here, 7.1 ms there); "H100" is
//! the measured row, "≈" scales this machine's number by that factor.
//!
//! | source                                             | here | ≈ H100 | H100 row |
//! |----------------------------------------------------|------|--------|----------|
//! | trivial kernel, no include (NVRTC's floor)         | 21.5 | 6.2    |          |
//! | the same + `all.cuh` + `math_constants.cuh`        | 26.4 | 7.6    |          |
//! | the same + `jit.cuh` instead                       | 28.4 | 8.2    |          |
//! | bench elementwise (`indexer.cuh`, one loop)        | 24.5 | 7.1    | 7.1      |
//! | sum-of-squares ReductionKernel (generated)         | 52.5 | 15.2   | 14.4     |
//! | … with only `indexer.cuh` + `reduce.cuh` (test)    | 50.9 | 14.7   |          |
//! | `apply_activation` (Rust kernel, its program)      | 51.0 | 14.8   | 23.3     |
//! | … without its 3 bounds checks (test)               | 41.3 | 12.0   |          |
//! | … without `expf` (test)                            | 43.4 | 12.6   |          |
//! | … with `cj::fault` `__noinline__` (test)           | 50.5 | 14.6   |          |
//! | the fused `(x * 2 + 1).maximum(0)` kernel          | 31.2 | 9.0    | 64.5 (call) |
//!
//! - **Reduction** (target 12): the floor is 6.2 ms, the headers 1.4 ms; the kernel body
//!   is the rest (~7.5 ms: NVVM and ptxas over the 4×-unrolled loop, the shared-memory
//!   tree and the grid-split tail with partials and counters, all in one kernel). Cutting
//!   `all.cuh` to the two headers it uses saves ~0.5 ms: not enough. What would: one
//!   specialisation per strategy (one block per output; block-split; grid-split), each a
//!   smaller body — at the cost of a second compile for a program whose calls need two.
//!   **Taken** (same day, same method, medians of 7–9 on a machine loaded 4–8×, so ±2 ms):
//!   the split stage (partials, ticket, second combine) is generated only into kernels
//!   launched split (`kernel/codegen/reduction.rs`): the bench's source compiles in 42–46
//!   ms instead of 54–56 (≈ 12.5–13.5 ms on the H100 by the factor above, from ≈ 16; the
//!   row itself read 14.4 and 21.3 ms on two H100 runs, so only the GPU can say);
//!   a split kernel (a long full reduction: 4-wide loads) costs what it did, 55–59 ms —
//!   `compile_cold_reduction_split` times it. Of the split stage, the second combine is
//!   ~6 ms and the partials and ticket ~3.5; sharing one combine between both stages in a
//!   loop saved 2.6 ms, an out-of-line combine nothing, and none was taken. What remains
//!   of the unsplit kernel: the floor (23 ms here), `all.cuh` + `math_constants.cuh` ~5 ms
//!   (the user's expressions may use any of it), the 4× unrolled loop ~3.4 ms.
//! - **Rust kernel** (target 12): floor 6.2 + `jit.cuh` 2.0 + body ~6.5 ms, of which the
//!   three bounds checks (each inlining the fault record's write) ~2.8 ms and `expf`
//!   (libdevice) ~2.2 ms; a shared out-of-line fault path saves ~0.6 ms. NVRTC accounts for
//!   ~15 ms of the 23.3 ms row; the other ~8 ms are outside the compile (module load and
//!   the first launch's work on the GPU) and need the GPU to split.
//!   **Follow-up**: the row times the kernel cache's compile of the program text, the load
//!   and the lookup only (not the generated launcher), and NVRTC runs on one thread here
//!   (process CPU time = thread CPU time), so the ~8 ms are either NVRTC scaling worse than
//!   3.4× for this NVVM- and ptxas-heavy program or the driver's load of a module with a
//!   `__device__` global; `cuprum bench-child compile-cold-parts DIR` prints NVRTC, load
//!   and lookup per row, and the launcher's first launch, in one GPU run. Taken: the fault
//!   path out of line (`jit.cuh`, −1.7 ms here of 58–60 ms); the record's writes still
//!   cost ~5 ms as a whole, see `kernel/jit/def.rs`.
//! - **Fused** (target 20): trace, plan, lowering and the source take 0.2 ms on a
//!   process's first fused function (0.04 ms after); its one kernel compiles in ~9 ms
//!   (1.27× the bench's elementwise: `all.cuh`); a second compile in a process is not
//!   slower than later ones. So ~55 ms of the 64.5 ms row is on the GPU side of the first
//!   call in a fresh process (module load, allocation, launch), which only the GPU can
//!   split: `cuprum bench-child fuse-cold-parts` prints the pieces there, now with the
//!   call's NVRTC count and the same function's first call without NVRTC (module memo)
//!   and without the memo (disk entry + load); the path itself is in `fuse/mod.rs`.
//!   **Measured on the H100** (2026-11-27 14:35 UTC, `bench-child fuse-cold-parts`, one
//!   run): the first call 70.3 ms with one NVRTC compile of **48.5 ms**, load 0.14, a
//!   repeat call 0.13, the disk entry + load 0.22, an allocation 0.002: the estimate above
//!   was wrong — the fused kernel's own compile is most of the row (on that host, where
//!   the bench's elementwise NVRTC took 7.1 ms, the fused source costs ~7× more), and the
//!   rest (~22 ms) is the process's first NVRTC use and first launch. Next: find what in
//!   the fused source costs NVVM that much (the generated `cuprum_fused_*` body against the
//!   ElementwiseKernel's: its includes and the per-op helpers).
//!   The same run's `compile-cold-parts`: elementwise NVRTC 7.13 ms, reduction 15.57
//!   (split 14.72), Rust kernel 13.92 + load 0.44; the Rust kernel's first launch through
//!   its launcher 22.64 ms, so ~8 ms of that row is outside NVRTC and the load (the
//!   launcher's first-call work: the fault record, the argument schema); rows that run:
//!   compile_cold_elementwise 10.48, reduction 20.24, first in process 25.89, jit 28.87,
//!   fuse 68.84, disk hit 0.27 ms — that host's CPU ran slower than the 11:45 one (7.99 ms
//!   for the elementwise row there).
//! - **Disk hit in a fresh process** (target 0.12 ms; H100: 0.31 = lookup 0.20 + module
//!   load 0.11): the driver's module load alone is about the target. The lookup here
//!   (release build, fresh processes): the first key 100–150 µs — blake3's first use
//!   ~24 µs (its CPU feature detection) and the NVRTC identity ~16 system calls (a `stat`,
//!   `canonicalize`'s 9 `readlink`s, the wheel folder's listing for the builtins, their
//!   `stat`, the library's `stat` again) plus building the search's strings — then 1.1 µs
//!   for a later key, and 25–35 µs to open, check the owner, read and checksum the entry.
//!   Taken: the identity follows only the library file's own links (one `readlink`, not
//!   `canonicalize`'s nine): 16 → 6 system calls on NVRTC's paths, the first key's median
//!   129 → 93 µs and the whole hit's 160 → 120 µs (7 and 12 fresh processes on a loaded
//!   machine: noisy). Still open: no folder listing for a pip wheel (its builtins come in
//!   the same wheel), one `stat` instead of two; blake3's detection and the driver's load
//!   stay, so the target is out of reach while the load alone is ~0.1 ms.
//!   **On the H100 machine** (2026-11-27 19:55 UTC): the bench row 0.306 ms = the lookup
//!   0.266 (which includes generating the ElementwiseKernel's source) + the driver's load
//!   0.04. A 1 MB test program doing the same steps in fresh processes on that host (5
//!   disk hits): the source generation 36–48 µs (a process's first codegen; 8–12 µs for
//!   the next), the first key 47–100 µs (NVRTC's identity and blake3's first use; 1.5–2 µs
//!   for the next), the whole lookup with reading and checking the entry 83–142 µs. So
//!   ~0.12 ms of the row is the 7 MB `cuprum` binary's first run of that code in a fresh
//!   process (not split further: no `strace` or `perf` on that machine), and the parts
//!   cuprum controls already add up to about the target before the driver's load.
//!
//! What was measured and **not** taken:
//! - NVRTC's automatic precompiled headers (`--pch`): with `--minimal`, −2.7 ms for a
//!   kernel including `all.cuh` but −0.6 ms for the elementwise bench source; creating the
//!   PCH makes the first compile of each header prefix 10–20 ms slower (the
//!   first-in-process row would get worse), and it writes files under `/tmp` per process.
//! - PTX instead of a cubin (−5 to −9 ms in NVRTC): the driver then runs ptxas at load,
//!   the same work moved, not saved.
//! - `--Ofast-compile=min` (−1 to −1.5 ms) and `=max` (−3 ms): they lower the generated
//!   code's optimisation, which cuprum will not trade without a runtime measurement.
//! - `-default-device`, `--extra-device-vectorization` (already off), `-dopt`, `--std`:
//!   no measurable difference.

use super::cache::KernelCache;
use super::headers;
use super::nvrtc::Steps;
use super::options::CompileOptions;
use super::program;
use crate::error::{Result, err};
use std::time::{Duration, Instant};

/// One compile's breakdown, from [`profile_compile`].
#[derive(Debug, Clone)]
pub struct CompileProfile {
    /// Computing the kernel cache's key (what every lookup pays first).
    pub key_hash: Duration,
    /// The NVRTC calls (of the compile that produced the image, or the last try).
    pub steps: Steps,
    /// NVRTC's own phases from its `--time` report, `(phase, milliseconds)`: the CUDA C++
    /// front end, the NVVM optimizer, PTX translation (ptxas). Empty when NVRTC wrote none.
    pub phases: Vec<(String, f64)>,
    /// The bundled headers the source parses, `(name, bytes, lines)`, in include order
    /// (without those the lean-header macros among `flags` keep out).
    pub bundled_headers: Vec<(String, usize, usize)>,
    /// The in-memory headers the options pass, `(name, bytes, lines)` (NVRTC parses only
    /// those the source includes).
    pub memory_headers: Vec<(String, usize, usize)>,
    /// Whether the CUDA toolkit's include folders were passed (the source includes a CUDA
    /// header, whose parse is then part of the front end).
    pub cuda_headers: bool,
    /// Whether `--minimal` was passed.
    pub minimal: bool,
    /// The flags NVRTC got (besides `--time`).
    pub flags: Vec<String>,
    /// The image's size in bytes, and whether it is a cubin (else PTX).
    pub image_bytes: usize,
    /// True for a cubin, false for PTX.
    pub is_cubin: bool,
}

impl CompileProfile {
    /// The bytes and lines of all the bundled headers the source parses.
    pub fn bundled_total(&self) -> (usize, usize) {
        self.bundled_headers
            .iter()
            .fold((0, 0), |(b, l), (_, hb, hl)| (b + hb, l + hl))
    }
}

/// Compiles `source` for `arch` once, bypassing every cache, and says where the time went
/// (see [`CompileProfile`] and the module docs). Needs NVRTC, not a GPU.
///
/// ```
/// use cuprum::compile::{CompileOptions, profile_compile};
/// if cuprum::compile::nvrtc().is_ok() {
///     let src = "#include <cuprum/indexer.cuh>\nextern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }";
///     let p = profile_compile(src, &CompileOptions::new(), 90)?;
///     assert!(p.is_cubin && p.image_bytes > 0);
///     assert!(p.minimal);
///     assert_eq!(p.bundled_headers[0].0, "cuprum/indexer.cuh");
///     assert!(p.steps.compile > p.steps.create);
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn profile_compile(source: &str, opts: &CompileOptions, arch: u32) -> Result<CompileProfile> {
    let t = Instant::now();
    let _ = KernelCache::key(source, opts, arch);
    let key_hash = t.elapsed();
    let mut prepared = program::prepare(source, opts, arch)?;
    let flags = prepared.flags.clone();
    let dir = tempfile::tempdir()
        .map_err(|e| err!(Io, "cannot make a folder for NVRTC's --time: {e}"))?;
    let report = dir.path().join("time.csv");
    prepared.flags.push(format!("--time={}", report.display()));
    let mut steps = Steps::default();
    let img = program::run(source, opts, &prepared, &mut steps)?;
    let phases = std::fs::read_to_string(&report)
        .map(|t| parse_time_report(&t))
        .unwrap_or_default();
    let omitted = headers::omitted_by(&prepared.lean);
    let sized = |name: &str, text: &str| (name.to_string(), text.len(), text.lines().count());
    Ok(CompileProfile {
        key_hash,
        steps,
        phases,
        bundled_headers: headers::bundled_included(source)
            .into_iter()
            .filter(|(n, _)| !omitted.contains(n))
            .map(|(n, t)| sized(n, t))
            .collect(),
        memory_headers: opts.headers.iter().map(|(n, t)| sized(n, t)).collect(),
        cuda_headers: headers::needs_cuda_headers(source, &opts.headers),
        minimal: prepared.minimal,
        flags,
        image_bytes: img.image.len(),
        is_cubin: img.is_cubin,
    })
}

/// NVRTC's `--time` CSV (`file, phase, value, unit` after a header line) as `(phase,
/// milliseconds)`, summed per phase (one row per phase and program).
fn parse_time_report(text: &str) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        let [_, phase, value, unit] = cols[..] else {
            continue;
        };
        let Ok(v) = value.parse::<f64>() else {
            continue;
        };
        let ms = match unit {
            "ms" => v,
            "s" => v * 1e3,
            "us" => v / 1e3,
            _ => continue,
        };
        match out.iter_mut().find(|(p, _)| p == phase) {
            Some((_, total)) => *total += ms,
            None => out.push((phase.to_string(), ms)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_report_is_read_per_phase() {
        let csv = "File name, phase name, metric, unit\n\
                   k.cu, CUDA C++ Frontend, 9, ms\n\
                   k.cu, NVVM Optimizer, 7, ms\n\
                   k.cu, PTX Translation, 0.5, s\n\
                   k.cu, NVVM Optimizer, 2, ms\n\
                   garbage line\n\
                   k.cu, Odd, x, ms\n";
        assert_eq!(
            parse_time_report(csv),
            vec![
                ("CUDA C++ Frontend".to_string(), 9.0),
                ("NVVM Optimizer".to_string(), 9.0),
                ("PTX Translation".to_string(), 500.0)
            ]
        );
        assert!(parse_time_report("").is_empty());
    }
}
