//! NumPy 2's `unique_all` (values, first-occurrence indices, inverse, counts in one pass),
//! `unique` with `return_index`, and `unique` along an axis (unique sub-arrays).
//!
//! Flattened: one stable `argsort` (so the first element of every run of equal values is
//! the first occurrence), a gather of the sorted values, the run-start flags and their
//! compaction (`ops/unique.rs`'s kernels), gathers of the values and positions at the run
//! starts, the counts from the starts, and the inverse scattered from a `cumsum` of the
//! flags. `unique_all` is NumPy 2's array-API function, whose `equal_nan` is `False`: every
//! NaN is its own value (in input order); `unique_index` is `unique(return_index=True)`,
//! whose `equal_nan` is `True`: NaNs are one value (a complex value with a NaN in either
//! part is a NaN), indexed by the first. -0.0 and 0.0 are one value in both.
//!
//! Along an axis: the axis is moved first and the rest flattened, giving `n` rows of `m`
//! elements; the rows are sorted lexicographically by an LSD sequence of stable argsorts,
//! one per column from the last to the first (each a gather of the column by the current
//! permutation, an argsort, and a gather composing the permutations): `m` sorts of `n`
//! keys. Rows are equal when every element is `==` (as NumPy's structured comparison:
//! NaN differs from NaN, so rows holding NaNs are never merged; -0.0 equals 0.0).

use super::indexing::{IndexMode, flatnonzero, put_with, take_with};
use super::sort::argsort;
use super::unique::{counts_kernel, run_starts};
use crate::array::{Array, DType, SliceArg};
use crate::error::Result;
use crate::shape::normalize_axis;

/// What [`unique_all`] returns (NumPy 2's `UniqueAllResult`).
#[derive(Debug, Clone)]
pub struct UniqueAll {
    /// The sorted unique values (for an axis: the sorted unique sub-arrays).
    pub values: Array,
    /// For each unique value, the index (int64) of its first occurrence in the flattened
    /// input (along the axis for [`unique_all_axis`]).
    pub indices: Array,
    /// For each element of the input (each sub-array along the axis), the index (int64)
    /// of its value among `values`; the input's shape (1-D along an axis).
    pub inverse: Array,
    /// How often each unique value occurs (int64).
    pub counts: Array,
}

fn range(a: Option<isize>, b: Option<isize>) -> SliceArg {
    SliceArg::Range {
        start: a,
        end: b,
        step: 1,
    }
}

/// Everything from the sorted order `perm` of `n` items and the run-start flags `f` of
/// the sorted sequence: (starts, first-occurrence indices, inverse, counts).
fn from_runs(perm: &Array, f: &Array, n: usize) -> Result<(Array, Array, Array, Array)> {
    let starts = flatnonzero(f)?;
    let indices = take_with(perm, &starts, None, IndexMode::Clip)?;
    let counts = Array::empty(&[starts.size()], DType::I64)?;
    let inverse = Array::empty(&[n], DType::I64)?;
    if n > 0 {
        counts_kernel()?.call((&starts, n as i64, &counts))?;
        let rank = super::subtract(&super::cumsum(f, None)?, 1i64)?;
        put_with(&inverse, perm, &rank, IndexMode::Clip)?;
    }
    Ok((starts, indices, inverse, counts))
}

/// Flags the first element of every run of equal (`==`) values of the sorted 1-D `s`:
/// every NaN starts its own run.
fn strict_run_starts(s: &Array) -> Result<Array> {
    let n = s.size();
    let f = Array::empty(&[n], DType::Bool)?;
    if n > 0 {
        f.slice(&[range(None, Some(1))])?.fill(true)?;
    }
    if n > 1 {
        let cur = s.slice(&[range(Some(1), None)])?;
        let prev = s.slice(&[range(None, Some(-1))])?;
        super::not_equal_into(&cur, &prev, &f.slice(&[range(Some(1), None)])?)?;
    }
    Ok(f)
}

fn unique_all_impl(a: &Array, equal_nan: bool) -> Result<UniqueAll> {
    let flat = a.reshape_copy(&[-1])?;
    let perm = argsort(&flat, None)?;
    let s = take_with(&flat, &perm, None, IndexMode::Clip)?;
    let f = if equal_nan {
        run_starts(&s)?
    } else {
        strict_run_starts(&s)?
    };
    let (starts, indices, inverse, counts) = from_runs(&perm, &f, s.size())?;
    let values = take_with(&s, &starts, None, IndexMode::Clip)?;
    let shape: Vec<isize> = a.shape().iter().map(|&d| d as isize).collect();
    Ok(UniqueAll {
        values,
        indices,
        inverse: inverse.reshape(&shape)?,
        counts,
    })
}

/// NumPy 2's `unique_all`: the sorted unique values of the flattened `a`, the index of
/// each one's first occurrence, the inverse (with `a`'s shape: `values.take(inverse)`
/// rebuilds `a`) and the counts, from one stable sort. As NumPy's (an array-API function,
/// `equal_nan=False`) every NaN is a value of its own, sorted last in input order; -0.0
/// and 0.0 are one value. Every dtype, complex included (NumPy's complex order).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[3i32, 1, 3, 2, 1], &[5])?;
/// let u = ops::unique_all(&a)?;
/// assert_eq!(u.values.to_vec::<i32>()?, vec![1, 2, 3]);
/// assert_eq!(u.indices.to_vec::<i64>()?, vec![1, 3, 0]);
/// assert_eq!(u.inverse.to_vec::<i64>()?, vec![2, 0, 2, 1, 0]);
/// assert_eq!(u.counts.to_vec::<i64>()?, vec![2, 1, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique_all(a: &Array) -> Result<UniqueAll> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || unique_all(a)) {
        return r;
    }
    unique_all_impl(a, false)
}

