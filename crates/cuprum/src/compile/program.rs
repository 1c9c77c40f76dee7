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

use super::discovery;
use super::headers;
use super::nvrtc::{CompiledImage, Input, Nvrtc, Steps, nvrtc};
use super::options::CompileOptions;
use crate::error::Result;

/// NVRTC's flag that leaves texture/surface functions, the CUDA runtime's declarations and
/// device-side launches out of the implicit headers (see the module docs).
pub(crate) const MINIMAL: &str = "--minimal";

/// Everything NVRTC gets for one compile of `source`, besides the source itself.
pub(crate) struct Prepared<'a> {
    pub nv: &'static Nvrtc,
    pub flags: Vec<String>,
    pub headers: Vec<(&'a str, &'a str)>,
    pub cubin: bool,
    /// Whether `--minimal` was added (a compile that fails with it retries without it).
    pub minimal: bool,
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

/// One compile as prepared; where `--minimal` was added and the compile fails, it is
/// compiled again without it, and that compile's result (image or error) is the answer —
/// so `--minimal` can only make a compile faster, never make one fail.
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
        Err(e) if p.minimal && e.compile_failure().is_some() => {
            let full: Vec<String> = p.flags.iter().filter(|f| *f != MINIMAL).cloned().collect();
            p.nv.compile_timed(&input(&full), p.cubin, steps)
        }
        r => r,
    }
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
        if nvrtc().is_err() {
            eprintln!("skipped: no NVRTC");
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
}
