//! Joining and splitting: `concatenate`, `stack` (new memory, one copy per input into its
//! part of the result: a device memcpy when both are contiguous, else the array layer's
//! strided copy kernel) and `split` / `array_split` (views, no copies).

use super::promote::result_type_of;
use crate::array::{Array, SliceArg};
use crate::error::{Result, bail};
use crate::shape::{Shape, format_shape, normalize_axis};

/// Joins arrays along an existing `axis` (`None`: flattens each first), NumPy's
/// `concatenate`: shapes must match except along `axis`; the result has the promoted
/// dtype of the inputs ([`promote_types`](crate::ops::promote_types)).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let b = Array::from_slice(&[5.0f32, 6.0], &[1, 2])?;
/// let c = ops::concatenate(&[&a, &b], Some(0))?;
/// assert_eq!((c.shape(), c.to_vec::<f32>()?), (&[3usize, 2][..], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
/// assert_eq!(ops::concatenate(&[&a, &b.t()], Some(1))?.shape(), &[2, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn concatenate(arrays: &[&Array], axis: Option<isize>) -> Result<Array> {
    let Some(first) = arrays.first() else {
        bail!(InvalidArgument, "need at least one array to concatenate");
    };
    for a in arrays {
        crate::array::check_same_device("concatenate", first.device(), a.device())?;
    }
    if crate::runtime::Stream::for_device(first.device())? != crate::runtime::Stream::current()? {
        return crate::ops::programs::on_device_of(first, || concatenate(arrays, axis));
    }
    let dtypes: Vec<_> = arrays.iter().map(|a| a.dtype()).collect();
    let dtype = result_type_of(&dtypes, &[])?;
    let Some(axis) = axis else {
        let flat: Vec<Array> = arrays
            .iter()
            .map(|a| a.reshape_copy(&[-1]))
            .collect::<Result<_>>()?;
        let refs: Vec<&Array> = flat.iter().collect();
        return concatenate(&refs, Some(0));
    };
    let nd = first.ndim();
    if nd == 0 {
        bail!(Shape, "zero-dimensional arrays cannot be concatenated");
    }
    let ax = normalize_axis(axis, nd)?;
    let mut total = 0usize;
    for (k, a) in arrays.iter().enumerate() {
        if a.ndim() != nd {
            bail!(
                Shape,
                "all the input array dimensions except for the concatenation axis must match \
                 exactly: array 0 has {nd} dimension(s) and the array at index {k} has {} \
                 dimension(s)",
                a.ndim()
            );
        }
        for d in 0..nd {
            if d != ax && a.shape()[d] != first.shape()[d] {
                bail!(
                    Shape,
                    "all the input array dimensions except for the concatenation axis must \
                     match exactly, but along dimension {d}, the array at index 0 has size {} \
                     and the array at index {k} has size {} (shapes {} and {})",
                    first.shape()[d],
                    a.shape()[d],
                    format_shape(first.shape()),
                    format_shape(a.shape())
                );
            }
        }
        total += a.shape()[ax];
    }
    let mut shape = Shape::from_slice(first.shape());
    shape[ax] = total;
    let out = Array::empty(&shape, dtype)?;
    let mut at = 0isize;
    for a in arrays {
        let len = a.shape()[ax] as isize;
        if len > 0 && a.size() > 0 {
            let part = out.slice(&along(ax, at, at + len))?;
            if a.dtype() == dtype {
                part.assign(a)?;
            } else {
                part.assign(&a.astype(dtype)?)?;
            }
        }
        at += len;
    }
    Ok(out)
}

/// Slicing arguments selecting `start..end` of axis `ax`.
fn along(ax: usize, start: isize, end: isize) -> Vec<SliceArg> {
    let mut v = vec![SliceArg::from(..); ax];
    v.push(SliceArg::Range {
        start: Some(start),
        end: Some(end),
        step: 1,
    });
    v
}

/// Joins arrays of one shape along a new `axis` (NumPy's `stack`; `axis` may be `ndim`,
/// or negative).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i32, 2], &[2])?;
/// let b = Array::from_slice(&[3i32, 4], &[2])?;
/// assert_eq!(ops::stack(&[&a, &b], 0)?.to_vec::<i32>()?, vec![1, 2, 3, 4]);
/// assert_eq!(ops::stack(&[&a, &b], -1)?.to_vec::<i32>()?, vec![1, 3, 2, 4]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn stack(arrays: &[&Array], axis: isize) -> Result<Array> {
    let Some(first) = arrays.first() else {
        bail!(InvalidArgument, "need at least one array to stack");
    };
    for a in arrays {
        if a.shape() != first.shape() {
            bail!(
                Shape,
                "all input arrays must have the same shape (got {} and {})",
                format_shape(first.shape()),
                format_shape(a.shape())
            );
        }
    }
    let expanded: Vec<Array> = arrays
        .iter()
        .map(|a| a.expand_dims(axis))
        .collect::<Result<_>>()?;
    let refs: Vec<&Array> = expanded.iter().collect();
    concatenate(&refs, Some(axis))
}

