//! Rearranging elements: `flip` (a view with negative strides, no copy), `roll` (one copy
//! per block of the result: each element read and written once), `repeat` and `tile` (a
//! broadcast view of the input copied into a view of the result: each input element read
//! once, each output element written once).
//!
//! `repeat` with one count per element (when the counts differ) is one element-wise kernel
//! over the result: each output element finds its source by a binary search of the
//! counts' running sum (a small table the caches keep), then reads it.
//!
//! Everything that allocates runs inside `programs::on_device_of` its input, so that the
//! result lives where the input does.

use super::programs::elsewhere_then;
use crate::array::{Array, DType, SliceArg};
use crate::error::{Result, bail};
use crate::kernel::ElementwiseKernel;
use crate::shape::{MAX_NDIM, Shape, format_shape, normalize_axis};
use std::sync::OnceLock;

/// `a` reversed along `axes` (`None`: every axis), NumPy's `flip`: a view (negative
/// strides), no copy. A repeated axis is an error.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(0.0, 6.0, 1.0, DType::I32)?.reshape(&[2, 3])?;
/// assert_eq!(ops::flip(&a, None)?.to_vec::<i32>()?, vec![5, 4, 3, 2, 1, 0]);
/// let cols = ops::flip(&a, Some(&[-1]))?;
/// assert_eq!(cols.to_vec::<i32>()?, vec![2, 1, 0, 5, 4, 3]);
/// assert!(cols.shares_memory(&a));
/// assert!(ops::flip(&a, Some(&[0, 0])).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn flip(a: &Array, axes: Option<&[isize]>) -> Result<Array> {
    let nd = a.ndim();
    let mut rev = vec![false; nd];
    match axes {
        None => rev.iter_mut().for_each(|r| *r = true),
        Some(axes) => {
            for &x in axes {
                let ax = normalize_axis(x, nd)?;
                if std::mem::replace(&mut rev[ax], true) {
                    bail!(
                        InvalidArgument,
                        "repeated axis in `axis` argument: {axes:?}"
                    );
                }
            }
        }
    }
    let args: Vec<SliceArg> = rev
        .iter()
        .map(|&r| {
            if r {
                SliceArg::from(..).step(-1)
            } else {
                SliceArg::from(..)
            }
        })
        .collect();
    a.slice(&args)
}

/// `a` reversed along axis 1 (NumPy's `fliplr`; a view): at least 2 dimensions.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
/// assert_eq!(ops::fliplr(&a)?.to_vec::<i32>()?, vec![2, 1, 4, 3]);
/// assert!(ops::fliplr(&Array::from_slice(&[1i32], &[1])?).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn fliplr(a: &Array) -> Result<Array> {
    if a.ndim() < 2 {
        bail!(
            Shape,
            "Input must be >= 2-d. (given an array of {} dimension(s))",
            a.ndim()
        );
    }
    flip(a, Some(&[1]))
}

/// `a` reversed along axis 0 (NumPy's `flipud`; a view): at least 1 dimension.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
/// assert_eq!(ops::flipud(&a)?.to_vec::<i32>()?, vec![3, 4, 1, 2]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn flipud(a: &Array) -> Result<Array> {
    if a.ndim() < 1 {
        bail!(Shape, "Input must be >= 1-d. (given a 0-d array)");
    }
    flip(a, Some(&[0]))
}

/// `a` with its elements shifted by `shift` positions along `axis` (NumPy's `roll`;
/// `None`: over the flattened array, then reshaped back); elements that leave one end come
/// back at the other; a negative shift rolls the other way. A new array.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(0.0, 6.0, 1.0, DType::I64)?.reshape(&[2, 3])?;
/// assert_eq!(ops::roll(&a, 1, None)?.to_vec::<i64>()?, vec![5, 0, 1, 2, 3, 4]);
/// assert_eq!(ops::roll(&a, -1, Some(1))?.to_vec::<i64>()?, vec![1, 2, 0, 4, 5, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn roll(a: &Array, shift: isize, axis: Option<isize>) -> Result<Array> {
    match axis {
        Some(ax) => roll_axes(a, &[shift], &[ax]),
        None => {
            if let Some(r) = elsewhere_then(a, || roll(a, shift, axis)) {
                return r;
            }
            let flat = a.reshape_copy(&[-1])?;
            let rolled = roll_by(&flat, &[offset_of(shift, flat.size())])?;
            rolled.reshape(&signed_shape(a.shape()))
        }
    }
}

