//! Built-in operations on arrays. Elementwise ones are
//! [`ElementwiseKernel`](crate::ElementwiseKernel)s and reductions
//! [`ReductionKernel`](crate::ReductionKernel)s (no separate launch path); `matmul` and
//! `dot` call cuBLAS.
//!
//! Unlike user kernels these follow NumPy: operands broadcast, dtypes promote
//! ([`promote_types`]), and Rust scalars are *weak* — `f32_array * 2.0` stays float32,
//! `i32_array * 0.5` becomes float64, `u8_array + 300` is an error (300 does not fit).
//! Operators work on `&Array` and return `Result<Array>`:
//!
//! ```no_run
//! use cuprum::{Array, DType, ops, ops::Keepdims};
//! let x = Array::from_slice(&[1.0f32, -2.0, 3.0], &[3])?;
//! let y = (&x * 2.0)?;                                  // float32
//! let z = ops::maximum(&y, 0.0)?;                        // relu
//! let m = ops::less(&x, 0.0)?;                           // bool mask
//! let w = ops::where_(&m, 0.0, &x)?;
//! assert_eq!(w.to_vec::<f32>()?, vec![1.0, 0.0, 3.0]);
//! assert_eq!((&x + 1i32)?.dtype(), DType::F32);
//! let total = ops::sum(&x)?;                             // a 0-d array
//! let rows = ops::mean_axis(&x.reshape(&[3, 1])?, 1, Keepdims::No)?;
//! assert!(ops::allclose(&x, &x)?);
//! # Ok::<(), cuprum::Error>(())
//! ```
//!
//! Reductions (`sum`, `prod`, `mean`, `var`, `std`, `max`, `min`, `argmax`, `argmin`,
//! `all`, `any`, `count_nonzero`) are [`ReductionKernel`](crate::ReductionKernel)s: each
//! has a full form (`sum(&a)`, a 0-d result) and an axis form
//! (`sum_axis(&a, axis, Keepdims::No)`). Result dtypes follow NumPy: integer sums and products
//! are int64 (uint64 for unsigned), means/variances of integers float64; float16 and
//! bfloat16 accumulate in float32; `var`/`std` use one pass with Welford merges (ddof 0).

mod close;
mod elementwise;
mod linalg;
mod methods;
mod operators;
pub(crate) mod promote;
pub(crate) mod reduction;
pub(crate) mod ufunc;
// Array routines (issue 16): scans, masks and gathers, sorts, joins.
mod compact;
mod indexing;
mod join;
mod masked;
mod programs;
mod scan;
mod sort;
mod unique;

#[doc(hidden)]
pub use elementwise::sample_sources as elementwise_sample_sources;
pub use indexing::{
    IndexMode, compress, flatnonzero, nonzero, put, put_with, scatter_add, take, take_with,
    where_nonzero,
};
pub use join::{Split, array_split, concatenate, split, stack};
pub use linalg::{dot, matmul};
pub use masked::Masked;
pub use promote::{can_cast_safe, promote_types, result_type_of};
#[doc(hidden)]
pub use reduction::sample_sources as reduction_sample_sources;
pub use scan::{cumprod, cumsum};
pub use sort::{argsort, sort};
pub use unique::{unique, unique_counts, unique_inverse};

/// Every routine kernel's source for NVRTC compile checks (scans, compaction, sorts,
/// gathers and scatters, for every dtype).
#[doc(hidden)]
pub fn routine_sample_sources() -> Result<Vec<(String, String)>> {
    let mut v = scan::sample_sources();
    v.extend(compact::sample_sources());
    v.extend(indexing::sample_sources());
    v.extend(sort::sample_sources());
    v.extend(indexing::elementwise_sources()?);
    v.extend(unique::elementwise_sources()?);
    Ok(v)
}

use crate::array::Array;
use crate::error::Result;
pub use crate::kernel::Keepdims;
use crate::kernel::{Axes, IntoOperand};
pub use close::Tolerance;
use elementwise::{Op, binary_of, unary};
use reduction::{ROp, reduce};

macro_rules! binary_fns {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: impl IntoOperand, b: impl IntoOperand) -> Result<Array> {
            binary_of(Op::$op, &a, &b)
        }
    )*};
}

