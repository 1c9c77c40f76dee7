//! `diff`: differences of neighbours along an axis, NumPy's way — `a[1:] - a[:-1]` as a
//! subtraction of two sliced views (one element-wise kernel per order: each element read
//! once from memory, each result written once), `!=` for bool arrays, `prepend` / `append`
//! joined first with `concatenate`.

use super::join::concatenate;
use super::{not_equal, subtract};
use crate::array::{Array, DType, SliceArg};
use crate::error::{Result, bail};
use crate::shape::{Shape, normalize_axis};

/// The `n`-th discrete difference along `axis` (NumPy's `diff` with `axis` given; its
/// default is `-1`): `out[i] = a[i + 1] - a[i]`, applied `n` times, so the axis shrinks by
/// `n` (to 0 at the least). Bool arrays give `a[i + 1] != a[i]`; other dtypes keep theirs
/// (unsigned integers wrap, as in NumPy). `n = 0` gives `a` itself.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i32, 2, 4, 7, 0], &[5])?;
/// assert_eq!(ops::diff(&a, 1, -1)?.to_vec::<i32>()?, vec![1, 2, 3, -7]);
/// assert_eq!(ops::diff(&a, 2, -1)?.to_vec::<i32>()?, vec![1, 1, -10]);
/// let m = Array::from_slice(&[1.0f32, 3.0, 6.0, 10.0], &[2, 2])?;
/// assert_eq!(ops::diff(&m, 1, 0)?.to_vec::<f32>()?, vec![5.0, 7.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn diff(a: &Array, n: usize, axis: isize) -> Result<Array> {
    diff_with(a, n, axis, None, None)
}

/// [`diff`] with values joined before (`prepend`) and after (`append`) `a` along `axis`
/// first (NumPy's `prepend=` / `append=`): a 0-d array is broadcast to one slice of the
/// axis, other arrays must match `a`'s shape except along `axis`; the dtypes promote as in
/// [`concatenate`](crate::ops::concatenate).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i64, 3, 6], &[3])?;
/// let zero = Array::scalar(0i64)?;
/// let d = ops::diff_with(&a, 1, 0, Some(&zero), None)?;
/// assert_eq!(d.to_vec::<i64>()?, vec![1, 2, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn diff_with(
    a: &Array,
    n: usize,
    axis: isize,
    prepend: Option<&Array>,
    append: Option<&Array>,
) -> Result<Array> {
    if n == 0 {
        return Ok(a.clone());
    }
    if a.ndim() == 0 {
        bail!(
            Shape,
            "diff requires input that is at least one dimensional (given a 0-d array)"
        );
    }
    let ax = normalize_axis(axis, a.ndim())?;
    let mut cur = a.clone();
    if prepend.is_some() || append.is_some() {
        // A 0-d value stands for one slice of the axis (NumPy broadcasts it so).
        let edge = |e: &Array| -> Result<Array> {
            if e.ndim() == 0 {
                let mut shape = Shape::from_slice(a.shape());
                shape[ax] = 1;
                e.broadcast_to(&shape)
            } else {
                Ok(e.clone())
            }
        };
        let mut parts = Vec::with_capacity(3);
        if let Some(p) = prepend {
            parts.push(edge(p)?);
        }
        parts.push(a.clone());
        if let Some(p) = append {
            parts.push(edge(p)?);
        }
        let refs: Vec<&Array> = parts.iter().collect();
        cur = concatenate(&refs, Some(ax as isize))?;
    }
    let boolean = cur.dtype() == DType::Bool;
    for _ in 0..n {
        let len = cur.shape()[ax];
        let upper = cur.slice(&along(ax, len.min(1), len))?;
        let lower = cur.slice(&along(ax, 0, len.saturating_sub(1)))?;
        cur = if boolean {
            not_equal(&upper, &lower)?
        } else {
            subtract(&upper, &lower)?
        };
        if len <= 1 {
            break;
        }
    }
    Ok(cur)
}

/// Slicing arguments selecting `start..end` of axis `ax`.
fn along(ax: usize, start: usize, end: usize) -> Vec<SliceArg> {
    let mut v = vec![SliceArg::from(..); ax];
    v.push(SliceArg::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: 1,
    });
    v
}
