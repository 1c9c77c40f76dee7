//! Shape and stride arithmetic: broadcasting, reshaping without copies, slicing, and the
//! dimension merging generated kernels use. Pure functions, no GPU.
//!
//! Strides here count **elements**, not bytes (CuPy counts bytes; multiply by the item size).

use crate::error::{Result, bail, err};
use smallvec::SmallVec;
use std::fmt::Write;

/// The extents of an array, outermost first.
pub type Shape = SmallVec<[usize; 6]>;
/// Element strides, one per dimension; may be 0 (broadcast) or negative (reversed views).
pub type Strides = SmallVec<[isize; 6]>;

/// The most dimensions an array may have (NumPy's limit).
pub const MAX_NDIM: usize = 64;

/// Formats a shape the way NumPy prints it: `()`, `(3,)`, `(2, 3)`.
///
/// ```
/// assert_eq!(cuprum::shape::format_shape(&[3]), "(3,)");
/// assert_eq!(cuprum::shape::format_shape(&[2, 3]), "(2, 3)");
/// assert_eq!(cuprum::shape::format_shape(&[]), "()");
/// ```
pub fn format_shape(shape: &[usize]) -> String {
    let mut s = String::from("(");
    for (i, d) in shape.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{d}");
    }
    if shape.len() == 1 {
        s.push(',');
    }
    s.push(')');
    s
}

/// Number of elements of `shape`, or an error if it overflows `isize`.
///
/// ```
/// assert_eq!(cuprum::shape::size_of(&[2, 3, 4]).unwrap(), 24);
/// assert_eq!(cuprum::shape::size_of(&[]).unwrap(), 1);
/// assert!(cuprum::shape::size_of(&[usize::MAX, 2]).is_err());
/// ```
pub fn size_of(shape: &[usize]) -> Result<usize> {
    if shape.len() > MAX_NDIM {
        bail!(
            Shape,
            "an array may have at most {MAX_NDIM} dimensions, got {}",
            shape.len()
        );
    }
    let mut n: usize = 1;
    for &d in shape {
        n = n
            .checked_mul(d)
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| err!(Shape, "shape {} is too large", format_shape(shape)))?;
    }
    Ok(n)
}

/// C-order (row-major) element strides of a contiguous array of `shape`.
///
/// ```
/// assert_eq!(cuprum::shape::c_strides(&[2, 3, 4]).as_slice(), &[12, 4, 1]);
/// ```
pub fn c_strides(shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(0, shape.len());
    let mut acc: isize = 1;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc = acc.wrapping_mul(shape[i].max(1) as isize);
    }
    strides
}

/// Whether a view with these strides is C-contiguous (dimensions of extent 1 may have any
/// stride; an empty array is contiguous).
///
/// ```
/// use cuprum::shape::is_c_contiguous;
/// assert!(is_c_contiguous(&[2, 3], &[3, 1]));
/// assert!(!is_c_contiguous(&[2, 3], &[1, 2]));
/// assert!(is_c_contiguous(&[1, 3], &[99, 1]));
/// ```
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected: isize = 1;
    for i in (0..shape.len()).rev() {
        if shape[i] != 1 {
            if strides[i] != expected {
                return false;
            }
            expected *= shape[i] as isize;
        }
    }
    true
}

/// The broadcast shape of several shapes (NumPy rules: right-align, each extent equal or 1).
///
/// ```
/// use cuprum::shape::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[&[4, 1][..], &[3][..]]).unwrap().as_slice(), &[4, 3]);
/// let err = broadcast_shapes(&[&[2][..], &[3][..]]).unwrap_err();
/// assert_eq!(err.to_string(), "operands could not be broadcast together with shapes (2,) (3,)");
/// ```
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Shape> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out: Shape = SmallVec::from_elem(1, ndim);
    for s in shapes {
        let off = ndim - s.len();
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[off + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                let all: Vec<String> = shapes.iter().map(|s| format_shape(s)).collect();
                bail!(
                    Shape,
                    "operands could not be broadcast together with shapes {}",
                    all.join(" ")
                );
            }
        }
    }
    Ok(out)
}