binary_fns! {
    /// `a + b` (bool: logical or).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2], &[2])?;
    /// assert_eq!(ops::add(&a, 10i32)?.to_vec::<i32>()?, vec![11, 12]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    add => Add;
    /// `a - b` (an error for bool, as in NumPy).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f64, 2.5], &[2])?;
    /// assert_eq!(ops::subtract(&a, 1.0)?.to_vec::<f64>()?, vec![0.5, 1.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    subtract => Sub;
    /// `a * b` (bool: logical and).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.5f32, 2.0], &[2])?;
    /// assert_eq!(ops::multiply(&a, &a)?.to_vec::<f32>()?, vec![2.25, 4.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    multiply => Mul;
    /// True division `a / b`: integers and bools give float64, as in NumPy.
    ///
    /// ```no_run
    /// # use cuprum::{Array, DType, ops};
    /// let a = Array::from_slice(&[1i32, 3], &[2])?;
    /// let q = ops::divide(&a, 2i32)?;
    /// assert_eq!((q.dtype(), q.to_vec::<f64>()?), (DType::F64, vec![0.5, 1.5]));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    divide => Div;
    /// NumPy's `remainder` (`%`): the result has the sign of the divisor; integer
    /// division by zero gives 0.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-7i32, 7], &[2])?;
    /// assert_eq!(ops::remainder(&a, 3i32)?.to_vec::<i32>()?, vec![2, 1]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    remainder => Rem;
    /// `a ** b`. Integer powers are exact; a negative integer exponent gives 0 (except
    /// for bases 1 and -1) where NumPy raises. A scalar exponent 2 or 3 is computed as
    /// multiplications and 0.5 as a square root (as NumPy's `**`): `power(&d, 2)` costs what
    /// `multiply(&d, &d)` costs.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[2i64, 3], &[2])?;
    /// assert_eq!(ops::power(&a, 3i64)?.to_vec::<i64>()?, vec![8, 27]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    power => Pow;
    /// Elementwise maximum; NaN propagates.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::maximum(&a, 0.0)?.to_vec::<f32>()?, vec![0.0, 2.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    maximum => Maximum;
    /// Elementwise minimum; NaN propagates.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-1.0f32, 2.0], &[2])?;
    /// assert_eq!(ops::minimum(&a, 0.0)?.to_vec::<f32>()?, vec![-1.0, 0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    minimum => Minimum;
    /// `a == b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::equal(&a, 2i8)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    equal => Equal;
    /// `a != b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i8, 2], &[2])?;
    /// assert_eq!(ops::not_equal(&a, 2i8)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    not_equal => NotEqual;
    /// `a < b` as a bool array (complex numbers compare lexicographically).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less(&a, 1.5)?.to_vec::<bool>()?, vec![true, false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less => Less;
    /// `a <= b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::less_equal(&a, 2.0)?.to_vec::<bool>()?, vec![true, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    less_equal => LessEqual;
    /// `a > b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::greater(&a, 1.5)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    greater => Greater;
    /// `a >= b` as a bool array.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(ops::greater_equal(&a, 2.0)?.to_vec::<bool>()?, vec![false, true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    greater_equal => GreaterEqual;
}

macro_rules! unary_fns {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            unary(Op::$op, a)
        }
    )*};
}

unary_fns! {
    /// `-a` (an error for bool; unsigned integers wrap).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i16, -2], &[2])?;
    /// assert_eq!(ops::negative(&a)?.to_vec::<i16>()?, vec![-1, 2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    negative => Neg;
    /// Absolute value; complex input gives the real magnitude (complex64 → float32).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let z = Array::from_slice(&[num_complex::Complex::new(3.0f64, 4.0)], &[1])?;
    /// assert_eq!(ops::abs(&z)?.to_vec::<f64>()?, vec![5.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    abs => Abs;
    /// Square root (integers compute in the float type NumPy picks: int8 → float16,
    /// int16 → float32, int32/int64 → float64).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[4.0f32, 9.0], &[2])?;
    /// assert_eq!(ops::sqrt(&a)?.to_vec::<f32>()?, vec![2.0, 3.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sqrt => Sqrt;
    /// `e^a`.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f64], &[1])?;
    /// assert_eq!(ops::exp(&a)?.to_vec::<f64>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    exp => Exp;
    /// Natural logarithm.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64], &[1])?;
    /// assert_eq!(ops::log(&a)?.to_vec::<f64>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    log => Log;
    /// Sine.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::sin(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sin => Sin;
    /// Cosine.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::cos(&a)?.to_vec::<f32>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    cos => Cos;
    /// Tangent.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::tan(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    tan => Tan;
    /// Hyperbolic tangent.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[0.0f32], &[1])?;
    /// assert_eq!(ops::tanh(&a)?.to_vec::<f32>()?, vec![0.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    tanh => Tanh;
}