/// The sorted unique values and the index (int64) of each one's first occurrence in the
/// flattened `a` (NumPy's `unique(a, return_index=True)`, whose `equal_nan` is `True`:
/// NaNs are one value, indexed by the first NaN).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[2.0f64, 1.0, 2.0, f64::NAN, 1.0, f64::NAN], &[6])?;
/// let (v, first) = ops::unique_index(&a)?;
/// assert_eq!(v.to_vec::<f64>()?[..2], [1.0, 2.0]);
/// assert_eq!(first.to_vec::<i64>()?, vec![1, 0, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique_index(a: &Array) -> Result<(Array, Array)> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || unique_index(a)) {
        return r;
    }
    let u = unique_all_impl(a, true)?;
    Ok((u.values, u.indices))
}

fn unique_axis_impl(a: &Array, axis: isize) -> Result<UniqueAll> {
    let nd = a.ndim();
    let ax = normalize_axis(axis, nd)?;
    let mut perm_axes: Vec<isize> = vec![ax as isize];
    perm_axes.extend((0..nd as isize).filter(|&k| k != ax as isize));
    let moved = a.permute(&perm_axes)?;
    let n = a.shape()[ax];
    let m: usize = moved.shape()[1..].iter().product();
    let rows = moved.reshape_copy(&[n as isize, m as isize])?;
    // LSD: stable argsorts of the columns from the last to the first.
    let mut perm = Array::arange(0.0, n as f64, 1.0, DType::I64)?;
    if n > 1 {
        for c in (0..m).rev() {
            let col = rows.slice(&[SliceArg::from(..), SliceArg::Index(c as isize)])?;
            let keys = take_with(&col, &perm, None, IndexMode::Clip)?;
            let order = argsort(&keys, None)?;
            perm = take_with(&perm, &order, None, IndexMode::Clip)?;
        }
    }
    let sorted = take_with(&rows, &perm, Some(0), IndexMode::Clip)?;
    let f = Array::empty(&[n], DType::Bool)?;
    if n > 0 {
        f.slice(&[range(None, Some(1))])?.fill(true)?;
    }
    if n > 1 {
        let rest = f.slice(&[range(Some(1), None)])?;
        if m == 0 {
            rest.fill(false)?;
        } else {
            let cur = sorted.slice(&[range(Some(1), None)])?;
            let prev = sorted.slice(&[range(None, Some(-1))])?;
            let ne = super::not_equal(&cur, &prev)?;
            rest.assign(&super::any_axis(&ne, 1, super::Keepdims::No)?)?;
        }
    }
    let (starts, indices, inverse, counts) = from_runs(&perm, &f, n)?;
    let picked = take_with(&sorted, &starts, Some(0), IndexMode::Clip)?;
    let mut shape: Vec<isize> = vec![starts.size() as isize];
    shape.extend(moved.shape()[1..].iter().map(|&d| d as isize));
    let picked = picked.reshape(&shape)?;
    // Back to the input's axis order.
    let mut back = vec![0isize; nd];
    for (k, &p) in perm_axes.iter().enumerate() {
        back[p as usize] = k as isize;
    }
    Ok(UniqueAll {
        values: picked.permute(&back)?.copy()?,
        indices,
        inverse,
        counts,
    })
}

/// The sorted unique sub-arrays of `a` along `axis` (NumPy's `unique(a, axis=axis)`):
/// the slices `a[…, i, …]` compared lexicographically in C order. Slices are equal when
/// every element is `==` (NaN never equals NaN here, as in NumPy); -0.0 equals 0.0.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1u8, 0, 0, 1, 1, 0, 0, 0], &[4, 2])?;
/// let u = ops::unique_axis(&a, 0)?;
/// assert_eq!((u.shape(), u.to_vec::<u8>()?), (&[3usize, 2][..], vec![0, 0, 0, 1, 1, 0]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique_axis(a: &Array, axis: isize) -> Result<Array> {
    Ok(unique_all_axis(a, axis)?.values)
}

/// [`unique_all`] along an axis: the sorted unique sub-arrays (as [`unique_axis`]), the
/// index along the axis of each one's first occurrence, the inverse (1-D, one entry per
/// position along the axis) and the counts.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[2i64, 2, 1, 1, 1, 2], &[2, 3])?; // columns (2, 1) (2, 1) (1, 2)
/// let u = ops::unique_all_axis(&a, 1)?;
/// assert_eq!(u.values.to_vec::<i64>()?, vec![1, 2, 2, 1]); // [[1, 2], [2, 1]]
/// assert_eq!(u.indices.to_vec::<i64>()?, vec![2, 0]);
/// assert_eq!(u.inverse.to_vec::<i64>()?, vec![1, 1, 0]);
/// assert_eq!(u.counts.to_vec::<i64>()?, vec![1, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn unique_all_axis(a: &Array, axis: isize) -> Result<UniqueAll> {
    if let Some(r) = crate::ops::programs::elsewhere_then(a, || unique_all_axis(a, axis)) {
        return r;
    }
    unique_axis_impl(a, axis)
}
