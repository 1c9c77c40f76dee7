//! Shape and stride arithmetic: broadcasting, reshaping without copies, slicing, and the
//! dimension merging generated kernels use. Pure functions, no GPU.
//!
//! Strides here count **elements**, not bytes (CuPy counts bytes; multiply by the item size).
//! Everything here (broadcasting, no-copy reshape, Python slicing, dimension merging) is
//! unit- and property-tested without a GPU, with adversarial inputs (overflowing sizes,
//! mismatched lengths, 0-d, empty, negative strides).
//!
//! **Shapes never panic.** A shape is valid when it has at most [`MAX_NDIM`] (64)
//! dimensions and the product of its non-zero extents, times the item size for an array,
//! fits `isize` (NumPy's rule; so an empty array's strides fit too). Every public function
//! checks its input (one stride per dimension, sizes, equal sizes for a reshape) and returns
//! `ErrorKind::Shape` saying what was expected and what was given; all arithmetic on user
//! input is checked. Every way to make an `Array` (constructors, `broadcast_to`, slicing
//! with new axes) keeps that invariant before any device work, so the crate-internal fast
//! paths (`c_strides_of_valid`, `is_c_contiguous_view`, `merge_dims_of_views`) take arrays'
//! views unchecked. A sliced axis of 0 or 1 positions keeps NumPy's stride (`stride × step`)
//! unless that would not fit in bytes (`view.rs`).

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

/// Number of elements of `shape`, or an error when the shape is too large: at most
/// [`MAX_NDIM`] dimensions, and the product of its non-zero extents must fit `isize` (NumPy's
/// rule, so that the strides of an empty array fit too).
///
/// ```
/// use cuprum::shape::size_of;
/// assert_eq!(size_of(&[2, 3, 4]).unwrap(), 24);
/// assert_eq!(size_of(&[]).unwrap(), 1);
/// assert_eq!(size_of(&[0, 5]).unwrap(), 0);
/// let err = size_of(&[usize::MAX, 2]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "shape (18446744073709551615, 2) is too large: the product of its non-zero extents \
///      must be at most 9223372036854775807"
/// );
/// assert!(size_of(&[0, usize::MAX]).is_err());
/// ```
pub fn size_of(shape: &[usize]) -> Result<usize> {
    let nonzero = nonzero_product(shape)?;
    Ok(if shape.contains(&0) { 0 } else { nonzero })
}

/// The product of the non-zero extents of `shape`, checked as [`size_of`] describes.
fn nonzero_product(shape: &[usize]) -> Result<usize> {
    check_ndim(shape.len())?;
    shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |n, &d| {
            n.checked_mul(d).filter(|&n| n <= isize::MAX as usize)
        })
        .ok_or_else(|| {
            err!(
                Shape,
                "shape {} is too large: the product of its non-zero extents must be at \
                 most {}",
                format_shape(shape),
                isize::MAX
            )
        })
}

/// Bytes of an array of `shape` with elements of `itemsize` bytes, or an error when they do
/// not fit `isize` (counting zero extents as 1, as NumPy does).
///
/// ```
/// use cuprum::shape::nbytes_of;
/// assert_eq!(nbytes_of(&[2, 3], 8).unwrap(), 48);
/// assert_eq!(nbytes_of(&[0, 3], 8).unwrap(), 0);
/// let err = nbytes_of(&[1 << 62], 4).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "an array of shape (4611686018427387904,) with 4-byte elements is too large: \
///      its size times the item size must be at most 9223372036854775807 bytes"
/// );
/// ```
pub fn nbytes_of(shape: &[usize], itemsize: usize) -> Result<usize> {
    let n = size_of(shape)?;
    nonzero_product(shape)?
        .checked_mul(itemsize)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            err!(
                Shape,
                "an array of shape {} with {itemsize}-byte elements is too large: its size \
                 times the item size must be at most {} bytes",
                format_shape(shape),
                isize::MAX
            )
        })?;
    Ok(n * itemsize)
}

fn check_ndim(ndim: usize) -> Result<()> {
    if ndim > MAX_NDIM {
        bail!(
            Shape,
            "maximum supported dimension for an ndarray is currently {MAX_NDIM}, found {ndim} \
             (NumPy's limit)"
        );
    }
    Ok(())
}

/// Checks that `strides` describe a view of `shape`: one stride per dimension, and a shape
/// [`size_of`] accepts.
fn check_view(shape: &[usize], strides: &[isize]) -> Result<()> {
    check_len(shape, strides)?;
    size_of(shape).map(drop)
}