/// Strides that view an array of `shape`/`strides` as `target` (stride 0 on broadcast axes).
///
/// ```
/// use cuprum::shape::broadcast_strides;
/// assert_eq!(broadcast_strides(&[3], &[1], &[2, 3]).unwrap().as_slice(), &[0, 1]);
/// assert!(broadcast_strides(&[2], &[1], &[3]).is_err());
/// ```
pub fn broadcast_strides(shape: &[usize], strides: &[isize], target: &[usize]) -> Result<Strides> {
    if shape.len() > target.len() {
        bail!(
            Shape,
            "cannot broadcast an array of shape {} to the smaller rank shape {}",
            format_shape(shape),
            format_shape(target)
        );
    }
    let off = target.len() - shape.len();
    let mut out: Strides = SmallVec::from_elem(0, target.len());
    for i in 0..shape.len() {
        if shape[i] == target[off + i] {
            out[off + i] = if shape[i] == 1 { 0 } else { strides[i] };
        } else if shape[i] == 1 {
            out[off + i] = 0;
        } else {
            bail!(
                Shape,
                "cannot broadcast an array of shape {} to shape {}",
                format_shape(shape),
                format_shape(target)
            );
        }
    }
    Ok(out)
}

/// Resolves a requested shape that may hold one `-1` (inferred) for an array of `size`
/// elements.
///
/// ```
/// use cuprum::shape::infer_shape;
/// assert_eq!(infer_shape(12, &[3, -1]).unwrap().as_slice(), &[3, 4]);
/// assert!(infer_shape(12, &[5, -1]).is_err());
/// assert!(infer_shape(12, &[-1, -1]).is_err());
/// ```
pub fn infer_shape(size: usize, requested: &[isize]) -> Result<Shape> {
    let mut unknown = None;
    let mut known: usize = 1;
    for (i, &d) in requested.iter().enumerate() {
        if d == -1 {
            if unknown.is_some() {
                bail!(
                    Shape,
                    "can only specify one unknown dimension (-1) in {requested:?}"
                );
            }
            unknown = Some(i);
        } else if d < 0 {
            bail!(Shape, "negative dimension {d} in shape {requested:?}");
        } else {
            known = known
                .checked_mul(d as usize)
                .ok_or_else(|| err!(Shape, "shape {requested:?} is too large"))?;
        }
    }
    let mut out: Shape = requested.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = unknown {
        if known == 0 || !size.is_multiple_of(known) {
            bail!(
                Shape,
                "cannot reshape array of size {size} into shape {requested:?}"
            );
        }
        out[i] = size / known;
    } else if known != size {
        bail!(
            Shape,
            "cannot reshape array of size {size} into shape {}",
            format_shape(&out)
        );
    }
    size_of(&out)?;
    Ok(out)
}