/// `a` rolled by `shifts[k]` along `axes[k]` (NumPy's `roll` with tuples): one shift for
/// every axis, or one axis for every shift, broadcast as NumPy does; shifts along a
/// repeated axis add up.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ops};
/// let a = Array::arange(0.0, 6.0, 1.0, DType::I32)?.reshape(&[2, 3])?;
/// let r = ops::roll_axes(&a, &[1, 1], &[0, 1])?;
/// assert_eq!(r.to_vec::<i32>()?, vec![5, 3, 4, 2, 0, 1]);
/// assert_eq!(ops::roll_axes(&a, &[1], &[1, 1])?.to_vec::<i32>()?, vec![1, 2, 0, 4, 5, 3]);
/// assert!(ops::roll_axes(&a, &[1, 2], &[0, 1, 1]).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn roll_axes(a: &Array, shifts: &[isize], axes: &[isize]) -> Result<Array> {
    if let Some(r) = elsewhere_then(a, || roll_axes(a, shifts, axes)) {
        return r;
    }
    let pairs = shifts.len().max(axes.len());
    if !(shifts.len() == axes.len() || shifts.len() == 1 || axes.len() == 1) {
        bail!(
            Shape,
            "shape mismatch: objects cannot be broadcast to a single shape. Mismatch is \
             between arg 0 with shape ({},) and arg 1 with shape ({},) (the shifts and the \
             axes of roll)",
            shifts.len(),
            axes.len()
        );
    }
    let nd = a.ndim();
    // Per axis: the total shift, modulo its length (i128: a sum of isizes never overflows).
    let mut total = vec![0i128; nd];
    for k in 0..pairs {
        let s = shifts[if shifts.len() == 1 { 0 } else { k }];
        let x = axes[if axes.len() == 1 { 0 } else { k }];
        total[normalize_axis(x, nd)?] += s as i128;
    }
    let offsets: Vec<usize> = total
        .iter()
        .zip(a.shape())
        .map(|(&s, &n)| s.rem_euclid(n.max(1) as i128) as usize)
        .collect();
    roll_by(a, &offsets)
}

/// A shift as an offset in `[0, n)` (0 when `n` is 0).
fn offset_of(shift: isize, n: usize) -> usize {
    (shift as i128).rem_euclid(n.max(1) as i128) as usize
}

fn signed_shape(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

/// A range of one axis as a slicing argument.
fn range(start: usize, end: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: 1,
    }
}

/// One block of a rolled axis: the source range and the destination range.
type Block = ((usize, usize), (usize, usize));

/// A new array holding `a` rolled by `offsets[d]` (in `[0, n_d)`) along every axis `d`: one
/// copy per block (two blocks per rolled axis), each element read and written once.
fn roll_by(a: &Array, offsets: &[usize]) -> Result<Array> {
    let out = Array::empty(a.shape(), a.dtype())?;
    if a.size() == 0 {
        return Ok(out);
    }
    // Per axis, the (source range, destination range) pairs.
    let parts: Vec<Vec<Block>> = offsets
        .iter()
        .zip(a.shape())
        .map(|(&off, &n)| {
            if off == 0 {
                vec![((0, n), (0, n))]
            } else {
                vec![((0, n - off), (off, n)), ((n - off, n), (0, off))]
            }
        })
        .collect();
    let mut pick = vec![0usize; parts.len()];
    loop {
        let (src, dst): (Vec<SliceArg>, Vec<SliceArg>) = pick
            .iter()
            .zip(&parts)
            .map(|(&p, ax)| {
                let ((s0, s1), (d0, d1)) = ax[p];
                (range(s0, s1), range(d0, d1))
            })
            .unzip();
        out.slice(&dst)?.assign(&a.slice(&src)?)?;
        // The next combination of parts (an odometer over the axes).
        let mut d = pick.len();
        loop {
            if d == 0 {
                return Ok(out);
            }
            d -= 1;
            pick[d] += 1;
            if pick[d] < parts[d].len() {
                break;
            }
            pick[d] = 0;
        }
    }
}

