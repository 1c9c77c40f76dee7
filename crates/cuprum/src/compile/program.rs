//! One NVRTC program, uncached: the options, cuprum's bundled headers and in-memory
//! headers, and the CUDA include folders when the source includes a CUDA header (which
//! also enter the cache key).
//!
//! **`--minimal`.** NVRTC parses its implicit CUDA headers before every program; with
//! `--minimal` it leaves out texture and surface functions, the CUDA runtime's functions,
//! types and macros, and device-side launches, none of which cuprum's generated kernels
//! (elementwise, reduction, fused, ops, Rust kernels) use. A program gets it when a scan
//! of its text and in-memory headers finds none of those names and no CUDA header
//! ([`headers::minimal_ok`]); a compile that fails with it is compiled again without it,
//! so the flag never turns a working program into an error; it only leaves declarations
//! out, and the cubins come out byte-identical (a test checks one; the bench's elementwise
//! source and the `apply_activation` Rust kernel were checked too). The flag is decided
//! by the source and options alone, which the cache key already holds. Measured (see
//! `profile.rs` for the whole breakdown): it cuts the front end by 3–4 ms of a 20–30 ms
//! compile on this project's 2-core build machine.
//!
//! **`--no-cache`.** NVRTC 12.9+ keeps every program it compiles in the CUDA ComputeCache
//! (`~/.nv/ComputeCache`, keyed by content, across processes). cuprum's kernel cache
//! already keeps each image by its source, options and NVRTC, so NVRTC's is a second copy
//! that costs a lookup and a write on every miss and writes to disk even where the user
//! asked for no disk (`CUPRUM_CACHE_IN_MEMORY`): every compile passes `--no-cache`. On the
//! H100 machine (2026-11-27) a new kernel compiles in the same time either way (40–45 ms
//! for a generated ElementwiseKernel); what NVRTC's cache did there was to serve the
//! compile rows' sources, which then differed only in a comment: they read 7–23 ms, and a
//! process's compiles seemed to speed up after the first two (`cuprum compile --profile
//! --repeat`). The rows now rename their kernel per compile.
//!
//! **Lean headers.** The same way, a program that includes `cuprum/all.cuh` or
//! `cuprum/math_constants.cuh` gets `-DCUPRUM_OMIT_*` macros that leave out the parts its
//! text cannot reach — the `CUDART_*` constants, float16/bfloat16, complex numbers, the
//! operation helpers ([`headers::lean_flags`]) — and a compile that fails with them is
//! compiled again without them (and without `--minimal`). Every generated kernel includes
//! both headers (a user's expression may use any of it), but a float32 one uses a few
//! names: on the H100 machine's CPU the front end over the whole set cost 6–7 ms more
//! (the fused `(x * 2 + 1).maximum(0)` kernel 19 ms whole, 12.4 ms lean, with NVRTC's cache
//! serving what follows the front end; 2026-11-27, NVRTC 13.0).

use super::discovery;
use super::headers;
use super::nvrtc::{CompiledImage, Input, Nvrtc, Steps, nvrtc};
use super::options::CompileOptions;
use crate::error::Result;

/// NVRTC's flag that leaves texture/surface functions, the CUDA runtime's declarations and
/// device-side launches out of the implicit headers (see the module docs).
pub(crate) const MINIMAL: &str = "--minimal";

/// NVRTC's flag (12.9+) that keeps a compile out of its own program cache (see the module
/// docs).
pub(crate) const NO_CACHE: &str = "--no-cache";

/// Everything NVRTC gets for one compile of `source`, besides the source itself.
pub(crate) struct Prepared<'a> {
    pub nv: &'static Nvrtc,
    pub flags: Vec<String>,
    pub headers: Vec<(&'a str, &'a str)>,
    pub cubin: bool,
    /// Whether `--minimal` was added (a compile that fails with it retries without it).
    pub minimal: bool,
    /// The lean-header macros added (a compile that fails with them retries without them).
    pub lean: Vec<&'static str>,
}