/// Limits values to `[lo, hi]` (either bound an array or a scalar; NaN propagates).
///
/// ```no_run
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[-1.0f32, 0.5, 9.0], &[3])?;
/// assert_eq!(ops::clip(&a, 0.0, 6.0)?.to_vec::<f32>()?, vec![0.0, 0.5, 6.0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn clip(a: impl IntoOperand, lo: impl IntoOperand, hi: impl IntoOperand) -> Result<Array> {
    elementwise::clip(a.operand(), lo.operand(), hi.operand())
}

/// `x` where `cond` is non-zero, else `y` (NumPy's `where`; all three broadcast).
///
/// ```no_run
/// # use cuprum::{Array, ops};
/// let c = Array::from_slice(&[true, false], &[2])?;
/// assert_eq!(ops::where_(&c, 1i32, -1i32)?.to_vec::<i32>()?, vec![1, -1]);
/// let x = Array::from_slice(&[1i32, 2], &[2])?;
/// assert_eq!(ops::where_(&c, &x, -1i32)?.to_vec::<i32>()?, vec![1, -1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[doc(alias = "where")]
pub fn where_(cond: impl IntoOperand, x: impl IntoOperand, y: impl IntoOperand) -> Result<Array> {
    elementwise::where_(cond.operand(), x.operand(), y.operand())
}

macro_rules! reductions {
    ($($(#[$doc:meta])* $name:ident, $axis_name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(a: &Array) -> Result<Array> {
            reduce(ROp::$op, a, None, false)
        }

        #[doc = concat!("[`", stringify!($name), "`](crate::ops::", stringify!($name), "()) over `axis` (one axis, several, negative ones \
            counting from the end); [`Keepdims::Yes`] keeps reduced axes with extent 1.")]
        ///
        /// ```no_run
        /// # use cuprum::{Array, DType, ops, ops::Keepdims};
        /// let m = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        #[doc = concat!("let r = ops::", stringify!($axis_name), "(&m, 1, Keepdims::No)?;")]
        /// assert_eq!(r.shape(), &[2]);
        #[doc = concat!("let k = ops::", stringify!($axis_name), "(&m, [0, 1], Keepdims::Yes)?;")]
        /// assert_eq!(k.shape(), &[1, 1]);
        /// # Ok::<(), cuprum::Error>(())
        /// ```
        pub fn $axis_name(a: &Array, axis: impl Into<Axes>, keepdims: Keepdims) -> Result<Array> {
            reduce(ROp::$op, a, Some(axis.into()), keepdims.keeps())
        }
    )*};
}

reductions! {
    /// Sum of every element (a 0-d array; integers sum in int64, unsigned in uint64).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2, 3], &[3])?;
    /// assert_eq!(ops::sum(&a)?.to_vec::<i64>()?, vec![6]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    sum, sum_axis => Sum;
    /// Product of every element.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[2.0f64, 3.0, 4.0], &[3])?;
    /// assert_eq!(ops::prod(&a)?.to_vec::<f64>()?, vec![24.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    prod, prod_axis => Prod;
    /// Arithmetic mean (float64 for integer input).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1i32, 2, 3, 4], &[4])?;
    /// assert_eq!(ops::mean(&a)?.to_vec::<f64>()?, vec![2.5]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    mean, mean_axis => Mean;
    /// Population variance (ddof 0), one pass (Welford merges in a fixed order).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[4])?;
    /// assert_eq!(ops::var(&a)?.to_vec::<f64>()?, vec![1.25]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    var, var_axis => Var;
    /// Population standard deviation (ddof 0).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f64, 3.0], &[2])?;
    /// assert_eq!(ops::std(&a)?.to_vec::<f64>()?, vec![1.0]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    std, std_axis => Std;
    /// Largest element (NaN propagates; an error for an empty array).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i8, 7, 2], &[3])?;
    /// assert_eq!(ops::max(&a)?.to_vec::<i8>()?, vec![7]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    max, max_axis => Max;
    /// Smallest element (NaN propagates; an error for an empty array).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[-3i8, 7, 2], &[3])?;
    /// assert_eq!(ops::min(&a)?.to_vec::<i8>()?, vec![-3]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    min, min_axis => Min;
    /// Whether every element is non-zero.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1u8, 0], &[2])?;
    /// assert_eq!(ops::all(&a)?.to_vec::<bool>()?, vec![false]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    all, all_axis => All;
    /// Whether any element is non-zero.
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1u8, 0], &[2])?;
    /// assert_eq!(ops::any(&a)?.to_vec::<bool>()?, vec![true]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    any, any_axis => Any;
    /// Number of non-zero elements (int64).
    ///
    /// ```no_run
    /// # use cuprum::{Array, ops};
    /// let a = Array::from_slice(&[1.0f32, 0.0, 2.0], &[3])?;
    /// assert_eq!(ops::count_nonzero(&a)?.to_vec::<i64>()?, vec![2]);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    count_nonzero, count_nonzero_axis => CountNonzero;
}

