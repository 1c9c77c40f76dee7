//! `clip` with NumPy's missing bounds: [`ClipBound`] (what a bound may be — a value, an
//! array, `..` for NumPy's `None`, or an `Option`), [`clip`] and [`clip_into`].
//!
//! **Why `..` for a missing bound.** Rust has no `None` that fits an `impl IntoOperand`
//! parameter, and a bare `None` cannot name its type; NumPy users write
//! `np.clip(x, None, 5)`, so the call keeps NumPy's shape with the full range `..` in the
//! place of `None`: `ops::clip(&x, .., 5.0)` reads as "no lower bound". `ops::clip(&x, 0.0,
//! 6.0)` is unchanged, and an `Option` (`Some(lo)` / `None::<f32>`) serves bounds known only
//! at run time. `fuse`'s `Var::clip` takes the same forms.
//!
//! NumPy's `clip` (`numpy/_core/_methods.py`, `_clip`) is what this follows, step by step:
//! 1. for an integer array, a Rust (weak) integer bound at or beyond the dtype's range is
//!    dropped (`clip(u8, -1, 300)` is `u8` unchanged, where `u8 + 300` is an error);
//! 2. no bound at all: NumPy's `positive` — a copy (bool arrays are a dtype error, as
//!    `positive` has no bool loop);
//! 3. one bound: `maximum(a, lo)` or `minimum(a, hi)` (the result dtype promotes `a` with
//!    the given bound only);
//! 4. two bounds: `minimum(maximum(a, lo), hi)` in one kernel, so `lo > hi` gives `hi`.
//!
//! A NaN in `a` or in a bound gives NaN (CuPy ignores NaN bounds; see
//! docs/for-cupy-users.md). Complex arrays are refused (NumPy orders them
//! lexicographically; cuprum's `maximum`/`minimum` do not support them).

use super::elementwise::{self, Op, What, binary_to, param_dtype};
use super::promote::result_type;
use crate::array::{Array, DType, DTypeKind, Scalar};
use crate::error::{Result, bail};
use crate::kernel::{IntoOperand, Operand};
use std::ops::RangeFull;

/// A bound of [`clip`]: any operand (a Rust scalar, an `&Array`), `..` for no bound
/// (NumPy's `None`), or an `Option` of an operand (`None` is no bound).
///
/// Why `..`: Rust has no untyped `None` for a generic parameter (`clip(&x, None, 5.0)`
/// cannot tell what the `None` would hold), while `..` — the range with no ends — needs no
/// type and reads as "unbounded" in the place where NumPy's `None` goes, so a NumPy call
/// keeps its shape: `np.clip(x, None, 5)` is `ops::clip(&x, .., 5.0)`. A bound that exists
/// only sometimes is an `Option` (`Some(lo)`, or `None::<f32>` when written out).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, ops};
/// let x = Array::from_slice(&[-2.0f32, 3.0, 9.0], &[3])?;
/// assert_eq!(ops::clip(&x, .., 5.0)?.to_vec::<f32>()?, vec![-2.0, 3.0, 5.0]);
/// let lo: Option<f32> = Some(0.0);
/// assert_eq!(ops::clip(&x, lo, ..)?.to_vec::<f32>()?, vec![0.0, 3.0, 9.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub trait ClipBound {
    /// The bound as an operand; `None` when there is none.
    #[doc(hidden)]
    fn bound(&self) -> Option<Operand<'_>>;
}

impl<T: IntoOperand> ClipBound for T {
    fn bound(&self) -> Option<Operand<'_>> {
        Some(self.operand())
    }
}

/// `..`: no bound on this side (NumPy's `None`).
impl ClipBound for RangeFull {
    fn bound(&self) -> Option<Operand<'_>> {
        None
    }
}

/// `Some(v)`: the bound `v`; `None`: no bound.
impl<T: IntoOperand> ClipBound for Option<T> {
    fn bound(&self) -> Option<Operand<'_>> {
        self.as_ref().map(IntoOperand::operand)
    }
}