/// The flags and headers of a compile: the target (an `-arch=` among the options, e.g.
/// `sm_90a` or `compute_90`, replaces the one chosen for `arch`), `--minimal` where
/// [`headers::minimal_ok`] allows it, the CUDA include folders when the source includes a
/// CUDA header, the in-memory headers and the bundled ones.
pub(crate) fn prepare<'a>(
    source: &str,
    opts: &'a CompileOptions,
    arch: u32,
) -> Result<Prepared<'a>> {
    let nv = nvrtc()?;
    let (target, cubin) = match opts.explicit_arch() {
        Some(t) => (t.to_string(), t.starts_with("sm_")),
        None => nv.target_for(arch),
    };
    let mut flags = opts.nvrtc_flags(&target);
    let minimal = !flags.iter().any(|f| f == MINIMAL) && headers::minimal_ok(source, &opts.headers);
    if minimal {
        flags.push(MINIMAL.to_string());
    }
    if nv.version() >= (12, 9) && !flags.iter().any(|f| f == NO_CACHE) {
        flags.push(NO_CACHE.to_string());
    }
    let lean = headers::lean_flags(source, &opts.headers);
    flags.extend(lean.iter().map(|f| f.to_string()));
    if headers::needs_cuda_headers(source, &opts.headers) {
        let found = discovery::header_search();
        flags.extend(
            found
                .include_dirs
                .iter()
                .map(|d| format!("-I{}", d.display())),
        );
    }
    let headers: Vec<(&str, &str)> = opts
        .headers
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .chain(headers::BUNDLED.iter().copied())
        .collect();
    Ok(Prepared {
        nv,
        flags,
        headers,
        cubin,
        minimal,
        lean,
    })
}

/// Compiles with NVRTC, bypassing every cache (the bundled headers are always available;
/// the CUDA include folders are added when the source includes a CUDA header). An `-arch=`
/// among the options (`sm_90a`, `compute_90`) replaces the target chosen for `arch`.
pub(crate) fn compile_uncached(
    source: &str,
    opts: &CompileOptions,
    arch: u32,
) -> Result<CompiledImage> {
    let p = prepare(source, opts, arch)?;
    run(source, opts, &p, &mut Steps::default())
}

/// One compile as prepared; where `--minimal` or lean-header macros were added and the
/// compile fails, it is compiled again without them, and that compile's result (image or
/// error) is the answer — so they can only make a compile faster, never make one fail.
pub(crate) fn run(
    source: &str,
    opts: &CompileOptions,
    p: &Prepared<'_>,
    steps: &mut Steps,
) -> Result<CompiledImage> {
    let input = |flags| Input {
        source,
        name: &opts.program_name,
        options: flags,
        headers: &p.headers,
        name_expressions: &opts.name_expressions,
    };
    let first = p.nv.compile_timed(&input(&p.flags), p.cubin, steps);
    match first {
        Err(e) if (p.minimal || !p.lean.is_empty()) && e.compile_failure().is_some() => {
            RETRIES.with(|r| r.set(r.get() + 1));
            let full: Vec<String> = p
                .flags
                .iter()
                .filter(|f| *f != MINIMAL && !p.lean.contains(&f.as_str()))
                .cloned()
                .collect();
            p.nv.compile_timed(&input(&full), p.cubin, steps)
        }
        r => r,
    }
}

