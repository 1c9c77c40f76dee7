//! The warm-up API: compile a list of kernels on all cores before their first call, so
//! that no call pays a compile (CuPy users ask for this).
//!
//! On a GPU each kernel's image is made ready the way a call would make it (bundles, disk
//! cache, NVRTC; `modules.rs`), in parallel with rayon: the first call then only loads the
//! module. On the host device each kernel is compiled and loaded (its shared object). Any
//! handle that knows its source and options takes part ([`Precompile`]): recorded kernels
//! ([`KernelRecord`], e.g. from [`read_list`](crate::bundle::read_list)), `RawKernel`
//! and `RawModule`. Generated kernels (elementwise, reduction, fused, ops) depend on the
//! dtypes of each call: record a run of the program and precompile the list.

use super::modules::warm;
use super::record::KernelRecord;
use crate::error::{Error, Result};
use crate::runtime::Device;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Something [`precompile`] can compile ahead of its first call: the kernels (source and
/// options) it would compile.
pub trait Precompile: Sync {
    /// The kernels, as records (empty for a handle with nothing to compile, such as a
    /// module loaded from a cubin file).
    fn kernels(&self) -> Vec<KernelRecord>;
}

impl Precompile for KernelRecord {
    fn kernels(&self) -> Vec<KernelRecord> {
        vec![self.clone()]
    }
}

impl<T: Precompile> Precompile for [T] {
    fn kernels(&self) -> Vec<KernelRecord> {
        self.iter().flat_map(Precompile::kernels).collect()
    }
}

impl<T: Precompile> Precompile for Vec<T> {
    fn kernels(&self) -> Vec<KernelRecord> {
        self.as_slice().kernels()
    }
}

/// Compiles every kernel of `items` for the current device on all cores, before their
/// first call; returns how many kernels it made ready. Failures are collected: the error
/// names how many failed and the first.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{RawKernel, RawModule};
/// let k = RawKernel::new(r#"extern "C" __global__ void fill(int* x) { x[threadIdx.x] = 1; }"#, "fill");
/// let m = RawModule::new(r#"extern "C" __global__ void zero(int* x) { x[threadIdx.x] = 0; }"#);
/// let n = cuprum::precompile(&[&k as &dyn cuprum::compile::Precompile, &m])?;
/// assert_eq!(n, 2);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn precompile(items: &[&dyn Precompile]) -> Result<usize> {
    precompile_with_progress(items, &|_, _, _| {})
}

/// [`precompile`], calling `progress(done, total, name)` after each kernel (from the
/// worker threads).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::bundle::KernelRecord;
/// let k = KernelRecord::new(r#"extern "C" __global__ void one(int* x) { x[0] = 1; }"#,
///                           &cuprum::CompileOptions::new());
/// let n = cuprum::compile::precompile_with_progress(&[&k], &|done, total, name| {
///     eprintln!("{done}/{total} {name}");
/// })?;
/// assert_eq!(n, 1);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn precompile_with_progress(
    items: &[&dyn Precompile],
    progress: &(dyn Fn(usize, usize, &str) + Sync),
) -> Result<usize> {
    let device = Device::current()?;
    let mut kernels: Vec<KernelRecord> = items.iter().flat_map(|i| i.kernels()).collect();
    let mut seen = rustc_hash::FxHashSet::default();
    kernels.retain(|k| seen.insert(super::cache::kernel_id(k.source(), &k.options())));
    let total = kernels.len();
    let done = AtomicUsize::new(0);
    let failures: Vec<Error> = kernels
        .par_iter()
        .filter_map(|k| {
            let r = warm(device, k.source(), &k.options());
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total, k.name());
            r.err()
        })
        .collect();
    match failures.first() {
        None => Ok(total),
        Some(first) => Err(Error::new(
            first.kind(),
            format!(
                "precompile: {} of {total} kernels failed; the first: {first}",
                failures.len()
            ),
        )),
    }
}