/// Limits values to `[lo, hi]`; either bound an array, a scalar, or `..` for none (NumPy's
/// `clip(a, None, hi)` is `ops::clip(&a, .., hi)`). NaN in `a` or in a bound gives NaN;
/// `lo > hi` gives `hi`; for an integer array a Rust integer bound beyond its dtype's range
/// is ignored, as NumPy ignores a Python int bound there. With no bound at all the result
/// is a copy (bool arrays: a dtype error, as in NumPy). See [`ClipBound`].
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, DType, ops};
/// let a = Array::from_slice(&[-1.0f32, 0.5, 9.0], &[3])?;
/// assert_eq!(ops::clip(&a, 0.0, 6.0)?.to_vec::<f32>()?, vec![0.0, 0.5, 6.0]);
/// assert_eq!(ops::clip(&a, .., 6.0)?.to_vec::<f32>()?, vec![-1.0, 0.5, 6.0]);
/// assert_eq!(ops::clip(&a, 0.0, ..)?.to_vec::<f32>()?, vec![0.0, 0.5, 9.0]);
/// let u = Array::from_slice(&[3u8, 250], &[2])?;
/// let r = ops::clip(&u, -1, 300)?;                         // bounds beyond uint8: none
/// assert_eq!((r.dtype(), r.to_vec::<u8>()?), (DType::U8, vec![3, 250]));
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn clip(a: impl IntoOperand, lo: impl ClipBound, hi: impl ClipBound) -> Result<Array> {
    clip_to(a.operand(), lo.bound(), hi.bound(), None)
}

/// [`clip`] written into `out` (NumPy's `out=`; broadcasting, `same_kind` casting and
/// overlap as for the binary `_into` functions, e.g. [`add_into`](crate::ops::add_into)).
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[-1.0f32, 0.5, 9.0], &[3])?;
/// ops::clip_into(&a, 0.0, 6.0, &a)?;                       // in place
/// assert_eq!(a.to_vec::<f32>()?, vec![0.0, 0.5, 6.0]);
/// ops::clip_into(&a, .., 0.25, &a)?;
/// assert_eq!(a.to_vec::<f32>()?, vec![0.0, 0.25, 0.25]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn clip_into(
    a: impl IntoOperand,
    lo: impl ClipBound,
    hi: impl ClipBound,
    out: &Array,
) -> Result<()> {
    clip_to(a.operand(), lo.bound(), hi.bound(), Some(out)).map(drop)
}

/// Which side a bound limits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Low,
    High,
}

/// Whether `bound` is a Rust integer at or beyond the end of integer dtype `d`'s range on
/// `side` (NumPy drops such a Python int bound of an integer array).
fn beyond_range(bound: &Operand<'_>, d: DType, side: Side) -> bool {
    match bound {
        Operand::Scalar(s) => scalar_beyond_range(s, d, side == Side::Low),
        Operand::Array(_) | Operand::Record(_) | Operand::Texture(_) => false,
    }
}

/// Whether the weak scalar `s` is an integer at or beyond the low end (`low`) or the high
/// end of integer dtype `d`'s range: NumPy's `clip` drops such a bound (`fuse` too).
pub(crate) fn scalar_beyond_range(s: &Scalar, d: DType, low: bool) -> bool {
    let side = if low { Side::Low } else { Side::High };
    if !s.dtype().is_integer() || !d.is_integer() {
        return false;
    }
    let Some(v) = s.as_i128() else {
        return false;
    };
    let bits = 8 * d.itemsize() as u32;
    let (min, max) = if d.kind() == DTypeKind::SignedInt {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    match side {
        Side::Low => v <= min,
        Side::High => v >= max,
    }
}

/// The refusal of `clip` with neither bound for operands of dtype `c` (NumPy's
/// `positive` has no bool loop).
pub(crate) fn check_unbounded(c: DType) -> Result<()> {
    if c == DType::Bool {
        bail!(
            DType,
            "clip of a bool array with neither bound: NumPy computes `positive`, which has no \
             loop for bool (as in NumPy); give a bound or copy the array"
        );
    }
    Ok(())
}

/// `clip(a, lo, hi)` (a missing bound is `None`) into a new array, or into `out`.
pub(crate) fn clip_to(
    a: Operand<'_>,
    lo: Option<Operand<'_>>,
    hi: Option<Operand<'_>>,
    out: Option<&Array>,
) -> Result<Array> {
    let (lo, hi) = match a {
        Operand::Array(x) => (
            lo.filter(|b| !beyond_range(b, x.dtype(), Side::Low)),
            hi.filter(|b| !beyond_range(b, x.dtype(), Side::High)),
        ),
        Operand::Scalar(_) | Operand::Record(_) | Operand::Texture(_) => (lo, hi),
    };
    let given: Vec<Operand<'_>> = [Some(a), lo, hi].into_iter().flatten().collect();
    let c = result_type(&given)?;
    // Complex operands: the same refusal with or without bounds.
    Op::Clip.types(c)?;
    match (lo, hi) {
        (Some(lo), Some(hi)) => elementwise::clip_to(a, lo, hi, out),
        (Some(lo), None) => binary_to(Op::Maximum, a, lo, out),
        (None, Some(hi)) => binary_to(Op::Minimum, a, hi, out),
        (None, None) => {
            check_unbounded(c)?;
            let d = param_dtype(&a, c);
            elementwise::launch(
                What::Cast,
                "positive",
                &[d],
                c,
                || "a".to_owned(),
                &[a],
                out,
            )
        }
    }
}