/// Where to split: into `n` equal parts, or before each of the given positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// This many parts of equal length (`split`; `array_split` makes the first ones one
    /// longer when the length does not divide).
    Sections(usize),
    /// Split points along the axis (Python slice semantics: negative counts from the end,
    /// out-of-range clamps, a decreasing pair gives an empty part).
    Indices(Vec<isize>),
}

impl From<usize> for Split {
    fn from(n: usize) -> Split {
        Split::Sections(n)
    }
}

impl From<&[isize]> for Split {
    fn from(v: &[isize]) -> Split {
        Split::Indices(v.to_vec())
    }
}

impl<const N: usize> From<[isize; N]> for Split {
    fn from(v: [isize; N]) -> Split {
        Split::Indices(v.to_vec())
    }
}

impl From<Vec<isize>> for Split {
    fn from(v: Vec<isize>) -> Split {
        Split::Indices(v)
    }
}

/// The `(start, end)` of every part.
pub(crate) fn split_bounds(len: usize, how: &Split, equal: bool) -> Result<Vec<(usize, usize)>> {
    match how {
        Split::Sections(0) => bail!(InvalidArgument, "number sections must be larger than 0."),
        Split::Sections(k) => {
            let k = *k;
            if equal && !len.is_multiple_of(k) {
                bail!(
                    Shape,
                    "array split does not result in an equal division: {len} into {k} sections"
                );
            }
            let (each, extra) = (len / k, len % k);
            let mut at = 0;
            Ok((0..k)
                .map(|i| {
                    let l = each + usize::from(i < extra);
                    let b = (at, at + l);
                    at += l;
                    b
                })
                .collect())
        }
        Split::Indices(pts) => {
            let clamp = |p: isize| -> usize {
                let p = if p < 0 { p + len as isize } else { p };
                p.clamp(0, len as isize) as usize
            };
            let mut out = Vec::with_capacity(pts.len() + 1);
            let mut prev = 0usize;
            for &p in pts {
                let e = clamp(p);
                out.push((prev, e.max(prev)));
                prev = e;
            }
            out.push((prev.min(len), len));
            Ok(out)
        }
    }
}

fn split_impl(a: &Array, how: Split, axis: isize, equal: bool) -> Result<Vec<Array>> {
    if a.ndim() == 0 {
        bail!(Shape, "array split does not work on 0-d arrays");
    }
    let ax = normalize_axis(axis, a.ndim())?;
    split_bounds(a.shape()[ax], &how, equal)?
        .into_iter()
        .map(|(s, e)| a.slice(&along(ax, s as isize, e as isize)))
        .collect()
}

/// Splits `a` along `axis` into views (no copies), NumPy's `split`: `n` equal parts (an
/// error when the length does not divide) or parts between the given indices.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(0.0, 6.0, 1.0, DType::I32)?;
/// let parts = ops::split(&a, 3, 0)?;
/// assert_eq!(parts[1].to_vec::<i32>()?, vec![2, 3]);
/// let parts = ops::split(&a, [1, 4], 0)?;
/// assert_eq!(parts.iter().map(|p| p.size()).collect::<Vec<_>>(), vec![1, 3, 2]);
/// assert!(parts[1].shares_memory(&a));
/// assert!(ops::split(&a, 4, 0).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn split(a: &Array, how: impl Into<Split>, axis: isize) -> Result<Vec<Array>> {
    split_impl(a, how.into(), axis, true)
}

/// [`split`] that allows unequal parts (NumPy's `array_split`: the first `len % n` parts
/// are one longer).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(0.0, 5.0, 1.0, DType::F32)?;
/// let sizes: Vec<usize> = ops::array_split(&a, 3, 0)?.iter().map(|p| p.size()).collect();
/// assert_eq!(sizes, vec![2, 2, 1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn array_split(a: &Array, how: impl Into<Split>, axis: isize) -> Result<Vec<Array>> {
    split_impl(a, how.into(), axis, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_follow_numpy() {
        assert_eq!(
            split_bounds(6, &Split::Sections(3), true).unwrap(),
            vec![(0, 2), (2, 4), (4, 6)]
        );
        assert!(split_bounds(5, &Split::Sections(3), true).is_err());
        assert_eq!(
            split_bounds(5, &Split::Sections(3), false).unwrap(),
            vec![(0, 2), (2, 4), (4, 5)]
        );
        assert_eq!(
            split_bounds(2, &Split::Sections(3), false).unwrap(),
            vec![(0, 1), (1, 2), (2, 2)]
        );
        // np.split(arange(10), [3, -2, 20, 1]) -> [0:3], [3:8], [8:10], [10:1]=[], [1:]
        assert_eq!(
            split_bounds(10, &Split::Indices(vec![3, -2, 20, 1]), true).unwrap(),
            vec![(0, 3), (3, 8), (8, 10), (10, 10), (1, 10)]
        );
        assert_eq!(
            split_bounds(4, &Split::Indices(vec![]), true).unwrap(),
            vec![(0, 4)]
        );
        assert!(split_bounds(4, &Split::Sections(0), false).is_err());
    }
}