thread_local! {
    static RETRIES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many compiles on this thread failed with `--minimal` or the lean-header macros and
/// ran again without them (a test that compiles every generated kernel expects none: each
/// retry is a second compile).
pub fn retries_on_this_thread() -> u64 {
    RETRIES.with(|r| r.get())
}

/// True when `source` includes a header that is neither one of cuprum's bundled headers
/// (`cuprum/...`) nor given in memory: then its compiles pass the CUDA include folders
/// ([`cuda_headers`](crate::compile::cuda_headers)) to NVRTC. A scan of its `#include` lines.
///
/// ```
/// use cuprum::compile::needs_cuda_headers;
/// assert!(needs_cuda_headers("#include <cooperative_groups.h>\n__global__ void k() {}"));
/// assert!(!needs_cuda_headers("#include <cuprum/all.cuh>\n__global__ void k() {}"));
/// ```
pub fn needs_cuda_headers(source: &str) -> bool {
    headers::needs_cuda_headers(source, &[])
}

/// What the cache key holds besides the NVRTC identity for a compile: the CUDA headers'
/// identity (folders and identity files) when the source includes a CUDA header, else
/// nothing (generated kernels never search for them).
pub(crate) fn cuda_headers_identity(source: &str, opts: &CompileOptions) -> Option<String> {
    headers::needs_cuda_headers(source, &opts.headers)
        .then(|| discovery::header_search().identity.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--minimal` goes to programs the scan clears, and a failing compile is retried
    /// without it: the error the caller gets comes from the full compile.
    #[test]
    fn minimal_is_added_where_safe_and_failures_retry_without_it() {
        if !crate::compile::nvrtc_for_test("compile::program minimal") {
            return;
        }
        let opts = CompileOptions::new();
        let good = "#include <cuprum/all.cuh>\nextern \"C\" __global__ void minimal_probe(float* x) { x[0] = 2.0f; }";
        let p = prepare(good, &opts, 90).unwrap();
        assert!(
            p.minimal && p.flags.iter().any(|f| f == MINIMAL),
            "{:?}",
            p.flags
        );
        let img = compile_uncached(good, &opts, 90).unwrap();
        let name = b"minimal_probe";
        assert!(img.is_cubin && img.image.windows(name.len()).any(|w| w == name));
        // The flag only leaves declarations out: the cubin is the same byte for byte.
        let without: Vec<String> = p.flags.iter().filter(|f| *f != MINIMAL).cloned().collect();
        let plain =
            p.nv.compile(good, "kernel.cu", &without, &p.headers, &[], true)
                .unwrap();
        assert_eq!(plain.image, img.image);

        let tex = "extern \"C\" __global__ void k(cudaTextureObject_t t, float* o) { o[0] = tex1Dfetch<float>(t, 0); }";
        let p = prepare(tex, &opts, 90).unwrap();
        assert!(!p.minimal && !p.flags.iter().any(|f| f == MINIMAL));
        compile_uncached(tex, &opts, 90).unwrap();

        let own = CompileOptions::new().option(MINIMAL);
        let p = prepare(good, &own, 90).unwrap();
        assert!(!p.minimal, "the user's own --minimal is not doubled");
        assert_eq!(p.flags.iter().filter(|f| *f == MINIMAL).count(), 1);

        let broken = "extern \"C\" __global__ void k(float* x) { x[0] = undefined_name; }";
        let e = compile_uncached(broken, &opts, 90).unwrap_err();
        let f = e.compile_failure().expect("a compile failure");
        assert!(f.log.contains("undefined_name"), "{}", f.log);
        assert!(!f.options.iter().any(|o| o == MINIMAL), "{:?}", f.options);
    }

    /// Lean-header macros go to programs whose text cannot reach what they leave out; they
    /// change no cubin, and a program that reaches a left-out part anyway (here `polar`,
    /// which returns a complex number, with no word naming one) compiles through the retry.
    #[test]
    fn lean_headers_leave_out_only_the_unreachable() {
        if !crate::compile::nvrtc_for_test("compile::program lean headers") {
            return;
        }
        let opts = CompileOptions::new();
        let head = "#include <cuprum/all.cuh>\n#include <cuprum/math_constants.cuh>\n";
        let fused = format!(
            "{head}extern \"C\" __global__ void lean_probe(const float* x, float* y, unsigned int n) {{\n\
             const cuprum::LoopSize s{{(long long)n}};\n\
             for (unsigned int i = threadIdx.x; i < s.size(); i += blockDim.x) y[i] = cuprum::maximum(x[i] * 2.0f + 1.0f, 0.0f);\n}}\n"
        );
        let p = prepare(&fused, &opts, 90).unwrap();
        // NVRTC's own program cache stays out of every compile (12.9+).
        let no_cache = p.flags.iter().filter(|f| *f == NO_CACHE).count();
        assert_eq!(
            no_cache,
            usize::from(p.nv.version() >= (12, 9)),
            "{:?}",
            p.flags
        );
        assert_eq!(
            p.lean,
            [
                "-DCUPRUM_OMIT_CONSTANTS",
                "-DCUPRUM_OMIT_HALF",
                "-DCUPRUM_OMIT_COMPLEX"
            ]
        );
        let lean = compile_uncached(&fused, &opts, 90).unwrap();
        let full_flags: Vec<String> = p
            .flags
            .iter()
            .filter(|f| !p.lean.contains(&f.as_str()))
            .cloned()
            .collect();
        let full =
            p.nv.compile(&fused, "kernel.cu", &full_flags, &p.headers, &[], true)
                .unwrap();
        assert_eq!(lean.image, full.image, "the macros change no cubin");

        let plain =
            format!("{head}extern \"C\" __global__ void lean_plain(float* x) {{ x[0] = 2.0f; }}\n");
        let p = prepare(&plain, &opts, 90).unwrap();
        assert_eq!(p.lean.len(), 4, "{:?}", p.lean);
        assert!(p.lean.contains(&"-DCUPRUM_OMIT_OPS"));

        // `polar` returns a complex number though no word names one: the lean compile
        // fails, the full one runs.
        let hidden = format!(
            "{head}extern \"C\" __global__ void lean_polar(float* x) {{ auto z = cuprum::polar(1.0f, x[1]); x[0] = z.re + CUDART_PI_F; }}\n"
        );
        let p = prepare(&hidden, &opts, 90).unwrap();
        assert_eq!(p.lean, ["-DCUPRUM_OMIT_HALF", "-DCUPRUM_OMIT_COMPLEX"]);
        let img = compile_uncached(&hidden, &opts, 90).unwrap();
        let name = b"lean_polar";
        assert!(img.image.windows(name.len()).any(|w| w == name));

        // Sources without cuprum's headers get no macros.
        let raw = "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }";
        assert!(prepare(raw, &opts, 90).unwrap().lean.is_empty());
    }
}
