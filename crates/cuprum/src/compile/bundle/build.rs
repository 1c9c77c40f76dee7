//! Building a bundle: every recorded kernel compiled with NVRTC for every architecture
//! asked for (cubins, `-arch=sm_XX`) plus PTX of the newest (`compute_XX`), in parallel on
//! all cores (rayon). No GPU is needed. A kernel recorded with an explicit `-arch=` option
//! is compiled once, for that target. Entries are sorted (kernel, target) so that the same
//! list and NVRTC give the same bytes.

use super::format::{self, Contents, Entry};
use crate::compile::cache::kernel_id;
use crate::compile::nvrtc::nvrtc;
use crate::compile::record::KernelRecord;
use crate::error::{Error, ErrorKind, Result, bail};
use rayon::prelude::*;

/// Parses a list of architectures such as `sm_80,sm_90,sm_100` (or `80,90,100`): sorted,
/// without duplicates. Only plain `sm_XY` targets: each becomes a cubin, and the newest
/// also PTX.
///
/// ```
/// assert_eq!(cuprum::bundle::parse_targets("sm_90, 80,sm_90")?, vec![80, 90]);
/// let e = cuprum::bundle::parse_targets("sm_90a").unwrap_err();
/// assert!(e.to_string().contains("sm_90a"), "{e}");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn parse_targets(list: &str) -> Result<Vec<u32>> {
    let mut v = Vec::new();
    for t in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let digits = t.strip_prefix("sm_").unwrap_or(t);
        match digits.parse::<u32>() {
            Ok(n) if (30..=1000).contains(&n) && digits.chars().all(|c| c.is_ascii_digit()) => {
                v.push(n)
            }
            _ => bail!(
                InvalidArgument,
                "{t:?} is not an architecture: expected plain targets such as sm_80,sm_90,sm_100"
            ),
        }
    }
    if v.is_empty() {
        bail!(
            InvalidArgument,
            "no architecture given: expected a list such as sm_80,sm_90,sm_100"
        );
    }
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// Compiles every kernel of `records` for each architecture of `archs` (cubins) and the
/// newest of them as PTX, in parallel on all cores, and returns the bundle's bytes.
/// `progress` is called with each finished kernel's name (from several threads). A kernel
/// that fails to compile fails the build, naming it and the target.
///
/// ```
/// use cuprum::bundle::{Bundle, KernelRecord, build, parse_targets};
/// if cuprum::compile::nvrtc().is_ok() {
///     let k = KernelRecord::new(r#"extern "C" __global__ void k(int* x) { x[0] = 7; }"#,
///                               &cuprum::CompileOptions::new());
///     let bytes = build(&[k], &parse_targets("sm_80,sm_90")?, &|_| {})?;
///     let b = Bundle::from_bytes(&bytes, "doc")?;
///     assert_eq!((b.kernels(), b.images()), (1, 3)); // sm_80, sm_90, compute_90
/// }
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn build(
    records: &[KernelRecord],
    archs: &[u32],
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Vec<u8>> {
    let Some(&newest) = archs.iter().max() else {
        bail!(InvalidArgument, "no architecture to build the bundle for");
    };
    let mut targets: Vec<String> = archs.iter().map(|a| format!("sm_{a}")).collect();
    targets.push(format!("compute_{newest}"));
    let made_by = match nvrtc() {
        Ok(n) => format!(
            "cuprum {}, NVRTC {}.{}",
            env!("CARGO_PKG_VERSION"),
            n.version().0,
            n.version().1
        ),
        Err(_) => format!("cuprum {}", env!("CARGO_PKG_VERSION")),
    };
    let mut jobs: Vec<(&KernelRecord, String)> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for r in records {
        let opts = r.options();
        if !seen.insert(kernel_id(r.source(), &opts)) {
            continue;
        }
        match opts.explicit_arch() {
            Some(t) => jobs.push((r, t.to_string())),
            None => jobs.extend(targets.iter().map(|t| (r, t.clone()))),
        }
    }
    if !jobs.is_empty() {
        let nv = nvrtc()?;
        for t in &targets {
            nv.check_target(t)?;
        }
    }
    let results: Vec<Result<Entry>> = jobs
        .par_iter()
        .map(|(r, t)| {
            let e = compile_one(r, t);
            progress(r.name());
            e
        })
        .collect();
    let mut entries = Vec::with_capacity(results.len());
    let mut failed: Vec<Error> = Vec::new();
    for r in results {
        match r {
            Ok(e) => entries.push(e),
            Err(e) => failed.push(e),
        }
    }
    if let Some(first) = failed.first() {
        return Err(Error::new(
            first.kind(),
            format!(
                "{} of {} compiles of the bundle failed; the first: {first}",
                failed.len(),
                jobs.len()
            ),
        ));
    }
    entries.sort_by(|a, b| (a.id, &a.target).cmp(&(b.id, &b.target)));
    format::encode(&Contents {
        made_by,
        targets,
        entries,
        tuning: Vec::new(),
    })
}

/// One kernel for one target (`sm_90`: cubin; `compute_90`: PTX; or the record's own
/// explicit target).
fn compile_one(r: &KernelRecord, target: &str) -> Result<Entry> {
    let opts = r.options();
    let id = kernel_id(r.source(), &opts);
    let with_arch = if opts.explicit_arch().is_some() {
        opts
    } else {
        opts.option(format!("-arch={target}"))
    };
    let arch = target
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .trim_end_matches(['a', 'f'])
        .parse::<u32>()
        .unwrap_or(0);
    let image =
        crate::compile::program::compile_uncached(r.source(), &with_arch, arch).map_err(|e| {
            let mut out = Error::new(e.kind(), format!("kernel `{}` for {target}: {e}", r.name()));
            if e.kind() != ErrorKind::Compile {
                out = out.with_source(e);
            }
            out
        })?;
    Ok(Entry {
        id,
        target: target.to_string(),
        name: r.name().to_string(),
        image,
    })
}