/// Checks that there is one stride per dimension.
fn check_len(shape: &[usize], strides: &[isize]) -> Result<()> {
    if shape.len() != strides.len() {
        bail!(
            Shape,
            "strides {strides:?} have {} entries for shape {} of {} dimensions",
            strides.len(),
            format_shape(shape),
            shape.len()
        );
    }
    Ok(())
}

/// C-order (row-major) element strides of a contiguous array of `shape`; an error for a
/// shape that [`size_of`] rejects (its strides would not fit `isize`).
///
/// ```
/// use cuprum::shape::c_strides;
/// assert_eq!(c_strides(&[2, 3, 4]).unwrap().as_slice(), &[12, 4, 1]);
/// assert_eq!(c_strides(&[0, 3]).unwrap().as_slice(), &[3, 1]);
/// assert!(c_strides(&[usize::MAX, usize::MAX]).is_err());
/// ```
pub fn c_strides(shape: &[usize]) -> Result<Strides> {
    size_of(shape)?;
    Ok(c_strides_of_valid(shape))
}

/// [`c_strides`] of a shape [`size_of`] accepted (every product below fits `isize`).
pub(crate) fn c_strides_of_valid(shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(0, shape.len());
    let mut acc: isize = 1;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc = acc.wrapping_mul(d.max(1) as isize);
    }
    strides
}

/// Whether a view with these strides is C-contiguous (dimensions of extent 1 may have any
/// stride; an empty array is contiguous). An error when the strides do not match the shape.
///
/// ```
/// use cuprum::shape::is_c_contiguous;
/// assert!(is_c_contiguous(&[2, 3], &[3, 1]).unwrap());
/// assert!(!is_c_contiguous(&[2, 3], &[1, 2]).unwrap());
/// assert!(is_c_contiguous(&[1, 3], &[99, 1]).unwrap());
/// assert!(is_c_contiguous(&[2, 3], &[1]).is_err());
/// ```
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> Result<bool> {
    check_view(shape, strides)?;
    Ok(is_c_contiguous_view(shape, strides))
}

