//! One NVRTC program, uncached: the options, cuprum's bundled headers and in-memory
//! headers, and the CUDA include folders when the source includes a CUDA header (which
//! also enter the cache key).

use super::discovery;
use super::headers;
use super::nvrtc::{CompiledImage, nvrtc};
use super::options::CompileOptions;
use crate::error::Result;

/// Compiles with NVRTC, bypassing every cache (the bundled headers are always available;
/// the CUDA include folders are added when the source includes a CUDA header). An `-arch=`
/// among the options (`sm_90a`, `compute_90`) replaces the target chosen for `arch`.
pub(crate) fn compile_uncached(
    source: &str,
    opts: &CompileOptions,
    arch: u32,
) -> Result<CompiledImage> {
    let nv = nvrtc()?;
    let (target, cubin) = match opts.explicit_arch() {
        Some(t) => (t.to_string(), t.starts_with("sm_")),
        None => nv.target_for(arch),
    };
    let mut flags = opts.nvrtc_flags(&target);
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
    nv.compile(
        source,
        &opts.program_name,
        &flags,
        &headers,
        &opts.name_expressions,
        cubin,
    )
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