/// How many times `repeat` repeats each element: one count for all, or one per element
/// along the axis (NumPy's `repeats`; a list of one count applies to all). Made from any
/// integer or slice, array or `Vec` of integers.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops, ops::Repeats};
/// assert_eq!(Repeats::from(3), Repeats::All(3));
/// assert_eq!(Repeats::from(vec![1usize, 0, 2]), Repeats::Each(vec![1, 0, 2]));
/// let a = Array::from_slice(&[7u8, 8, 9], &[3])?;
/// let r = ops::repeat(&a, Repeats::Each(vec![1, 0, 2]), Some(0))?;
/// assert_eq!(r.to_vec::<u8>()?, vec![7, 9, 9]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repeats {
    /// Every element this many times.
    All(i64),
    /// Element `k` along the axis `counts[k]` times.
    Each(Vec<i64>),
}

/// An integer count as `i64` (a `usize` past `i64::MAX` saturates: no array is that long).
trait Count: Copy {
    fn count(self) -> i64;
}

macro_rules! repeats_from {
    ($($t:ty),*) => {$(
        impl Count for $t {
            fn count(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
        impl From<$t> for Repeats {
            fn from(r: $t) -> Repeats {
                Repeats::All(r.count())
            }
        }
        impl From<&[$t]> for Repeats {
            fn from(r: &[$t]) -> Repeats {
                Repeats::Each(r.iter().map(|&c| c.count()).collect())
            }
        }
        impl From<Vec<$t>> for Repeats {
            fn from(r: Vec<$t>) -> Repeats {
                Repeats::from(r.as_slice())
            }
        }
        impl<const N: usize> From<[$t; N]> for Repeats {
            fn from(r: [$t; N]) -> Repeats {
                Repeats::from(&r[..])
            }
        }
        impl<const N: usize> From<&[$t; N]> for Repeats {
            fn from(r: &[$t; N]) -> Repeats {
                Repeats::from(&r[..])
            }
        }
    )*};
}

repeats_from!(i32, i64, isize, u32, u64, usize);

/// Repeats each element of `a` along `axis` (NumPy's `repeat`; `None`: of the flattened
/// array): `repeats` is one count for every element, or one count per element along the
/// axis. Counts must not be negative.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i32, 2, 3, 4], &[2, 2])?;
/// assert_eq!(ops::repeat(&a, 2, None)?.to_vec::<i32>()?, vec![1, 1, 2, 2, 3, 3, 4, 4]);
/// let r = ops::repeat(&a, [1, 2], Some(0))?;
/// assert_eq!((r.shape(), r.to_vec::<i32>()?), (&[3usize, 2][..], vec![1, 2, 3, 4, 3, 4]));
/// assert!(ops::repeat(&a, -1, None).is_err());
/// assert!(ops::repeat(&a, [1, 2, 3], Some(1)).is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn repeat(a: &Array, repeats: impl Into<Repeats>, axis: Option<isize>) -> Result<Array> {
    repeat_impl(a, &repeats.into(), axis)
}

fn repeat_impl(a: &Array, repeats: &Repeats, axis: Option<isize>) -> Result<Array> {
    if let Some(r) = elsewhere_then(a, || repeat_impl(a, repeats, axis)) {
        return r;
    }
    let (a, ax) = match axis {
        None => (a.reshape_copy(&[-1])?, 0),
        Some(x) => (a.clone(), normalize_axis(x, a.ndim())?),
    };
    let n = a.shape()[ax];
    let counts: &[i64] = match repeats {
        Repeats::All(r) => std::slice::from_ref(r),
        Repeats::Each(v) => v,
    };
    if counts.len() != 1 && counts.len() != n {
        bail!(
            Shape,
            "operands could not be broadcast together with shape ({n},) ({},) (repeats must \
             have one count, or the same length as the axis: {n})",
            counts.len()
        );
    }
    if let Some(&c) = counts.iter().find(|&&c| c < 0) {
        bail!(
            InvalidArgument,
            "repeats may not contain negative values. (given {c})"
        );
    }
    let uniform = counts.first().filter(|&&c| counts.iter().all(|&x| x == c));
    let (pre, post): (usize, usize) = (
        a.shape()[..ax].iter().product(),
        a.shape()[ax + 1..].iter().product(),
    );
    if let Some(&r) = uniform.or(if n == 0 { Some(&0) } else { None }) {
        let r = r as usize;
        let Some(len) = n.checked_mul(r) else {
            bail!(
                Shape,
                "repeat: {n} elements repeated {r} times do not fit an array"
            );
        };
        let mut shape = Shape::from_slice(a.shape());
        shape[ax] = len;
        let out = Array::empty(&shape, a.dtype())?;
        if out.size() > 0 {
            // out[.., j * r + q, ..] = a[.., j, ..]: out viewed [pre, n, r, post], a broadcast.
            let three = [pre as isize, n as isize, post as isize];
            let (a3, k) = match a.reshape(&three) {
                Ok(v) => (v, 1),
                Err(_) if a.ndim() < MAX_NDIM => (a.clone(), ax),
                Err(_) => (a.reshape_copy(&three)?, 1),
            };
            let src = a3.expand_dims(k as isize + 1)?;
            let mut wide = Shape::from_slice(src.shape());
            wide[k + 1] = r;
            out.reshape(&signed_shape(&wide))?
                .assign(&src.broadcast_to(&wide)?)?;
        }
        return Ok(out);
    }
    // Different counts: the running sum on the device, one gather kernel over the result.
    let mut offsets = Vec::with_capacity(n + 1);
    let mut total = 0i64;
    offsets.push(0i64);
    for &c in counts {
        let Some(t) = total.checked_add(c) else {
            bail!(
                Shape,
                "repeat: the counts add up past what an array can hold"
            );
        };
        total = t;
        offsets.push(total);
    }
    let mut shape = Shape::from_slice(a.shape());
    shape[ax] = total as usize;
    let out = Array::empty(&shape, a.dtype())?;
    if out.size() > 0 {
        let a3 = a.reshape_copy(&[pre as isize, n as isize, post as isize])?;
        let offs = Array::from_slice(&offsets, &[n + 1])?;
        let out3 = out.reshape(&[pre as isize, total as isize, post as isize])?;
        repeat_each_kernel()?.call((&a3, &offs, n as i64, total, post as i64, &out3))?;
    }
    Ok(out)
}

/// `out[r, j, p] = a[r, s, p]` where `offs[s] <= j < offs[s + 1]` (the running sum of the
/// counts; a binary search per element).
fn repeat_each_kernel() -> Result<&'static ElementwiseKernel> {
    static K: OnceLock<Result<ElementwiseKernel>> = OnceLock::new();
    K.get_or_init(|| {
        ElementwiseKernel::new(
            "raw T a, raw int64 offs, int64 n, int64 total, int64 post",
            "T out",
            "const cuprum_idx_t rep_i = (cuprum_idx_t)i, rep_post = (cuprum_idx_t)post, \
               rep_total = (cuprum_idx_t)total; \
             const cuprum_idx_t rep_q = rep_i / rep_post, rep_r = rep_q / rep_total; \
             const long long rep_j = (long long)(rep_q - rep_r * rep_total); \
             long long rep_lo = 0, rep_hi = n; \
             while (rep_hi - rep_lo > 1) { \
               const long long rep_mid = (rep_lo + rep_hi) >> 1; \
               if (offs[rep_mid] <= rep_j) rep_lo = rep_mid; else rep_hi = rep_mid; \
             } \
             const long long rep_pos[3] = {(long long)rep_r, rep_lo, \
               (long long)(rep_i - rep_q * rep_post)}; \
             out = a.at(rep_pos)",
            "cuprum_repeat_each",
        )
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// `a` tiled `reps[d]` times along every axis (NumPy's `tile`): with fewer `reps` than
/// dimensions the leading axes take 1, with more `a` gains leading axes of extent 1. Always
/// a new array.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1i32, 2], &[2])?;
/// assert_eq!(ops::tile(&a, &[3])?.to_vec::<i32>()?, vec![1, 2, 1, 2, 1, 2]);
/// let t = ops::tile(&a, &[2, 2])?;
/// assert_eq!((t.shape(), t.to_vec::<i32>()?), (&[2usize, 4][..], vec![1, 2, 1, 2, 1, 2, 1, 2]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn tile(a: &Array, reps: &[usize]) -> Result<Array> {
    if let Some(r) = elsewhere_then(a, || tile(a, reps)) {
        return r;
    }
    let nd = a.ndim().max(reps.len());
    // `a` with leading axes of extent 1, and one count per axis.
    let mut c = a.clone();
    while c.ndim() < nd {
        c = c.expand_dims(0)?;
    }
    let reps: Vec<usize> = std::iter::repeat_n(1, nd - reps.len())
        .chain(reps.iter().copied())
        .collect();
    let mut shape = Shape::new();
    for (&s, &r) in c.shape().iter().zip(&reps) {
        let Some(len) = s.checked_mul(r) else {
            bail!(
                Shape,
                "tile: {} tiled {reps:?} times does not fit an array",
                format_shape(a.shape())
            );
        };
        shape.push(len);
    }
    let out = Array::empty(&shape, a.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let tiled = reps.iter().filter(|&&r| r != 1).count();
    if nd + tiled <= MAX_NDIM {
        // out viewed [r0, s0, r1, s1, …] (an axis per count other than 1), c broadcast
        // along the count axes: one copy.
        let (mut wide, mut src) = (Vec::new(), c.clone());
        for (&s, &r) in c.shape().iter().zip(&reps) {
            if r != 1 {
                src = src.expand_dims(wide.len() as isize)?;
                wide.push(r);
            }
            wide.push(s);
        }
        out.reshape(&signed_shape(&wide))?
            .assign(&src.broadcast_to(&wide)?)?;
        return Ok(out);
    }
    // Too many axes for one view: one axis at a time, each a 4-d copy.
    let mut cur = c.to_contiguous()?;
    for d in 0..nd {
        let r = reps[d];
        if r == 1 {
            continue;
        }
        let pre: usize = cur.shape()[..d].iter().product();
        let post: usize = cur.shape()[d + 1..].iter().product();
        let s = cur.shape()[d];
        let mut next_shape = Shape::from_slice(cur.shape());
        next_shape[d] = s * r;
        let next = Array::empty(&next_shape, a.dtype())?;
        let src = cur
            .reshape(&[pre as isize, 1, s as isize, post as isize])?
            .broadcast_to(&[pre, r, s, post])?;
        next.reshape(&[pre as isize, r as isize, s as isize, post as isize])?
            .assign(&src)?;
        cur = next;
    }
    Ok(cur)
}

impl Array {
    /// Repeats each element ([`ops::repeat`](crate::ops::repeat)).
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// use cuprum::Array;
    /// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
    /// assert_eq!(a.repeat([2, 0], None)?.to_vec::<f32>()?, vec![1.0, 1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn repeat(&self, repeats: impl Into<Repeats>, axis: Option<isize>) -> Result<Array> {
        repeat(self, repeats, axis)
    }
}

/// The element-wise kernels of this file, for compile checks (every dtype).
pub(crate) fn elementwise_sources() -> Result<Vec<(String, String)>> {
    let k = repeat_each_kernel()?;
    DType::ALL
        .iter()
        .map(|&d| {
            Ok((
                format!("cuprum_repeat_each {}", d.name()),
                k.generated_source(
                    &[d, DType::I64, DType::I64, DType::I64, DType::I64, d],
                    &[false, false, true, true, true, false],
                )?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_wrap_both_ways() {
        assert_eq!(offset_of(1, 5), 1);
        assert_eq!(offset_of(-1, 5), 4);
        assert_eq!(offset_of(12, 5), 2);
        assert_eq!(
            offset_of(isize::MIN, 7),
            (isize::MIN as i128).rem_euclid(7) as usize
        );
        assert_eq!(offset_of(3, 0), 0);
    }

    #[test]
    fn repeats_from_integers_and_lists() {
        assert_eq!(Repeats::from(3), Repeats::All(3));
        assert_eq!(Repeats::from(usize::MAX), Repeats::All(i64::MAX));
        assert_eq!(Repeats::from([1u32, 2]), Repeats::Each(vec![1, 2]));
        assert_eq!(Repeats::from(vec![-1isize]), Repeats::Each(vec![-1]));
    }
}