/// Index of the largest element in C order (int64, 0-d); the first one on ties, the first
/// NaN if there is one.
///
/// ```no_run
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 9.0, 9.0, 2.0], &[2, 2])?;
/// assert_eq!(ops::argmax(&a)?.to_vec::<i64>()?, vec![1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmax(a: &Array) -> Result<Array> {
    reduce(ROp::ArgMax, a, None, false)
}

/// Index of the largest element along one axis.
///
/// ```no_run
/// # use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[1.0f32, 9.0, 7.0, 2.0], &[2, 2])?;
/// assert_eq!(ops::argmax_axis(&a, 1, Keepdims::No)?.to_vec::<i64>()?, vec![1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmax_axis(a: &Array, axis: isize, keepdims: Keepdims) -> Result<Array> {
    reduce(ROp::ArgMax, a, Some(axis.into()), keepdims.keeps())
}

/// Index of the smallest element in C order (int64, 0-d); the first one on ties, the
/// first NaN if there is one.
///
/// ```no_run
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[4i32, -1, -1], &[3])?;
/// assert_eq!(ops::argmin(&a)?.to_vec::<i64>()?, vec![1]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmin(a: &Array) -> Result<Array> {
    reduce(ROp::ArgMin, a, None, false)
}

/// Index of the smallest element along one axis.
///
/// ```no_run
/// # use cuprum::{Array, ops, ops::Keepdims};
/// let a = Array::from_slice(&[4i32, -1, 0, 8], &[2, 2])?;
/// assert_eq!(ops::argmin_axis(&a, 0, Keepdims::No)?.to_vec::<i64>()?, vec![1, 0]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn argmin_axis(a: &Array, axis: isize, keepdims: Keepdims) -> Result<Array> {
    reduce(ROp::ArgMin, a, Some(axis.into()), keepdims.keeps())
}

/// Elementwise `|a - b| <= atol + rtol * |b|` as a bool array (NumPy's `isclose`); equal
/// infinities are close; NaNs are close to each other only with
/// [`nan_equal`](Tolerance::nan_equal).
///
/// ```no_run
/// # use cuprum::{Array, ops, ops::Tolerance};
/// let a = Array::from_slice(&[1.0f64, 2.0], &[2])?;
/// let c = ops::isclose(&a, 1.0 + 1e-9, Tolerance::new(1e-5, 1e-8))?;
/// assert_eq!(c.to_vec::<bool>()?, vec![true, false]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn isclose(a: impl IntoOperand, b: impl IntoOperand, tol: Tolerance) -> Result<Array> {
    close::isclose(&a, &b, tol.rtol, tol.atol, tol.equal_nan)
}

/// Whether every pair is close with NumPy's defaults (`rtol = 1e-5`, `atol = 1e-8`, NaNs
/// never close), in one reduction over the broadcast arrays.
///
/// ```no_run
/// # use cuprum::{Array, ops};
/// let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
/// let b = Array::from_slice(&[1.0f32, 2.000001], &[2])?;
/// assert!(ops::allclose(&a, &b)?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn allclose(a: &Array, b: &Array) -> Result<bool> {
    allclose_with(a, b, Tolerance::default())
}

/// [`allclose`] with explicit tolerances and NaN handling.
///
/// ```no_run
/// # use cuprum::{Array, ops, ops::Tolerance};
/// let a = Array::from_slice(&[f64::NAN, 1.0], &[2])?;
/// assert!(ops::allclose_with(&a, &a, Tolerance::new(0.0, 0.0).nan_equal())?);
/// assert!(!ops::allclose_with(&a, &a, Tolerance::new(0.0, 0.0))?);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn allclose_with(a: &Array, b: &Array, tol: Tolerance) -> Result<bool> {
    close::allclose(a, b, tol.rtol, tol.atol, tol.equal_nan)
}