/// [`is_c_contiguous`] without the checks, for arrays (whose views are valid); never panics.
pub(crate) fn is_c_contiguous_view(shape: &[usize], strides: &[isize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected: isize = 1;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d != 1 {
            if s != expected {
                return false;
            }
            match isize::try_from(d)
                .ok()
                .and_then(|d| expected.checked_mul(d))
            {
                Some(e) => expected = e,
                None => return false,
            }
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
/// assert!(broadcast_shapes(&[&[1 << 62][..], &[4, 1][..]]).is_err()); // too large
/// ```
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Shape> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    check_ndim(ndim)?;
    let mut out: Shape = SmallVec::from_elem(1, ndim);
    for s in shapes {
        let off = ndim - s.len();
        for (o, &d) in out[off..].iter_mut().zip(s.iter()) {
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
    size_of(&out)?;
    Ok(out)
}

/// Strides that view an array of `shape`/`strides` as `target` (stride 0 on broadcast axes).
///
/// ```
/// use cuprum::shape::broadcast_strides;
/// assert_eq!(broadcast_strides(&[3], &[1], &[2, 3]).unwrap().as_slice(), &[0, 1]);
/// assert!(broadcast_strides(&[2], &[1], &[3]).is_err());
/// assert!(broadcast_strides(&[2], &[1, 1], &[2]).is_err()); // two strides for one axis
/// ```
pub fn broadcast_strides(shape: &[usize], strides: &[isize], target: &[usize]) -> Result<Strides> {
    check_view(shape, strides)?;
    size_of(target)?;
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
    for ((o, &t), (&d, &st)) in out[off..]
        .iter_mut()
        .zip(&target[off..])
        .zip(shape.iter().zip(strides))
    {
        if d == t {
            *o = if d == 1 { 0 } else { st };
        } else if d == 1 {
            *o = 0;
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

/// Whether an array of `shape` broadcasts to `to` (NumPy's rule, right-aligned): the
/// check of [`broadcast_strides`] without the strides or an error.
pub(crate) fn broadcasts_to(shape: &[usize], to: &[usize]) -> bool {
    shape.len() <= to.len()
        && shape
            .iter()
            .rev()
            .zip(to.iter().rev())
            .all(|(&d, &t)| d == t || d == 1)
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
    check_ndim(requested.len())?;
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
            known = known.checked_mul(d.unsigned_abs()).ok_or_else(|| {
                err!(
                    Shape,
                    "cannot reshape array of size {size} into shape {requested:?}"
                )
            })?;
        }
    }
    let mut out: Shape = requested.iter().map(|&d| d.max(0).unsigned_abs()).collect();
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

/// Strides for viewing (`shape`, `strides`) as `new_shape` without copying, or `Ok(None)`
/// when the memory layout does not allow it (then a copy is needed). An error when the
/// strides do not match the shape, a shape is too large, or the sizes differ.
///
/// ```
/// use cuprum::shape::nocopy_reshape;
/// // A contiguous (2, 6) array can become (3, 4).
/// assert_eq!(nocopy_reshape(&[2, 6], &[6, 1], &[3, 4]).unwrap().unwrap().as_slice(), &[4, 1]);
/// // Its transpose (6, 2) with strides (1, 6) cannot be flattened without a copy.
/// assert!(nocopy_reshape(&[6, 2], &[1, 6], &[12]).unwrap().is_none());
/// let err = nocopy_reshape(&[2, 3], &[3, 1], &[7]).unwrap_err();
/// assert_eq!(err.to_string(), "cannot reshape array of shape (2, 3) (size 6) into shape (7,) (size 7)");
/// ```
pub fn nocopy_reshape(
    shape: &[usize],
    strides: &[isize],
    new_shape: &[usize],
) -> Result<Option<Strides>> {
    check_view(shape, strides)?;
    let (size, new_size) = (size_of(shape)?, size_of(new_shape)?);
    if size != new_size {
        bail!(
            Shape,
            "cannot reshape array of shape {} (size {size}) into shape {} (size {new_size})",
            format_shape(shape),
            format_shape(new_shape)
        );
    }
    if size <= 1 {
        return Ok(Some(c_strides_of_valid(new_shape)));
    }
    Ok(reshape_groups(shape, strides, new_shape))
}

/// The body of [`nocopy_reshape`] for equal sizes above 1 (so no extent is 0, and every
/// partial product of either shape is at most the size). `None` when a copy is needed, or
/// when a stride would not fit `isize` (a view no buffer can hold).
fn reshape_groups(shape: &[usize], strides: &[isize], new_shape: &[usize]) -> Option<Strides> {
    // Work on the old dims of extent != 1 only (each ≥ 2 here).
    let old: SmallVec<[(usize, isize); 6]> = shape
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
        // Grow the shorter side until both groups have the same size; the sizes are equal,
        // so neither runs past its end.
        let mut np = new_shape[ni];
        let mut op = old[oi].0;
        while np != op {
            if np < op {
                np *= *new_shape.get(nj)?;
                nj += 1;
            } else {
                op *= old.get(oj)?.0;
                oj += 1;
            }
        }
        // The old axes oi..oj must be mergeable (C-contiguous among themselves).
        for w in old[oi..oj].windows(2) {
            let (outer, inner) = (w[0], w[1]);
            if Some(outer.1) != inner.1.checked_mul(inner.0 as isize) {
                return None;
            }
        }
        // Lay out new axes ni..nj over the last old axis' stride.
        out[nj - 1] = old[oj - 1].1;
        for nk in (ni + 1..nj).rev() {
            out[nk - 1] = out[nk].checked_mul(new_shape[nk] as isize)?;
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    // Remaining new dims are extent 1; an extent-1 dim steps over its inner neighbour.
    for nk in (0..nlen).rev() {
        if nk >= ni || new_shape[nk] == 1 {
            out[nk] = match out.get(nk + 1) {
                Some(&inner) => inner.checked_mul(new_shape[nk + 1] as isize)?,
                None => 1,
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
    // In i128 every isize axis and usize ndim is exact.
    let (a, n) = (axis as i128, ndim as i128);
    if a < -n || a >= n {
        bail!(
            Shape,
            "axis {axis} is out of bounds for array of dimension {ndim}"
        );
    }
    // 0 ≤ the result < ndim, so it fits usize.
    Ok(if a < 0 { a + n } else { a } as usize)
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
            // `..=-1` and `..=isize::MAX` run to the end.
            end: if end == -1 { None } else { end.checked_add(1) },
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
    let Ok(n) = isize::try_from(len) else {
        bail!(Shape, "an axis of extent {len} cannot be sliced");
    };
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    // v < 0 here, so v + n cannot overflow.
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
    // Both ends lie in [-1, n], so their distance fits; count = ceil(distance / |step|).
    let distance = if step > 0 { e - s } else { s - e };
    let count = if distance > 0 {
        (distance.unsigned_abs() - 1) / step.unsigned_abs() + 1
    } else {
        0
    };
    Ok((s, count))
}

/// Merges dimensions for a kernel loop: drops extent-1 axes and fuses neighbours `k-1, k`
/// when every operand steps through them as one (`stride[k-1] == stride[k] * shape[k]`).
/// Returns the merged shape and each operand's merged strides. An empty loop merges to
/// `[0]`, a 0-d loop to `[]`. An error when an operand's strides do not match the shape or
/// the shape is too large.
///
/// ```
/// use cuprum::shape::merge_dims;
/// // A C-contiguous (4, 5, 6) array merges into one axis.
/// let (shape, strides) = merge_dims(&[4, 5, 6], &[&[30, 6, 1][..]])?;
/// assert_eq!(shape.as_slice(), &[120]);
/// assert_eq!(strides[0].as_slice(), &[1]);
/// // With a transposed partner nothing merges.
/// let (shape, _) = merge_dims(&[4, 5], &[&[5, 1][..], &[1, 4][..]])?;
/// assert_eq!(shape.as_slice(), &[4, 5]);
/// assert!(merge_dims(&[4, 5], &[&[5][..]]).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn merge_dims(shape: &[usize], strides: &[&[isize]]) -> Result<(Shape, Vec<Strides>)> {
    for s in strides {
        check_len(shape, s)?;
    }
    size_of(shape)?;
    Ok(merge_dims_of_views(shape, strides))
}

/// [`merge_dims`] of operands that are views of arrays (each with one stride per dimension
/// of `shape`, a shape [`size_of`] accepts).
pub(crate) fn merge_dims_of_views(shape: &[usize], strides: &[&[isize]]) -> (Shape, Vec<Strides>) {
    if shape.contains(&0) {
        return (
            SmallVec::from_elem(0, 1),
            vec![SmallVec::from_elem(1, 1); strides.len()],
        );
    }
    let mut out_shape: Shape = SmallVec::new();
    let mut out_strides: Vec<Strides> = vec![SmallVec::new(); strides.len()];
    for (ax, &d) in shape.iter().enumerate().filter(|(_, d)| **d != 1) {
        // d ≤ size ≤ isize::MAX: the shape was checked.
        let di = d as isize;
        let mergeable = !out_shape.is_empty()
            && strides
                .iter()
                .zip(&out_strides)
                .all(|(s, o)| o.last().copied() == s[ax].checked_mul(di));
        match out_shape.last_mut() {
            // The merged extents are a sub-product of the size: no overflow.
            Some(last) if mergeable => {
                *last *= d;
                for (s, o) in strides.iter().zip(&mut out_strides) {
                    if let Some(l) = o.last_mut() {
                        *l = s[ax];
                    }
                }
            }
            _ => {
                out_shape.push(d);
                for (s, o) in strides.iter().zip(&mut out_strides) {
                    o.push(s[ax]);
                }
            }
        }
    }
    (out_shape, out_strides)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use proptest::prelude::*;

    #[test]
    fn broadcasts_to_agrees_with_broadcast_strides() {
        let cases: [(&[usize], &[usize]); 7] = [
            (&[], &[]),
            (&[3], &[2, 3]),
            (&[1, 3], &[4, 3]),
            (&[2], &[3]),
            (&[2, 3], &[3]),
            (&[4, 1], &[4, 5]),
            (&[0], &[2, 0]),
        ];
        for (shape, to) in cases {
            let strides = vec![1isize; shape.len()];
            assert_eq!(
                broadcasts_to(shape, to),
                broadcast_strides(shape, &strides, to).is_ok(),
                "{shape:?} to {to:?}"
            );
        }
    }

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
        // extreme steps and bounds (these overflowed before)
        assert_eq!(resolve_range(10, None, None, isize::MAX).unwrap(), (0, 1));
        assert_eq!(resolve_range(10, None, None, isize::MIN).unwrap(), (9, 1));
        assert_eq!(
            resolve_range(10, Some(isize::MIN), Some(isize::MAX), 3).unwrap(),
            (0, 4)
        );
        assert_eq!(
            resolve_range(10, Some(isize::MAX), Some(isize::MIN), -4).unwrap(),
            (9, 3)
        );
        assert_eq!(
            resolve_range(isize::MAX as usize, None, None, 1).unwrap(),
            (0, isize::MAX as usize)
        );
        assert!(resolve_range(usize::MAX, None, None, 1).is_err());
    }

    #[test]
    fn merge_handles_broadcast_and_reversed() {
        // broadcast row (stride 0) against contiguous matrix: nothing merges across axis 0
        let (s, st) = merge_dims(&[3, 4], &[&[4, 1][..], &[0, 1][..]]).unwrap();
        assert_eq!(s.as_slice(), &[3, 4]);
        assert_eq!(st[1].as_slice(), &[0, 1]);
        // reversed contiguous 1-d stays 1-d with stride -1
        let (s, st) = merge_dims(&[5], &[&[-1][..]]).unwrap();
        assert_eq!(
            (s.as_slice(), st[0].as_slice()),
            (&[5usize][..], &[-1isize][..])
        );
        // 0-d and empty
        assert!(merge_dims(&[], &[&[][..]]).unwrap().0.is_empty());
        assert_eq!(
            merge_dims(&[3, 0], &[&[0, 1][..]]).unwrap().0.as_slice(),
            &[0]
        );
        // extent-1 axes are dropped
        let (s, _) = merge_dims(&[1, 7, 1], &[&[7, 1, 1][..]]).unwrap();
        assert_eq!(s.as_slice(), &[7]);
        // a stride times an extent that overflows never merges (and never panics)
        let (s, _) = merge_dims(&[2, 4], &[&[isize::MIN, isize::MAX][..]]).unwrap();
        assert_eq!(s.as_slice(), &[2, 4]);
    }

    #[test]
    fn merge_rejects_strides_of_another_rank() {
        let e = merge_dims(&[2, 3], &[&[3, 1][..], &[1][..]]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape);
        assert_eq!(
            e.to_string(),
            "strides [1] have 1 entries for shape (2, 3) of 2 dimensions"
        );
    }

    #[test]
    fn reshape_nocopy_cases() {
        let ok = |shape: &[usize], strides: &[isize], new: &[usize]| {
            nocopy_reshape(shape, strides, new).unwrap()
        };
        assert_eq!(
            ok(&[2, 3, 4], &[12, 4, 1], &[6, 4]).unwrap().as_slice(),
            &[4, 1]
        );
        // a column slice (stride 2 in the last dim) can split its rows
        assert_eq!(
            ok(&[4, 3], &[6, 2], &[2, 2, 3]).unwrap().as_slice(),
            &[12, 6, 2]
        );
        // stride 6 = 2 * 3: the rows still follow each other evenly, so flattening is a view
        assert_eq!(ok(&[4, 3], &[6, 2], &[12]).unwrap().as_slice(), &[2]);
        // rows padded to 8: flattening needs a copy
        assert!(ok(&[4, 3], &[8, 2], &[12]).is_none());
        assert_eq!(ok(&[3], &[1], &[1, 3, 1]).unwrap().as_slice(), &[3, 1, 1]);
        assert_eq!(ok(&[6], &[1], &[2, 1, 3]).unwrap().as_slice(), &[3, 3, 1]);
        // empty and one-element arrays take C strides
        assert_eq!(ok(&[0, 3], &[9, 1], &[3, 0]).unwrap().as_slice(), &[1, 1]);
        assert_eq!(
            ok(&[1, 1], &[5, 7], &[]).unwrap().as_slice(),
            &[] as &[isize]
        );
    }

    #[test]
    fn reshape_errors_say_what_was_given() {
        // the issue's reproduction: this indexed past the end of the new shape
        let e = nocopy_reshape(&[2, 3], &[3, 1], &[7]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape);
        assert_eq!(
            e.to_string(),
            "cannot reshape array of shape (2, 3) (size 6) into shape (7,) (size 7)"
        );
        let e = nocopy_reshape(&[2, 3], &[3], &[6]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "strides [3] have 1 entries for shape (2, 3) of 2 dimensions"
        );
        let e = nocopy_reshape(&[usize::MAX, 3], &[3, 1], &[3]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("shape (18446744073709551615, 3) is too large"),
            "{e}"
        );
        // overflowing strides of an impossible view: a copy, not a panic
        assert!(
            nocopy_reshape(&[2, 2], &[isize::MAX, isize::MAX], &[4])
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn c_strides_reject_what_does_not_fit() {
        // the issue's reproduction: these strides wrapped around silently
        let e = c_strides(&[usize::MAX, usize::MAX]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape);
        assert!(e.to_string().contains("is too large"), "{e}");
        assert!(c_strides(&[0, usize::MAX]).is_err());
        assert!(c_strides(&[1; 65]).is_err());
        assert_eq!(c_strides(&[]).unwrap().as_slice(), &[] as &[isize]);
        let big = isize::MAX as usize;
        assert_eq!(c_strides(&[1, big]).unwrap().as_slice(), &[isize::MAX, 1]);
        assert!(c_strides(&[2, big]).is_err());
    }

    #[test]
    fn contiguity_needs_one_stride_per_axis() {
        let e = is_c_contiguous(&[2, 3], &[3, 1, 1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "strides [3, 1, 1] have 3 entries for shape (2, 3) of 2 dimensions"
        );
        let _ = is_c_contiguous_view(&[2, 3], &[1]); // no panic; arrays never do this
        assert!(!is_c_contiguous_view(&[usize::MAX, 2], &[2, 1]));
    }

    #[test]
    fn broadcast_checks_ranks_and_sizes() {
        let e = broadcast_strides(&[3], &[1, 1], &[3]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Shape);
        let e = broadcast_shapes(&[&[1 << 62][..], &[4, 1][..]]).unwrap_err();
        assert!(e.to_string().contains("is too large"), "{e}");
        let e = broadcast_strides(&[1], &[1], &[usize::MAX, 2]).unwrap_err();
        assert!(e.to_string().contains("is too large"), "{e}");
        let many = [1usize; 65];
        assert!(broadcast_shapes(&[&many[..]]).is_err());
    }

    #[test]
    fn inclusive_ranges_at_the_edges_do_not_overflow() {
        assert_eq!(
            SliceArg::from(0..=isize::MAX),
            SliceArg::Range {
                start: Some(0),
                end: None,
                step: 1
            }
        );
        assert_eq!(
            SliceArg::from(std::ops::RangeInclusive::new(2, -1)),
            SliceArg::Range {
                start: Some(2),
                end: None,
                step: 1
            }
        );
    }

    #[test]
    fn axes_at_the_edges() {
        assert_eq!(
            normalize_axis(isize::MIN, 3).unwrap_err().kind(),
            ErrorKind::Shape
        );
        assert!(normalize_axis(isize::MAX, 3).is_err());
        assert!(normalize_axis(0, 0).is_err());
        assert_eq!(normalize_axis(-1, usize::MAX).unwrap(), usize::MAX - 1);
    }

    /// The element offsets of a view, in C order of its shape.
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

    /// Extents a user might pass: small, zero, one, and values near the overflow limits.
    fn extent() -> impl Strategy<Value = usize> {
        prop_oneof![
            6 => 0usize..6,
            1 => Just(usize::MAX),
            1 => Just(isize::MAX as usize),
            1 => Just((isize::MAX as usize) / 2 + 1),
            1 => Just(1usize << 32),
            1 => any::<usize>(),
        ]
    }

    fn stride() -> impl Strategy<Value = isize> {
        prop_oneof![
            6 => -8isize..9,
            1 => Just(isize::MAX),
            1 => Just(isize::MIN),
            1 => any::<isize>(),
        ]
    }

    fn shape_strat(max_len: usize) -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(extent(), 0..max_len)
    }

    fn strides_strat(max_len: usize) -> impl Strategy<Value = Vec<isize>> {
        proptest::collection::vec(stride(), 0..max_len)
    }

    /// The product of the non-zero extents, exactly (None past u128).
    fn exact_nonzero(shape: &[usize]) -> Option<u128> {
        shape
            .iter()
            .filter(|&&d| d != 0)
            .try_fold(1u128, |n, &d| n.checked_mul(d as u128))
    }

    /// A valid strided view of a C-contiguous base: some axes permuted, reversed, stepped or
    /// sliced; returns its shape, strides and the base's size.
    fn view_strat() -> impl Strategy<Value = (Vec<usize>, Vec<isize>)> {
        (proptest::collection::vec(1usize..5, 0..5), any::<u64>()).prop_map(|(base, seed)| {
            let mut st: Vec<isize> = c_strides(&base).unwrap().to_vec();
            let mut shape = base.clone();
            let mut r = seed;
            let mut next = |k: u64| {
                r = r
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (r >> 33) % k
            };
            if !shape.is_empty() {
                let rot = next(shape.len() as u64) as usize;
                shape.rotate_left(rot);
                st.rotate_left(rot);
            }
            for (d, s) in shape.iter_mut().zip(st.iter_mut()) {
                match next(4) {
                    0 => *s = -*s,
                    1 if *d > 1 => {
                        // every other element
                        *d = d.div_ceil(2);
                        *s *= 2;
                    }
                    2 if *d > 1 => *d -= 1,
                    _ => {}
                }
            }
            (shape, st)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn size_of_is_exact_or_an_error(shape in shape_strat(8)) {
            let exact = exact_nonzero(&shape);
            match size_of(&shape) {
                Ok(n) => {
                    prop_assert!(exact.is_some_and(|e| e <= isize::MAX as u128));
                    let want = if shape.contains(&0) { 0 } else { exact.unwrap_or(0) };
                    prop_assert_eq!(n as u128, want);
                }
                Err(e) => {
                    prop_assert_eq!(e.kind(), ErrorKind::Shape);
                    prop_assert!(exact.is_none_or(|e| e > isize::MAX as u128));
                }
            }
        }

        #[test]
        fn nbytes_is_exact_or_an_error(shape in shape_strat(6), item in prop_oneof![Just(1usize), Just(2), Just(8), Just(16), any::<usize>()]) {
            let exact = exact_nonzero(&shape).and_then(|n| n.checked_mul(item as u128));
            match nbytes_of(&shape, item) {
                Ok(b) => {
                    prop_assert!(exact.is_some_and(|e| e <= isize::MAX as u128));
                    prop_assert_eq!(b, size_of(&shape).unwrap() * item);
                }
                Err(e) => {
                    prop_assert_eq!(e.kind(), ErrorKind::Shape);
                    prop_assert!(exact.is_none_or(|e| e > isize::MAX as u128));
                }
            }
        }

        #[test]
        fn c_strides_step_over_the_inner_axes(shape in shape_strat(8)) {
            match c_strides(&shape) {
                Ok(st) => {
                    prop_assert!(size_of(&shape).is_ok());
                    prop_assert_eq!(st.len(), shape.len());
                    for i in 0..shape.len() {
                        let inner: u128 = shape[i + 1..].iter().map(|&d| d.max(1) as u128).product();
                        prop_assert_eq!(st[i] as u128, inner);
                    }
                    prop_assert!(is_c_contiguous(&shape, &st).unwrap());
                }
                Err(e) => {
                    prop_assert_eq!(e.kind(), ErrorKind::Shape);
                    prop_assert!(size_of(&shape).is_err());
                }
            }
        }

        #[test]
        fn contiguity_never_panics(shape in shape_strat(6), strides in strides_strat(6)) {
            match is_c_contiguous(&shape, &strides) {
                Ok(c) => {
                    prop_assert_eq!(shape.len(), strides.len());
                    prop_assert_eq!(c, is_c_contiguous_view(&shape, &strides));
                }
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::Shape),
            }
        }

        #[test]
        fn broadcasting_never_panics(a in shape_strat(5), b in shape_strat(5), sa in strides_strat(5)) {
            match broadcast_shapes(&[&a, &b]) {
                Ok(out) => {
                    prop_assert_eq!(out.len(), a.len().max(b.len()));
                    prop_assert!(size_of(&out).is_ok());
                    for s in [&a, &b] {
                        let off = out.len() - s.len();
                        for (i, &d) in s.iter().enumerate() {
                            prop_assert!(d == 1 || d == out[off + i]);
                        }
                    }
                    // the symmetric order agrees
                    prop_assert_eq!(broadcast_shapes(&[&b, &a]).unwrap(), out.clone());
                    if let Ok(st) = c_strides(&a) {
                        let bst = broadcast_strides(&a, &st, &out).unwrap();
                        let off = out.len() - a.len();
                        for i in 0..out.len() {
                            let want = if i < off || a[i - off] == 1 { 0 } else { st[i - off] };
                            prop_assert_eq!(bst[i], want);
                        }
                    }
                }
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::Shape),
            }
            if let Ok(st) = broadcast_strides(&a, &sa, &b) {
                prop_assert_eq!(st.len(), b.len());
                prop_assert_eq!(a.len(), sa.len());
            }
        }

        #[test]
        fn infer_shape_keeps_the_size(size in extent(), req in proptest::collection::vec(prop_oneof![-3isize..7, Just(-1isize), any::<isize>()], 0..6)) {
            match infer_shape(size, &req) {
                Ok(out) => {
                    prop_assert_eq!(size_of(&out).unwrap(), size);
                    prop_assert_eq!(out.len(), req.len());
                    for (o, r) in out.iter().zip(&req) {
                        prop_assert!(*r == -1 || *o as isize == *r);
                    }
                }
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::Shape),
            }
        }

        #[test]
        fn nocopy_reshape_never_panics(shape in shape_strat(6), strides in strides_strat(6), new in shape_strat(6)) {
            match nocopy_reshape(&shape, &strides, &new) {
                Ok(Some(st)) => {
                    prop_assert_eq!(st.len(), new.len());
                    prop_assert_eq!(size_of(&shape).unwrap(), size_of(&new).unwrap());
                }
                Ok(None) => prop_assert_eq!(size_of(&shape).unwrap(), size_of(&new).unwrap()),
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::Shape),
            }
        }

        #[test]
        fn nocopy_reshape_preserves_element_order(
            (shape, strides) in view_strat(),
            split in proptest::collection::vec(1usize..5, 0..4),
            ones in proptest::collection::vec(any::<bool>(), 0..4),
        ) {
            // a new shape of the same size: some factors of the size, the rest last
            let size: usize = shape.iter().product();
            let mut new = Vec::new();
            let mut rest = size;
            for k in split {
                if k > 1 && rest.is_multiple_of(k) {
                    new.push(k);
                    rest /= k;
                }
            }
            new.push(rest);
            for (i, one) in ones.iter().enumerate() {
                if *one { new.insert(i.min(new.len()), 1); }
            }
            match nocopy_reshape(&shape, &strides, &new).unwrap() {
                Some(ns) => prop_assert_eq!(flat_offsets(&shape, &strides), flat_offsets(&new, &ns)),
                None => prop_assert!(!is_c_contiguous(&shape, &strides).unwrap()),
            }
            // a contiguous layout always reshapes, to C strides on every axis of extent > 1
            let c = c_strides(&shape).unwrap();
            let ns = nocopy_reshape(&shape, &c, &new).unwrap().unwrap();
            let cn = c_strides(&new).unwrap();
            for i in 0..new.len() {
                prop_assert!(new[i] == 1 || ns[i] == cn[i] || size <= 1);
            }
        }

        #[test]
        fn merge_never_panics(shape in shape_strat(6), a in strides_strat(6), b in strides_strat(6)) {
            match merge_dims(&shape, &[&a, &b]) {
                Ok((ms, mst)) => {
                    prop_assert_eq!(mst.len(), 2);
                    prop_assert!(mst.iter().all(|s| s.len() == ms.len()));
                    let msize: usize = ms.iter().product();
                    prop_assert_eq!(msize, size_of(&shape).unwrap().max(usize::from(ms.is_empty())));
                }
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::Shape),
            }
        }

        #[test]
        fn merge_preserves_offsets((shape, strides) in view_strat(), flip in any::<bool>()) {
            // a partner operand: C-contiguous or reversed
            let c: Vec<isize> = c_strides(&shape).unwrap().iter().map(|&s| if flip { -s } else { s }).collect();
            let (ms, mst) = merge_dims(&shape, &[&strides, &c]).unwrap();
            for (k, st) in [&strides, &c].iter().enumerate() {
                let merged = if ms.is_empty() { vec![0] } else { flat_offsets(&ms, &mst[k]) };
                let orig = if shape.is_empty() { vec![0] } else { flat_offsets(&shape, st) };
                if shape.contains(&0) {
                    prop_assert_eq!(ms.as_slice(), &[0]);
                } else {
                    prop_assert_eq!(orig, merged);
                }
            }
        }

        #[test]
        fn axes_normalize_or_fail(axis in any::<isize>(), ndim in prop_oneof![0usize..70, any::<usize>()]) {
            match normalize_axis(axis, ndim) {
                Ok(a) => {
                    prop_assert!(a < ndim);
                    prop_assert_eq!(a as i128, if axis < 0 { axis as i128 + ndim as i128 } else { axis as i128 });
                }
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::Shape),
            }
        }

        #[test]
        fn ranges_stay_inside_the_axis(
            len in prop_oneof![0usize..12, Just(isize::MAX as usize), any::<usize>()],
            start in proptest::option::of(stride()),
            end in proptest::option::of(stride()),
            step in stride(),
        ) {
            match resolve_range(len, start, end, step) {
                Ok((first, count)) => {
                    prop_assert!(count as u128 <= len as u128);
                    if count > 0 {
                        let last = first as i128 + (count as i128 - 1) * step as i128;
                        prop_assert!((0..len as i128).contains(&(first as i128)));
                        prop_assert!((0..len as i128).contains(&last));
                    }
                }
                Err(e) => prop_assert!(matches!(e.kind(), ErrorKind::Shape | ErrorKind::InvalidArgument)),
            }
        }
    }

    proptest! {
        #[test]
        fn small_ranges_match_python(len in 0usize..12, start in proptest::option::of(-15isize..15), end in proptest::option::of(-15isize..15), step in prop_oneof![-5isize..0, 1isize..6]) {
            // CPython's slice.indices, then the positions of range(start, stop, step)
            let n = len as isize;
            let (lo, hi) = if step < 0 { (-1, n - 1) } else { (0, n) };
            let norm = |v: Option<isize>, d: isize| match v {
                None => d,
                Some(v) if v < 0 => (v + n).max(lo),
                Some(v) => v.min(hi),
            };
            let s = norm(start, if step < 0 { hi } else { lo });
            let e = norm(end, if step < 0 { lo } else { hi });
            let positions: Vec<isize> = if step > 0 {
                (s..e.max(s)).step_by(step as usize).collect()
            } else {
                let mut v = Vec::new();
                let mut i = s;
                while i > e { v.push(i); i += step; }
                v
            };
            let (first, count) = resolve_range(len, start, end, step).unwrap();
            prop_assert_eq!(count, positions.len());
            if count > 0 { prop_assert_eq!(first, positions[0]); }
        }
    }
}
