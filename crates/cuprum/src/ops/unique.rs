//! `unique` and its counts / inverse: built from the sort, an element-wise "differs from
//! its predecessor" flag, the compaction and the gathers. The values alone of a large
//! integer array come from a hash table of its distinct values when they are few enough
//! (`ops/unique_hash.rs`).

use super::indexing::{IndexMode, flatnonzero, put_with, take_with};
use super::sort::{argsort, sort};
use crate::array::{Array, DType, SliceArg};
use crate::error::Result;
use crate::kernel::ElementwiseKernel;
use std::sync::OnceLock;

/// `f = !(a == b)`, with every NaN equal to every NaN (NumPy 2's `equal_nan=True`; a
/// complex value with a NaN in either part is one NaN, as in NumPy).
pub(crate) fn differs_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "T a, T b",
            "bool f",
            "f = !(a == b || (a != a && b != b))",
            "cuprum_unique_differs",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `c = next start (or n) - start` over the starts of the runs of equal values.
pub(crate) fn counts_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw int64 s, int64 n",
            "int64 c",
            "c = (i + 1 < _ind.size() ? s[i + 1] : n) - s[i]",
            "cuprum_unique_counts",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Flags the first element of every run of equal values of the sorted 1-D `s`.
pub(crate) fn run_starts(s: &Array) -> Result<Array> {
    let n = s.size();
    let f = Array::empty(&[n], DType::Bool)?;
    if n == 0 {
        return Ok(f);
    }
    let r = |a: Option<isize>, b: Option<isize>| {
        [SliceArg::Range {
            start: a,
            end: b,
            step: 1,
        }]
    };
    f.slice(&r(None, Some(1)))?.fill(true)?;
    if n > 1 {
        let cur = s.slice(&r(Some(1), None))?;
        let prev = s.slice(&r(None, Some(-1)))?;
        differs_kernel()?.call((&cur, &prev, &f.slice(&r(Some(1), None))?))?;
    }
    Ok(f)
}

/// The sorted unique values of the flattened `a` (NumPy's `unique`; all NaNs count as one
/// value, -0.0 and 0.0 as one).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[3i32, 1, 3, 2, 1], &[5])?;
/// assert_eq!(ops::unique(&a)?.to_vec::<i32>()?, vec![1, 2, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique(a: &Array) -> Result<Array> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || unique(a)) {
        return r;
    }
    if super::unique_hash::applies(a)
        && let Some(u) = super::unique_hash::hashed_unique(&a.ravel()?.to_contiguous()?)?
    {
        return Ok(u);
    }
    let s = sort(a, None)?;
    let f = run_starts(&s)?;
    s.masked(&f).get()
}

/// The sorted unique values and how often each occurs (int64).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[2.0f32, 1.0, 2.0, 2.0], &[4])?;
/// let (v, c) = ops::unique_counts(&a)?;
/// assert_eq!((v.to_vec::<f32>()?, c.to_vec::<i64>()?), (vec![1.0, 2.0], vec![1, 3]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique_counts(a: &Array) -> Result<(Array, Array)> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || unique_counts(a)) {
        return r;
    }
    let s = sort(a, None)?;
    let n = s.size();
    let starts = flatnonzero(&run_starts(&s)?)?;
    let values = take_with(&s, &starts, None, IndexMode::Clip)?;
    let counts = Array::empty(&[starts.size()], DType::I64)?;
    if starts.size() > 0 {
        counts_kernel()?.call((&starts, n as i64, &counts))?;
    }
    Ok((values, counts))
}

/// The sorted unique values and, for every element of `a`, the index of its value among
/// them (int64, with `a`'s shape, as NumPy 2's `unique_inverse`): `values.take(inverse)`
/// rebuilds `a`.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[5u8, 3, 5, 4], &[2, 2])?;
/// let (v, inv) = ops::unique_inverse(&a)?;
/// assert_eq!(v.to_vec::<u8>()?, vec![3, 4, 5]);
/// assert_eq!((inv.shape(), inv.to_vec::<i64>()?), (&[2usize, 2][..], vec![2, 0, 2, 1]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique_inverse(a: &Array) -> Result<(Array, Array)> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || unique_inverse(a)) {
        return r;
    }
    let flat = a.reshape_copy(&[-1])?;
    let perm = argsort(&flat, None)?;
    let s = take_with(&flat, &perm, None, IndexMode::Clip)?;
    let f = run_starts(&s)?;
    let values = s.masked(&f).get()?;
    let inverse = Array::empty(&[s.size()], DType::I64)?;
    if s.size() > 0 {
        let rank = super::subtract(&super::cumsum(&f, None)?, 1i64)?;
        put_with(&inverse, &perm, &rank, IndexMode::Clip)?;
    }
    let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
    Ok((values, inverse.reshape(&shape)?))
}

/// The element-wise kernels of this file, for compile checks (every dtype).
pub(crate) fn elementwise_sources() -> Result<Vec<(String, String)>> {
    let mut v = Vec::new();
    let differs = differs_kernel()?;
    for &d in DType::ALL {
        v.push((
            format!("cuprum_unique_differs {}", d.name()),
            differs.generated_source(&[d, d, DType::Bool], &[false, false, false])?,
        ));
    }
    v.push((
        "cuprum_unique_counts".into(),
        counts_kernel()?.generated_source(&[DType::I64; 3], &[false, true, false])?,
    ));
    Ok(v)
}