/// Strides for viewing (`shape`, `strides`) as `new_shape` without copying, or `None` when
/// the memory layout does not allow it (then a copy is needed). Sizes must be equal.
///
/// ```
/// use cuprum::shape::nocopy_reshape;
/// // A contiguous (2, 6) array can become (3, 4).
/// assert_eq!(nocopy_reshape(&[2, 6], &[6, 1], &[3, 4]).unwrap().as_slice(), &[4, 1]);
/// // Its transpose (6, 2) with strides (1, 6) cannot be flattened without a copy.
/// assert!(nocopy_reshape(&[6, 2], &[1, 6], &[12]).is_none());
/// ```
pub fn nocopy_reshape(shape: &[usize], strides: &[isize], new_shape: &[usize]) -> Option<Strides> {
    let size: usize = shape.iter().product();
    if size == 0 || size == 1 {
        return Some(c_strides(new_shape));
    }
    // Work on the dims of extent != 1 only.
    let old: Vec<(usize, isize)> = shape
        .iter()
        .zip(strides)
        .filter(|(d, _)| **d != 1)
        .map(|(d, s)| (*d, *s))
        .collect();
    let mut out: Strides = SmallVec::from_elem(0, new_shape.len());
    let (mut oi, mut oj) = (0usize, 1usize);
    let (mut ni, mut nj) = (0usize, 1usize);
    let (olen, nlen) = (old.len(), new_shape.len());
    while ni < nlen && oi < olen {
        let mut np = new_shape[ni];
        let mut op = old[oi].0;
        while np != op {
            if np < op {
                np *= new_shape[nj];
                nj += 1;
            } else {
                op *= old[oj].0;
                oj += 1;
            }
        }
        // The old axes oi..oj must be mergeable (C-contiguous among themselves).
        for ok in oi..oj - 1 {
            if old[ok].1 != old[ok + 1].1 * old[ok + 1].0 as isize {
                return None;
            }
        }
        // Lay out new axes ni..nj over the last old axis' stride.
        out[nj - 1] = old[oj - 1].1;
        for nk in (ni + 1..nj).rev() {
            out[nk - 1] = out[nk] * new_shape[nk] as isize;
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    // Remaining new dims are extent 1.
    for nk in ni..nlen {
        out[nk] = 1;
    }
    for (nk, &d) in new_shape.iter().enumerate() {
        if d == 1 {
            out[nk] = if nk + 1 < nlen {
                out[nk + 1] * new_shape[nk + 1] as isize
            } else {
                1
            };
        }
    }
    Some(out)
}

/// Turns a possibly negative axis into an index below `ndim`.
///
/// ```
/// use cuprum::shape::normalize_axis;
/// assert_eq!(normalize_axis(-1, 3).unwrap(), 2);
/// let err = normalize_axis(3, 3).unwrap_err();
/// assert_eq!(err.to_string(), "axis 3 is out of bounds for array of dimension 3");
/// ```
pub fn normalize_axis(axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        bail!(
            Shape,
            "axis {axis} is out of bounds for array of dimension {ndim}"
        );
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// One entry of a slicing request: an index (drops the axis), a range with a step, or a new
/// axis of extent 1. Build them with [`s!`](crate::s) or the `From` impls.
///
/// ```
/// use cuprum::SliceArg;
/// let a: SliceArg = (1..4).into();
/// assert_eq!(a, SliceArg::Range { start: Some(1), end: Some(4), step: 1 });
/// assert_eq!(SliceArg::from(..).step(-1), SliceArg::Range { start: None, end: None, step: -1 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceArg {
    /// A single position (negative counts from the end); removes the axis.
    Index(isize),
    /// `start..end` with a step (Python's `start:end:step`; `None` means "from the edge").
    Range {
        /// first position (negative counts from the end)
        start: Option<isize>,
        /// one past the last position (negative counts from the end)
        end: Option<isize>,
        /// distance between positions; negative walks backwards; never 0
        step: isize,
    },
    /// Inserts a new axis of extent 1 (NumPy's `newaxis`).
    NewAxis,
    /// A request that cannot be honoured (a step given to an index or a new axis); slicing
    /// reports it.
    Invalid(&'static str),
}

impl SliceArg {
    /// The same range with another step (Python's `::step`). A step on an index or a new
    /// axis becomes [`SliceArg::Invalid`], which slicing reports.
    pub fn step(self, step: isize) -> SliceArg {
        match self {
            SliceArg::Range { start, end, .. } => SliceArg::Range { start, end, step },
            SliceArg::Index(_) => SliceArg::Invalid("a step applies to a range, not to an index"),
            SliceArg::NewAxis => SliceArg::Invalid("a step applies to a range, not to a new axis"),
            inv @ SliceArg::Invalid(_) => inv,
        }
    }
}

impl From<isize> for SliceArg {
    fn from(i: isize) -> Self {
        SliceArg::Index(i)
    }
}
impl From<std::ops::Range<isize>> for SliceArg {
    fn from(r: std::ops::Range<isize>) -> Self {
        SliceArg::Range {
            start: Some(r.start),
            end: Some(r.end),
            step: 1,
        }
    }
}
impl From<std::ops::RangeFrom<isize>> for SliceArg {
    fn from(r: std::ops::RangeFrom<isize>) -> Self {
        SliceArg::Range {
            start: Some(r.start),
            end: None,
            step: 1,
        }
    }
}
impl From<std::ops::RangeTo<isize>> for SliceArg {
    fn from(r: std::ops::RangeTo<isize>) -> Self {
        SliceArg::Range {
            start: None,
            end: Some(r.end),
            step: 1,
        }
    }
}
impl From<std::ops::RangeInclusive<isize>> for SliceArg {
    fn from(r: std::ops::RangeInclusive<isize>) -> Self {
        let end = *r.end();
        SliceArg::Range {
            start: Some(*r.start()),
            end: if end == -1 { None } else { Some(end + 1) },
            step: 1,
        }
    }
}
impl From<std::ops::RangeFull> for SliceArg {
    fn from(_: std::ops::RangeFull) -> Self {
        SliceArg::Range {
            start: None,
            end: None,
            step: 1,
        }
    }
}

/// Builds a slicing request: `s![1..3, ..;-1, 0, NewAxis]`, where `r;k` gives range `r`
/// step `k` (Python's `1:3, ::-1, 0, None`).
///
/// ```
/// use cuprum::{s, SliceArg};
/// let req = s![1..3, ..;-1, 0];
/// assert_eq!(req[1], SliceArg::Range { start: None, end: None, step: -1 });
/// assert_eq!(req[2], SliceArg::Index(0));
/// ```
#[macro_export]
macro_rules! s {
    ($($r:expr $(; $step:expr)?),* $(,)?) => {
        [$($crate::SliceArg::from($r)$(.step($step))?),*]
    };
}

/// Python's `slice.indices`: for an axis of extent `len`, returns (first position, count,
/// step) of a range, or an error for a zero step.
pub(crate) fn resolve_range(
    len: usize,
    start: Option<isize>,
    end: Option<isize>,
    step: isize,
) -> Result<(isize, usize)> {
    if step == 0 {
        bail!(InvalidArgument, "slice step cannot be zero");
    }
    let n = len as isize;
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let fix = |v: isize| if v < 0 { v + n } else { v };
    let (s, e) = if step > 0 {
        (
            start.map_or(0, |v| clamp(fix(v), 0, n)),
            end.map_or(n, |v| clamp(fix(v), 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |v| clamp(fix(v), -1, n - 1)),
            end.map_or(-1, |v| clamp(fix(v), -1, n - 1)),
        )
    };
    let count = if step > 0 {
        if e > s { (e - s + step - 1) / step } else { 0 }
    } else if s > e {
        (s - e + (-step) - 1) / (-step)
    } else {
        0
    };
    Ok((s, count as usize))
}

/// Merges dimensions for a kernel loop: drops extent-1 axes and fuses neighbours `k-1, k`
/// when every operand steps through them as one (`stride[k-1] == stride[k] * shape[k]`).
/// Returns the merged shape and each operand's merged strides. An empty loop merges to
/// `[0]`, a 0-d loop to `[]`.
///
/// ```
/// use cuprum::shape::merge_dims;
/// // A C-contiguous (4, 5, 6) array merges into one axis.
/// let (shape, strides) = merge_dims(&[4, 5, 6], &[&[30, 6, 1][..]]);
/// assert_eq!(shape.as_slice(), &[120]);
/// assert_eq!(strides[0].as_slice(), &[1]);
/// // With a transposed partner nothing merges.
/// let (shape, _) = merge_dims(&[4, 5], &[&[5, 1][..], &[1, 4][..]]);
/// assert_eq!(shape.as_slice(), &[4, 5]);
/// ```
pub fn merge_dims(shape: &[usize], strides: &[&[isize]]) -> (Shape, Vec<Strides>) {
    if shape.contains(&0) {
        return (
            SmallVec::from_elem(0, 1),
            vec![SmallVec::from_elem(1, 1); strides.len()],
        );
    }
    let keep: Vec<usize> = (0..shape.len()).filter(|&i| shape[i] != 1).collect();
    let mut out_shape: Shape = SmallVec::new();
    let mut out_strides: Vec<Strides> = vec![SmallVec::new(); strides.len()];
    for &ax in &keep {
        let d = shape[ax];
        let mergeable = !out_shape.is_empty()
            && strides
                .iter()
                .enumerate()
                .all(|(k, s)| *out_strides[k].last().unwrap_or(&0) == s[ax] * d as isize);
        if mergeable {
            let last = out_shape.len() - 1;
            out_shape[last] *= d;
            for (k, s) in strides.iter().enumerate() {
                let l = out_strides[k].len() - 1;
                out_strides[k][l] = s[ax];
            }
        } else {
            out_shape.push(d);
            for (k, s) in strides.iter().enumerate() {
                out_strides[k].push(s[ax]);
            }
        }
    }
    (out_shape, out_strides)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn resolve_range_matches_python() {
        // Python: range(10)[2:8:3] -> [2, 5]
        assert_eq!(resolve_range(10, Some(2), Some(8), 3).unwrap(), (2, 2));
        // [::-1] of 5 -> 4,3,2,1,0
        assert_eq!(resolve_range(5, None, None, -1).unwrap(), (4, 5));
        // [-2:] of 5 -> 3,4
        assert_eq!(resolve_range(5, Some(-2), None, 1).unwrap(), (3, 2));
        // [8:2:-2] of 10 -> 8,6,4
        assert_eq!(resolve_range(10, Some(8), Some(2), -2).unwrap(), (8, 3));
        // out of range bounds clamp; empty results
        assert_eq!(resolve_range(3, Some(5), Some(9), 1).unwrap().1, 0);
        assert_eq!(resolve_range(0, None, None, -1).unwrap().1, 0);
        assert!(resolve_range(3, None, None, 0).is_err());
    }

    #[test]
    fn merge_handles_broadcast_and_reversed() {
        // broadcast row (stride 0) against contiguous matrix: nothing merges across axis 0
        let (s, st) = merge_dims(&[3, 4], &[&[4, 1][..], &[0, 1][..]]);
        assert_eq!(s.as_slice(), &[3, 4]);
        assert_eq!(st[1].as_slice(), &[0, 1]);
        // reversed contiguous 1-d stays 1-d with stride -1
        let (s, st) = merge_dims(&[5], &[&[-1][..]]);
        assert_eq!(
            (s.as_slice(), st[0].as_slice()),
            (&[5usize][..], &[-1isize][..])
        );
        // 0-d and empty
        assert!(merge_dims(&[], &[&[][..]]).0.is_empty());
        assert_eq!(merge_dims(&[3, 0], &[&[0, 1][..]]).0.as_slice(), &[0]);
        // extent-1 axes are dropped
        let (s, _) = merge_dims(&[1, 7, 1], &[&[7, 1, 1][..]]);
        assert_eq!(s.as_slice(), &[7]);
    }

    #[test]
    fn reshape_nocopy_cases() {
        assert_eq!(
            nocopy_reshape(&[2, 3, 4], &[12, 4, 1], &[6, 4])
                .unwrap()
                .as_slice(),
            &[4, 1]
        );
        // a column slice (stride 2 in the last dim) can split its rows
        assert_eq!(
            nocopy_reshape(&[4, 3], &[6, 2], &[2, 2, 3])
                .unwrap()
                .as_slice(),
            &[12, 6, 2]
        );
        // stride 6 = 2 * 3: the rows still follow each other evenly, so flattening is a view
        assert_eq!(
            nocopy_reshape(&[4, 3], &[6, 2], &[12]).unwrap().as_slice(),
            &[2]
        );
        // rows padded to 8: flattening needs a copy
        assert!(nocopy_reshape(&[4, 3], &[8, 2], &[12]).is_none());
        assert_eq!(
            nocopy_reshape(&[3], &[1], &[1, 3, 1]).unwrap().as_slice(),
            &[3, 1, 1]
        );
    }

    fn flat_offsets(shape: &[usize], strides: &[isize]) -> Vec<isize> {
        let n: usize = shape.iter().product();
        (0..n)
            .map(|mut i| {
                let mut off = 0;
                for d in (0..shape.len()).rev() {
                    off += (i % shape[d]) as isize * strides[d];
                    i /= shape[d];
                }
                off
            })
            .collect()
    }

    proptest! {
        #[test]
        fn nocopy_reshape_preserves_element_order(
            dims in proptest::collection::vec(1usize..5, 1..4),
            split in 1usize..4,
        ) {
            let strides = c_strides(&dims);
            let size: usize = dims.iter().product();
            // reshape to (k, size/k) when divisible
            if size.is_multiple_of(split) {
                let new = [split, size / split];
                let ns = nocopy_reshape(&dims, &strides, &new).unwrap();
                prop_assert_eq!(flat_offsets(&dims, &strides), flat_offsets(&new, &ns));
            }
        }

        #[test]
        fn merge_preserves_offsets(
            dims in proptest::collection::vec(1usize..5, 0..4),
            perm_seed in 0usize..24,
        ) {
            let c = c_strides(&dims);
            // a permuted view of a contiguous array
            let mut order: Vec<usize> = (0..dims.len()).collect();
            if !order.is_empty() { let k = perm_seed % order.len(); order.rotate_left(k); }
            let shape: Vec<usize> = order.iter().map(|&i| dims[i]).collect();
            let strides: Vec<isize> = order.iter().map(|&i| c[i]).collect();
            let (ms, mst) = merge_dims(&shape, &[&strides]);
            let merged = if ms.is_empty() { vec![0] } else { flat_offsets(&ms, &mst[0]) };
            let orig = if shape.is_empty() { vec![0] } else { flat_offsets(&shape, &strides) };
            prop_assert_eq!(orig, merged);
        }

        #[test]
        fn broadcast_is_symmetric(a in proptest::collection::vec(1usize..4, 0..4),
                                  b in proptest::collection::vec(1usize..4, 0..4)) {
            let ab = broadcast_shapes(&[&a, &b]);
            let ba = broadcast_shapes(&[&b, &a]);
            prop_assert_eq!(ab.is_ok(), ba.is_ok());
            if let (Ok(x), Ok(y)) = (ab, ba) {
                prop_assert_eq!(x.clone(), y);
                prop_assert!(broadcast_strides(&a, &c_strides(&a), &x).is_ok());
            }
        }
    }
}
